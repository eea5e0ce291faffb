//! Statistics in the spirit of SIMPLE's trcstat: frequency, distance (inter-arrival time) and
//! duration of event kinds, regions and states, in any time window.
//! Quantiles are type 7 (decision D-f).

use serde::{Deserialize, Serialize};

use crate::graph::states::{State, state_spans};
use crate::model::time::Time;
use crate::model::{EventKind, RegionId, Trace};

/// Count, extremes, mean and quartiles of a set of values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// How many values.
    pub count: u64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
    /// The arithmetic mean.
    pub mean: f64,
    /// The first quartile (type 7).
    pub q1: f64,
    /// The median (type 7).
    pub median: f64,
    /// The third quartile (type 7).
    pub q3: f64,
}

/// The type-7 quantile of sorted values: h = (N − 1)·p + 1, linear interpolation.
pub fn quantile_type7(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

/// Summarises values (sorting them in place); `None` for no values.
pub fn summarize(values: &mut [f64]) -> Option<Summary> {
    values.sort_by(f64::total_cmp);
    let q = |p| quantile_type7(values, p);
    Some(Summary {
        count: values.len() as u64,
        min: *values.first()?,
        max: *values.last()?,
        mean: values.iter().sum::<f64>() / values.len() as f64,
        q1: q(0.25)?,
        median: q(0.5)?,
        q3: q(0.75)?,
    })
}

/// What to take statistics of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "value")]
pub enum Subject {
    /// Occurrences of an event kind (frequency and distance).
    Events(EventKind),
    /// Instances of a region, enter to leave (frequency, distance between enters, duration).
    Region(RegionId),
    /// Spans of a process state (frequency, distance between starts, duration).
    State(State),
}

/// Frequency, distance and duration of a subject in a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statistics {
    /// Occurrences starting in the window.
    pub count: u64,
    /// Occurrences per tick of the window.
    pub rate: f64,
    /// Gaps between consecutive occurrences (all processes merged, in time order).
    pub distance: Option<Summary>,
    /// Durations, for regions and states.
    pub duration: Option<Summary>,
}

/// Statistics of `subject` over occurrences starting in [start, end) (the whole trace when
/// `window` is `None`).
pub fn statistics(trace: &Trace, subject: Subject, window: Option<(Time, Time)>) -> Statistics {
    let (start, end) = window.unwrap_or_else(|| {
        let (a, b) = trace.time_bounds().unwrap_or_default();
        (a, Time(b.0.saturating_add(1)))
    });
    let inside = |t: Time| t >= start && t < end;
    let e = &trace.events;
    // (start time, duration) of each occurrence.
    let mut occurrences: Vec<(u64, Option<u64>)> = Vec::new();
    match subject {
        Subject::Events(kind) => {
            occurrences.extend(
                (0..e.len())
                    .filter(|&i| e.kind()[i] == kind && inside(e.time()[i]))
                    .map(|i| (e.time()[i].0, None)),
            );
        }
        Subject::Region(region) => {
            for process in trace.process_ids() {
                let mut open: Vec<u64> = Vec::new();
                for i in trace.process_events(process) {
                    if e.region()[i] != Some(region) {
                        continue;
                    }
                    match e.kind()[i] {
                        EventKind::Enter => open.push(e.time()[i].0),
                        EventKind::Leave => {
                            if let Some(t) = open.pop().filter(|&t| inside(Time(t))) {
                                occurrences.push((t, Some(e.time()[i].0.saturating_sub(t))));
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        Subject::State(state) => {
            occurrences.extend(
                state_spans(trace)
                    .iter()
                    .filter(|s| s.state == state && inside(s.start))
                    .map(|s| (s.start.0, Some(s.end.0 - s.start.0))),
            );
        }
    }
    let window_len = end.0.saturating_sub(start.0);
    statistics_of(occurrences, window_len)
}

/// Statistics of occurrences given as (start, duration), over a window `window_len` ticks long.
pub fn statistics_of(mut occurrences: Vec<(u64, Option<u64>)>, window_len: u64) -> Statistics {
    occurrences.sort_unstable();
    let mut gaps: Vec<f64> = occurrences
        .windows(2)
        .map(|w| (w[1].0 - w[0].0) as f64)
        .collect();
    let mut durations: Vec<f64> = occurrences
        .iter()
        .filter_map(|o| o.1)
        .map(|d| d as f64)
        .collect();
    let window_len = window_len.max(1) as f64;
    Statistics {
        count: occurrences.len() as u64,
        rate: occurrences.len() as f64 / window_len,
        distance: summarize(&mut gaps),
        duration: summarize(&mut durations),
    }
}
