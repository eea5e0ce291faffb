//! What each process was doing over time: computing, or blocked in a receive.
//!
//! The spans follow the execution graph's program edges, so every analysis and every view sees
//! the same states: a process is active from its first to its last event in program order;
//! a program edge out of a `recv_call` is blocked time (decision D-c: until the receive
//! completes at max(call, arrival)); every other program edge is computation.

use serde::{Deserialize, Serialize};

use crate::graph::collectives::collectives;
use crate::graph::execution::{ExecutionGraph, ProgramEdge, walk_program};
use crate::graph::pairing::pair_messages;
use crate::model::time::Time;
use crate::model::{ProcessId, Trace};

/// A process state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Running on its processor.
    Computing,
    /// Waiting in a receive for a message to arrive.
    Blocked,
}

/// A process in one state over [start, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateSpan {
    /// The process.
    pub process: ProcessId,
    /// When the state began.
    pub start: Time,
    /// When the state ended.
    pub end: Time,
    /// The state.
    pub state: State,
}

/// Every process's state spans, by process and then by time; zero-length spans are left out and
/// adjacent spans of the same state are merged.
pub fn state_spans(trace: &Trace) -> Vec<StateSpan> {
    let graph = ExecutionGraph::new(trace, &pair_messages(trace));
    state_spans_of(trace, &graph)
}

/// The collective members' leaves that wait for the others (the execution graph's hub
/// targets), sorted: all the streaming state spans need of the collectives.
#[derive(Debug, Clone, Default)]
pub struct HubTargets(Vec<u32>);

impl HubTargets {
    /// The hub targets of `trace`.
    pub fn new(trace: &Trace) -> HubTargets {
        let mut leaves: Vec<u32> = Vec::new();
        for c in collectives(trace) {
            for &(process, _, leave) in &c.members {
                if let (true, Some(leave)) = (c.is_target(process), leave) {
                    leaves.push(leave.0);
                }
            }
        }
        leaves.sort_unstable();
        leaves.dedup();
        HubTargets(leaves)
    }

    fn contains(&self, v: usize) -> bool {
        u32::try_from(v).is_ok_and(|v| self.0.binary_search(&v).is_ok())
    }
}

/// One process's state spans, as [`state_spans_of`] has them, without building the execution
/// graph: the program walk is the graph's own, so the spans are the same (a test checks), and
/// a whole trace's spans can be produced one process at a time. `sequence` and `out` are
/// reused buffers; `out` is cleared first.
pub fn process_state_spans(
    trace: &Trace,
    targets: &HubTargets,
    process: ProcessId,
    sequence: &mut Vec<u32>,
    out: &mut Vec<StateSpan>,
) {
    out.clear();
    let mut prev_time = None;
    walk_program(trace, process, &|v| targets.contains(v), sequence, |step| {
        if let Some(start) = prev_time {
            let state = match step.edge {
                ProgramEdge::Blocked => State::Blocked,
                ProgramEdge::Computation | ProgramEdge::Start => State::Computing,
            };
            push_span(out, process, start, step.time, state);
        }
        prev_time = Some(step.time);
    });
}

/// Appends a span, merged into the last when it continues it in the same state; empty spans
/// are left out.
fn push_span(spans: &mut Vec<StateSpan>, process: ProcessId, start: Time, end: Time, state: State) {
    if end <= start {
        return;
    }
    match spans.last_mut() {
        Some(last) if last.process == process && last.state == state && last.end == start => {
            last.end = end
        }
        _ => spans.push(StateSpan {
            process,
            start,
            end,
            state,
        }),
    }
}

/// The state spans of a trace whose execution graph is already built.
pub fn state_spans_of(trace: &Trace, graph: &ExecutionGraph) -> Vec<StateSpan> {
    let mut spans: Vec<StateSpan> = Vec::new();
    for process in trace.process_ids() {
        for v in graph.program(process) {
            let Some(prev) = graph.prev(v) else { continue };
            let state = match graph.in_edge(v) {
                ProgramEdge::Blocked => State::Blocked,
                ProgramEdge::Computation | ProgramEdge::Start => State::Computing,
            };
            push_span(&mut spans, process, graph.time(prev), graph.time(v), state);
        }
    }
    spans
}
