//! The headline figures (issue 45, point 5; `docs/analysis.md`, "Headline figures"): one set of
//! processors per trace, and speedup, efficiency and the POP factors defined on it, so that they
//! agree. Every expected value is computed by hand in the comments.

use shared::Trace;
use shared::analyses::metrics::{Analysis, AnalysisOptions, ProcessorKind, analyze};
use shared::analyses::waits::wait_states;
use shared::formats::Format;
use shared::graph::context::Context;
use shared::model::time::{Clock, Time};
use shared::model::{EventKind, EventRecord, NodeId, ProcessId, TraceBuilder};
use shared::report::{Report, ReportRequest, build};
use shared::view::compare::compare;

/// A trace of named nodes and processes `(name, node)`, and its events `(process, time, kind,
/// peer)` in any order.
fn trace(
    nodes: &[&str],
    processes: &[(&str, u32)],
    events: &[(u32, u64, EventKind, Option<u32>)],
) -> Trace {
    let mut b = TraceBuilder::new("figures", Clock::default());
    for n in nodes {
        b.add_node(*n);
    }
    for &(name, node) in processes {
        b.add_process(name, NodeId(node)).expect("node exists");
    }
    for &(p, t, kind, peer) in events {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        r.peer = peer.map(ProcessId);
        b.push(r).expect("valid event");
    }
    b.build()
}

/// The report `tracescope analyze --json` prints for a trace read from `format`.
fn report(trace: &Trace, format: Format) -> Report {
    let cx = Context::new(trace);
    build(
        &cx,
        &wait_states(&cx),
        &ReportRequest {
            file: "figures",
            format,
            notes: &[],
            options: AnalysisOptions::default(),
        },
    )
}

