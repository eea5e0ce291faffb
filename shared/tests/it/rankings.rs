//! Rankings are keyed by ids, never by names: two processes (or regions) with the same name get a
//! row each in every ranking (issue 15).

use shared::analyses::metrics::{AnalysisOptions, Share, analyze_context};
use shared::analyses::waits::{summarize_waits, wait_states};
use shared::graph::context::Context;
use shared::model::{EventKind, EventRecord, ProcessId, RegionId, RegionRole, TraceBuilder};
use shared::view::selection::{self, Selection};
use shared::{Clock, Time, Trace};

/// Two processes both named "worker" on two nodes, computing in two regions both named "comp",
/// each waiting once for the other:
///
/// ```text
/// P0: init@0 | comp(A) 0..10 | send→P1@10 | MPI_Recv 12..21 (call@12, arr@21) | exit@22
/// P1: init@0 | comp(B) 0..4 | MPI_Recv 4..11 (call@4, arr@11) | comp(B) 11..20 | send→P0@20 | exit@20
/// ```
fn twins() -> Trace {
    let mut b = TraceBuilder::new("twins", Clock::default());
    let (n0, n1) = (b.add_node("n0"), b.add_node("n1"));
    b.add_process("worker", n0).expect("node");
    b.add_process("worker", n1).expect("node");
    let comp_a = b.add_region("comp", RegionRole::Activity);
    let comp_b = b.add_region("comp", RegionRole::Activity);
    let recv = b.add_region("MPI_Recv", RegionRole::Communication);
    let mut push = |p: u32, t: u64, kind: EventKind, f: &dyn Fn(&mut EventRecord)| {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        f(&mut r);
        b.push(r).expect("valid event");
    };
    let region = |id: RegionId| move |r: &mut EventRecord| r.region = Some(id);
    let peer = |p: u32| move |r: &mut EventRecord| r.peer = Some(ProcessId(p));
    let none = |_: &mut EventRecord| {};
    push(0, 0, EventKind::ProcInit, &none);
    push(0, 0, EventKind::Enter, &region(comp_a));
    push(0, 10, EventKind::Leave, &region(comp_a));
    push(0, 10, EventKind::MsgSend, &peer(1));
    push(0, 12, EventKind::Enter, &region(recv));
    push(0, 12, EventKind::RecvCall, &none);
    push(0, 21, EventKind::MsgArr, &peer(1));
    push(0, 21, EventKind::Leave, &region(recv));
    push(0, 22, EventKind::ProcExit, &none);
    push(1, 0, EventKind::ProcInit, &none);
    push(1, 0, EventKind::Enter, &region(comp_b));
    push(1, 4, EventKind::Leave, &region(comp_b));
    push(1, 4, EventKind::Enter, &region(recv));
    push(1, 4, EventKind::RecvCall, &none);
    push(1, 11, EventKind::MsgArr, &peer(0));
    push(1, 11, EventKind::Leave, &region(recv));
    push(1, 11, EventKind::Enter, &region(comp_b));
    push(1, 20, EventKind::Leave, &region(comp_b));
    push(1, 20, EventKind::MsgSend, &peer(0));
    push(1, 20, EventKind::ProcExit, &none);
    b.build()
}

/// (id, name, weight) of each row, in ranking order.
fn rows(shares: &[Share]) -> Vec<(Option<u32>, &str, f64)> {
    shares
        .iter()
        .map(|s| (s.id, s.name.as_str(), s.weight))
        .collect()
}

#[test]
fn npt_ranks_same_named_processes_and_regions_apart() {
    let trace = twins();
    let cx = Context::new(&trace);
    let npt = analyze_context(&cx, AnalysisOptions::default()).npt;
    // Both busy [0,4] and [11,12] (halves), P0 alone [4,11] and [21,22], P1 alone [12,20]:
    // P0 = 2 + 7 + 0.5 + 1 = 10.5, P1 = 2 + 0.5 + 8 = 10.5; a tie, so in id order.
    assert_eq!(
        rows(&npt.processes),
        [(Some(0), "worker", 10.5), (Some(1), "worker", 10.5)]
    );
    // Region A: P0's 0..10 (2 shared + 6 alone); region B: P1's 0..4 and 11..20 (2 + 0.5 + 8).
    assert_eq!(
        rows(&npt.regions_exclusive),
        [(Some(1), "comp", 10.5), (Some(0), "comp", 8.0)]
    );
    assert_eq!(npt.total, 21.0);
}

