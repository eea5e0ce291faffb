//! COMSTIME in assembly: per-iteration virtual time against the 15,049 ns of a real T800-20.
