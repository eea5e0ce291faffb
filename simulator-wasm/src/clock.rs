//! Conversions between processor cycles and picoseconds of virtual time, for nodes of any clock
//! rate (whole-number arithmetic, never floating point).

/// Cycles at `clock_hz` as picoseconds, rounded down.
pub fn cycle_ps(cycles: u64, clock_hz: u64) -> u64 {
    let ps = u128::from(cycles) * 1_000_000_000_000 / u128::from(clock_hz.max(1));
    u64::try_from(ps).unwrap_or(u64::MAX)
}

/// A picosecond count as processor cycles at `clock_hz`, rounded up.
pub fn cycles_at(ps: u64, clock_hz: u64) -> u64 {
    let c = (u128::from(ps) * u128::from(clock_hz)).div_ceil(1_000_000_000_000);
    u64::try_from(c).unwrap_or(u64::MAX)
}
