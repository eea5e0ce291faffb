//! Reusable views.

pub mod gantt;
pub mod hasse;
