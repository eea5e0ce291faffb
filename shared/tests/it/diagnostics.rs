//! Diagnostics: the severity policy (`docs/analysis.md`, "Diagnostics") and the report's
//! counts by kind, which stay small however many diagnostics a trace has (issue 44, point 12).

use std::collections::{HashMap, HashSet};

use shared::analyses::metrics::{AnalysisOptions, analyze};
use shared::analyses::validate::{Diagnostic, DiagnosticKind, Severity};
use shared::graph::context::Context;
use shared::model::RegionRole;
use shared::view::selection::{DiagnosticsPage, Selection, diagnostics_in};

use crate::analysis::T;

/// Kinds and severities of a trace's diagnostics, sorted.
fn severities(t: &mut T) -> Vec<(DiagnosticKind, Severity)> {
    let a = analyze(&t.build(), AnalysisOptions::default());
    let mut out: Vec<_> = a
        .diagnostic_counts
        .iter()
        .flat_map(|c| std::iter::repeat_n((c.kind, c.severity), c.count))
        .collect();
    out.sort_by_key(|&(k, s)| (k.name(), s));
    out
}

/// How many of each kind and severity the trace of
/// [`a_report_of_220_100_diagnostics_is_under_a_megabyte_and_counts_them_exactly`] has, as
/// built: leaves without enter on P0, sends at the end of the run to P2 (which never exits),
/// sends to P0 (which exits after them), and regions entered on P3 and left on P4 (one node).
const LEAVES: usize = 80_000;
const SENDS_TO_CUT: usize = 60_000;
const SENDS_TO_EXITED: usize = 100;
const MIGRATED: usize = 40_000;

/// A trace with `LEAVES + SENDS_TO_CUT + SENDS_TO_EXITED + 2 * MIGRATED` diagnostics. Each
/// process's events share a tick, so the critical path (whose segments the report lists, one per
/// edge) stays short and the report's size is its diagnostics'.
fn many_diagnostics() -> shared::Trace {
    let mut t = T::new(2, &[0, 0, 0, 1, 1]);
    let r = t.b.add_region("r", RegionRole::Activity);
    let m = t.b.add_region("task", RegionRole::Activity);
    t.init(0, 0);
    for _ in 0..LEAVES {
        t.leave(0, 1, r);
    }
    t.exit(0, 9);
    t.init(1, 0);
    for k in 0..SENDS_TO_CUT {
        // Every 600th send goes to P0, which exits after it: a certainly lost arrival.
        if k % (SENDS_TO_CUT / SENDS_TO_EXITED) == 0 {
            t.send(1, 1, 0);
        }
        t.send(1, 1, 2);
    }
    t.exit(1, 9);
    t.init(2, 0);
    t.init(3, 0);
    for _ in 0..MIGRATED {
        t.enter(3, 1, m);
    }
    t.exit(3, 9);
    t.init(4, 0);
    for _ in 0..MIGRATED {
        t.leave(4, 2, m);
    }
    t.exit(4, 9);
    t.build()
}

#[test]
fn a_report_of_220_100_diagnostics_is_under_a_megabyte_and_counts_them_exactly() {
    let trace = many_diagnostics();
    let cx = Context::new(&trace);
    let report = shared::report::build(
        &cx,
        &shared::analyses::waits::wait_states(&cx),
        &shared::report::ReportRequest {
            file: "many.json",
            format: shared::formats::Format::TracescopeJson,
            notes: &[],
            options: AnalysisOptions::default(),
        },
    );
    // `tracescope analyze --json` prints it pretty.
    let json = serde_json::to_string_pretty(&report).expect("serializes");
    let sizes: Vec<(String, usize)> = serde_json::to_value(&report)
        .expect("serializes")
        .as_object()
        .expect("an object")
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string().len()))
        .filter(|(_, n)| *n > 10_000)
        .collect();
    assert!(
        json.len() < 1_000_000,
        "the report is {} bytes: {sizes:?}",
        json.len()
    );

    let a = &report.analysis;
    let total = LEAVES + SENDS_TO_CUT + SENDS_TO_EXITED + 2 * MIGRATED;
    assert!(total >= 200_000);
    assert_eq!(a.diagnostics_total, total);
    let counts: HashMap<(DiagnosticKind, Severity), usize> = a
        .diagnostic_counts
        .iter()
        .map(|c| ((c.kind, c.severity), c.count))
        .collect();
    let expected: HashMap<(DiagnosticKind, Severity), usize> = [
        ((DiagnosticKind::LeaveWithoutEnter, Severity::Error), LEAVES),
        (
            (DiagnosticKind::UnmatchedSend, Severity::Warning),
            SENDS_TO_CUT,
        ),
        (
            (DiagnosticKind::UnmatchedSend, Severity::Error),
            SENDS_TO_EXITED,
        ),
        (
            (DiagnosticKind::LeaveWithoutEnter, Severity::Note),
            MIGRATED,
        ),
        ((DiagnosticKind::UnclosedRegion, Severity::Note), MIGRATED),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
    // Errors come first, and each group's examples are its first diagnostics, with the
    // position, process and time of their first event.
    assert_eq!(a.diagnostic_counts[0].severity, Severity::Error);
    let leaves = a
        .diagnostic_counts
        .iter()
        .find(|c| c.kind == DiagnosticKind::LeaveWithoutEnter && c.severity == Severity::Error)
        .expect("counted");
    assert_eq!(leaves.first.len(), 5);
    assert!(
        leaves
            .first
            .iter()
            .all(|d| d.process == Some(0) && d.time == Some(1))
    );
    // P0's first event is its proc_init; its leaves follow.
    let first = trace.process_events(shared::model::ProcessId(0)).start as u32;
    let positions: Vec<Vec<shared::model::EventIdx>> =
        leaves.first.iter().map(|d| d.events.clone()).collect();
    assert_eq!(
        positions,
        (1..=5)
            .map(|k| vec![shared::model::EventIdx(first + k)])
            .collect::<Vec<_>>()
    );
    // The `diagnostics` field keeps the first five of each group.
    assert_eq!(a.diagnostics.len(), 5 * expected.len());
}

