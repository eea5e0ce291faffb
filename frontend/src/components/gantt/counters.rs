//! Counter tracks: each imported counter (an OTF2 metric, a Chrome counter, a Pajé variable) as
//! a step series ready to draw under its process — an accumulating counter as its rate, any
//! other as its value — and its samples thinned to the least and greatest value per pixel.

use shared::Trace;
use shared::model::CounterKind;

/// One counter as the chart draws it: `values[i]` holds from `times[i]` to `times[i + 1]` (the
/// last one at its instant only).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterTrack {
    /// The counter's name, e.g. `PAPI_TOT_CYC`.
    pub name: String,
    /// The unit of the drawn values, e.g. `/s` for a rate of a count, `W`.
    pub unit: String,
    /// The process it belongs to.
    pub process: usize,
    /// The step times, ascending.
    pub times: Vec<u64>,
    /// The drawn value of each step.
    pub values: Vec<f64>,
    /// The least and greatest drawn value (the track's vertical scale).
    pub range: (f64, f64),
}

impl CounterTrack {
    /// The tracks of a trace's counters, in the trace's order.
    pub fn all(trace: &Trace) -> Vec<CounterTrack> {
        let tps = trace.clock.ticks_per_second.map(|t| t as f64);
        trace
            .counters
            .iter()
            .map(|c| {
                let times: Vec<u64> = c.times.iter().map(|t| t.0).collect();
                let (times, values, unit) = match c.kind {
                    CounterKind::Gauge => (times, c.values.clone(), c.unit.clone()),
                    CounterKind::Accumulated => {
                        let (times, values) = rates(&times, &c.values, tps.unwrap_or(1.0));
                        let per = if tps.is_some() { "/s" } else { "/tick" };
                        let unit = match c.unit.as_str() {
                            "" | "#" => per.to_owned(),
                            u => format!("{u}{per}"),
                        };
                        (times, values, unit)
                    }
                };
                let range = values
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                        (lo.min(v), hi.max(v))
                    });
                let range = if range.0 <= range.1 {
                    range
                } else {
                    (0.0, 0.0)
                };
                CounterTrack {
                    name: c.name.clone(),
                    unit,
                    process: c.process.index(),
                    times,
                    values,
                    range,
                }
            })
            .collect()
    }

    /// The track's row label: its name and the top of its scale, e.g. `PAPI_TOT_CYC ≤ 3.3 G/s`.
    pub fn label(&self) -> String {
        format!("{} ≤ {}{}", self.name, value_text(self.range.1), self.unit)
    }

    /// The tracks under each of `n_processes` processes (track indices).
    pub fn by_process(tracks: &[CounterTrack], n_processes: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); n_processes];
        for (k, t) in tracks.iter().enumerate() {
            if let Some(list) = out.get_mut(t.process) {
                list.push(k as u32);
            }
        }
        out
    }

    /// The steps inside `[from, to]` thinned per pixel of `ticks_per_px`: for each pixel column
    /// that a step reaches, (first tick, last tick, least value, greatest value).
    pub fn columns(&self, (from, to): (f64, f64), ticks_per_px: f64) -> Vec<(f64, f64, f64, f64)> {
        let n = self.times.len();
        if n == 0 {
            return Vec::new();
        }
        // The step holding `from`: the last one starting at or before it.
        let first = self
            .times
            .partition_point(|&t| (t as f64) <= from)
            .saturating_sub(1);
        let px = ticks_per_px.max(f64::MIN_POSITIVE);
        let mut out: Vec<(f64, f64, f64, f64)> = Vec::new();
        for i in first..n {
            let start = self.times[i] as f64;
            if start > to {
                break;
            }
            let end = self.times.get(i + 1).map_or(start, |&t| t as f64);
            let (a, b) = (start.max(from), end.min(to));
            if b < a {
                continue;
            }
            let v = self.values[i];
            match out.last_mut() {
                // A step narrower than a pixel, in the pixel column the last entry starts in:
                // widen that entry (a wider step is drawn on its own).
                Some(last)
                    if b - a < px
                        && ((a - from) / px).floor() <= ((last.0 - from) / px).floor() =>
                {
                    last.1 = last.1.max(b);
                    last.2 = last.2.min(v);
                    last.3 = last.3.max(v);
                }
                _ => out.push((a, b, v, v)),
            }
        }
        out
    }
}

