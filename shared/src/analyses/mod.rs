//! The analyses, each reading a trace through its [`crate::graph::context::Context`]:
//! whole-run metrics (critical path, WCPA, NPT, POP, bounds), utilization, wait states and delay
//! costs, what-if replay, validation, causality and the dependence language, clock repair,
//! statistics, patterns and the trace summary.

pub mod causality;
pub mod clocks;
pub mod dependence;
pub mod metrics;
pub mod motifs;
pub mod patterns;
pub mod stats;
pub mod summary;
pub mod utilization;
pub mod validate;
pub mod waits;
pub mod whatif;
