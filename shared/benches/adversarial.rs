//! Adversarial shapes (issue 17): the whole analysis on traces built to find superlinear paths,
//! each at five doublings of its size, so that the time ratio between neighbours shows the
//! growth (2 for linear, 4 for quadratic).
//!
//! - `deep_nesting`: one process enters n regions, then leaves them (depth n).
//! - `same_tick_nesting`: the same, every event at one tick.
//! - `shiviz_dense_clocks`: a GoVector log of h hosts passing a token round a ring four times,
//!   so that every clock holds every host (4h events, 4h² clock entries), imported.
//! - `chrome_one_flow`: one v1 flow of n steps between two threads, imported and analysed.
//! - `chrome_many_pids`: n slices, each in a process of its own, imported and analysed.
//! - `chrome_same_tick_nesting`: n `B` then n `E` events at one timestamp, imported and analysed.
//! - `paje_utilization_samples`: one container whose `CPU_used` and `CPU` variables change n
//!   times each (n utilization samples, each looking up the capacity held over it), imported.
//!
//! Run with `cargo bench -p shared --bench adversarial`.

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shared::analyses::metrics::{AnalysisOptions, analyze};
use shared::model::time::{Clock, Time};
use shared::model::{EventKind, EventRecord, RegionRole, Trace, TraceBuilder};

/// One process that enters `depth` regions and leaves them, a tick apart (or all at tick 0).
fn nested(depth: u32, same_tick: bool) -> Trace {
    let mut b = TraceBuilder::new("nested", Clock::NANOSECONDS);
    let node = b.add_node("n");
    let p = b.add_process("p", node).expect("declared node");
    let r = b.add_region("r", RegionRole::Activity);
    let time = |k: u32| Time(if same_tick { 0 } else { u64::from(k) });
    let mut push = |k: u32, kind: EventKind| {
        let mut e = EventRecord::plain(p, time(k), kind);
        e.region = Some(r);
        b.push(e).expect("valid event");
    };
    for k in 0..depth {
        push(k, EventKind::Enter);
    }
    for k in 0..depth {
        push(depth + k, EventKind::Leave);
    }
    b.build()
}

/// A Pajé trace of one container whose `CPU_used` and `CPU` variables change `n` times each.
fn paje_samples(n: usize) -> String {
    let mut text = String::from(
        "%EventDef PajeDefineContainerType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeDefineVariableType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
         %EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
         %EventDef PajeSetVariable 4\n% Time date\n% Container string\n% Type string\n% Value double\n%EndEventDef\n\
         1 H 0 Host\n2 U H CPU_used\n2 C H CPU\n3 0 h H 0 host\n",
    );
    for k in 0..n {
        let t = k as f64 * 0.001;
        text.push_str(&format!(
            "4 {t} h C {}\n4 {t} h U {}\n",
            100 + k % 7,
            k % 50
        ));
    }
    text
}

/// Chrome JSON shapes of `n` records.
fn chrome(shape: &str, n: usize) -> String {
    let records: Vec<String> = match shape {
        "chrome_one_flow" => (0..n)
            .map(|i| {
                let ph = match i {
                    0 => "s",
                    _ if i == n - 1 => "f",
                    _ => "t",
                };
                format!(
                    r#"{{"name":"f","cat":"c","ph":"{ph}","id":1,"ts":{i},"pid":1,"tid":{}}}"#,
                    i % 2 + 1
                )
            })
            .collect(),
        "chrome_many_pids" => (0..n)
            .map(|i| format!(r#"{{"name":"x","ph":"X","ts":{i},"dur":1,"pid":{i},"tid":{i}}}"#))
            .collect(),
        _ => (0..2 * n)
            .map(|i| {
                let ph = if i < n { "B" } else { "E" };
                format!(r#"{{"name":"r","ph":"{ph}","ts":0,"pid":1,"tid":1}}"#)
            })
            .collect(),
    };
    format!("[{}]", records.join(","))
}

fn shapes(c: &mut Criterion) {
    let mut group = common::group(c, "adversarial");
    for (name, same_tick) in [("deep_nesting", false), ("same_tick_nesting", true)] {
        for depth in [12_500u32, 25_000, 50_000, 100_000, 200_000] {
            let trace = nested(depth, same_tick);
            group.throughput(Throughput::Elements(trace.events.len() as u64));
            group.bench_with_input(BenchmarkId::new(name, depth), &trace, |b, trace| {
                b.iter(|| black_box(analyze(trace, AnalysisOptions::default())));
            });
        }
    }
    for shape in [
        "chrome_one_flow",
        "chrome_many_pids",
        "chrome_same_tick_nesting",
    ] {
        for n in [12_500usize, 25_000, 50_000, 100_000, 200_000] {
            let json = chrome(shape, n);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(shape, n), &json, |b, json| {
                b.iter(|| {
                    let imported = shared::formats::import(json.as_bytes(), None, shape)
                        .expect("a generated trace reads");
                    black_box(analyze(&imported.trace, AnalysisOptions::default()))
                });
            });
        }
    }
    for n in [12_500usize, 25_000, 50_000, 100_000, 200_000] {
        let trace = paje_samples(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::new("paje_utilization_samples", n),
            &trace,
            |b, trace| {
                b.iter(|| black_box(shared::formats::import(trace.as_bytes(), None, "samples")));
            },
        );
    }
    for hosts in [32usize, 64, 128, 256, 512] {
        let log = shared::model::synthetic::govector_token_ring(hosts, 4);
        group.throughput(Throughput::Bytes(log.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("shiviz_dense_clocks", hosts),
            &log,
            |b, log| {
                b.iter(|| black_box(shared::formats::import(log.as_bytes(), None, "dense")));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, shapes);
criterion_main!(benches);
