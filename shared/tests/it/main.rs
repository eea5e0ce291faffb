//! Integration tests of the `shared` crate: importers, model, pairing, states, invariants.

mod analysis;
mod analysis2;
mod budget;
mod chrome_rules;
mod compare;
mod diagnostics;
mod figures;
mod fuzz;
mod importers;
mod invariants;
mod lazy_viewport;
mod native_format;
mod npt_tree;
mod otf2_archive;
mod pairing;
mod paraver;
mod projections;
mod rankings;
mod selection;
mod states;
mod streaming;
mod text_formats;
mod topology;
mod viewport;
mod wild;

use std::path::PathBuf;

use shared::Trace;

/// A test trace under `shared/tests/data/`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads and parses a test trace under `shared/tests/data/`.
pub fn load(name: &str) -> Trace {
    let bytes = std::fs::read(data_path(name)).expect("test data is readable");
    shared::formats::import(&bytes, None, name)
        .expect("test data parses")
        .trace
}

/// The report `tracescope analyze --json` prints for a test trace under `shared/tests/data/`.
pub fn report(name: &str) -> shared::report::Report {
    let bytes = std::fs::read(data_path(name)).expect("test data is readable");
    let imported = shared::formats::import(&bytes, None, name).expect("test data parses");
    let cx = shared::graph::context::Context::new(&imported.trace);
    shared::report::build(
        &cx,
        &shared::analyses::waits::wait_states(&cx),
        &shared::report::ReportRequest {
            file: name,
            format: imported.format,
            notes: &imported.notes,
            options: shared::analyses::metrics::AnalysisOptions::default(),
        },
    )
}
