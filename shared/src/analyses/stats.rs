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

/// Counts of values in bins of one round width (1, 2 or 5 × 10^k, at least `min_width`), with
/// the values' summary: what a histogram panel draws.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Where the first bin starts (a multiple of `width`).
    pub start: f64,
    /// Each bin's width.
    pub width: f64,
    /// How many values fall in each bin, `[start + k·width, start + (k+1)·width)`.
    pub counts: Vec<u64>,
    /// Count, extremes, mean and type-7 quartiles.
    pub summary: Summary,
}

/// The smallest round width (1, 2 or 5 × 10^k) of at least `raw`.
pub fn round_width(raw: f64) -> f64 {
    if raw.is_nan() || raw <= 0.0 || raw.is_infinite() {
        return 1.0;
    }
    let decade = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * decade)
        .find(|&w| w >= raw * (1.0 - 1e-12))
        .unwrap_or(10.0 * decade)
}

/// A histogram of `values` (sorted in place) in at most `max_bins` bins of a round width no
/// smaller than `min_width` (1 for tick and byte counts); `None` for no values.
pub fn histogram(values: &mut [f64], max_bins: usize, min_width: f64) -> Option<Histogram> {
    let summary = summarize(values)?;
    let bins = max_bins.max(1) as f64;
    let mut width = round_width(((summary.max - summary.min) / bins).max(min_width));
    let mut start = (summary.min / width).floor() * width;
    // Flooring the start can push the last value one bin further: widen until it fits.
    while ((summary.max - start) / width).floor() >= bins && width.is_finite() {
        width = round_width(width * 1.000_001);
        start = (summary.min / width).floor() * width;
    }
    let n = (((summary.max - start) / width).floor() as usize + 1).min(max_bins.max(1));
    let mut counts = vec![0u64; n];
    for v in values.iter() {
        let k = (((v - start) / width).floor().max(0.0) as usize).min(n - 1);
        counts[k] += 1;
    }
    Some(Histogram {
        start,
        width,
        counts,
        summary,
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
                    if e.region().at(i) != Some(region) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_round() {
        let widths: Vec<f64> = [0.3, 1.0, 1.5, 3.0, 7.0, 12.0, 480.0, 0.0]
            .into_iter()
            .map(round_width)
            .collect();
        assert_eq!(widths, [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 500.0, 1.0]);
    }

    #[test]
    fn a_histogram_bins_every_value_once_with_type7_quartiles() {
        // 1..=100: 10 bins of 10 from 0; the quartiles of type 7: 25.75, 50.5, 75.25.
        let mut values: Vec<f64> = (1..=100).map(f64::from).collect();
        let h = histogram(&mut values, 10, 1.0).expect("values");
        assert_eq!((h.start, h.width), (0.0, 20.0));
        assert_eq!(h.counts, [19, 20, 20, 20, 20, 1]);
        assert_eq!(h.counts.iter().sum::<u64>(), 100);
        assert_eq!(
            (h.summary.q1, h.summary.median, h.summary.q3),
            (25.75, 50.5, 75.25)
        );
        // The same values in at most 20 bins: width 5, 21 bins would be one too many.
        let h = histogram(&mut values, 20, 1.0).expect("values");
        assert_eq!((h.start, h.width, h.counts.len()), (0.0, 10.0, 11));
        // One value: one bin of the smallest width.
        let h = histogram(&mut [7.0], 10, 1.0).expect("a value");
        assert_eq!((h.start, h.width, h.counts.clone()), (7.0, 1.0, vec![1]));
        assert!(histogram(&mut [], 10, 1.0).is_none());
    }
}