#[test]
fn pages_of_a_selection_give_every_diagnostic_once_and_filter_by_kind_and_severity() {
    let trace = many_diagnostics();
    let cx = Context::new(&trace);
    let all = shared::analyses::validate::validate(
        &trace,
        &cx.pairing,
        &cx.graph,
        AnalysisOptions::default().validation,
    );
    let whole = Selection::whole(&trace);
    let key = |d: &Diagnostic| (d.kind, d.severity, d.events.clone());
    let mut seen = HashSet::new();
    let mut offset = 0;
    loop {
        let page = diagnostics_in(
            &trace,
            &all,
            &whole,
            DiagnosticsPage {
                offset,
                limit: 7_919,
                ..DiagnosticsPage::default()
            },
        );
        assert_eq!(page.total, all.len());
        assert_eq!(page.offset, offset);
        if page.diagnostics.is_empty() {
            break;
        }
        offset += page.diagnostics.len();
        for d in &page.diagnostics {
            assert!(seen.insert(key(d)), "{d:?} twice");
        }
    }
    assert_eq!(seen.len(), all.len());
    // One kind and severity: exactly the sends to P0.
    let errors = diagnostics_in(
        &trace,
        &all,
        &whole,
        DiagnosticsPage {
            offset: 90,
            limit: 1_000,
            kind: Some(DiagnosticKind::UnmatchedSend),
            severity: Some(Severity::Error),
        },
    );
    assert_eq!(errors.total, SENDS_TO_EXITED);
    assert_eq!(errors.diagnostics.len(), SENDS_TO_EXITED - 90);
    assert!(errors.diagnostics.iter().all(|d| d.process == Some(1)
        && d.kind == DiagnosticKind::UnmatchedSend
        && d.severity == Severity::Error));
    // A window of P4 only: its leaves and the enters they close.
    let p4 = Selection::new(&trace, None, None, Some("4")).expect("a selection");
    let mine = diagnostics_in(
        &trace,
        &all,
        &p4,
        DiagnosticsPage {
            limit: 10,
            ..DiagnosticsPage::default()
        },
    );
    assert_eq!(mine.total, 2 * MIGRATED);
    assert!(mine.counts.iter().all(|c| c.severity == Severity::Note));
}

#[test]
fn an_unclosed_region_where_the_trace_stops_is_a_warning() {
    let mut t = T::new(1, &[0]);
    let r = t.b.add_region("r", RegionRole::Activity);
    t.init(0, 0).enter(0, 1, r);
    assert_eq!(
        severities(&mut t),
        [(DiagnosticKind::UnclosedRegion, Severity::Warning)]
    );
}

#[test]
fn a_task_that_migrates_between_threads_of_a_node_gives_notes_and_one_across_nodes_errors() {
    // P0 and P1 share node 0; P2 is on node 1.
    let mut t = T::new(2, &[0, 0, 1]);
    let task = t.b.add_region("task", RegionRole::Activity);
    let other = t.b.add_region("other", RegionRole::Activity);
    t.init(0, 0).enter(0, 1, task).exit(0, 9);
    t.init(1, 0).leave(1, 5, task).leave(1, 6, other).exit(1, 9);
    t.init(2, 0).leave(2, 7, task).exit(2, 9);
    assert_eq!(
        severities(&mut t),
        [
            (DiagnosticKind::LeaveWithoutEnter, Severity::Error),
            (DiagnosticKind::LeaveWithoutEnter, Severity::Error),
            (DiagnosticKind::LeaveWithoutEnter, Severity::Note),
            (DiagnosticKind::UnclosedRegion, Severity::Note),
        ]
    );
    // A leave before the enter on the other thread is no migration.
    let mut t = T::new(1, &[0, 0]);
    let task = t.b.add_region("task", RegionRole::Activity);
    t.init(0, 0).enter(0, 5, task).exit(0, 9);
    t.init(1, 0).leave(1, 2, task).exit(1, 9);
    assert_eq!(
        severities(&mut t),
        [
            (DiagnosticKind::LeaveWithoutEnter, Severity::Error),
            (DiagnosticKind::UnclosedRegion, Severity::Warning),
        ]
    );
}

