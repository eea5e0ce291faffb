//! The `tracescope` binary: `serve` the app, `import`, `analyze` and `convert` traces.

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
        /// Read the file as this format instead of detecting it.
        #[arg(long, value_parser = parse_format)]
        format: Option<shared::import::Format>,
    },
    /// Store a trace as a run in the database, as an upload does.
    Import {
        /// The trace file (an OTF2 archive as a .tar or .tar.gz).
        file: PathBuf,
        /// The SQLite database file, created and migrated if missing.
        #[arg(long, default_value = "data/tracescope.db")]
        db: PathBuf,
        /// The run's name (default: the trace's own title, else the file's name).
        #[arg(long)]
        name: Option<String>,
        /// Read the file as this format instead of detecting it.
        #[arg(long, value_parser = parse_format)]
        format: Option<shared::import::Format>,
        /// Print one JSON object with named fields instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Convert a trace to another format.
    Convert {
        /// The trace to read (any supported format, gzip allowed).
        input: PathBuf,
        /// The format to write.
        #[arg(long, value_enum)]
        to: OutputFormat,
        /// The file to write.
        output: PathBuf,
        /// Read the input as this format instead of detecting it.
        #[arg(long, value_parser = parse_format)]
        format: Option<shared::import::Format>,
    },
}

/// What `tracescope convert` writes.
#[derive(Clone, Copy, clap::ValueEnum)]
enum OutputFormat {
    /// Chrome Trace Event JSON (opens in Perfetto and chrome://tracing, with message arrows).
    ChromeJson,
    /// Tracescope's JSON format.
    Native,
    /// Tracescope's compact binary format.
    Binary,
    /// Tmon records (Jiang 1990) in Tracescope's container.
    Tmon,
}

fn parse_format(name: &str) -> Result<shared::import::Format, String> {
    shared::import::Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = shared::import::Format::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        format!(
            "unknown format {name:?}; expected one of {}",
            names.join(", ")
        )
    })
}

/// Reads a trace from a file, or from an OTF2 archive given as its directory or anchor file.
fn read_trace(
    path: &std::path::Path,
    format: Option<shared::import::Format>,
) -> anyhow::Result<shared::import::Imported> {
    let name = path
        .file_name()
        .map_or_else(|| "trace".to_owned(), |n| n.to_string_lossy().into_owned());
    let archive_dir = if path.is_dir() {
        Some(path.to_path_buf())
    } else if path.extension().is_some_and(|e| e == "otf2") {
        path.parent().map(std::path::Path::to_path_buf)
    } else {
        None
    };
    if let Some(dir) = archive_dir {
        let mut files = std::collections::BTreeMap::new();
        let mut pending = vec![dir.clone()];
        while let Some(d) = pending.pop() {
            for entry in
                std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))?
            {
                let p = entry?.path();
                if p.is_dir() {
                    pending.push(p);
                } else if let Ok(relative) = p.strip_prefix(&dir) {
                    let key = relative.to_string_lossy().replace('\\', "/");
                    files.insert(
                        key,
                        std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?,
                    );
                }
            }
        }
        return Ok(shared::import::import_files(&files, &name)?);
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(shared::import::import(&bytes, format, &name)?)
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
        Command::Import {
            file,
            db,
            name,
            format,
            json,
        } => import(&file, &db, name, format, json),
        Command::Convert {
            input,
            to,
            output,
            format,
        } => {
            let imported = read_trace(&input, format)?;
            for note in &imported.notes {
                eprintln!("note: {note}");
            }
            let trace = &imported.trace;
            let out = match to {
                OutputFormat::ChromeJson => shared::import::chrome::write(trace).into_bytes(),
                OutputFormat::Native => shared::native::write(trace).into_bytes(),
                OutputFormat::Binary => shared::import::binary::write(trace),
                OutputFormat::Tmon => {
                    let (bytes, notes) = shared::import::tmon::write(trace)?;
                    for note in notes {
                        eprintln!("note: {note}");
                    }
                    bytes
                }
            };
            std::fs::write(&output, &out)
                .with_context(|| format!("writing {}", output.display()))?;
            eprintln!(
                "converted {} ({}, {} events) to {} ({} bytes)",
                input.display(),
                imported.format.name(),
                trace.events.len(),
                output.display(),
                out.len()
            );
            Ok(())
        }
        Command::Analyze {
            file,
            json,
            min_latency,
            what_if,
            format,
        } => {
            let imported = read_trace(&file, format)?;
            let options = shared::analysis::AnalysisOptions {
                validation: shared::validate::ValidationOptions { min_latency },
            };
            let request = analyze::Request {
                options,
                what_if,
                format,
            };
            let report =
                analyze::analyze_imported(&imported, &file.display().to_string(), &request)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", analyze::render_text(&report));
            }
            Ok(())
        }
    }
}

/// What `tracescope import --json` prints.
#[derive(serde::Serialize)]
struct ImportReport {
    id: String,
    name: String,
    format: &'static str,
    events: u64,
    messages: u64,
    source_bytes: u64,
    delete_token: String,
    db: String,
}

fn import(
    file: &std::path::Path,
    db_path: &std::path::Path,
    name: Option<String>,
    format: Option<shared::import::Format>,
    json: bool,
) -> anyhow::Result<()> {
    if file.is_dir() {
        anyhow::bail!(
            "{} is a folder; import takes one file: pack an OTF2 archive with `tar czf trace.tar.gz -C {} .`",
            file.display(),
            file.display()
        );
    }
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let file_name = file
        .file_name()
        .map_or_else(|| "trace".to_owned(), |n| n.to_string_lossy().into_owned());
    let mut prepared = server::ingest::prepare(&bytes, &file_name, format)?;
    if let Some(name) = name {
        prepared.summary.name = name;
    }
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let stored = runtime.block_on(async {
        let pool = db::open(db_path).await?;
        let stored = server::ingest::store(&pool, prepared).await?;
        pool.close().await;
        anyhow::Ok(stored)
    })?;
    let s = &stored.run.summary;
    let report = ImportReport {
        id: stored.run.id.clone(),
        name: s.name.clone(),
        format: s.format.name(),
        events: s.events,
        messages: s.messages,
        source_bytes: stored.run.source_bytes,
        delete_token: stored.delete_token.clone(),
        db: db_path.display().to_string(),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "stored run {} ({}, {}, {} events, {} messages) in {}\ndelete token: {}",
            report.id,
            report.name,
            report.format,
            report.events,
            report.messages,
            report.db,
            report.delete_token
        );
    }
    Ok(())
}

fn serve(
    addr: SocketAddr,
    db_path: PathBuf,
    site_dir: PathBuf,
    max_upload_bytes: usize,
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
        let state = AppState::new(pool, site_dir, max_upload_bytes);
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
