//! The time axis's ticks: steps that are round in the trace's own unit (1, 2 or 5 × 10^k
//! seconds on a clocked trace, whole ticks 1, 2 or 5 × 10^k apart on a unitless one), labels
//! whose unit follows the window and whose precision follows the step, and placements that keep
//! every label inside the plot.

use shared::model::time::Clock;

use super::time_scale::TimeScale;

/// A label's width in CSS pixels, estimated per character for the chart's 12 px font (digits
/// there are ~6.6 px wide; the estimate errs wide so a kept label is never cut).
pub const CHAR_PX: f64 = 7.0;
/// The gap between a tick and its label, and between two labels.
const GAP_PX: f64 = 6.0;

/// One labelled tick of the axis.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisTick {
    /// Where it stands, in (fractional) trace ticks.
    pub tick: f64,
    /// Its text, e.g. `47.5 ms` or `1200`.
    pub label: String,
    /// The label's left edge in plot pixels (right of the tick, or left of it at the right edge).
    pub label_x: f64,
}

/// The smallest 1, 2 or 5 × 10^k that is at least `raw` (`raw` > 0; 1 otherwise): the
/// histograms' bin widths are the same round numbers.
pub fn nice_step(raw: f64) -> f64 {
    shared::analyses::stats::round_width(raw)
}

/// A unit for labels: its name and how many of it make a second.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Unit {
    name: &'static str,
    per_second: f64,
}

const UNITS: [Unit; 4] = [
    Unit {
        name: "s",
        per_second: 1.0,
    },
    Unit {
        name: "ms",
        per_second: 1e3,
    },
    Unit {
        name: "µs",
        per_second: 1e6,
    },
    Unit {
        name: "ns",
        per_second: 1e9,
    },
];

/// The unit that writes `seconds` with one to three digits before the point.
fn unit_for(seconds: f64) -> Unit {
    UNITS
        .into_iter()
        .find(|u| seconds.abs() * u.per_second >= 1.0)
        .unwrap_or(UNITS[3])
}

/// Digits after the point that show a step of `step` (a 1, 2 or 5 × 10^k) exactly.
fn decimals_for(step: f64) -> usize {
    (-(step.log10() + 1e-9).floor()).max(0.0) as usize
}

/// How the axis writes times at a given step: a unit and a precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Labeller {
    /// Ticks per second, or `None` for plain ticks.
    ticks_per_second: Option<f64>,
    unit: Unit,
    decimals: usize,
}

impl Labeller {
    /// Labels for times up to `largest_tick` whose neighbours are `step_ticks` apart: in the
    /// unit that suits the largest time, with the digits the step needs.
    pub fn new(clock: Clock, largest_tick: f64, step_ticks: f64) -> Labeller {
        match clock.ticks_per_second {
            Some(tps) if tps > 0 => {
                let tps = tps as f64;
                let unit = unit_for((largest_tick / tps).max(step_ticks / tps));
                Labeller {
                    ticks_per_second: Some(tps),
                    unit,
                    decimals: decimals_for(step_ticks / tps * unit.per_second),
                }
            }
            _ => Labeller {
                ticks_per_second: None,
                unit: UNITS[0],
                decimals: decimals_for(step_ticks.max(1.0)),
            },
        }
    }

    /// The text of the time `tick`.
    pub fn label(&self, tick: f64) -> String {
        match self.ticks_per_second {
            Some(tps) => {
                let value = tick / tps * self.unit.per_second;
                format!(
                    "{:.*} {}",
                    self.decimals,
                    clean_zero(value, self.decimals),
                    self.unit.name
                )
            }
            None => format!("{:.0}", tick.round()),
        }
    }
}

/// `-0.0` and values that round to zero print as `0`.
fn clean_zero(value: f64, decimals: usize) -> f64 {
    if value.abs() < 0.5 * 10f64.powi(-(decimals as i32)) {
        0.0
    } else {
        value
    }
}

/// A label's estimated width in pixels.
pub fn label_px(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_PX
}

/// The step, in ticks, that puts neighbouring ticks at least `min_px` apart: round in seconds on
/// a clocked trace, a whole number of ticks otherwise.
pub fn step_ticks(scale: &TimeScale, clock: Clock, min_px: f64) -> f64 {
    let raw = scale.px_to_span(min_px);
    match clock.ticks_per_second {
        Some(tps) if tps > 0 => {
            let tps = tps as f64;
            nice_step(raw / tps) * tps
        }
        _ => nice_step(raw.max(1.0)).round().max(1.0),
    }
}

/// The axis's ticks across the window: at least 90 px apart and wide enough for their labels,
/// each label inside `[0, plot width]` (one that cannot fit without covering its neighbour is
/// dropped, its tick kept).
pub fn ticks(scale: &TimeScale, clock: Clock) -> Vec<AxisTick> {
    let (start, end) = scale.window();
    let mut min_px = 90.0;
    // Widen the step until the widest label fits between two ticks.
    for _ in 0..4 {
        let step = step_ticks(scale, clock, min_px);
        let labeller = Labeller::new(clock, end.max(start.abs()), step);
        let widest = label_px(&labeller.label(end)).max(label_px(&labeller.label(start)));
        if scale.span_to_px(step) >= widest + 2.0 * GAP_PX {
            return place(scale, step, &labeller);
        }
        min_px = widest + 2.0 * GAP_PX;
    }
    let step = step_ticks(scale, clock, min_px);
    place(scale, step, &Labeller::new(clock, end, step))
}

