//! The viewport's time axis: the one place where integer trace ticks become `f64` pixels.
//!
//! Pixels are CSS pixels measured from the left edge of the plot area (right of the row labels),
//! and time grows to the right.

use shared::model::time::Time;

/// The finest zoom: a thousandth of a tick per pixel.
const MIN_TICKS_PER_PX: f64 = 1e-3;
/// The coarsest zoom.
const MAX_TICKS_PER_PX: f64 = 1e15;

/// Maps trace time to horizontal pixels and back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeScale {
    /// The (possibly fractional) tick at the plot's left edge.
    start_tick: f64,
    /// Ticks per CSS pixel.
    ticks_per_px: f64,
    /// The plot's width in CSS pixels.
    width_px: f64,
}

impl TimeScale {
    /// A scale showing [start, end] across `width_px`; a degenerate window is widened to one tick
    /// and a degenerate width to one pixel.
    pub fn fit(start: Time, end: Time, width_px: f64) -> TimeScale {
        let width_px = sanitize_width(width_px);
        let span = (end.0.saturating_sub(start.0)).max(1) as f64;
        TimeScale::new(start.0 as f64, span / width_px, width_px)
    }

    fn new(start_tick: f64, ticks_per_px: f64, width_px: f64) -> TimeScale {
        let scale = TimeScale {
            start_tick: if start_tick.is_finite() {
                start_tick
            } else {
                0.0
            },
            ticks_per_px: if ticks_per_px.is_finite() {
                ticks_per_px.clamp(MIN_TICKS_PER_PX, MAX_TICKS_PER_PX)
            } else {
                1.0
            },
            width_px: sanitize_width(width_px),
        };
        debug_assert!(scale.ticks_per_px > 0.0 && scale.width_px > 0.0);
        scale
    }

    /// Ticks per CSS pixel.
    #[cfg(test)]
    fn ticks_per_px(&self) -> f64 {
        self.ticks_per_px
    }

    /// The visible window as fractional ticks [start, end).
    pub fn window(&self) -> (f64, f64) {
        (
            self.start_tick,
            self.start_tick + self.width_px * self.ticks_per_px,
        )
    }

    /// The x position of a time.
    pub fn time_to_px(&self, time: Time) -> f64 {
        self.tick_to_px(time.0 as f64)
    }

    /// The x position of a fractional tick.
    pub fn tick_to_px(&self, tick: f64) -> f64 {
        (tick - self.start_tick) / self.ticks_per_px
    }

    /// The fractional tick at an x position.
    pub fn px_to_tick(&self, x: f64) -> f64 {
        self.start_tick + x * self.ticks_per_px
    }

    /// The width in pixels of a span of `ticks`.
    pub fn span_to_px(&self, ticks: f64) -> f64 {
        ticks / self.ticks_per_px
    }

    /// The span in (fractional) ticks of `px` pixels.
    pub fn px_to_span(&self, px: f64) -> f64 {
        px * self.ticks_per_px
    }

    /// The trace time at an x position (rounded to the nearest tick), or `None` before tick 0.
    pub fn px_to_time(&self, x: f64) -> Option<Time> {
        let tick = self.px_to_tick(x).round();
        (tick >= 0.0 && tick <= u64::MAX as f64).then_some(Time(tick as u64))
    }
}

/// The most CSS pixels one tick takes at the finest zoom: room for several event icons (8 to 12
/// pixels) between events one tick apart, and no more, or the chart shows one tick's stripes
/// across the screen. (The 69-tick worked example fills a plot at 15 pixels a tick and still
/// zooms in four times.)
const MAX_PX_PER_TICK: f64 = 64.0;
/// The finest zoom of a trace whose ticks have a unit, in nanoseconds a pixel: two (a microsecond
/// across 500 pixels), the resolution of the fastest clocks a trace records.
const MIN_NS_PER_PX: f64 = 2.0;

