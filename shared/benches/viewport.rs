//! Viewport level of detail on a synthetic ring of 64 processes, 10^7 events by default.
//!
//! Prints the index build time, then the latency (query + JSON encoding) and response size of
//! 400 random windows at 2,000 px (raw JSON and gzipped) (lengths log-uniform from 100 ticks to the whole trace), for
//! all 64 rows and for 32 rows; then criterion times the whole-trace window. The same for the
//! lazy index (`shared::view::lod`, chunks kept in memory and decoded on every read, as a store
//! without a cache would): its build, its chunks' bytes an event, and quantised windows with
//! the chunks each reads.
//!
//! Run with `cargo bench -p shared --bench viewport`; `TRACESCOPE_BENCH_SIZES` picks sizes.

mod common;

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::model::synthetic::ring;
use shared::view::viewport::{ViewportIndex, ViewportRequest};

fn sizes() -> Vec<usize> {
    common::sizes(&[10_000_000])
}

/// A small deterministic generator (xorshift), so every run measures the same windows.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The size of `bytes` gzipped at the fast level (the server's compression layer).
fn gzip_len(bytes: &[u8]) -> usize {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("in memory");
    encoder.finish().expect("in memory").len()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn viewport(c: &mut Criterion) {
    let mut group = common::group(c, "viewport");
    for n in sizes() {
        let trace = ring(64, n);
        let t = Instant::now();
        let pairing = pair_messages(&trace);
        let graph = ExecutionGraph::new(&trace, &pairing);
        let index = ViewportIndex::new(&trace, &pairing, &graph);
        let build = t.elapsed();
        let span = trace.events.time().iter().map(|t| t.0).max().unwrap_or(1);
        eprintln!(
            "viewport/{n}: {} spans, {} messages, span {span} ticks; pairing + graph + index {build:.2?}",
            index.n_spans(),
            index.n_messages()
        );
        for rows in [64u32, 32] {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let mut latencies = Vec::new();
            let (mut largest, mut largest_gz) = (0usize, 0usize);
            for _ in 0..400 {
                let length = (100.0 * (span as f64 / 100.0).powf(rng.unit())) as u64;
                let start = (rng.unit() * span.saturating_sub(length) as f64) as u64;
                let first = (rng.next() % u64::from(65 - rows)) as u32;
                let request = ViewportRequest {
                    start,
                    end: start + length.max(1),
                    first_row: first,
                    last_row: first + rows - 1,
                    width_px: 2_000,
                };
                let t = Instant::now();
                let view = index.query(&request).expect("a valid request");
                let json = serde_json::to_vec(&view).expect("encodes");
                latencies.push(t.elapsed().as_secs_f64() * 1e3);
                largest = largest.max(json.len());
                largest_gz = largest_gz.max(gzip_len(&json));
            }
            latencies.sort_by(f64::total_cmp);
            eprintln!(
                "viewport/{n}, {rows} rows, 2000 px, 400 windows: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms; largest response {} KB ({} KB gzipped, as served)",
                percentile(&latencies, 0.5),
                percentile(&latencies, 0.95),
                percentile(&latencies, 1.0),
                largest / 1024,
                largest_gz / 1024
            );
        }
        let t = Instant::now();
        let mut chunks = shared::view::lod::MemoryChunks::default();
        let mut chunk_bytes = 0usize;
        let lazy = shared::view::lod::build(&trace, &pairing, Default::default(), &mut |k, b| {
            chunk_bytes += b.len();
            chunks.insert(k, b)
        });
        eprintln!(
            "viewport/{n} lazy: build {:.2?}; {} chunks, {:.2} bytes an event",
            t.elapsed(),
            chunks.len(),
            chunk_bytes as f64 / trace.events.len() as f64
        );
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut latencies = Vec::new();
        let before = chunks.loads();
        for _ in 0..400 {
            let length = (100.0 * (span as f64 / 100.0).powf(rng.unit())) as u64;
            let start = (rng.unit() * span.saturating_sub(length) as f64) as u64;
            let request = ViewportRequest::quantised(start, start + length.max(1), 0, 63, 2_000);
            let t = Instant::now();
            let view = lazy.query(&chunks, &request).expect("a valid request");
            black_box(serde_json::to_vec(&view).expect("encodes").len());
            latencies.push(t.elapsed().as_secs_f64() * 1e3);
        }
        latencies.sort_by(f64::total_cmp);
        eprintln!(
            "viewport/{n} lazy, 64 rows, quantised at 2000 px, 400 windows: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms; {:.1} chunks read a window",
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            percentile(&latencies, 1.0),
            (chunks.loads() - before) as f64 / 400.0
        );
        let whole = ViewportRequest {
            start: 0,
            end: span + 1,
            first_row: 0,
            last_row: 63,
            width_px: 2_000,
        };
        let quantised = ViewportRequest::quantised(0, span + 1, 0, 63, 2_000);
        group.bench_with_input(
            BenchmarkId::new("lazy_whole_trace_64_rows_quantised", n),
            &quantised,
            |b, r| {
                b.iter(|| {
                    black_box(
                        serde_json::to_vec(&lazy.query(&chunks, r).expect("valid"))
                            .expect("encodes")
                            .len(),
                    )
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("whole_trace_64_rows", n),
            &whole,
            |b, r| {
                b.iter(|| {
                    black_box(
                        serde_json::to_vec(&index.query(r).expect("valid"))
                            .expect("encodes")
                            .len(),
                    )
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, viewport);
criterion_main!(benches);
