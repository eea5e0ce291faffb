//! The `tracescope` binary: `serve` the app, `analyze` a trace.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use server::{AppState, DEFAULT_MAX_UPLOAD_BYTES, analyze, app, db};

#[derive(Parser)]
#[command(
    name = "tracescope",
    version,
    about = "See why a message-passing parallel program is slow."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web app and its API on an embedded SQLite database.
    Serve {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The SQLite database file, created and migrated at start.
        #[arg(long, default_value = "data/tracescope.db")]
        db: PathBuf,
        /// The folder of the built site (made by `cargo xtask build-site`).
        #[arg(long, default_value = "target/site")]
        site: PathBuf,
        /// The largest upload accepted, in bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_UPLOAD_BYTES)]
        max_upload_bytes: usize,
    },
    /// Read a trace and report on it.
    Analyze {
        /// The trace file.
        file: PathBuf,
        /// Print one JSON object with named fields instead of text.
        #[arg(long)]
        json: bool,
        /// The clock condition's minimum message latency, in ticks.
        #[arg(long, default_value_t = 0)]
        min_latency: u64,
        /// A what-if scenario, e.g. `transit=0` (an ideal network), `transit*0.5`,
        /// `latency=1,bandwidth=200`, `edge=EVENT:duration=5`, `region=NAME*0.5`.
        #[arg(long)]
        what_if: Option<String>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            addr,
            db,
            site,
            max_upload_bytes,
        } => serve(addr, db, site, max_upload_bytes),
        Command::Analyze {
            file,
            json,
            min_latency,
            what_if,
        } => {
            let bytes =
                std::fs::read(&file).with_context(|| format!("reading {}", file.display()))?;
            let options = shared::analysis::AnalysisOptions {
                validation: shared::validate::ValidationOptions { min_latency },
            };
            let request = analyze::Request { options, what_if };
            let report = analyze::analyze(&bytes, &file.display().to_string(), &request)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", analyze::render_text(&report));
            }
            Ok(())
        }
    }
}

fn serve(
    addr: SocketAddr,
    db_path: PathBuf,
    site_dir: PathBuf,
    max_upload_bytes: usize,
) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
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
        let state = AppState {
            pool,
            site_dir,
            max_upload_bytes,
        };
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
