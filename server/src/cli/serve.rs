//! `tracescope serve`: the app and its API on a store (an embedded SQLite file, or a shared
//! PostgreSQL database).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;

use crate::{AppState, app, db};

/// How the log is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Lines for a person.
    Text,
    /// One JSON object a line, with the request's span (method, path, request id).
    Json,
}

/// Where and how to serve.
#[derive(Debug, Clone)]
pub struct Options {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// The store.
    pub db: db::Target,
    /// The built site.
    pub site_dir: PathBuf,
    /// The largest upload accepted, in bytes.
    pub max_upload_bytes: usize,
    /// How the log is written.
    pub log_format: LogFormat,
    /// Where runs' uploads and models are kept.
    pub blobs: crate::blobs::BlobStore,
    /// Which `Host` names are served.
    pub hosts: crate::http::guard::Hosts,
    /// What bounds slow and idle clients.
    pub limits: crate::listen::Limits,
    /// The server's memory budget, in bytes: what one run's analyses may take, and what all
    /// imports and analyses under way reserve from together.
    pub max_memory_bytes: u64,
}

/// Serves until Ctrl-C or SIGTERM, then stops taking connections and finishes the requests
/// in flight (an upload under way is stored) before exiting.
pub fn command(
    options: Options,
    budget: shared::formats::Budget,
    max_analysed_events: u64,
) -> anyhow::Result<()> {
    let Options {
        addr,
        db,
        site_dir,
        max_upload_bytes,
        log_format,
        blobs,
        hosts,
        limits,
        max_memory_bytes,
    } = options;
    // Logs go to stderr; stdout carries only the "listening on" line, for scripts.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "info,sqlx=warn,tower_http=info".into());
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    match log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().with_current_span(true).init(),
    }
    if !site_dir.join("index.html").is_file() {
        tracing::warn!(site = %site_dir.display(), "no index.html in the site folder; run `cargo xtask build-site`");
    }
    crate::memory::give_large_blocks_back();
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        let pool = db::open(db.clone()).await?;
        let mut state = AppState::new(pool, site_dir, max_upload_bytes);
        state.budget = budget;
        state.max_analysed_events = max_analysed_events;
        state.max_memory_bytes = max_memory_bytes;
        state.memory = crate::memory::MemoryBudget::new(
            max_memory_bytes,
            crate::memory::DEFAULT_WAIT,
            [&state.metrics.memory_reserved, &state.metrics.memory_budget],
        );
        state.blobs = blobs;
        state.hosts = hosts;
        sweep_blob_temporaries(&state.blobs);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("binding {addr}"))?;
        let local = listener.local_addr()?;
        tracing::info!(db = %db, max_connections = limits.max_connections, max_memory_bytes, "serving on http://{local}");
        println!("tracescope listening on http://{local}");
        crate::listen::serve(listener, app(state), limits, shutdown_signal()).await;
        Ok(())
    })
}

/// How long a blob temporary goes unwritten before it counts as left by a dead instance.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Removes the blob temporaries dead instances left, now and then every [`STALE_TEMPORARY`]
/// (one left by an instance killed just before this one started is removed on a later sweep).
fn sweep_blob_temporaries(blobs: &crate::blobs::BlobStore) {
    if !matches!(blobs, crate::blobs::BlobStore::Directory(_)) {
        return;
    }
    let blobs = blobs.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(STALE_TEMPORARY);
        loop {
            every.tick().await;
            let blobs = blobs.clone();
            match tokio::task::spawn_blocking(move || blobs.sweep_temporaries(STALE_TEMPORARY))
                .await
            {
                Ok(Ok(0)) => {}
                Ok(Ok(n)) => tracing::info!(removed = n, "removed stale blob temporaries"),
                Ok(Err(e)) => tracing::warn!(error = %e, "the blob directory could not be swept"),
                Err(e) => tracing::warn!(error = %e, "the blob sweep failed"),
            }
        }
    });
}

/// Ctrl-C or SIGTERM (what a service manager or a container runtime sends to stop a server).
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
    tracing::info!("stopping: finishing the requests in flight");
}