#[test]
fn the_critical_path_ranks_same_named_processes_and_regions_apart() {
    let trace = twins();
    let cx = Context::new(&trace);
    let path = analyze_context(&cx, AnalysisOptions::default()).critical_path;
    // P0 comp 10 → m 1 → P1 comp 9 → m 0 → P0 waits for it → P0 1 to its exit: 21 + 1 = 22.
    assert_eq!(path.length, 22);
    let by_process = rows(&path.by_process);
    assert_eq!(by_process.len(), 2, "{by_process:?}");
    assert!(by_process.iter().all(|(_, name, _)| *name == "worker"));
    let total: f64 = by_process.iter().map(|r| r.2).sum();
    assert_eq!(total, 22.0);
    let comp_rows: Vec<_> = rows(&path.by_region)
        .into_iter()
        .filter(|(_, name, _)| *name == "comp")
        .collect();
    assert_eq!(
        comp_rows.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>(),
        [(Some(0), 10.0), (Some(1), 9.0)],
        "{comp_rows:?}"
    );
}

#[test]
fn wait_states_rank_same_named_processes_apart() {
    let trace = twins();
    let cx = Context::new(&trace);
    let summary = summarize_waits(&cx, &wait_states(&cx));
    let by_process: Vec<(String, f64, ProcessId)> = summary
        .by_process
        .iter()
        .map(|(name, _, time, id)| (name.clone(), *time, *id))
        .collect();
    // P0 waits 20 − 12 = 8 for P1's send, P1 waits 10 − 4 = 6 for P0's.
    assert_eq!(
        by_process,
        [
            ("worker".to_owned(), 8.0, ProcessId(0)),
            ("worker".to_owned(), 6.0, ProcessId(1)),
        ]
    );
}

#[test]
fn selections_rank_same_named_processes_apart() {
    let trace = twins();
    let cx = Context::new(&trace);
    let whole = Selection::new(&trace, None, None, None).expect("whole run");
    let npt = selection::npt(&cx, &whole);
    assert_eq!(
        rows(&npt.processes),
        [(Some(0), "worker", 10.5), (Some(1), "worker", 10.5)]
    );
    let waits = wait_states(&cx);
    let in_selection = selection::waits_in(&cx, &waits, &whole, 10);
    assert_eq!(
        rows(&in_selection.by_process),
        [(Some(0), "worker", 8.0), (Some(1), "worker", 6.0)]
    );
    // Both waits are charged at the one receive call site.
    assert_eq!(
        rows(&in_selection.by_call_site),
        [(Some(2), "MPI_Recv", 14.0)]
    );
    let analysis = analyze_context(&cx, AnalysisOptions::default());
    let path = selection::path_in(&cx, &analysis.critical_path.segments, &whole, 10);
    assert_eq!(path.by_process.len(), 2);
}

#[test]
fn a_real_trace_with_two_threads_of_one_name_keeps_a_row_for_each() {
    let bytes = std::fs::read(crate::data_path(
        "traces/chrome-trace/catapult-webview.json.gz",
    ))
    .expect("vendored sample");
    let trace = shared::formats::import(&bytes, None, "webview.json.gz")
        .expect("imports")
        .trace;
    let named = trace
        .processes
        .iter()
        .filter(|p| p.name.contains("Chrome_ChildIOThread"))
        .count();
    assert!(
        named >= 2,
        "the sample has {named} Chrome_ChildIOThread threads"
    );
    let cx = Context::new(&trace);
    let npt = analyze_context(&cx, AnalysisOptions::default()).npt;
    assert_eq!(npt.processes.len(), trace.processes.len());
    let mut ids: Vec<Option<u32>> = npt.processes.iter().map(|s| s.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), trace.processes.len());
}

/// Every vendored sample's report survives JSON both ways: the page reads it as a typed
/// `Report`, so no number may be written as something it cannot read back (NaN, infinity).
#[test]
fn every_sample_report_reads_back_as_a_typed_report() {
    use shared::report::Report;
    for sample in [
        "traces/chrome-trace/catapult-webview.json.gz",
        "traces/chrome-trace/catapult-flow_simple.json",
        "traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv",
        "traces/paje/pajeng-simgrid-ms.trace",
        "traces/paje/pajeng-starpu-native_sample.trace",
        "traces/shiviz/simple-reliable-broadcast.log",
        "t4-worked-example.json",
        "master-workers-probes.json",
        "otf2-pthreads.tar.gz",
    ] {
        let bytes = std::fs::read(crate::data_path(sample)).expect("vendored sample");
        let imported = shared::formats::import(&bytes, None, sample).expect("imports");
        let report = crate::report(sample);
        let json = serde_json::to_string(&report).expect("serializes");
        let back: Report = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("{sample}: {e} in {}", &json[..json.len().min(300)]));
        assert_eq!(back.notes, imported.notes, "{sample}");
        assert_eq!(
            back.analysis.critical_path.length,
            report.analysis.critical_path.length
        );
    }
}
