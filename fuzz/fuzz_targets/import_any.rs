//! Any bytes through format detection and the detected importer, then the analyses.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(imported) = shared::formats::import(data, None, "fuzz") {
        let _ = shared::analyses::metrics::analyze(&imported.trace, shared::analyses::metrics::AnalysisOptions::default());
    }
});
