//! The Tracescope server: the HTTP API on SQLite, the static site, and the commands of the
//! `tracescope` binary.
//!
//! This is the only crate that knows SQL. It calls `shared` for everything about traces.

pub mod blobs;
pub mod cache;
pub mod cli;
pub mod db;
pub mod http;
pub mod ingest;
pub mod lazy;
pub mod listen;
pub mod memory;
pub mod metrics;
pub mod spool;

use std::path::PathBuf;

use crate::db::Pool;
use axum::Router;

/// The default upload limit: 1 GiB.
pub const DEFAULT_MAX_UPLOAD_BYTES: usize = 1 << 30;

/// What every request handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub pool: Pool,
    /// Where runs' uploads and models are kept: the database, or a directory (`--blobs`).
    pub blobs: blobs::BlobStore,
    /// The folder of the built site (index.html, CSS, JS glue, .wasm).
    pub site_dir: PathBuf,
    /// The largest upload accepted, in bytes.
    pub max_upload_bytes: usize,
    /// What one import may cost: bytes after decompression, events, processes, nesting depth.
    pub budget: shared::formats::Budget,
    /// The memory one run's analyses may take, in bytes (`--max-memory-bytes`): a Hasse diagram
    /// that would take more is refused before it is built.
    pub max_memory_bytes: u64,
    /// The server-wide memory budget (the same `--max-memory-bytes`) that every import and
    /// analysis reserves its estimated cost from before it starts.
    pub memory: std::sync::Arc<memory::MemoryBudget>,
    /// The most events of a run whose analyses (model and context in memory) are built; a
    /// larger run is drawn from its stored index but its analyses are refused.
    pub max_analysed_events: u64,
    /// The workspaces (trace, analysis context, report, wait states, viewport index) of the
    /// most recently used runs: every run endpoint reads from here.
    pub workspaces: std::sync::Arc<cache::RunCache<cache::RunWorkspace>>,
    /// The most recently used runs opened from their stored viewport index.
    pub lazy_runs: std::sync::Arc<cache::RunCache<Option<lazy::LazyRun>>>,
    /// Viewport answers already serialized, by ETag.
    pub answers: std::sync::Arc<cache::AnswerCache>,
    /// Requests, latencies, cache lookups, ingest and errors, for `GET /metrics`.
    pub metrics: std::sync::Arc<metrics::Metrics>,
    /// The progress of recent uploads.
    pub uploads: std::sync::Arc<http::uploads::UploadTracker>,
    /// How long a request may take: an upload, and any other API request.
    pub timeouts: Timeouts,
    /// Which `Host` names are served (every one by default; `serve` allows its own).
    pub hosts: http::guard::Hosts,
}

/// Request deadlines; a request past its deadline is cancelled (an upload's transaction rolls
/// back) and answered 408 in the one error shape.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// `POST /api/runs`, body and processing together.
    pub upload: std::time::Duration,
    /// Every other API request.
    pub api: std::time::Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            upload: std::time::Duration::from_secs(30 * 60),
            api: std::time::Duration::from_secs(120),
        }
    }
}

impl AppState {
    /// The state of a server on `pool`, serving the site in `site_dir`.
    pub fn new(pool: Pool, site_dir: PathBuf, max_upload_bytes: usize) -> AppState {
        let metrics = std::sync::Arc::new(metrics::Metrics::default());
        let uploads = std::sync::Arc::new(http::uploads::UploadTracker::new(pool.clone()));
        AppState {
            pool,
            blobs: blobs::BlobStore::Database,
            site_dir,
            max_upload_bytes,
            budget: shared::formats::Budget::scaled(
                max_upload_bytes as u64,
                shared::formats::budget::DEFAULT_MEMORY_BYTES,
            ),
            max_memory_bytes: shared::formats::budget::DEFAULT_MEMORY_BYTES,
            memory: memory::MemoryBudget::new(
                shared::formats::budget::DEFAULT_MEMORY_BYTES,
                memory::DEFAULT_WAIT,
                [&metrics.memory_reserved, &metrics.memory_budget],
            ),
            max_analysed_events: shared::formats::budget::analysed_events(
                shared::formats::budget::DEFAULT_MEMORY_BYTES,
            ),
            workspaces: std::sync::Arc::new(cache::RunCache::new(3, &metrics, "workspace")),
            lazy_runs: std::sync::Arc::new(cache::RunCache::new(8, &metrics, "lazy_run")),
            answers: std::sync::Arc::default(),
            metrics: std::sync::Arc::clone(&metrics),
            uploads,
            timeouts: Timeouts::default(),
            hosts: http::guard::Hosts::Any,
        }
    }
}

/// The whole application: API routes under `/api`, the site everywhere else.
pub fn app(state: AppState) -> Router {
    http::router(state)
}
