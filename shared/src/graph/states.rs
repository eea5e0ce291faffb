//! What each process was doing over time: computing, or blocked in a receive.
//!
//! The spans follow the execution graph's program edges, so every analysis and every view sees
//! the same states: a process is active from its first to its last event in program order;
//! a program edge out of a `recv_call` is blocked time (decision D-c: until the receive
//! completes at max(call, arrival)); every other program edge is computation.

use serde::{Deserialize, Serialize};

use crate::graph::execution::{ExecutionGraph, ProgramEdge};
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
            let (start, end) = (graph.time(prev), graph.time(v));
            if end <= start {
                continue;
            }
            match spans.last_mut() {
                Some(last)
                    if last.process == process && last.state == state && last.end == start =>
                {
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
    }
    spans
}
