//! Tracescope's pure core: the trace model, the importers that build it from bytes, and the
//! analyses that run on it.
//!
//! Nothing in this crate does IO, spawns, sleeps or touches a database, the network or the DOM,
//! so the same code runs in the server and in the browser.
//! Every function that reads user data returns an error or a diagnostic instead of panicking.

pub mod analysis;
pub mod api;
pub mod attribution;
pub mod causality;
pub mod clocks;
pub mod collectives;
pub mod critical_path;
pub mod dependence;
pub mod error;
pub mod graph;
pub mod import;
pub mod model;
pub mod native;
pub mod pairing;
pub mod patterns;
pub mod selection;
pub mod states;
pub mod stats;
pub mod summary;
pub mod synthetic;
pub mod time;
pub mod timeline;
pub mod utilization;
pub mod validate;
pub mod view;
pub mod viewport;
pub mod waits;
pub mod whatif;

pub use error::TraceError;
pub use model::{EventIdx, EventKind, NodeId, ProcessId, Trace};
pub use time::{Clock, Duration, Time};