#[test]
fn unmatched_messages_at_the_edges_of_a_cut_trace_are_warnings_and_inside_a_whole_one_errors() {
    // P1 never exits: P0's send to it may arrive after tracing stopped. P2 never starts in
    // the trace: the send of P1's arrival from it may precede its record.
    let mut t = T::new(1, &[0, 0, 0]);
    t.init(0, 0).send(0, 5, 1).exit(0, 9);
    t.init(1, 0).call(1, 2).arr(1, 3, 2);
    t.exit(2, 9);
    assert_eq!(
        severities(&mut t),
        [
            (DiagnosticKind::UnmatchedArrival, Severity::Warning),
            (DiagnosticKind::UnmatchedSend, Severity::Warning),
        ]
    );
    // Both processes' starts and ends are in the trace: the same messages are certainly lost.
    let mut t = T::new(1, &[0, 0, 0]);
    t.init(0, 0).send(0, 5, 1).exit(0, 9);
    t.init(1, 0).call(1, 2).arr(1, 3, 2).exit(1, 9);
    t.init(2, 0).exit(2, 9);
    assert_eq!(
        severities(&mut t),
        [
            (DiagnosticKind::UnmatchedArrival, Severity::Error),
            (DiagnosticKind::UnmatchedSend, Severity::Error),
        ]
    );
}

#[test]
fn a_receive_left_waiting_where_the_trace_stops_is_a_warning_and_one_the_process_left_an_error() {
    let mut t = T::new(1, &[0]);
    let r = t.b.add_region("MPI_Recv", RegionRole::Communication);
    t.init(0, 0)
        .enter(0, 1, r)
        .call(0, 2)
        .leave(0, 3, r)
        .exit(0, 4);
    assert_eq!(
        severities(&mut t),
        [(DiagnosticKind::ReceiveNeverCompleted, Severity::Warning)]
    );
    let mut t = T::new(1, &[0, 0]);
    t.init(0, 0).call(0, 2).send(0, 3, 1).exit(0, 4);
    t.init(1, 0).call(1, 1).arr(1, 5, 0).exit(1, 6);
    assert_eq!(
        severities(&mut t),
        [(DiagnosticKind::ReceiveNeverCompleted, Severity::Error)]
    );
}

#[test]
fn severities_are_named_error_warning_and_note() {
    assert_eq!(
        serde_json::to_value([Severity::Error, Severity::Warning, Severity::Note])
            .expect("serializes"),
        serde_json::json!(["error", "warning", "note"])
    );
    for s in [Severity::Error, Severity::Warning, Severity::Note] {
        assert_eq!(Severity::from_name(s.name()), Some(s));
    }
    for k in DiagnosticKind::ALL {
        assert_eq!(
            serde_json::to_value(k).expect("serializes"),
            serde_json::json!(k.name())
        );
        assert_eq!(DiagnosticKind::from_name(k.name()), Some(k));
    }
}

/// Diagnostics speak the page's words (issue 47 point 7): event kinds as people say them and
/// times in the trace's unit, never `msg_arr` or a bare tick count on a clocked trace.
#[test]
fn a_clock_violation_names_the_event_in_words_and_its_times_in_the_trace_unit() {
    use shared::model::time::{Clock, Time};
    use shared::model::{EventKind, EventRecord, NodeId, ProcessId, TraceBuilder};
    let mut b = TraceBuilder::new("clocked", Clock::NANOSECONDS);
    b.add_node("n0");
    for name in ["task 1", "task 3"] {
        b.add_process(name, NodeId(0)).expect("node exists");
    }
    let mut push = |p: u32, t: u64, kind: EventKind, peer: Option<u32>| {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        r.peer = peer.map(ProcessId);
        b.push(r).expect("valid event");
    };
    push(0, 0, EventKind::ProcInit, None);
    push(0, 84_092, EventKind::MsgSend, Some(1));
    push(0, 90_000, EventKind::ProcExit, None);
    push(1, 0, EventKind::ProcInit, None);
    push(1, 80_000, EventKind::RecvCall, None);
    push(1, 84_070, EventKind::MsgArr, Some(0));
    push(1, 90_000, EventKind::ProcExit, None);
    let a = analyze(&b.build(), AnalysisOptions::default());
    let violation = a
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::ClockViolation)
        .expect("the arrival comes before its send");
    assert_eq!(
        violation.message,
        "the message arrival of task 3 at 84.07 µs came before its send at 84.092 µs plus the minimum latency 0 s"
    );
}
