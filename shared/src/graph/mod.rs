//! The graph base every analysis reads: message pairing, the execution graph, process states,
//! collective instances, busy timelines, region and phase attribution, longest paths, and the
//! [`context::Context`] that builds them once for a trace.

pub mod attribution;
pub mod collectives;
pub mod context;
pub mod critical_path;
pub mod execution;
pub mod pairing;
pub mod states;
pub mod timeline;
