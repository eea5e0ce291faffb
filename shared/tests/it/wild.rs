//! The corpus of the wild: real traces written by real tools (`tests/data/wild/<format>/<entry>/`,
//! origins in each format's `SOURCES.md`), each beside the numbers an independent reader of the
//! format gives (`expected.json`, written by `tools/independent/<format>.py`, which shares no
//! code with the importers).
//!
//! Every entry is imported as a user would bring it: a single file as it is, several files
//! (a `.prv` with its `.pcf` and `.row`, a Projections `.sts` with its `.log`s) packed together
//! in a tar as the page packs files chosen together. Each number the independent reader gives
//! must equal ours, and a trace the independent reader finds consistent must give no error
//! diagnostic: what a real tool writes on a correct run is at most a note.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use shared::analyses::validate::{Severity, ValidationOptions, validate};
use shared::graph::context::Context;
use shared::model::EventKind;

/// What an independent reader says of one trace. Every count is optional: a reader states
/// only what the format's own rules determine.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    /// The importer's format name.
    format: String,
    /// The tool (and version) that wrote the trace.
    tool: String,
    /// Whether the independent reader finds the trace free of certain inconsistencies.
    consistent: bool,
    processes_with_events: Option<u64>,
    /// Events per kind, by the kind's name (`enter`, `msg_send`, …).
    #[serde(default)]
    events: BTreeMap<String, u64>,
    messages: Option<u64>,
    bytes: Option<u64>,
    span_ticks: Option<u64>,
    counters: Option<u64>,
    counter_samples: Option<u64>,
    /// A ShiViz log's parsing expression, when the log does not carry it (informational; the
    /// entry's importer reads it from the entry's files).
    #[serde(default)]
    shiviz_expression: Option<String>,
}

/// The same numbers, read off our model.
#[derive(Debug, Default)]
struct Ours {
    format: String,
    processes_with_events: u64,
    events: BTreeMap<String, u64>,
    messages: u64,
    bytes: u64,
    span_ticks: u64,
    counters: u64,
    counter_samples: u64,
    errors: usize,
    first_error: Option<String>,
    report_bytes: usize,
}

/// The corpus's root.
fn wild_root() -> PathBuf {
    super::data_path("wild")
}

/// Every entry: a directory holding `expected.json` and the trace's files.
fn entries() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(formats) = std::fs::read_dir(wild_root()) else {
        return out;
    };
    for format in formats.flatten() {
        let Ok(dirs) = std::fs::read_dir(format.path()) else {
            continue;
        };
        for dir in dirs.flatten() {
            if dir.path().join("expected.json").is_file() {
                out.push(dir.path());
            }
        }
    }
    out.sort();
    out
}

/// An entry's trace files by name (everything but `expected.json`).
fn trace_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for f in std::fs::read_dir(dir).expect("entry is readable").flatten() {
        let name = f.file_name().to_string_lossy().into_owned();
        if name != "expected.json" && f.path().is_file() {
            files.insert(
                name,
                std::fs::read(f.path()).expect("trace file is readable"),
            );
        }
    }
    files
}

/// Several files as one tar, as the page packs files chosen together.
fn tar_of(files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, name, bytes.as_slice())
            .expect("tar in memory");
    }
    builder.into_inner().expect("tar in memory")
}

/// Imports an entry and reads our numbers off the model.
fn ours(dir: &Path) -> Result<Ours, String> {
    let files = trace_files(dir);
    let (name, bytes) = match files.len() {
        0 => return Err("no trace file".into()),
        1 => {
            let (name, bytes) = files.iter().next().expect("one file");
            (name.clone(), bytes.clone())
        }
        _ => (format!("{}.tar", dir_name(dir)), tar_of(&files)),
    };
    let imported =
        shared::formats::import(&bytes, None, &name).map_err(|e| format!("refused: {e}"))?;
    let trace = &imported.trace;
    let cx = Context::new(trace);
    let mut ours = Ours {
        format: imported.format.name().to_owned(),
        ..Ours::default()
    };
    for p in trace.process_ids() {
        if !trace.process_events(p).is_empty() {
            ours.processes_with_events += 1;
        }
    }
    for kind in trace.events.kind() {
        *ours.events.entry(kind.name().to_owned()).or_default() += 1;
    }
    ours.messages = cx.pairing.messages.len() as u64;
    ours.bytes = cx
        .pairing
        .messages
        .iter()
        .map(|m| trace.events.size().get(m.send.index()).unwrap_or(0))
        .sum();
    ours.span_ticks = trace.time_bounds().map_or(0, |(a, b)| b.0 - a.0);
    ours.counters = trace.counters.len() as u64;
    ours.counter_samples = trace.counters.iter().map(|c| c.times.len() as u64).sum();
    let diagnostics = validate(trace, &cx.pairing, &cx.graph, ValidationOptions::default());
    let errors: Vec<_> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    ours.errors = errors.len();
    ours.first_error = errors.first().map(|d| d.message.clone());
    let report = shared::report::build(
        &cx,
        &shared::analyses::waits::wait_states(&cx),
        &shared::report::ReportRequest {
            file: &name,
            format: imported.format,
            notes: &imported.notes,
            options: shared::analyses::metrics::AnalysisOptions::default(),
        },
    );
    ours.report_bytes = serde_json::to_vec(&report).map_or(usize::MAX, |v| v.len());
    Ok(ours)
}

