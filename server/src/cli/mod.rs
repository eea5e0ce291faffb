//! The `tracescope` binary's commands, one module each: `serve` the app, `import`, `analyze`
//! and `convert` traces, draw a trace's `hasse` diagram, `simulate` a transputer network. `files` holds what they share
//! (reading and writing traces).

pub mod analyze;
pub mod convert;
pub mod files;
pub mod hasse;
pub mod import;
pub mod serve;
pub mod simulate;

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::{DEFAULT_MAX_UPLOAD_BYTES, db};

/// The command line.
#[derive(Parser)]
#[command(
    name = "tracescope",
    version,
    about = "See why a message-passing parallel program is slow."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands.
#[derive(Subcommand)]
pub enum Command {
    /// Serve the web app and its API on an embedded SQLite database.
    Serve {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: SocketAddr,
        /// The store: an SQLite file (created and migrated at start), or a PostgreSQL
        /// database's `postgres://user@host/db` URL (migrated at start) shared by several
        /// instances.
        #[arg(long, default_value = "data/tracescope.db")]
        db: db::Target,
        /// The folder of the built site (made by `cargo xtask build-site`).
        #[arg(long, default_value = "target/site")]
        site: PathBuf,
        /// The largest upload accepted, in bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_UPLOAD_BYTES)]
        max_upload_bytes: usize,
        /// Keep runs' uploads and models in this directory, named by their SHA-256, instead of
        /// the database: instances sharing the directory (and the database) serve the same runs.
        #[arg(long)]
        blobs: Option<PathBuf>,
        /// Host names the server answers for besides IP literals and `localhost` (the name
        /// a reverse proxy forwards, say), comma-separated; `name:port` allows that port only,
        /// `*` every host. Other hosts are answered 421 (a defence against DNS rebinding).
        #[arg(long, value_delimiter = ',')]
        allowed_hosts: Vec<String>,
        /// Seconds a connection may take to send a request head, and may stay idle between
        /// requests, before it is closed.
        #[arg(long, default_value_t = 20)]
        header_timeout_secs: u64,
        /// Seconds a request body may send nothing before the request is dropped (408).
        #[arg(long, default_value_t = 60)]
        body_timeout_secs: u64,
        /// The most connections held at once (default: what the open-files limit leaves after
        /// a quarter of it, at least 128, for the store, spools and blobs); more wait to be
        /// accepted.
        #[arg(long)]
        max_connections: Option<usize>,
        /// How the log on stderr is written: `text` for a person, `json` (one object a line,
        /// with each request's id) for a log collector.
        #[arg(long, value_enum, default_value_t = serve::LogFormat::Text)]
        log_format: serve::LogFormat,
        /// How traces are read: the import budget, the Pajé time unit.
        #[command(flatten)]
        read: files::ReadArgs,
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
        #[arg(long, value_parser = files::parse_format)]
        format: Option<shared::formats::Format>,
        /// How traces are read: the import budget, the Pajé time unit.
        #[command(flatten)]
        read: files::ReadArgs,
    },
    /// Store a trace as a run in the database, as an upload does.
    Import {
        /// The trace file (an OTF2 archive as a .tar or .tar.gz).
        file: PathBuf,
        /// The store: an SQLite file (created and migrated if missing), or a PostgreSQL
        /// database's `postgres://` URL.
        #[arg(long, default_value = "data/tracescope.db")]
        db: db::Target,
        /// The run's name (default: the trace's own title, else the file's name).
        #[arg(long)]
        name: Option<String>,
        /// Read the file as this format instead of detecting it.
        #[arg(long, value_parser = files::parse_format)]
        format: Option<shared::formats::Format>,
        /// Print one JSON object with named fields instead of text.
        #[arg(long)]
        json: bool,
        /// Keep the run's upload and model in this directory (by content hash) instead of the
        /// database, as a server given the same `--blobs` reads them.
        #[arg(long)]
        blobs: Option<PathBuf>,
        /// How traces are read: the import budget, the Pajé time unit.
        #[command(flatten)]
        read: files::ReadArgs,
    },
    /// Print a trace's Hasse (happened-before) diagram as the Hasse view draws it, or the
    /// instances of dependence queries.
    Hasse {
        /// The trace file.
        file: PathBuf,
        /// Only vertices whose time lies in START..END (ticks).
        #[arg(long, value_parser = hasse::parse_window)]
        window: Option<(u64, u64)>,
        /// Dependence descriptions (`DEPENDENCE name IS cause -> effect END`) to evaluate.
        #[arg(long)]
        query: Option<String>,
        /// Every event its own vertex (by default local runs collapse into one).
        #[arg(long)]
        expand: bool,
        /// Print one JSON object with named fields instead of text.
        #[arg(long)]
        json: bool,
        /// Read the file as this format instead of detecting it.
        #[arg(long, value_parser = files::parse_format)]
        format: Option<shared::formats::Format>,
        /// How traces are read: the import budget, the Pajé time unit.
        #[command(flatten)]
        read: files::ReadArgs,
    },
    /// Convert a trace to another format.
    Convert {
        /// The trace to read (any supported format, gzip allowed).
        input: PathBuf,
        /// The format to write.
        #[arg(long, value_enum)]
        to: files::OutputFormat,
        /// The file to write.
        output: PathBuf,
        /// Read the input as this format instead of detecting it.
        #[arg(long, value_parser = files::parse_format)]
        format: Option<shared::formats::Format>,
        /// How traces are read: the import budget, the Pajé time unit.
        #[command(flatten)]
        read: files::ReadArgs,
    },
    /// Run a program on an emulated transputer network: print what it writes through the
    /// host, and write or analyse its trace.
    Simulate(simulate::SimulateArgs),
}

