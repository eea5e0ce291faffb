//! The first byte picks an importer to force; the rest is its input. Run one importer at a time
//! with `TRACESCOPE_FUZZ_FORMAT=<name>` (then every input goes to that importer).
#![no_main]

use shared::formats::{Budget, Format, import_within};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let forced = std::env::var("TRACESCOPE_FUZZ_FORMAT").ok().and_then(|name| Format::from_name(&name));
    let (format, input) = match (forced, data.split_first()) {
        (Some(format), _) => (format, data),
        (None, Some((&first, rest))) => (Format::ALL[usize::from(first) % Format::ALL.len()], rest),
        (None, None) => return,
    };
    if let Ok(imported) = import_within(input, Some(format), "fuzz", &budget()) {
        let _ = shared::analyses::metrics::analyze(&imported.trace, shared::analyses::metrics::AnalysisOptions::default());
    }
});

/// The budget of a server with a 1 MiB upload limit and 256 MiB of memory: gzip inputs inflate
/// to at most 1 MiB, so libFuzzer's 2 GiB RSS limit stands for "over the budget".
fn budget() -> Budget {
    Budget::scaled(1 << 20, 256 << 20)
}
