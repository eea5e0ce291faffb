//! One module per route.

pub mod compare;
pub mod home;
pub mod run;
pub mod simulate;
