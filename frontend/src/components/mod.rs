//! Reusable views.

pub mod gantt;
