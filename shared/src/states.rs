//! What each process was doing over time: computing, or blocked in a receive.
//!
//! A process is active from its `proc_init` (or first event) to its `proc_exit` (or last event).
//! The k-th `recv_call` of a process completes with the k-th `msg_arr` of that process, at
//! max(call, arrival) (decision D-c); between call and completion the process is blocked.
//! A receive with no arrival blocks until the process's last event.
//! All other active time is computation.

use serde::{Deserialize, Serialize};

use crate::model::{EventKind, ProcessId, Trace};
use crate::time::Time;

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

/// Every process's state spans, by process and then by time; zero-length spans are left out.
pub fn state_spans(trace: &Trace) -> Vec<StateSpan> {
    let mut spans = Vec::new();
    let mut blocked = Vec::new();
    for process in trace.process_ids() {
        let range = trace.process_events(process);
        if range.is_empty() {
            continue;
        }
        let times = &trace.events.time()[range.clone()];
        let kinds = &trace.events.kind()[range];
        let begin = kinds
            .iter()
            .position(|&k| k == EventKind::ProcInit)
            .map_or_else(|| times.iter().copied().min().unwrap_or_default(), |i| times[i]);
        let end = kinds
            .iter()
            .rposition(|&k| k == EventKind::ProcExit)
            .map_or_else(|| times.iter().copied().max().unwrap_or_default(), |i| times[i]);
        let calls = kinds.iter().zip(times).filter(|(k, _)| **k == EventKind::RecvCall).map(|(_, t)| *t);
        let mut arrivals = kinds.iter().zip(times).filter(|(k, _)| **k == EventKind::MsgArr).map(|(_, t)| *t);
        blocked.clear();
        for call in calls {
            let done = arrivals.next().map_or(end, |arrival| arrival.max(call));
            blocked.push((call.clamp(begin, end), done.clamp(begin, end)));
        }
        blocked.sort_unstable();
        let mut cursor = begin;
        for &(start, stop) in &blocked {
            let start = start.max(cursor);
            if stop <= start {
                continue;
            }
            push_span(&mut spans, process, cursor, start, State::Computing);
            push_span(&mut spans, process, start, stop, State::Blocked);
            cursor = stop;
        }
        push_span(&mut spans, process, cursor, end, State::Computing);
    }
    spans
}

fn push_span(spans: &mut Vec<StateSpan>, process: ProcessId, start: Time, end: Time, state: State) {
    if end > start {
        spans.push(StateSpan { process, start, end, state });
    }
}
