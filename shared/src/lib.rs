//! Tracescope's pure core: the trace model, the formats that read and write it, the analyses that
//! run on it, and what the views exchange.
//!
//! The folders are the layers, each using only those above it in this list:
//! - [`model`]: the trace (ids, events as a struct of arrays, integer time, the import error);
//! - [`formats`]: readers and writers of every trace format, native JSON and binary included;
//! - [`graph`]: the base every analysis reads (message pairing, the execution graph, states,
//!   collectives, timelines, attribution, longest paths, and the [`graph::context::Context`]
//!   that holds them for one trace);
//! - [`analyses`]: metrics, critical path and WCPA, NPT, wait states, what-if, validation,
//!   causality, clocks, statistics, patterns;
//! - [`report`]: the typed report (`tracescope analyze --json`, `GET /api/runs/{id}/analysis`);
//! - [`view`]: what views exchange (viewport level of detail, view states, selections, API types).
//!
//! Nothing in this crate does IO, spawns, sleeps or touches a database, the network or the DOM,
//! so the same code runs in the server and in the browser.
//! Every function that reads user data returns an error or a diagnostic instead of panicking.

pub mod analyses;
pub mod formats;
pub mod graph;
pub mod model;
pub mod report;
pub mod view;

pub use model::error::TraceError;
pub use model::time::{Clock, Duration, Time};
pub use model::{EventIdx, EventKind, NodeId, ProcessId, Trace};
