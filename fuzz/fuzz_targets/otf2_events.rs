//! The OTF2 sample archive with the fuzzer's bytes as one location's event file (the input
//! an OTF2 upload most often gets wrong), then the analyses.
#![no_main]

use std::collections::BTreeMap;
use std::sync::LazyLock;

const ARCHIVE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..", "/shared/tests/data/traces/otf2/pipit-ping-pong-otf2/");

/// The sample archive's other files, read once.
static FILES: LazyLock<BTreeMap<String, Vec<u8>>> = LazyLock::new(|| {
    ["traces.otf2", "traces.def", "traces/0.def", "traces/1.def", "traces/1.evt"]
        .into_iter()
        .map(|name| (name.to_owned(), std::fs::read(format!("{ARCHIVE}{name}")).unwrap_or_default()))
        .collect()
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut files = FILES.clone();
    files.insert("traces/0.evt".to_owned(), data.to_vec());
    if let Ok(imported) = shared::formats::import_files(&files, "fuzz", &shared::formats::Budget::default()) {
        let _ = shared::analyses::metrics::analyze(&imported.trace, shared::analyses::metrics::AnalysisOptions::default());
    }
});
