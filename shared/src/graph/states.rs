//! What each process was doing over time: computing, or blocked in a receive, or — where the
//! trace records the scheduler's waits (the emulator) — ready, waiting on a timer, waiting for
//! its PAR's branches, or stopped.
//!
//! The spans follow the execution graph's program edges, so every analysis and every view sees
//! the same states: a process is active from its first to its last event in program order;
//! a program edge out of a `recv_call` is blocked time (decision D-c: until the receive
//! completes at max(call, arrival)); an edge out of a `wait` is the state its reason names
//! (blocked for an input, an output or an ALT); every other program edge is computation.

use serde::{Deserialize, Serialize};

use crate::graph::collectives::collectives;
use crate::graph::execution::{ExecutionGraph, ProgramEdge, walk_program};
use crate::graph::pairing::pair_messages;
use crate::model::time::Time;
use crate::model::{EventKind, ProcessId, Trace, WaitReason};

/// A process state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Running on its processor.
    Computing,
    /// Waiting in a receive for a message to arrive (or, in the emulator, blocked in an input,
    /// an output or an ALT on a channel: the wait that begins the span says which).
    Blocked,
    /// Able to run, waiting for its processor (released, time-sliced or preempted).
    Ready,
    /// Waiting on a timer for a time to come.
    Timer,
    /// A PAR's parent waiting for its branches to end.
    Children,
    /// Stopped, or ended until its process instance starts again.
    Stopped,
}

impl State {
    /// Every state, in declaration order.
    pub const ALL: [State; 6] = [
        State::Computing,
        State::Blocked,
        State::Ready,
        State::Timer,
        State::Children,
        State::Stopped,
    ];

    /// The state's name in the API and CSV: `computing`, `blocked`, `ready`, …
    pub fn name(self) -> &'static str {
        match self {
            State::Computing => "computing",
            State::Blocked => "blocked",
            State::Ready => "ready",
            State::Timer => "timer",
            State::Children => "children",
            State::Stopped => "stopped",
        }
    }

    /// The state of a program edge that begins at event `prev` and has kind `edge`.
    pub fn of_edge(trace: &Trace, prev: Option<u32>, edge: ProgramEdge) -> State {
        if matches!(edge, ProgramEdge::Computation | ProgramEdge::Start) {
            return State::Computing;
        }
        let e = &trace.events;
        let Some(prev) = prev.map(|p| p as usize).filter(|&p| p < e.len()) else {
            return State::Blocked;
        };
        if e.kind()[prev] != EventKind::Wait {
            return State::Blocked;
        }
        match WaitReason::from_code(e.tag().at(prev)) {
            Some(WaitReason::Ready) => State::Ready,
            Some(WaitReason::Timer) => State::Timer,
            Some(WaitReason::Children) => State::Children,
            Some(WaitReason::Stopped | WaitReason::Ended) => State::Stopped,
            Some(WaitReason::Input | WaitReason::Output | WaitReason::Alt) | None => State::Blocked,
        }
    }
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
            let state = State::of_edge(trace, step.prev, step.edge);
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
            let state = State::of_edge(trace, Some(prev.0), graph.in_edge(v));
            push_span(&mut spans, process, graph.time(prev), graph.time(v), state);
        }
    }
    spans
}
