//! Reusable views.

pub mod gantt;
pub mod hasse;
pub mod svg;