fn place(scale: &TimeScale, step: f64, labeller: &Labeller) -> Vec<AxisTick> {
    let (start, end) = scale.window();
    let width = scale.span_to_px(end - start);
    let first = (start.max(0.0) / step).ceil();
    let last = (end / step).floor();
    let mut out = Vec::new();
    let mut free_from = f64::NEG_INFINITY;
    let mut k = first;
    while k <= last && out.len() < 1000 {
        let tick = k * step;
        let x = scale.tick_to_px(tick);
        let label = labeller.label(tick);
        let w = label_px(&label);
        // Right of the tick; at the right edge, left of it when that keeps well clear of its
        // neighbour (a label close to the one before would read as one).
        let label_x = if x + GAP_PX / 2.0 + w <= width {
            Some(x + GAP_PX / 2.0)
        } else {
            Some(x - GAP_PX / 2.0 - w).filter(|&lx| lx >= free_from + 3.0 * GAP_PX && lx >= 0.0)
        };
        if let Some(label_x) = label_x.filter(|&lx| lx >= free_from) {
            free_from = label_x + w + GAP_PX;
            out.push(AxisTick {
                tick,
                label,
                label_x,
            });
        }
        k += 1.0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::model::time::Time;

    /// Score-P's clock in the OTF2 samples: 2,095,197,216 ticks a second.
    const SCOREP: Clock = Clock {
        ticks_per_second: Some(2_095_197_216),
    };

    #[test]
    fn nice_steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(1.2), 2.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(6.0), 10.0);
        assert!((nice_step(0.0013) - 0.002).abs() < 1e-15);
        assert!((nice_step(4.2e-7) - 5e-7).abs() < 1e-20);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(nice_step(f64::NAN), 1.0);
    }

    fn labels(ticks: &[AxisTick]) -> Vec<&str> {
        ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn a_score_p_clock_gets_round_milliseconds() {
        // 0.25 s of trace across 1,200 px: steps of 20 ms, not 23.864 ms.
        let end = 2_095_197_216 / 4;
        let scale = TimeScale::fit(Time(0), Time(end), 1200.0);
        let ticks = ticks(&scale, SCOREP);
        assert_eq!(
            labels(&ticks),
            [
                "0 ms", "20 ms", "40 ms", "60 ms", "80 ms", "100 ms", "120 ms", "140 ms", "160 ms",
                "180 ms", "200 ms", "220 ms", "240 ms"
            ]
        );
        for t in &ticks {
            assert!(
                t.label_x >= 0.0 && t.label_x + label_px(&t.label) <= 1200.0,
                "{t:?}"
            );
        }
    }

    #[test]
    fn zoomed_in_labels_keep_the_unit_and_show_the_step() {
        // 195.557 ms to 195.562 ms across 800 px: 5 µs of trace, steps of 1 µs written in ms.
        let tps = 2_095_197_216f64;
        let from = (0.195_557 * tps) as u64;
        let to = (0.195_562 * tps) as u64;
        let scale = TimeScale::fit(Time(from), Time(to), 800.0);
        let ticks = ticks(&scale, SCOREP);
        assert!(ticks.len() >= 4, "{ticks:?}");
        assert_eq!(ticks[0].label, "195.557 ms");
        assert_eq!(ticks[1].label, "195.558 ms");
        let step = ticks[1].tick - ticks[0].tick;
        assert!((step / tps - 1e-6).abs() < 1e-15, "{step}");
    }

    #[test]
    fn unitless_traces_step_in_whole_ticks() {
        let scale = TimeScale::fit(Time(0), Time(69), 690.0);
        assert_eq!(
            labels(&ticks(&scale, Clock::default())),
            ["0", "10", "20", "30", "40", "50", "60"]
        );
        let scale = TimeScale::fit(Time(0), Time(3), 900.0);
        assert_eq!(
            labels(&ticks(&scale, Clock::default())),
            ["0", "1", "2", "3"]
        );
    }

    #[test]
    fn the_last_label_moves_left_of_its_tick_or_goes() {
        let ns = Clock::NANOSECONDS;
        // A tick at the right edge with room before it: its label ends at the edge.
        let scale = TimeScale::fit(Time(0), Time(1_000_000), 400.0);
        let roomy = ticks(&scale, ns);
        assert_eq!(labels(&roomy), ["0.0 ms", "0.5 ms", "1.0 ms"]);
        let last = roomy.last().expect("a last tick");
        assert_eq!(last.label_x + label_px(&last.label), 400.0 - GAP_PX / 2.0);
        // Without room (it would touch 0.9 ms's label), the last label goes.
        let scale = TimeScale::fit(Time(0), Time(1_000_000), 1000.0);
        let ticks = ticks(&scale, ns);
        let last = ticks.last().expect("a last tick");
        assert_eq!(last.label, "0.9 ms");
        for pair in ticks.windows(2) {
            assert!(
                pair[0].label_x + label_px(&pair[0].label) < pair[1].label_x,
                "{pair:?}"
            );
        }
        for t in &ticks {
            assert!(
                t.label_x >= 0.0 && t.label_x + label_px(&t.label) <= 1000.0,
                "{t:?}"
            );
        }
    }

    #[test]
    fn seconds_use_the_unit_of_the_window() {
        let labeller = Labeller::new(Clock::NANOSECONDS, 2.5e9, 5e8);
        assert_eq!(labeller.label(1.5e9), "1.5 s");
        let labeller = Labeller::new(Clock::NANOSECONDS, 2.5e6, 1e6);
        assert_eq!(labeller.label(2e6), "2 ms");
        let labeller = Labeller::new(Clock::NANOSECONDS, 800.0, 200.0);
        assert_eq!(labeller.label(600.0), "600 ns");
    }
}