/// Checks named fields of the analysis's JSON (pointers into `analyze --json`) to 1e-9.
fn check(analysis: &Analysis, expected: &[(&str, f64)]) {
    let json = serde_json::to_value(analysis).expect("serializes");
    let failures: Vec<String> = expected
        .iter()
        .filter_map(|&(pointer, want)| {
            match json.pointer(pointer).and_then(serde_json::Value::as_f64) {
                Some(got) if (got - want).abs() <= 1e-9 => None,
                got => Some(format!("{pointer}: expected {want}, got {got:?}")),
            }
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

use EventKind::{MsgArr, MsgSend, ProcExit, ProcInit, RecvCall};

/// Two transputers, the emulator's host doing I/O, and a board with nothing loaded.
///
/// ```text
/// P0 on T800 #0: init 0 | comp 4 | send to iserver 4 | comp 6 | exit 10
/// P1 on T800 #1: init 0 | comp 6 | exit 6
/// iserver on host: init 0 | recv_call 0 .. arr 4 | comp 2 | exit 6
/// idle on T800 #2: no events
/// ```
///
/// T = 10. The processors are T800 #0 and #1 (P = 2): the host serves I/O and T800 #2 ran
/// nothing. Work W = 10 + 6 = 16 (the iserver's 2 are not the program's work).
/// Speedup = 16 / 10 = 1.6; efficiency = 1.6 / 2 = 0.8.
/// Load balance = mean 8 / max 10 = 0.8. The ideal network (transit 0): P0's chain is 10, the
/// iserver's 4 + 2 = 6, so ideal = max(10, max work 10) = 10: serialisation 10 / 10 = 1,
/// transfer 10 / 10 = 1, parallel efficiency 0.8 × 1 × 1 = 0.8 = efficiency.
/// The older fields count every node hosting a process (4) and the iserver's computation:
/// speedup 18 / 10 = 1.8, efficiency 1.8 / 4 = 0.45.
#[test]
fn f1_the_host_and_an_idle_board_are_not_processors() {
    let t = trace(
        &["T800 #0", "T800 #1", "host", "T800 #2"],
        &[("P0", 0), ("P1", 1), ("iserver", 2), ("idle", 3)],
        &[
            (0, 0, ProcInit, None),
            (0, 4, MsgSend, Some(2)),
            (0, 10, ProcExit, None),
            (1, 0, ProcInit, None),
            (1, 6, ProcExit, None),
            (2, 0, ProcInit, None),
            (2, 0, RecvCall, None),
            (2, 4, MsgArr, Some(0)),
            (2, 6, ProcExit, None),
        ],
    );
    let a = analyze(&t, AnalysisOptions::default());
    check(
        &a,
        &[
            ("/figures/processors", 2.0),
            ("/figures/execution_time", 10.0),
            ("/figures/work", 16.0),
            ("/figures/speedup", 1.6),
            ("/figures/efficiency", 0.8),
            ("/figures/load_balance", 0.8),
            ("/figures/ideal_time", 10.0),
            ("/figures/serialisation", 1.0),
            ("/figures/transfer", 1.0),
            ("/figures/parallel_efficiency", 0.8),
            // The older fields keep their meaning (analysis.md, "Headline figures").
            ("/processors", 4.0),
            ("/speedup", 1.8),
            ("/efficiency", 0.45),
        ],
    );
    assert_eq!(a.figures.processor_kind, ProcessorKind::Nodes);
    // The page names processors for what they are.
    let named = a.figures.definition("Processors").unwrap_or_default();
    assert!(
        named.starts_with("the 2 nodes that ran the program"),
        "{named}"
    );
}

/// COMSTIME's shape: every process of the program on one transputer, the host beside it.
///
/// ```text
/// P0 on T800 #0: init 0 | comp 10 | send to iserver 10 | exit 10
/// P1 on T800 #0: init 0 | comp 10 | exit 10
/// iserver on host: init 0 | recv_call 0 .. arr 10 | exit 10
/// ```
///
/// P0 and P1 timeslice on T800 #0: each gets 5 of CPU time, the node 10. T = 10, P = 1 (the
/// host is not a processor), W = 10: speedup 1, efficiency 1 / 1 = 1.
/// Load balance 10 / 10 = 1. The ideal network's path is P0's 5 of CPU time, but the node does
/// its 10 one piece at a time: ideal = max(5, 10) = 10, serialisation 1, transfer 1, parallel
/// efficiency 1. The older efficiency divides by 2 nodes (the host too): 1 / 2 = 0.5, and the
/// older POP by 3 processes: (10 / 3) / 10 = 1/3.
#[test]
fn f2_one_transputer_with_the_host_is_one_processor() {
    let t = trace(
        &["T800 #0", "host"],
        &[("P0", 0), ("P1", 0), ("iserver", 1)],
        &[
            (0, 0, ProcInit, None),
            (0, 10, MsgSend, Some(2)),
            (0, 10, ProcExit, None),
            (1, 0, ProcInit, None),
            (1, 10, ProcExit, None),
            (2, 0, ProcInit, None),
            (2, 0, RecvCall, None),
            (2, 10, MsgArr, Some(0)),
            (2, 10, ProcExit, None),
        ],
    );
    let a = analyze(&t, AnalysisOptions::default());
    check(
        &a,
        &[
            ("/figures/processors", 1.0),
            ("/figures/work", 10.0),
            ("/figures/speedup", 1.0),
            ("/figures/efficiency", 1.0),
            ("/figures/load_balance", 1.0),
            ("/figures/ideal_time", 10.0),
            ("/figures/serialisation", 1.0),
            ("/figures/transfer", 1.0),
            ("/figures/parallel_efficiency", 1.0),
            ("/efficiency", 0.5),
            ("/pop/parallel_efficiency", 1.0 / 3.0),
        ],
    );
}

/// A Chrome trace of one pid with four threads (ticks are ns: µs × 1000).
///
/// ```text
/// tid 1: slice [0, 10] µs    tid 2: slice [0, 10] µs
/// tid 3: slice [0, 5] µs     tid 4: slice [5, 10] µs
/// ```
///
/// One pid is one node, but its threads run at once on the machine's cores: the processors are
/// the 4 threads. T = 10 000 ns, W = 10 000 + 10 000 + 5 000 + 5 000 = 30 000: speedup 3,
/// efficiency 3 / 4 = 0.75. Load balance = mean 7 500 / max 10 000 = 0.75; the ideal network
/// (no messages) is the longest thread, 10 000 (tid 4 starts at 5 000 and runs 5 000), so
/// serialisation 1, transfer 1, parallel efficiency 0.75 = efficiency.
/// The older figures read the pid as one CPU the threads timeslice on: 1 processor, CPU time
/// 10 000, speedup 1, efficiency 1, and POP per thread (10 000 / 4) / 10 000 = 0.25 — the
/// contradiction of issue 45.
#[test]
fn f3_the_threads_of_one_chrome_pid_are_the_processors() {
    let json = br#"[
        {"ph": "X", "pid": 1, "tid": 1, "name": "work", "ts": 0, "dur": 10},
        {"ph": "X", "pid": 1, "tid": 2, "name": "work", "ts": 0, "dur": 10},
        {"ph": "X", "pid": 1, "tid": 3, "name": "work", "ts": 0, "dur": 5},
        {"ph": "X", "pid": 1, "tid": 4, "name": "work", "ts": 5, "dur": 5}
    ]"#;
    let imported = shared::formats::import(json, None, "threads.json").expect("parses");
    assert_eq!(imported.format, Format::ChromeJson);
    assert_eq!(
        (imported.trace.nodes.len(), imported.trace.processes.len()),
        (1, 4)
    );
    let r = report(&imported.trace, imported.format);
    check(
        &r.analysis,
        &[
            ("/figures/processors", 4.0),
            ("/figures/execution_time", 10_000.0),
            ("/figures/work", 30_000.0),
            ("/figures/speedup", 3.0),
            ("/figures/efficiency", 0.75),
            ("/figures/load_balance", 0.75),
            ("/figures/ideal_time", 10_000.0),
            ("/figures/serialisation", 1.0),
            ("/figures/transfer", 1.0),
            ("/figures/parallel_efficiency", 0.75),
            ("/processors", 1.0),
            ("/speedup", 1.0),
            ("/efficiency", 1.0),
            ("/pop/parallel_efficiency", 0.25),
        ],
    );
    assert_eq!(r.analysis.figures.processor_kind, ProcessorKind::Threads);
    let named = r
        .analysis
        .figures
        .definition("Processors")
        .unwrap_or_default();
    assert!(
        named.starts_with("the 4 threads that recorded events"),
        "{named}"
    );
    // The same trace read as the native model (a node is one CPU): 1 processor, CPU time
    // 10 000, speedup 1, efficiency 1. tid 1's CPU time is 10 000 / 3 (three threads share the
    // node throughout), the ideal path's longest, so ideal = max(10 000 / 3, 10 000) = 10 000.
    let native = report(&imported.trace, Format::TracescopeJson);
    check(
        &native.analysis,
        &[
            ("/figures/processors", 1.0),
            ("/figures/work", 10_000.0),
            ("/figures/speedup", 1.0),
            ("/figures/efficiency", 1.0),
            ("/figures/ideal_time", 10_000.0),
            ("/figures/parallel_efficiency", 1.0),
        ],
    );
}

/// Two runs of the same work, the second with instant messages.
///
/// ```text
/// before: P0 on n0: init 0 | comp 6 | send 6 | exit 6
///         P1 on n1: init 0 | recv_call 0 .. arr 10 (transit 4) | comp 6 | exit 16
/// after:  the same with the arrival at 6: P1 computes [6, 12], exits at 12
/// ```
///
/// Before: T = 16, W = 6 + 6 = 12, speedup 12 / 16 = 0.75, efficiency 0.375; load balance
/// 6 / 6 = 1, ideal 6 + 6 = 12, serialisation 6 / 12 = 0.5, transfer 12 / 16 = 0.75, parallel
/// efficiency 0.375. After: T = 12, speedup 1, efficiency 0.5, serialisation 0.5, transfer 1,
/// parallel efficiency 0.5. The run is 12 / 16 = 0.75 of the time; with the same work its
/// speedup moves by exactly the inverse, 1 / 0.75 = 4/3, and so do efficiency and parallel
/// efficiency (0.5 / 0.375 = 4/3), while work, processors and load balance stay (ratio 1).
#[test]
fn f4_a_faster_run_of_the_same_work_moves_every_figure_consistently() {
    let run = |arrival: u64| {
        let t = trace(
            &["n0", "n1"],
            &[("P0", 0), ("P1", 1)],
            &[
                (0, 0, ProcInit, None),
                (0, 6, MsgSend, Some(1)),
                (0, 6, ProcExit, None),
                (1, 0, ProcInit, None),
                (1, 0, RecvCall, None),
                (1, arrival, MsgArr, Some(0)),
                (1, arrival + 6, ProcExit, None),
            ],
        );
        report(&t, Format::TracescopeJson)
    };
    let c = compare(&run(10), &run(6));
    let row = |name: &str| {
        let d = c
            .metrics
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no row {name}"));
        (d.before, d.after, d.ratio)
    };
    let close = |got: (Option<f64>, Option<f64>, Option<f64>), want: (f64, f64, f64)| {
        let ok = |g: Option<f64>, w: f64| g.is_some_and(|g| (g - w).abs() <= 1e-9);
        ok(got.0, want.0) && ok(got.1, want.1) && ok(got.2, want.2)
    };
    for (name, want) in [
        ("Execution time", (16.0, 12.0, 0.75)),
        ("Processors", (2.0, 2.0, 1.0)),
        ("Work", (12.0, 12.0, 1.0)),
        ("Speedup over serial work", (0.75, 1.0, 4.0 / 3.0)),
        ("Efficiency per processor", (37.5, 50.0, 4.0 / 3.0)),
        ("Load balance", (100.0, 100.0, 1.0)),
        ("Serialisation efficiency", (50.0, 50.0, 1.0)),
        ("Transfer efficiency", (75.0, 100.0, 4.0 / 3.0)),
        ("Parallel efficiency (POP)", (37.5, 50.0, 4.0 / 3.0)),
    ] {
        assert!(close(row(name), want), "{name}: {:?} ≠ {want:?}", row(name));
    }
    // Each headline row carries its definition, the one the page shows beside the figure.
    let speedup = c
        .metrics
        .iter()
        .find(|d| d.name == "Speedup over serial work")
        .expect("speedup row");
    assert!(speedup.definition.contains("work / execution time"));
}
