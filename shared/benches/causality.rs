//! Vector clocks + Hasse reduction, the Hasse view's whole diagram, and the controlled logical
//! clock, on a synthetic ring of 64
//! processes (one message per four events), at 10^6 events by default.
//!
//! Run with `cargo bench -p shared --bench causality`; `TRACESCOPE_BENCH_SIZES` picks sizes.

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shared::analyses::causality::{Causality, hasse_edges};
use shared::analyses::clocks::{ClcOptions, controlled_logical_clock};
use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::pair_messages;
use shared::model::synthetic::ring;
use shared::view::hasse::{Axis, Collapse, Diagram};

fn sizes() -> Vec<usize> {
    common::sizes(&[1_000_000])
}

fn causality(c: &mut Criterion) {
    let mut group = common::group(c, "causality");
    for n in sizes() {
        let trace = ring(64, n);
        let pairing = pair_messages(&trace);
        let graph = ExecutionGraph::new(&trace, &pairing);
        group.throughput(Throughput::Elements(trace.events.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("vector_clocks_and_hasse", trace.events.len()),
            &trace,
            |b, trace| {
                b.iter(|| {
                    let causality = Causality::new(trace, &graph);
                    black_box(hasse_edges(&graph, &causality).len())
                });
            },
        );
        // What the Hasse view builds when it is first shown: messages, graph, causality and the
        // drawn diagram (local runs collapsed).
        group.bench_with_input(
            BenchmarkId::new("hasse_view_diagram", trace.events.len()),
            &trace,
            |b, trace| {
                b.iter(|| {
                    let pairing = pair_messages(trace);
                    let graph = ExecutionGraph::new(trace, &pairing);
                    let causality = Causality::new(trace, &graph);
                    let diagram =
                        Diagram::new(trace, &graph, &causality, Collapse::Runs { expanded: &[] });
                    black_box(diagram.vertices.len())
                });
            },
        );
        // One window of it, as `GET /api/runs/{id}/hasse` answers: every row, the whole run and
        // a tenth of it, 1,600 pixels wide.
        let causality = Causality::new(&trace, &graph);
        let diagram = Diagram::new(&trace, &graph, &causality, Collapse::Runs { expanded: &[] });
        let rows: Vec<u32> = (0..trace.processes.len() as u32).collect();
        let (start, end) = trace.time_bounds().map_or((0, 0), |(a, b)| (a.0, b.0));
        for (label, window) in [
            ("whole", (start, end)),
            ("tenth", (start, start + (end - start) / 10)),
        ] {
            group.bench_with_input(
                BenchmarkId::new(format!("hasse_window_{label}"), trace.events.len()),
                &window,
                |b, &window| {
                    b.iter(|| {
                        black_box(
                            diagram
                                .window(&rows, window, Axis::Layer, 1600.0)
                                .marks
                                .len(),
                        )
                    });
                },
            );
        }
        let options = ClcOptions {
            gamma: 0.99999,
            min_latency: 50.0,
            ..ClcOptions::default()
        };
        let repair = controlled_logical_clock(&trace, &pairing, options);
        eprintln!(
            "CLC with min latency 50 ns: {} violations, {} events moved",
            repair.violations_before,
            repair.moves.len()
        );
        group.bench_with_input(
            BenchmarkId::new("controlled_logical_clock", trace.events.len()),
            &trace,
            |b, trace| {
                b.iter(|| {
                    black_box(
                        controlled_logical_clock(trace, &pairing, options)
                            .moves
                            .len(),
                    )
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, causality);
criterion_main!(benches);
