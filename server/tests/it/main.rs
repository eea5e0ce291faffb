//! Integration tests of the server: the HTTP API on a real store (SQLite, or PostgreSQL when
//! `TRACESCOPE_TEST_ENGINE=postgres`: see `store`), and the CLI.

mod api;
mod cli;
mod durability;
mod engines;
mod hardening;
mod store;

use std::path::PathBuf;

/// A shared test trace by name.
pub fn shared_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .join("shared/tests/data")
        .join(name)
}
