//! The `tracescope` binary: `serve` the app, `import`, `analyze` and `convert` traces,
//! `simulate` a transputer network.

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
        format: Option<shared::formats::Format>,
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
        format: Option<shared::formats::Format>,
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
        format: Option<shared::formats::Format>,
    },
    /// Run a program on an emulated transputer network: print what it writes through the
    /// host, and write or analyse its trace.
    Simulate {
        /// An assembly program (`.s`, `.asm`: loaded into every node, which starts with A = its
        /// number and B = the number of nodes) or a boot file (streamed into the root's link 0).
        program: PathBuf,
        /// The network: single, pipe N, ring N, mesh WxH, torus WxH, cylinder WxH,
        /// hypercube D, tree N, or `nodes N: A.L-B.L, …`.
        #[arg(long, default_value = "single")]
        topology: String,
        /// The chip: T414 or T800.
        #[arg(long, default_value = "T800")]
        chip: String,
        /// Processor clock in MHz.
        #[arg(long, default_value_t = 20)]
        mhz: u32,
        /// Link speed in Mbit/s: 5, 10 or 20.
        #[arg(long, default_value_t = 20)]
        link_mbit: u32,
        /// Memory of each node in KB.
        #[arg(long, default_value_t = 64)]
        memory_kb: u32,
        /// External memory wait states.
        #[arg(long, default_value_t = 0)]
        wait_states: u32,
        /// Stop at this virtual time (`500us`, `10ms`, `1s`).
        #[arg(long, default_value = "1s")]
        until: String,
        /// The utilization sampling interval (`100us`).
        #[arg(long, default_value = "100us")]
        sample: String,
        /// What the host answers when the program asks for its command line.
        #[arg(long, default_value = "")]
        command_line: String,
        /// Write the trace to this file.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// The trace file's format.
        #[arg(long, value_enum, default_value = "native")]
        to: OutputFormat,
        /// Analyse the trace (as `tracescope analyze` does) and print the report.
        #[arg(long)]
        analyze: bool,
        /// Print one JSON object with named fields instead of text.
        #[arg(long)]
        json: bool,
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

fn parse_format(name: &str) -> Result<shared::formats::Format, String> {
    shared::formats::Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = shared::formats::Format::ALL
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
    format: Option<shared::formats::Format>,
) -> anyhow::Result<shared::formats::Imported> {
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
        return Ok(shared::formats::import_files(&files, &name)?);
    }
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(shared::formats::import(&bytes, format, &name)?)
}

/// `trace` in the format `to`.
fn encode(trace: &shared::model::Trace, to: OutputFormat) -> anyhow::Result<Vec<u8>> {
    Ok(match to {
        OutputFormat::ChromeJson => shared::formats::chrome::write(trace).into_bytes(),
        OutputFormat::Native => shared::formats::native::write(trace).into_bytes(),
        OutputFormat::Binary => shared::formats::binary::write(trace),
        OutputFormat::Tmon => {
            let (bytes, notes) = shared::formats::tmon::write(trace)?;
            for note in notes {
                eprintln!("note: {note}");
            }
            bytes
        }
    })
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
            let out = encode(trace, to)?;
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
        Command::Simulate {
            program,
            topology,
            chip,
            mhz,
            link_mbit,
            memory_kb,
            wait_states,
            until,
            sample,
            command_line,
            trace,
            to,
            analyze,
            json,
        } => {
            use simulator_wasm::session::{Setup, chip as chip_named, parse_duration_ns};
            let bytes = std::fs::read(&program)
                .with_context(|| format!("reading {}", program.display()))?;
            let file = program.display().to_string();
            let code = server::simulate::program_of(&file, bytes);
            let setup = Setup {
                topology,
                chip: chip_named(&chip)?,
                mhz,
                link_mbit,
                memory_kb,
                wait_states,
                until_ns: parse_duration_ns(&until)?,
                sample_ns: parse_duration_ns(&sample)?,
                command_line,
                keys: Vec::new(),
                tracing: true,
            };
            let (mut report, simulated) =
                server::simulate::simulate(&file, &code, &setup, analyze)?;
            if let Some(path) = &trace {
                let out = encode(&simulated, to)?;
                std::fs::write(path, &out)
                    .with_context(|| format!("writing {}", path.display()))?;
                report.trace_file = Some(path.display().to_string());
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.output);
                eprintln!(
                    "{}: {} on {} ({} × {} at {} MHz, links {} Mbit/s): {} at {} ns of virtual \
                     time{}; {} instructions in {:.3} s ({:.1} M/s); {} events, {} messages{}",
                    report.program,
                    report.kind,
                    report.topology,
                    report.nodes,
                    report.chip,
                    report.mhz,
                    report.link_mbit,
                    report.outcome,
                    report.virtual_ns,
                    report
                        .exit_status
                        .map_or_else(String::new, |s| format!(" (status {s})")),
                    report.instructions,
                    report.host_seconds,
                    report.instructions_per_second / 1e6,
                    report.events,
                    report.messages,
                    report
                        .trace_file
                        .as_ref()
                        .map_or_else(String::new, |p| format!("; trace written to {p}")),
                );
                if let Some(analysis) = &report.analysis {
                    print!("{}", analyze::render_text(analysis));
                }
            }
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
            let options = shared::analyses::metrics::AnalysisOptions {
                validation: shared::analyses::validate::ValidationOptions { min_latency },
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
    format: Option<shared::formats::Format>,
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
