//! Any bytes through format detection and the detected importer, then the analyses.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(imported) = shared::import::import(data, None, "fuzz") {
        let _ = shared::analysis::analyze(&imported.trace, shared::analysis::AnalysisOptions::default());
    }
});