/// `format/entry` for tables and messages.
fn dir_name(dir: &Path) -> String {
    let entry = dir.file_name().map(|s| s.to_string_lossy().into_owned());
    let format = dir
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().into_owned());
    format!(
        "{}/{}",
        format.unwrap_or_default(),
        entry.unwrap_or_default()
    )
}

/// The tool's name without its version or configuration: `Extrae 3.8.3 (MPI)` → `Extrae`.
fn tool_family(tool: &str) -> String {
    tool.split(|c: char| c == '(' || c.is_ascii_digit())
        .next()
        .unwrap_or(tool)
        .trim()
        .to_lowercase()
}

/// The `analyze --json` report of any corpus trace stays under this many bytes, however many
/// diagnostics it has.
const REPORT_LIMIT: usize = 1_000_000;

#[test]
fn every_wild_trace_imports_with_the_independent_numbers_and_no_false_error() {
    let mut table = String::from(
        "| trace | tool | events | messages | span (ticks) | ours = theirs | errors | report |\n|---|---|---:|---:|---:|---|---:|---:|\n",
    );
    let mut failures = Vec::new();
    let mut tools = BTreeSet::new();
    let entries = entries();
    for dir in &entries {
        let label = dir_name(dir);
        let text = std::fs::read_to_string(dir.join("expected.json")).expect("readable");
        let expected: Expected = match serde_json::from_str(&text) {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{label}: expected.json: {e}"));
                continue;
            }
        };
        tools.insert(tool_family(&expected.tool));
        let ours = match ours(dir) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{label}: {e}"));
                continue;
            }
        };
        let mut diffs = Vec::new();
        if ours.format != expected.format {
            diffs.push(format!(
                "format {} (theirs {})",
                ours.format, expected.format
            ));
        }
        let mut check = |what: &str, mine: u64, theirs: Option<u64>| {
            if let Some(t) = theirs
                && t != mine
            {
                diffs.push(format!("{what} {mine} (theirs {t})"));
            }
        };
        check(
            "processes with events",
            ours.processes_with_events,
            expected.processes_with_events,
        );
        check("messages", ours.messages, expected.messages);
        check("bytes", ours.bytes, expected.bytes);
        check("span", ours.span_ticks, expected.span_ticks);
        check("counters", ours.counters, expected.counters);
        check(
            "counter samples",
            ours.counter_samples,
            expected.counter_samples,
        );
        for kind in EventKind::ALL {
            let theirs = expected.events.get(kind.name()).copied();
            let mine = ours.events.get(kind.name()).copied().unwrap_or(0);
            check(kind.name(), mine, theirs);
        }
        for kind in expected.events.keys() {
            if !EventKind::ALL.iter().any(|k| k.name() == kind) {
                diffs.push(format!("unknown event kind {kind:?} in expected.json"));
            }
        }
        if expected.consistent && ours.errors > 0 {
            diffs.push(format!(
                "{} error diagnostics on a consistent trace, the first: {}",
                ours.errors,
                ours.first_error.as_deref().unwrap_or("")
            ));
        }
        if ours.report_bytes >= REPORT_LIMIT {
            diffs.push(format!("report of {} bytes", ours.report_bytes));
        }
        let events: u64 = ours.events.values().sum();
        let _ = writeln!(
            table,
            "| {label} | {} | {events} | {} | {} | {} | {} | {} KB |",
            expected.tool,
            ours.messages,
            ours.span_ticks,
            if diffs.is_empty() { "yes" } else { "**no**" },
            ours.errors,
            ours.report_bytes.div_ceil(1000),
        );
        for d in diffs {
            failures.push(format!("{label}: {d}"));
        }
        let _ = expected.shiviz_expression;
    }
    println!("{table}");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        entries.len() >= 20,
        "the corpus holds {} traces; it must hold at least 20",
        entries.len()
    );
    assert!(
        tools.len() >= 10,
        "the corpus comes from {} tools ({tools:?}); it must come from at least 10",
        tools.len()
    );
}

#[test]
fn tool_family_drops_versions_and_configurations() {
    assert_eq!(tool_family("Extrae 3.8.3 (MPI, 8 ranks)"), "extrae");
    assert_eq!(tool_family("SimGrid (msg)"), "simgrid");
    assert_eq!(tool_family("Score-P 7.1"), "score-p");
}
