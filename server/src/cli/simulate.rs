//! `tracescope simulate`: run a program on an emulated transputer network and report what it
//! printed, how long it took in virtual time, and its trace.

use std::time::Instant;

use serde::Serialize;
use shared::formats::Format;
use simulator_wasm::network::Outcome;
use simulator_wasm::session::{Program, Session, Setup};

use super::analyze;
use shared::report::Report;

/// What `tracescope simulate --json` prints.
#[derive(Debug, Serialize)]
pub struct SimulateReport {
    /// The program file.
    pub program: String,
    /// `assembly` or `boot file`.
    pub kind: &'static str,
    /// The network, normalised (`mesh 4x4`).
    pub topology: String,
    /// The chip.
    pub chip: &'static str,
    /// Processor clock, MHz.
    pub mhz: u32,
    /// Link speed, Mbit/s.
    pub link_mbit: u32,
    /// `exited` (the program asked the host to), `idle` (every node waits: finished or
    /// deadlocked), `until` (the time limit) or `error` (see `error`).
    pub outcome: &'static str,
    /// The exit status, when the program exited.
    pub exit_status: Option<i32>,
    /// Virtual time at the end, nanoseconds.
    pub virtual_ns: u64,
    /// Instructions executed by all nodes.
    pub instructions: u64,
    /// Host seconds the run took.
    pub host_seconds: f64,
    /// Emulated instructions per host second.
    pub instructions_per_second: f64,
    /// Threads the network ran on.
    pub workers: usize,
    /// Nodes in the network.
    pub nodes: usize,
    /// Events in the trace.
    pub events: usize,
    /// Messages in the trace.
    pub messages: usize,
    /// What the program printed through the host.
    pub output: String,
    /// Where the trace was written, when asked.
    pub trace_file: Option<String>,
    /// Why the run stopped early (`outcome` is then `error`): the output and the figures up
    /// to that point are kept.
    pub error: Option<String>,
    /// Files the program created, changed or removed (in its sandbox), in order.
    pub files_written: Vec<String>,
    /// Their contents after the run (`None`: removed); not printed.
    #[serde(skip)]
    pub file_contents: Vec<Option<Vec<u8>>>,
    /// The analysis of the trace, when asked.
    pub analysis: Option<Report>,
}

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    /// The program, network or run failed.
    #[error(transparent)]
    Sim(#[from] simulator_wasm::error::SimError),
    /// The trace could not be built.
    #[error(transparent)]
    Model(#[from] shared::model::ModelError),
    /// The analysis failed.
    #[error(transparent)]
    Analyze(#[from] analyze::AnalyzeError),
}

/// Reads `bytes` as occam when the file is named `.occ`, as assembly when `.s` or `.asm`, else
/// as a boot file.
pub fn program_of(file: &str, bytes: Vec<u8>) -> Program {
    if file.to_ascii_lowercase().ends_with(".occ") {
        return Program::Occam(String::from_utf8_lossy(&bytes).into_owned());
    }
    let assembly = [".s", ".asm", ".tasm"]
        .iter()
        .any(|ext| file.to_ascii_lowercase().ends_with(ext));
    if assembly {
        Program::Assembly(String::from_utf8_lossy(&bytes).into_owned())
    } else {
        Program::BootFile(bytes)
    }
}

/// Runs `program` (from `file`) as `setup` says; returns the report and the trace.
pub fn simulate(
    file: &str,
    program: &Program,
    setup: &Setup,
    analyze: bool,
) -> Result<(SimulateReport, shared::model::Trace), SimulateError> {
    let started = Instant::now();
    let mut session = Session::new(program, setup)?;
    // A run that fails keeps what it printed and did up to the failure.
    let (outcome, error) = match session.finish() {
        Ok(outcome) => (Some(outcome), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let host_seconds = started.elapsed().as_secs_f64();
    let (files_written, file_contents): (Vec<String>, Vec<Option<Vec<u8>>>) = session
        .files()
        .map(|(files, written)| {
            written
                .iter()
                .map(|name| (name.clone(), files.get(name).cloned()))
                .unzip()
        })
        .unwrap_or_default();
    let name = std::path::Path::new(file)
        .file_name()
        .map_or_else(|| file.to_owned(), |n| n.to_string_lossy().into_owned());
    let trace = simulator_wasm::trace::to_trace(&session.network, &name)?;
    let messages = shared::graph::pairing::pair_messages(&trace).messages.len();
    let instructions = session.network.instructions();
    let analysis = if analyze {
        let imported = shared::formats::Imported {
            format: Format::TracescopeJson,
            trace: trace.clone(),
            notes: Vec::new(),
        };
        Some(analyze::analyze_imported(
            &imported,
            file,
            &analyze::Request::default(),
        )?)
    } else {
        None
    };
    let report = SimulateReport {
        program: file.to_owned(),
        kind: match program {
            Program::Assembly(_) => "assembly",
            Program::BootFile(_) => "boot file",
            Program::Occam(_) => "occam",
        },
        topology: session.network.topology.name.clone(),
        chip: setup.chip.name(),
        mhz: setup.mhz,
        link_mbit: setup.link_mbit,
        outcome: match outcome {
            Some(Outcome::Exited(_)) => "exited",
            Some(Outcome::Idle) => "idle",
            Some(Outcome::Until) => "until",
            None => "error",
        },
        exit_status: session.exit_status(),
        virtual_ns: session.network.nanoseconds(),
        instructions,
        host_seconds,
        instructions_per_second: instructions as f64 / host_seconds.max(1e-9),
        workers: session.workers,
        nodes: session.network.nodes.len(),
        events: trace.events.len(),
        messages,
        output: session.output(),
        trace_file: None,
        analysis,
        error,
        files_written,
        file_contents,
    };
    Ok((report, trace))
}

/// What `tracescope simulate` is asked for (its command-line arguments).
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// An assembly program (`.s`, `.asm`: loaded into every node, which starts with A = its
    /// number and B = the number of nodes), an occam program (`.occ`), a boot file (streamed
    /// into the root's link 0), or a demo of the gallery: `demo:NAME` (`demo:list` lists them).
    pub program: std::path::PathBuf,
    /// The network: single, pipe N, ring N, mesh WxH, torus WxH, cylinder WxH,
    /// hypercube D, tree N, or `nodes N: A.L-B.L, …` (a demo's own by default, else single).
    #[arg(long)]
    pub topology: Option<String>,
    /// A demo's node count (one of those it lists).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// The chip: T414 or T800.
    #[arg(long, default_value = "T800")]
    pub chip: String,
    /// Processor clock in MHz.
    #[arg(long, default_value_t = 20)]
    pub mhz: u32,
    /// Link speed in Mbit/s: 5, 10 or 20.
    #[arg(long, default_value_t = 20)]
    pub link_mbit: u32,
    /// Memory of each node in KB (2 MB, a B004/B011 board's, by default).
    #[arg(long, default_value_t = 2048)]
    pub memory_kb: u32,
    /// Stop at an address beyond the installed memory (else it aliases into the memory, as
    /// the external memory interface does).
    #[arg(long)]
    pub strict_memory: bool,
    /// External memory wait states.
    #[arg(long, default_value_t = 0)]
    pub wait_states: u32,
    /// Stop at this virtual time (`500us`, `10ms`, `1s`; a demo's own by default, else 1s).
    #[arg(long)]
    pub until: Option<String>,
    /// The utilization sampling interval (`100us`).
    #[arg(long, default_value = "100us")]
    pub sample: String,
    /// Threads the network runs on: a number, or `auto` (one per 32 nodes, at most one per
    /// core). The run is the same, byte for byte, whatever the number.
    #[arg(long, default_value = "auto")]
    pub workers: String,
    /// What the host answers when the program asks for its command line.
    #[arg(long, default_value = "")]
    pub command_line: String,
    /// Keys the program reads (SP.GETKEY, SP.POLLKEY), in order; escapes `\r`, `\n`, `\t`,
    /// `\\` and `\xNN` (e.g. `42\r`).
    #[arg(long, default_value = "")]
    pub keys: String,
    /// Also read keys from standard input (after `--keys`), to its end.
    #[arg(long)]
    pub stdin: bool,
    /// The program's files (SP.OPEN and the rest): this directory, never outside it; what
    /// the program writes is written back into it.
    #[arg(long)]
    pub files: Option<std::path::PathBuf>,
    /// Write the trace to this file.
    #[arg(long)]
    pub trace: Option<std::path::PathBuf>,
    /// The trace file's format.
    #[arg(long, value_enum, default_value = "native")]
    pub to: super::files::OutputFormat,
    /// Analyse the trace (as `tracescope analyze` does) and print the report.
    #[arg(long)]
    pub analyze: bool,
    /// Print one JSON object with named fields instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the simulation and prints what it did (and its analysis).
pub fn command(args: SimulateArgs) -> anyhow::Result<()> {
    use super::files::encode;
    use anyhow::Context as _;
    let SimulateArgs {
        program,
        topology,
        nodes,
        chip,
        mhz,
        link_mbit,
        memory_kb,
        strict_memory,
        wait_states,
        until,
        sample,
        workers,
        command_line,
        keys,
        stdin,
        files,
        trace,
        to,
        analyze,
        json,
    } = args;
    let mut keys = simulator_wasm::session::parse_keys(&keys)?;
    if stdin {
        use std::io::Read as _;
        std::io::stdin()
            .read_to_end(&mut keys)
            .context("reading keys from standard input")?;
    }
    use simulator_wasm::session::{Setup, chip as chip_named, parse_duration_ns};
    let file = program.display().to_string();
    let (code, topology, until) = match file.strip_prefix("demo:") {
        Some("list") => {
            for d in simulator_wasm::demos::DEMOS {
                let counts: Vec<String> = d.nodes.iter().map(u32::to_string).collect();
                println!(
                    "demo:{:<24} {} (nodes {})",
                    d.name,
                    d.title,
                    counts.join(", ")
                );
            }
            return Ok(());
        }
        Some(name) => {
            let demo = simulator_wasm::demos::find(name).with_context(|| {
                format!("no demo named {name}: `tracescope simulate demo:list` lists them")
            })?;
            let (code, demo_setup) = demo.setup(nodes)?;
            let until = until.unwrap_or_else(|| format!("{}ns", demo_setup.until_ns));
            (code, topology.unwrap_or(demo_setup.topology), until)
        }
        None => {
            if nodes.is_some() {
                anyhow::bail!("--nodes is for demos (demo:NAME); give --topology instead");
            }
            let bytes = std::fs::read(&program)
                .with_context(|| format!("reading {}", program.display()))?;
            (
                program_of(&file, bytes),
                topology.unwrap_or_else(|| "single".to_owned()),
                until.unwrap_or_else(|| "1s".to_owned()),
            )
        }
    };
    let setup = Setup {
        topology,
        chip: chip_named(&chip)?,
        mhz,
        link_mbit,
        memory_kb,
        strict_memory,
        wait_states,
        until_ns: parse_duration_ns(&until)?,
        sample_ns: parse_duration_ns(&sample)?,
        command_line,
        keys,
        tracing: true,
        files: match &files {
            Some(dir) => read_sandbox(dir)?,
            None => Default::default(),
        },
        workers: match workers.as_str() {
            "auto" => 0,
            n => n
                .parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .with_context(|| format!("--workers takes a number of threads or auto, not {n}"))?,
        },
    };
    let (mut report, simulated) = simulate(&file, &code, &setup, analyze)?;
    if let Some(dir) = &files {
        write_sandbox(dir, &report.files_written, &report.file_contents)?;
    }
    if let Some(path) = &trace {
        let out = encode(&simulated, to)?;
        std::fs::write(path, &out).with_context(|| format!("writing {}", path.display()))?;
        report.trace_file = Some(path.display().to_string());
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        if let Some(e) = &report.error {
            anyhow::bail!("{e}");
        }
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
            print!("{}", super::analyze::render_text(analysis));
        }
        if let Some(e) = &report.error {
            anyhow::bail!("{e}");
        }
    }
    Ok(())
}

/// The files under `dir` (their names relative to it, `/`-separated), for the program's
/// sandbox. Only plain names are taken; links and other special files are skipped.
pub fn read_sandbox(
    dir: &std::path::Path,
) -> anyhow::Result<std::collections::BTreeMap<String, Vec<u8>>> {
    use anyhow::Context as _;
    let mut files = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        let entries =
            std::fs::read_dir(&at).with_context(|| format!("reading {}", at.display()))?;
        for entry in entries {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let name = path
                    .strip_prefix(dir)
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                if simulator_wasm::iserver::safe_name(&name) {
                    let bytes = std::fs::read(&path)
                        .with_context(|| format!("reading {}", path.display()))?;
                    files.insert(name, bytes);
                }
            }
        }
    }
    Ok(files)
}

/// Writes back what the program changed in its sandbox: each name (checked to stay inside
/// `dir`) written with its new contents, or removed.
pub fn write_sandbox(
    dir: &std::path::Path,
    names: &[String],
    contents: &[Option<Vec<u8>>],
) -> anyhow::Result<()> {
    use anyhow::Context as _;
    for (name, bytes) in names.iter().zip(contents) {
        if !simulator_wasm::iserver::safe_name(name) {
            continue;
        }
        let path = dir.join(name);
        match bytes {
            Some(bytes) => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.display()))?;
                }
                std::fs::write(&path, bytes)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            None => {
                if path.is_file() {
                    std::fs::remove_file(&path)
                        .with_context(|| format!("removing {}", path.display()))?;
                }
            }
        }
    }
    Ok(())
}
