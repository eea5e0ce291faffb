//! Message pairing (decision D-e).

use shared::graph::execution::ExecutionGraph;
use shared::graph::pairing::{Message, pair_messages};
use shared::model::time::{Clock, Time};
use shared::model::{EventIdx, EventKind, EventRecord, NodeId, ProcessId, TraceBuilder};

use crate::load;

#[test]
fn worked_example_pairs_three_messages_with_their_transits() {
    let trace = load("t4-worked-example.json");
    let pairing = pair_messages(&trace);
    assert!(pairing.unmatched_sends.is_empty() && pairing.unmatched_arrivals.is_empty());
    let transits: Vec<u64> = pairing
        .messages
        .iter()
        .map(|m| trace.events.time()[m.arrival.index()].0 - trace.events.time()[m.send.index()].0)
        .collect();
    // m1 = 8, m3 = 3 (both sent by A, whose events come first), m2 = 10.
    assert_eq!(transits, [8, 3, 10]);
}

fn message(b: &mut TraceBuilder, kind: EventKind, process: u32, peer: u32, time: u64, tag: u32) {
    let mut r = EventRecord::plain(ProcessId(process), Time(time), kind);
    r.peer = Some(ProcessId(peer));
    r.tag = tag;
    b.push(r).expect("valid event");
}

/// T17: P0 sends s1 (tag 1), s2 (tag 2), s3 (tag 1); P1 receives tag 2, tag 1, tag 1.
#[test]
fn pairing_is_fifo_per_tag() {
    let mut b = TraceBuilder::new("t17", Clock::default());
    let n = b.add_node("n");
    for p in ["P0", "P1"] {
        b.add_process(p, n).expect("node exists");
    }
    message(&mut b, EventKind::MsgSend, 0, 1, 1, 1);
    message(&mut b, EventKind::MsgSend, 0, 1, 2, 2);
    message(&mut b, EventKind::MsgSend, 0, 1, 3, 1);
    message(&mut b, EventKind::MsgArr, 1, 0, 4, 2);
    message(&mut b, EventKind::MsgArr, 1, 0, 5, 1);
    message(&mut b, EventKind::MsgArr, 1, 0, 6, 1);
    let trace = b.build();
    let pairing = pair_messages(&trace);
    let m = |send, arrival| Message {
        send: EventIdx(send),
        arrival: EventIdx(arrival),
    };
    assert_eq!(pairing.messages, [m(0, 4), m(1, 3), m(2, 5)]);
    let analysis = shared::analyses::metrics::analyze(
        &trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert!(analysis.diagnostics.is_empty());
}

/// T17's other half: arrivals whose tags match no send are flagged, not paired by (src, dst).
#[test]
fn tag_mismatches_are_flagged() {
    let mut b = TraceBuilder::new("t17-mismatch", Clock::default());
    let n = b.add_node("n");
    b.add_process("P0", n).expect("node exists");
    b.add_process("P1", n).expect("node exists");
    message(&mut b, EventKind::MsgSend, 0, 1, 1, 1);
    message(&mut b, EventKind::MsgSend, 0, 1, 2, 2);
    message(&mut b, EventKind::MsgArr, 1, 0, 4, 3);
    message(&mut b, EventKind::MsgArr, 1, 0, 5, 1);
    let analysis = shared::analyses::metrics::analyze(
        &b.build(),
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    use shared::analyses::validate::DiagnosticKind::{UnmatchedArrival, UnmatchedSend};
    let kinds: Vec<_> = analysis.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [UnmatchedSend, UnmatchedArrival]);
}

#[test]
fn leftover_sends_and_arrivals_are_unmatched() {
    let mut b = TraceBuilder::new("unmatched", Clock::default());
    let n = b.add_node("n");
    b.add_process("P0", n).expect("node exists");
    b.add_process("P1", NodeId(0)).expect("node exists");
    message(&mut b, EventKind::MsgSend, 0, 1, 1, 7);
    message(&mut b, EventKind::MsgSend, 0, 1, 2, 7);
    message(&mut b, EventKind::MsgArr, 1, 0, 3, 7);
    message(&mut b, EventKind::MsgArr, 0, 1, 4, 9);
    let pairing = pair_messages(&b.build());
    assert_eq!(pairing.messages.len(), 1);
    assert_eq!(pairing.unmatched_sends, [EventIdx(1)]);
    assert_eq!(pairing.unmatched_arrivals, [EventIdx(2)]);
}

/// Program links: in a process recorded in program order each vertex follows the one before it;
/// an arrival recorded before its receive call moves after the call.
#[test]
fn program_links_follow_the_recorded_order_or_the_moved_arrival() {
    let plain = |b: &mut TraceBuilder, process: u32, time: u64, kind: EventKind| {
        b.push(EventRecord::plain(ProcessId(process), Time(time), kind))
            .expect("valid event");
    };
    let build = |early: bool| {
        let mut b = TraceBuilder::new("links", Clock::NANOSECONDS);
        let node = b.add_node("n");
        for name in ["a", "b"] {
            b.add_process(name, node).expect("node exists");
        }
        plain(&mut b, 0, 0, EventKind::ProcInit);
        message(&mut b, EventKind::MsgSend, 0, 1, 1, 0);
        plain(&mut b, 0, 2, EventKind::ProcExit);
        plain(&mut b, 1, 0, EventKind::ProcInit);
        if early {
            message(&mut b, EventKind::MsgArr, 1, 0, 3, 0);
            plain(&mut b, 1, 4, EventKind::RecvCall);
        } else {
            plain(&mut b, 1, 2, EventKind::RecvCall);
            message(&mut b, EventKind::MsgArr, 1, 0, 3, 0);
        }
        plain(&mut b, 1, 5, EventKind::ProcExit);
        b.build()
    };
    for (early, order_b) in [(false, [3, 4, 5, 6]), (true, [3, 5, 4, 6])] {
        let trace = build(early);
        let graph = ExecutionGraph::new(&trace, &pair_messages(&trace));
        let program = |p: u32| -> Vec<u32> { graph.program(ProcessId(p)).map(|v| v.0).collect() };
        assert_eq!(program(0), [0, 1, 2], "early {early}");
        assert_eq!(program(1), order_b, "early {early}");
        for order in [vec![0, 1, 2], order_b.to_vec()] {
            for (k, &v) in order.iter().enumerate() {
                let prev = k.checked_sub(1).map(|j| EventIdx(order[j]));
                let next = order.get(k + 1).map(|&w| EventIdx(w));
                assert_eq!(graph.prev(EventIdx(v)), prev, "prev of {v}, early {early}");
                assert_eq!(graph.next(EventIdx(v)), next, "next of {v}, early {early}");
            }
        }
    }
}
