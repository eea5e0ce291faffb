//! Process states: computing and blocked (decision D-c).

use shared::graph::states::{State, StateSpan, state_spans};
use shared::model::ProcessId;
use shared::model::time::Time;

use crate::load;

fn spans_of(spans: &[StateSpan], process: u32, state: State) -> Vec<(u64, u64)> {
    spans
        .iter()
        .filter(|s| s.process == ProcessId(process) && s.state == state)
        .map(|s| (s.start.0, s.end.0))
        .collect()
}

#[test]
fn worked_example_busy_and_blocked_intervals() {
    let spans = state_spans(&load("t4-worked-example.json"));
    // analysis.md §10: busy A [0,35] and [48,53]; B [0,20], [33,43] and [54,69].
    assert_eq!(spans_of(&spans, 0, State::Computing), [(0, 35), (48, 53)]);
    assert_eq!(
        spans_of(&spans, 1, State::Computing),
        [(0, 20), (33, 43), (54, 69)]
    );
    assert_eq!(spans_of(&spans, 0, State::Blocked), [(35, 48)]);
    assert_eq!(spans_of(&spans, 1, State::Blocked), [(20, 33), (43, 54)]);
    let total = |state| {
        spans
            .iter()
            .filter(|s| s.state == state)
            .map(|s| s.end.0 - s.start.0)
            .sum::<u64>()
    };
    // Total computation 85, blocked 37 (A 13; B 13 + 11).
    assert_eq!(total(State::Computing), 85);
    assert_eq!(total(State::Blocked), 37);
}

#[test]
fn a_message_that_arrived_before_the_call_does_not_block() {
    let doc = r#"{"format": "tracescope", "version": 1, "nodes": [{"name": "n"}],
      "processes": [{"name": "p", "node": 0}, {"name": "q", "node": 0}],
      "events": [
        {"process": 0, "time": 0, "kind": "proc_init"},
        {"process": 0, "time": 5, "kind": "msg_arr", "from": 1},
        {"process": 0, "time": 8, "kind": "recv_call"},
        {"process": 0, "time": 10, "kind": "recv_call"},
        {"process": 0, "time": 20, "kind": "proc_exit"}
      ]}"#;
    let trace = shared::formats::import(doc.as_bytes(), None, "t")
        .expect("parses")
        .trace;
    let spans = state_spans(&trace);
    // The first call finds its message waiting; the second never gets one and blocks to the end.
    assert_eq!(spans_of(&spans, 0, State::Blocked), [(10, 20)]);
    assert_eq!(spans_of(&spans, 0, State::Computing), [(0, 10)]);
    assert!(spans.iter().all(|s| s.start < s.end && s.end <= Time(20)));
}
