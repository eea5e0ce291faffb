//! What the benchmarks share.

/// The trace sizes to run: `TRACESCOPE_BENCH_SIZES` (comma-separated event counts), or `default`.
pub fn sizes(default: &[usize]) -> Vec<usize> {
    std::env::var("TRACESCOPE_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}
