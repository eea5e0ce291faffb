//! `tracescope serve`: the app and its API on an embedded SQLite database.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;

use crate::{AppState, app, db};

/// Serves until Ctrl-C.
pub fn command(
    addr: SocketAddr,
    db_path: PathBuf,
    site_dir: PathBuf,
    max_upload_bytes: usize,
    budget: shared::formats::Budget,
    max_analysed_events: u64,
) -> anyhow::Result<()> {
    // Logs go to stderr; stdout carries only the "listening on" line, for scripts.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,sqlx=warn,tower_http=info".into()),
        )
        .init();
    if !site_dir.join("index.html").is_file() {
        tracing::warn!(site = %site_dir.display(), "no index.html in the site folder; run `cargo xtask build-site`");
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async move {
        let pool = db::open(&db_path).await?;
        let mut state = AppState::new(pool, site_dir, max_upload_bytes);
        state.budget = budget;
        state.max_analysed_events = max_analysed_events;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("binding {addr}"))?;
        let local = listener.local_addr()?;
        tracing::info!(db = %db_path.display(), "serving on http://{local}");
        println!("tracescope listening on http://{local}");
        axum::serve(listener, app(state))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("serving")
    })
}
