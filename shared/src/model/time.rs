//! Trace time: integer ticks with a declared tick duration.
//!
//! Time stays an integer count of ticks everywhere in the model and the analyses.
//! Only a viewport converts it to pixels, and only [`Clock`] converts it to seconds for display.

use serde::{Deserialize, Serialize};

/// A point in trace time, in ticks since the trace's origin.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

/// A length of trace time, in ticks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Duration(pub u64);

impl Time {
    /// The time from `earlier` to `self`, or zero when `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

/// What one tick means in real time.
///
/// `ticks_per_second` is `None` for unitless traces, such as the founding thesis's worked
/// examples, whose times are plain numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Clock {
    /// Ticks in one second, when the trace declares it.
    pub ticks_per_second: Option<u64>,
}

impl Clock {
    /// The clock of a trace whose ticks are nanoseconds.
    pub const NANOSECONDS: Clock = Clock {
        ticks_per_second: Some(1_000_000_000),
    };

    /// The duration in seconds, when the clock has a unit.
    pub fn seconds(self, duration: Duration) -> Option<f64> {
        self.ticks_per_second
            .filter(|&tps| tps > 0)
            .map(|tps| duration.0 as f64 / tps as f64)
    }

    /// A human-readable duration with a unit chosen for its size, e.g. `12.5 ms` or `69 ticks`.
    pub fn format_duration(self, duration: Duration) -> String {
        match self.seconds(duration) {
            None => format!("{} ticks", duration.0),
            Some(seconds) => format_seconds(seconds),
        }
    }
}

/// Reads a duration as people write one: `250us`, `10ms`, `1.5s`, `500ns` (a bare number is
/// nanoseconds).
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("expected a duration such as 10ms, found `{text}`"))?;
    let scale = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => {
            return Err(format!(
                "unknown time unit `{other}`: expected ns, us, ms or s"
            ));
        }
    };
    Ok((value * scale).round() as u64)
}

/// Formats seconds with an SI prefix that keeps the mantissa in [1, 1000) where possible.
pub fn format_seconds(seconds: f64) -> String {
    let abs = seconds.abs();
    let (value, unit) = if abs == 0.0 {
        (0.0, "s")
    } else if abs < 1e-6 {
        (seconds * 1e9, "ns")
    } else if abs < 1e-3 {
        (seconds * 1e6, "µs")
    } else if abs < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    };
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unitless_durations_print_as_ticks() {
        assert_eq!(Clock::default().format_duration(Duration(69)), "69 ticks");
    }

    #[test]
    fn durations_with_a_unit_pick_a_readable_prefix() {
        let micro = Clock {
            ticks_per_second: Some(1_000_000),
        };
        assert_eq!(micro.format_duration(Duration(12_500)), "12.5 ms");
        assert_eq!(micro.format_duration(Duration(3)), "3 µs");
        assert_eq!(
            Clock::NANOSECONDS.format_duration(Duration(2_000_000_000)),
            "2 s"
        );
        assert_eq!(Clock::NANOSECONDS.format_duration(Duration(0)), "0 s");
    }
}
