//! What the benchmarks share.

/// The trace sizes to run: `TRACESCOPE_BENCH_SIZES` (comma-separated event counts), or `default`.
/// (The adversarial bench fixes its own sizes: it doubles them.)
#[allow(dead_code)]
pub fn sizes(default: &[usize]) -> Vec<usize> {
    std::env::var("TRACESCOPE_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

/// A benchmark group with the settings the ring benches share: 10 samples, 1 s warm-up, 5 s of
/// measurement (the pipelines take seconds at 10^7 events).
pub fn group<'a>(
    c: &'a mut criterion::Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(5));
    group
}
