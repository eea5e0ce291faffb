//! Throughput of the analysis pipeline on synthetic rings of 64 processes (one message per four
//! events): model build, pairing, graph + critical path, WCPA, NPT, and the whole analysis.
//!
//! Run with `cargo bench -p shared`; set `TRACESCOPE_BENCH_SIZES=100000,1000000` to choose sizes
//! (the default is 10^5, 10^6 and 10^7 events).

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shared::analyses::metrics::{AnalysisOptions, analyze};
use shared::graph::context::Context;
use shared::graph::critical_path::{EdgeWeights, longest_path};
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::model::synthetic::ring;
use shared::model::{EventRecord, TraceBuilder};

fn sizes() -> Vec<usize> {
    common::sizes(&[100_000, 1_000_000, 10_000_000])
}

fn pipeline(c: &mut Criterion) {
    let mut group = common::group(c, "analysis");
    for n in sizes() {
        let trace = ring(64, n);
        let n_events = trace.events.len();
        eprintln!(
            "model of {n_events} events: {} bytes, {:.1} bytes per event",
            trace.heap_bytes(),
            trace.heap_bytes() as f64 / n_events as f64
        );
        group.throughput(Throughput::Elements(n_events as u64));
        let records: Vec<EventRecord> = (0..n_events)
            .filter_map(|i| trace.events.get(shared::EventIdx(i as u32)))
            .collect();
        group.bench_with_input(
            BenchmarkId::new("model_build", n_events),
            &records,
            |b, records| {
                b.iter(|| {
                    let mut builder = TraceBuilder::new("bench", trace.clock);
                    for node in &trace.nodes {
                        builder.add_node(node.name.clone());
                    }
                    for p in &trace.processes {
                        let _ = builder.add_process(p.name.clone(), p.node);
                    }
                    builder.reserve_events(records.len());
                    for &r in records {
                        let _ = builder.push(r);
                    }
                    black_box(builder.build())
                });
            },
        );
        group.bench_with_input(BenchmarkId::new("pairing", n_events), &trace, |b, trace| {
            b.iter(|| black_box(pair_messages(trace)));
        });
        let pairing = pair_messages(&trace);
        group.bench_with_input(
            BenchmarkId::new("graph_and_critical_path", n_events),
            &trace,
            |b, trace| {
                b.iter(|| {
                    let graph = ExecutionGraph::new(trace, &pairing);
                    let weights = EdgeWeights::elapsed(trace, &graph);
                    black_box(longest_path(&graph, &weights).length)
                });
            },
        );
        let cx = Context::new(&trace);
        group.bench_with_input(BenchmarkId::new("context", n_events), &trace, |b, trace| {
            b.iter(|| black_box(Context::new(trace).timeline.n_processors));
        });
        group.bench_with_input(BenchmarkId::new("wcpa", n_events), &cx, |b, cx| {
            b.iter(|| black_box(longest_path(&cx.graph, &cx.wcpa_weights()).length));
        });
        group.bench_with_input(
            BenchmarkId::new("analyze_all", n_events),
            &trace,
            |b, trace| {
                b.iter(|| black_box(analyze(trace, AnalysisOptions::default()).execution_time));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
