//! The headline numbers of a trace: what `tracescope analyze` prints and the runs list shows.

use serde::{Deserialize, Serialize};

use crate::formats::Format;
use crate::graph::pairing::Pairing;
use crate::model::Trace;
use crate::model::time::{Duration, Time};

/// Counts and time span of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSummary {
    /// The trace's name.
    pub name: String,
    /// The format it was read from.
    pub format: Format,
    /// Number of nodes (processors).
    pub nodes: u64,
    /// Number of processes.
    pub processes: u64,
    /// Number of events.
    pub events: u64,
    /// Number of matched messages.
    pub messages: u64,
    /// Sends that found no arrival.
    pub unmatched_sends: u64,
    /// Arrivals that found no send.
    pub unmatched_arrivals: u64,
    /// The time span of the events.
    pub time: TimeSpan,
}

/// The span of a trace's events, in ticks and, when the clock has a unit, in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeSpan {
    /// The earliest event (0 without events).
    pub start: Time,
    /// The latest event (0 without events).
    pub end: Time,
    /// `end - start`, in ticks.
    pub duration: Duration,
    /// Ticks per second, when the trace declares them.
    pub ticks_per_second: Option<u64>,
    /// The duration in seconds, when the clock has a unit.
    pub duration_seconds: Option<f64>,
    /// The duration for people, e.g. `69 ticks` or `12.5 ms`.
    pub duration_text: String,
}

/// Summarises a trace and its message pairing.
pub fn summarize(trace: &Trace, format: Format, pairing: &Pairing) -> TraceSummary {
    let (start, end) = trace.time_bounds().unwrap_or_default();
    let duration = end.saturating_since(start);
    TraceSummary {
        name: trace.name.clone(),
        format,
        nodes: trace.nodes.len() as u64,
        processes: trace.processes.len() as u64,
        events: trace.events.len() as u64,
        messages: pairing.messages.len() as u64,
        unmatched_sends: pairing.unmatched_sends.len() as u64,
        unmatched_arrivals: pairing.unmatched_arrivals.len() as u64,
        time: TimeSpan {
            start,
            end,
            duration,
            ticks_per_second: trace.clock.ticks_per_second,
            duration_seconds: trace.clock.seconds(duration),
            duration_text: trace.clock.format_duration(duration),
        },
    }
}