/// The narrowest window, in whole ticks, the chart zooms in to across a plot `plot_px` wide:
/// a tick takes at most [`MAX_PX_PER_TICK`] pixels and, when the clock has a unit, a pixel
/// shows at least [`MIN_NS_PER_PX`] nanoseconds.
pub fn zoom_floor(plot_px: f64, clock: shared::model::time::Clock) -> u64 {
    let plot_px = sanitize_width(plot_px);
    let by_ticks = plot_px / MAX_PX_PER_TICK;
    let by_time = clock
        .ticks_per_second
        .filter(|&tps| tps > 0)
        .map_or(0.0, |tps| plot_px * MIN_NS_PER_PX * tps as f64 / 1e9);
    by_ticks.max(by_time).ceil().max(1.0) as u64
}

/// The zoom factor to apply to a window `width` ticks wide so that it stays at least `floor`
/// ticks wide: `factor` itself when it zooms out or stays above the floor, less when it would
/// cross it, and `None` when the window is at the floor already and `factor` zooms in.
pub fn floored_zoom(factor: f64, width: u64, floor: u64) -> Option<f64> {
    if !(factor.is_finite() && factor > 0.0) || factor >= 1.0 || width == 0 {
        return Some(factor);
    }
    if width <= floor {
        return None;
    }
    Some(factor.max(floor as f64 / width as f64))
}

fn sanitize_width(width_px: f64) -> f64 {
    if width_px.is_finite() && width_px >= 1.0 {
        width_px
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_puts_the_window_edge_to_edge() {
        let scale = TimeScale::fit(Time(0), Time(69), 690.0);
        assert_eq!(scale.time_to_px(Time(0)), 0.0);
        assert_eq!(scale.time_to_px(Time(69)), 690.0);
        assert_eq!(scale.window(), (0.0, 69.0));
    }

    #[test]
    fn time_to_px_and_back_round_trips() {
        let scale = TimeScale::fit(Time(1_337), Time(370_000_000), 1234.0);
        for t in [1_000u64, 5_555, 123_456_789, 999_999_999] {
            let x = scale.time_to_px(Time(t));
            assert_eq!(scale.px_to_time(x), Some(Time(t)), "{t}");
        }
    }

    #[test]
    fn spans_convert_both_ways_at_the_scale() {
        let scale = TimeScale::fit(Time(100), Time(300), 400.0);
        assert_eq!(scale.span_to_px(50.0), 100.0);
        assert_eq!(scale.px_to_span(100.0), 50.0);
    }

    #[test]
    fn the_zoom_stops_at_a_readable_resolution() {
        use shared::model::time::Clock;
        // Unitless ticks: 64 pixels a tick at the finest.
        assert_eq!(
            zoom_floor(
                800.0,
                Clock {
                    ticks_per_second: None
                }
            ),
            13
        );
        // Nanosecond ticks: 2 ns a pixel, 1600 ns across 800 pixels.
        assert_eq!(zoom_floor(800.0, Clock::NANOSECONDS), 1600);
        // Microsecond ticks: 2 ns a pixel is finer than 64 pixels a tick, so the tick rule.
        assert_eq!(
            zoom_floor(
                800.0,
                Clock {
                    ticks_per_second: Some(1_000_000)
                }
            ),
            13
        );
        // Zooming in is clamped at the floor and refused there; zooming out is never held.
        assert_eq!(floored_zoom(0.5, 1000, 100), Some(0.5));
        assert_eq!(floored_zoom(0.5, 150, 100), Some(100.0 / 150.0));
        assert_eq!(floored_zoom(0.5, 100, 100), None);
        assert_eq!(floored_zoom(2.0, 100, 100), Some(2.0));
        assert_eq!(floored_zoom(2.0, 10, 100), Some(2.0));
    }

    #[test]
    fn degenerate_inputs_are_sanitized() {
        let scale = TimeScale::fit(Time(5), Time(5), 0.0);
        assert_eq!(scale.window(), (5.0, 6.0));
        assert!(scale.ticks_per_px() > 0.0);
        let tiny = TimeScale::fit(Time(0), Time(1), 1e30);
        assert!(tiny.ticks_per_px() >= MIN_TICKS_PER_PX);
        assert_eq!(scale.px_to_time(-10.0), None);
    }
}
