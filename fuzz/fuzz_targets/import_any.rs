//! Any bytes through format detection and the detected importer, then the analyses.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(imported) = shared::formats::import_within(data, None, "fuzz", &budget()) {
        let _ = shared::analyses::metrics::analyze(&imported.trace, shared::analyses::metrics::AnalysisOptions::default());
    }
});

/// The budget of a server with a 1 MiB upload limit and 256 MiB of memory: gzip inputs inflate
/// to at most 1 MiB, so libFuzzer's 2 GiB RSS limit stands for "over the budget".
fn budget() -> shared::formats::Budget {
    shared::formats::Budget::scaled(1 << 20, 256 << 20)
}
