//! One module per route.

pub mod home;
pub mod run;
pub mod simulate;