/// An accumulating counter's rate per second between consecutive samples (`tps` ticks a
/// second): steps at the samples' times, the last sample's time closing the last step.
fn rates(times: &[u64], values: &[f64], tps: f64) -> (Vec<u64>, Vec<f64>) {
    let mut out_t = Vec::with_capacity(times.len());
    let mut out_v = Vec::with_capacity(times.len());
    let mut prev: Option<(u64, f64)> = None;
    for (&t, &v) in times.iter().zip(values) {
        match prev {
            Some((t0, v0)) if t > t0 => {
                out_t.push(t0);
                out_v.push((v - v0) / ((t - t0) as f64 / tps));
                prev = Some((t, v));
            }
            // Two samples at one instant: the later one counts.
            Some((t0, _)) => prev = Some((t0, v)),
            None => prev = Some((t, v)),
        }
    }
    if let (Some((t, _)), Some(&last)) = (prev, out_v.last()) {
        out_t.push(t);
        out_v.push(last);
    }
    (out_t, out_v)
}

/// A value for a track's scale: `2.1 G`, `512 k`, `0.75`.
pub fn value_text(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, " G")
    } else if a >= 1e6 {
        (v / 1e6, " M")
    } else if a >= 1e3 {
        (v / 1e3, " k")
    } else {
        (v, "")
    };
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::model::time::{Clock, Time};
    use shared::model::{Counter, ProcessId};

    #[test]
    fn an_accumulating_counter_draws_as_its_rate() {
        // 1000 events by tick 10, 3000 by tick 20, 3000 by 30: at 1e9 ticks a second.
        let (t, v) = rates(&[0, 10, 20, 30], &[0.0, 1000.0, 3000.0, 3000.0], 1e9);
        assert_eq!(t, [0, 10, 20, 30]);
        assert_eq!(v, [1e11, 2e11, 0.0, 0.0]);
        // Two samples at one tick: the later value.
        let (t, v) = rates(&[0, 0, 10], &[5.0, 0.0, 10.0], 1.0);
        assert_eq!((t, v), (vec![0, 10], vec![1.0, 1.0]));
        assert_eq!(rates(&[7], &[1.0], 1.0), (vec![], vec![]));
    }

    #[test]
    fn tracks_come_from_the_traces_counters() {
        let mut trace = shared::model::synthetic::ring(2, 40);
        trace.clock = Clock::NANOSECONDS;
        let mut c = Counter::new("PAPI_TOT_CYC", "#", ProcessId(1), CounterKind::Accumulated);
        c.times = vec![Time(0), Time(1_000)];
        c.values = vec![0.0, 2_000.0];
        trace.counters.push(c);
        let mut g = Counter::new("power", "W", ProcessId(0), CounterKind::Gauge);
        g.times = vec![Time(0), Time(500)];
        g.values = vec![3.0, 5.0];
        trace.counters.push(g);
        let tracks = CounterTrack::all(&trace);
        assert_eq!(tracks[0].unit, "/s");
        assert_eq!(tracks[0].values, [2e9, 2e9]);
        assert_eq!(tracks[0].range, (2e9, 2e9));
        assert_eq!(tracks[1].unit, "W");
        assert_eq!(tracks[1].range, (3.0, 5.0));
        assert_eq!(CounterTrack::by_process(&tracks, 2), [vec![1], vec![0]]);
    }

    #[test]
    fn columns_keep_the_least_and_greatest_value_per_pixel() {
        let track = CounterTrack {
            name: "x".into(),
            unit: String::new(),
            process: 0,
            times: (0..100).collect(),
            values: (0..100).map(|i| f64::from(i % 10)).collect(),
            range: (0.0, 9.0),
        };
        // One tick a pixel: one column a step.
        assert_eq!(track.columns((0.0, 9.0), 1.0).len(), 10);
        // Ten ticks a pixel: ten columns, each 0 to 9.
        let cols = track.columns((0.0, 99.0), 10.0);
        assert_eq!(cols.len(), 10);
        assert!(cols.iter().all(|c| c.2 == 0.0 && c.3 == 9.0), "{cols:?}");
        // A step wider than a pixel is never folded into the column before it.
        let wide = CounterTrack {
            times: vec![0, 1, 1, 50],
            values: vec![1.0, 1.0, 5.0, 5.0],
            ..track.clone()
        };
        let cols = wide.columns((0.0, 50.0), 1.0);
        assert!(
            cols.iter().all(|c| c.1 - c.0 < 1.5 || c.2 == c.3),
            "{cols:?}"
        );
        // A window starting inside a step draws it from the window's edge.
        let cols = track.columns((5.5, 7.0), 0.1);
        assert_eq!(cols[0].0, 5.5);
        assert_eq!(cols[0].2, 5.0);
    }

    #[test]
    fn scale_values_read_short() {
        assert_eq!(value_text(2.1e9), "2.1 G");
        assert_eq!(value_text(512_000.0), "512 k");
        assert_eq!(value_text(0.75), "0.75");
        assert_eq!(value_text(0.0), "0");
    }
}
