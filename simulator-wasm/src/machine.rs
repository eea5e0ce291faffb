//! The emulator's pure core. So far: virtual time derived from processor cycles.

/// The default processor clock: the founding thesis's T800s ran at 20 MHz.
pub const DEFAULT_CLOCK_HZ: u64 = 20_000_000;

/// Virtual time of one node, counted in processor cycles and read in nanoseconds.
///
/// Time comes only from executed cycles, never from the host, so a run is reproducible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VirtualClock {
    clock_hz: u64,
    cycles: u64,
}

impl VirtualClock {
    /// A clock at `clock_hz` (a zero frequency is taken as the default 20 MHz).
    pub fn new(clock_hz: u64) -> VirtualClock {
        let clock_hz = if clock_hz == 0 {
            DEFAULT_CLOCK_HZ
        } else {
            clock_hz
        };
        VirtualClock {
            clock_hz,
            cycles: 0,
        }
    }

    /// Advances the clock by `cycles` processor cycles.
    pub fn advance(&mut self, cycles: u64) {
        self.cycles = self.cycles.saturating_add(cycles);
    }

    /// Cycles executed so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Virtual time in nanoseconds (rounded down), computed without overflow for any cycle count.
    pub fn nanoseconds(&self) -> u64 {
        let ns = u128::from(self.cycles) * 1_000_000_000 / u128::from(self.clock_hz);
        u64::try_from(ns).unwrap_or(u64::MAX)
    }
}

impl Default for VirtualClock {
    fn default() -> Self {
        VirtualClock::new(DEFAULT_CLOCK_HZ)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twenty_cycles_at_twenty_megahertz_take_one_microsecond() {
        let mut clock = VirtualClock::default();
        clock.advance(20);
        assert_eq!(clock.nanoseconds(), 1_000);
        clock.advance(1);
        assert_eq!(clock.nanoseconds(), 1_050);
    }

    #[test]
    fn huge_cycle_counts_do_not_overflow() {
        let mut clock = VirtualClock::new(1);
        clock.advance(u64::MAX);
        clock.advance(5);
        assert_eq!(clock.cycles(), u64::MAX);
        assert_eq!(clock.nanoseconds(), u64::MAX);
    }
}
