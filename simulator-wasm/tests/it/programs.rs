//! Programs as data: channels, processes, the scheduler, ALT and timers.
