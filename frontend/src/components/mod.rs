//! Reusable views.

pub mod analysis;
pub mod chips;
pub mod filter_bar;
pub mod gantt;
pub mod hasse;
pub mod replay;
pub mod svg;
pub mod topology;
pub mod view_help;