/// Runs a command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve {
            addr,
            db,
            site,
            max_upload_bytes,
            blobs,
            allowed_hosts,
            header_timeout_secs,
            body_timeout_secs,
            max_connections,
            log_format,
            read,
        } => {
            // A server's budget is shared by everything it runs at once: by default half of
            // the machine's memory, not the 16 GiB a single command may take.
            let read = files::ReadArgs {
                max_memory_bytes: Some(
                    read.max_memory_bytes
                        .unwrap_or_else(crate::memory::default_budget),
                ),
                ..read
            };
            serve::command(
                serve::Options {
                    addr,
                    db,
                    site_dir: site,
                    max_upload_bytes,
                    log_format,
                    blobs: blob_store(blobs),
                    hosts: crate::http::guard::Hosts::from_list(&allowed_hosts),
                    max_memory_bytes: read
                        .max_memory_bytes
                        .unwrap_or_else(crate::memory::default_budget),
                    limits: {
                        let defaults = crate::listen::Limits::default_for_this_process();
                        crate::listen::Limits {
                            header_timeout: std::time::Duration::from_secs(
                                header_timeout_secs.max(1),
                            ),
                            body_timeout: std::time::Duration::from_secs(body_timeout_secs.max(1)),
                            max_connections: max_connections.unwrap_or(defaults.max_connections),
                        }
                    },
                },
                read.budget(max_upload_bytes as u64),
                read.max_analysed_events(),
            )
        }
        Command::Import {
            file,
            db,
            name,
            format,
            json,
            blobs,
            read,
        } => import::command(
            &file,
            &db,
            &blob_store(blobs),
            name,
            format,
            json,
            &default_options(read),
        ),
        Command::Convert {
            input,
            to,
            output,
            format,
            read,
        } => convert::command(&input, to, &output, format, &default_options(read)),
        Command::Simulate(args) => simulate::command(args),
        Command::Hasse {
            file,
            window,
            query,
            expand,
            json,
            format,
            read,
        } => hasse::command(
            &file,
            format,
            &read.analysis_options(DEFAULT_MAX_UPLOAD_BYTES as u64),
            &hasse::Request {
                window,
                query: query.as_deref(),
                expand,
                json,
                max_memory_bytes: read
                    .max_memory_bytes
                    .unwrap_or(shared::formats::budget::DEFAULT_MEMORY_BYTES),
            },
        ),
        Command::Analyze {
            file,
            json,
            min_latency,
            what_if,
            format,
            read,
        } => analyze::command(
            &file,
            json,
            min_latency,
            what_if,
            format,
            &read.analysis_options(DEFAULT_MAX_UPLOAD_BYTES as u64),
        ),
    }
}

/// The blob store a `--blobs` option names.
fn blob_store(dir: Option<PathBuf>) -> crate::blobs::BlobStore {
    dir.map_or(
        crate::blobs::BlobStore::Database,
        crate::blobs::BlobStore::Directory,
    )
}

/// The import options of a command that reads a file: its budget scaled to the default
/// upload limit.
fn default_options(args: files::ReadArgs) -> shared::formats::ImportOptions {
    args.options(DEFAULT_MAX_UPLOAD_BYTES as u64)
}
