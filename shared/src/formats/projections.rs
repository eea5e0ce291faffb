//! Charm++ Projections logs: a `NAME.sts` file describing the run (its PEs, chares and entry
//! methods) and one text log per PE, `NAME.0.log`, `NAME.1.log`, … (or gzip `NAME.0.log.gz`),
//! read the way pipit's `projections_reader` reads them, with the record layouts Charm++'s
//! `trace-projections.C` writes.
//!
//! The mapping:
//! - each PE is a process, named `PE k`; each on its own node, unless the `.sts` has an
//!   `SMPMODE NODESIZE NODES` line: then worker PE `k` is on node `k / NODESIZE` and the
//!   communication thread PEs after the workers are on their node in turn;
//! - an entry method is a region named `Chare::entry` (the `.sts`'s `CHARE` and `ENTRY` lines),
//!   entered at `BEGIN_PROCESSING` (type 2) and left at `END_PROCESSING` (3);
//! - idle time (`BEGIN_IDLE` 14, `END_IDLE` 15), packing (16, 17) and unpacking (18, 19) are
//!   regions named `Idle`, `Pack` and `Unpack`, as pipit makes them;
//! - an end closes the region on top of the PE's stack when it is the same region; an end with
//!   no such open begin is skipped and counted in a note (Charm++ writes one for a chare that
//!   exits inside its entry method);
//! - a message is a creation (`CREATION` 1, `CREATION_BCAST` 20, `CREATION_MULTICAST` 21) on the
//!   sending PE and a `BEGIN_PROCESSING` whose (PE, event) fields name it, on the receiving PE:
//!   the send is at the creation's time, the arrival at the begin's, the size is the creation's
//!   length, and the tag is the creation's event number, so the model's pairing (first in,
//!   first out per sender, receiver and tag) pairs exactly the records Projections pairs. A
//!   broadcast processed on several PEs is one send per arrival. Creations no begin names, and
//!   begins that name no creation, are counted in a note;
//! - `BEGIN_COMPUTATION` (6) is the process's start when it is the PE's first mapped record, and
//!   `END_COMPUTATION` (7) its end when it is the last;
//! - every other record (user events, notes, statistics, memory, queueing, interrupts, trace
//!   on/off, message receipts) is counted in a note by type, never an error.
//!
//! Times are microseconds (one tick each). Only the fields every log version writes are read:
//! a record's leading type, message type, entry, time, event, PE and length; what follows
//! (receive time, array index, CPU time, performance counters) differs between versions and
//! is ignored.

use std::collections::{BTreeMap, HashMap};

use crate::model::error::TraceError;
use crate::model::time::{Clock, Time};
use crate::model::{EventKind, EventRecord, NodeId, RegionId, RegionRole, Trace};
use crate::model::{ModelError, TraceBuilder};

use super::budget::{Budget, Limit};

/// The format's name.
pub const FORMAT_NAME: &str = "projections";

/// Record type numbers, as Charm++'s `trace-common.h` defines them.
const CREATION: u32 = 1;
const BEGIN_PROCESSING: u32 = 2;
const END_PROCESSING: u32 = 3;
const BEGIN_COMPUTATION: u32 = 6;
const END_COMPUTATION: u32 = 7;
const BEGIN_IDLE: u32 = 14;
const END_IDLE: u32 = 15;
const BEGIN_PACK: u32 = 16;
const END_PACK: u32 = 17;
const BEGIN_UNPACK: u32 = 18;
const END_UNPACK: u32 = 19;
const CREATION_BCAST: u32 = 20;
const CREATION_MULTICAST: u32 = 21;

/// The name of a record type, for notes.
fn type_name(kind: u32) -> &'static str {
    match kind {
        4 => "ENQUEUE",
        5 => "DEQUEUE",
        8 => "BEGIN_INTERRUPT",
        9 => "END_INTERRUPT",
        10 => "MESSAGE_RECV",
        11 => "BEGIN_TRACE",
        12 => "END_TRACE",
        13 => "USER_EVENT",
        26 => "USER_SUPPLIED",
        27 => "MEMORY_USAGE",
        28 => "USER_SUPPLIED_NOTE",
        29 => "USER_SUPPLIED_BRACKETED_NOTE",
        30 => "END_PHASE",
        32 => "USER_STAT",
        98 => "BEGIN_USER_EVENT_PAIR",
        99 => "END_USER_EVENT_PAIR",
        100 => "USER_EVENT_PAIR",
        _ => "unknown",
    }
}

/// Whether the text is a Projections `.sts` file: it starts with `PROJECTIONS_ID`, or (older
/// versions) with a `VERSION` line followed by the run's description.
pub fn looks_like_sts(text: &[u8]) -> bool {
    text.starts_with(b"PROJECTIONS_ID")
        || (text.starts_with(b"VERSION ") && text.windows(12).any(|w| w == b"\nPROCESSORS "))
}

/// Whether the text is a Projections log: it starts with `PROJECTIONS-RECORD`.
pub fn looks_like_log(text: &[u8]) -> bool {
    text.starts_with(b"PROJECTIONS-RECORD")
}

/// Whether the path names a Projections `.sts` (not a summary's `.sum.sts`).
pub fn is_sts_path(path: &str) -> bool {
    path.ends_with(".sts") && !path.ends_with(".sum.sts")
}

/// Whether the path names a Projections log: `STEM.N.log` or `STEM.N.log.gz`.
pub fn is_log_path(path: &str) -> bool {
    let Some(rest) = path
        .strip_suffix(".log.gz")
        .or_else(|| path.strip_suffix(".log"))
    else {
        return false;
    };
    rest.rsplit_once('.')
        .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether these paths are a Projections trace's (rather than an OTF2 archive's): a `.sts`, or
/// per-PE logs and no OTF2 anchor.
pub fn is_projections_set<'a>(mut paths: impl Iterator<Item = &'a String> + Clone) -> bool {
    paths.clone().any(|p| is_sts_path(p))
        || (paths.clone().any(|p| is_log_path(p)) && !paths.any(|p| p.ends_with(".otf2")))
}

/// The error for a Projections input that is one file alone.
pub fn lone_file_error(input: &[u8]) -> TraceError {
    TraceError::at_offset(
        FORMAT_NAME,
        input,
        0,
        "this is one file of a Projections trace: give the NAME.sts with its NAME.N.log files \
         (a folder, a .tar, or the files picked together)",
    )
}

/// What the `.sts` says: the PE count, the node layout and the entry methods' names.
struct Sts {
    pes: u32,
    /// `SMPMODE`: PEs per node and nodes.
    smp: Option<(u32, u32)>,
    /// Chare names by id.
    chares: HashMap<i64, String>,
    /// Entry methods by id: their name and chare id.
    entries: HashMap<i64, (String, i64)>,
}

/// A quoted or bare name at the start of `rest`, and what follows it.
fn name_and_rest(rest: &str) -> (&str, &str) {
    let rest = rest.trim_start();
    if let Some(quoted) = rest.strip_prefix('"')
        && let Some(end) = quoted.find('"')
    {
        return (&quoted[..end], &quoted[end + 1..]);
    }
    (rest, "")
}

fn parse_sts(path: &str, bytes: &[u8], budget: &Budget) -> Result<Sts, TraceError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        TraceError::at_offset(
            FORMAT_NAME,
            bytes,
            e.valid_up_to(),
            format!("{path}: expected UTF-8 text"),
        )
    })?;
    let mut sts = Sts {
        pes: 0,
        smp: None,
        chares: HashMap::new(),
        entries: HashMap::new(),
    };
    let mut version = 0.0f64;
    let mut have_pes = false;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw
            .trim_end_matches(['\n', '\r'])
            .trim_start_matches('\u{feff}');
        let fail = |what: &str| {
            TraceError::at_offset(
                FORMAT_NAME,
                bytes,
                line_start,
                format!("{path}: expected {what}, found {line:?}"),
            )
        };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let int = |i: usize, what: &str| -> Result<i64, TraceError> {
            tokens
                .get(i)
                .and_then(|t| t.parse::<i64>().ok())
                .ok_or_else(|| fail(what))
        };
        match tokens.first().copied() {
            Some("VERSION") => {
                version = tokens
                    .get(1)
                    .and_then(|t| t.parse().ok())
                    .ok_or_else(|| fail("VERSION and a number"))?;
            }
            Some("PROCESSORS") => {
                let n = int(1, "PROCESSORS and the number of PEs")?;
                let n = u32::try_from(n)
                    .ok()
                    .filter(|&n| u64::from(n) <= super::reading::MAX_DECLARED)
                    .ok_or_else(|| fail("a PE count from 0 to 2^20"))?;
                budget.check(
                    Limit::Processes,
                    u64::from(n),
                    FORMAT_NAME,
                    bytes,
                    line_start,
                )?;
                sts.pes = n;
                have_pes = true;
            }
            Some("SMPMODE") => {
                let size = int(1, "SMPMODE, the PEs per node and the nodes")?;
                let nodes = int(2, "SMPMODE, the PEs per node and the nodes")?;
                if let (Ok(size), Ok(nodes)) = (u32::try_from(size), u32::try_from(nodes))
                    && size > 0
                    && nodes > 0
                {
                    sts.smp = Some((size, nodes));
                }
            }
            Some("CHARE") => {
                let id = int(1, "CHARE, its id and its name")?;
                let after_id = line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|t| line.find(t).map(|at| &line[at + t.len()..]))
                    .unwrap_or("");
                let (name, _) = name_and_rest(after_id);
                let name = if after_id.trim_start().starts_with('"') {
                    name.to_owned()
                } else if version >= 9.0 && tokens.len() >= 4 {
                    // Since version 9 a bare name is followed by the chare's dimensions.
                    tokens[2..tokens.len() - 1].join(" ")
                } else {
                    tokens[2..].join(" ")
                };
                sts.chares.insert(id, name);
            }
            Some("ENTRY") => {
                // ENTRY TYPE ID NAME CHARE MSG: the name lies between the id and the last two
                // numbers (quoted since version 9, bare and possibly with spaces before).
                if tokens.len() < 6 {
                    return Err(fail(
                        "ENTRY, its type, id, name, chare and message (6 fields or more)",
                    ));
                }
                let id = int(2, "ENTRY, its type and a numeric id")?;
                let chare = int(tokens.len() - 2, "ENTRY ending with a numeric chare id")?;
                int(tokens.len() - 1, "ENTRY ending with a numeric message id")?;
                let name = tokens[3..tokens.len() - 2].join(" ");
                let name = name
                    .strip_prefix('"')
                    .and_then(|n| n.strip_suffix('"'))
                    .unwrap_or(&name)
                    .to_owned();
                sts.entries.insert(id, (name, chare));
            }
            _ => {}
        }
    }
    if !have_pes {
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            bytes,
            bytes.len(),
            format!("{path}: expected a PROCESSORS line giving the number of PEs"),
        ));
    }
    Ok(sts)
}

/// What a mapped record does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    /// A message creation.
    Create,
    /// An entry method begins.
    Begin,
    /// An entry method ends.
    End,
    /// An `Idle`, `Pack` or `Unpack` interval begins (the index into [`SPANS`]).
    SpanBegin(u8),
    /// One ends.
    SpanEnd(u8),
    /// `BEGIN_COMPUTATION`.
    Start,
    /// `END_COMPUTATION`.
    Stop,
}

/// The intervals that are regions besides entry methods.
const SPANS: [&str; 3] = ["Idle", "Pack", "Unpack"];

/// One mapped record of a PE's log.
#[derive(Debug, Clone, Copy)]
struct Rec {
    act: Act,
    time: u64,
    // Charm++ writes these four as C `int`s.
    entry: i32,
    event: i32,
    pe: i32,
    len: u32,
    /// The byte offset of its line in its log.
    offset: usize,
}

/// One PE's log: its path, its (decompressed) bytes and its mapped records.
struct Log<'a> {
    path: &'a str,
    bytes: &'a [u8],
    recs: Vec<Rec>,
}

/// Parses one log's lines into its mapped records, counting the others in `skipped`.
fn parse_log(
    path: &str,
    bytes: &[u8],
    skipped: &mut BTreeMap<u32, usize>,
    records_so_far: &mut u64,
    budget: &Budget,
) -> Result<Vec<Rec>, TraceError> {
    if bytes.contains(&0) {
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            bytes,
            bytes.iter().position(|&b| b == 0).unwrap_or(0),
            format!(
                "{path}: expected a text log (binary Projections logs, +binary-trace, are not read)"
            ),
        ));
    }
    let mut recs = Vec::new();
    let mut offset = 0;
    for raw in bytes.split_inclusive(|&b| b == b'\n') {
        let line_start = offset;
        offset += raw.len();
        let line = String::from_utf8_lossy(raw);
        let line = line.trim_end_matches(['\n', '\r']);
        let mut tokens = line.split_whitespace();
        let Some(first) = tokens.next() else {
            continue;
        };
        if first == "PROJECTIONS-RECORD" || first == "\u{feff}PROJECTIONS-RECORD" {
            continue;
        }
        let fail = |what: String| TraceError::at_offset(FORMAT_NAME, bytes, line_start, what);
        let kind: u32 = first.parse().map_err(|_| {
            fail(format!(
                "{path}: expected a record (a type number and its fields), found {line:?}"
            ))
        })?;
        // The leading fields read (at most six), without allocating per record.
        let mut fields = [""; 6];
        let mut found = 0;
        for (slot, token) in fields.iter_mut().zip(tokens) {
            *slot = token;
            found += 1;
        }
        let (act, layout): (Act, &[&str]) = match kind {
            CREATION | CREATION_BCAST | CREATION_MULTICAST => (
                Act::Create,
                &["message type", "entry", "time", "event", "PE", "length"],
            ),
            BEGIN_PROCESSING => (
                Act::Begin,
                &["message type", "entry", "time", "event", "PE", "length"],
            ),
            END_PROCESSING => (
                Act::End,
                &["message type", "entry", "time", "event", "PE", "length"],
            ),
            BEGIN_IDLE => (Act::SpanBegin(0), &["time", "PE"]),
            END_IDLE => (Act::SpanEnd(0), &["time", "PE"]),
            BEGIN_PACK => (Act::SpanBegin(1), &["time", "PE"]),
            END_PACK => (Act::SpanEnd(1), &["time", "PE"]),
            BEGIN_UNPACK => (Act::SpanBegin(2), &["time", "PE"]),
            END_UNPACK => (Act::SpanEnd(2), &["time", "PE"]),
            BEGIN_COMPUTATION => (Act::Start, &["time"]),
            END_COMPUTATION => (Act::Stop, &["time"]),
            other => {
                *skipped.entry(other).or_insert(0) += 1;
                continue;
            }
        };
        if found < layout.len() {
            return Err(fail(format!(
                "{path}: expected a type {kind} record to have {} fields after its type ({}), found {}",
                layout.len(),
                layout.join(", "),
                found
            )));
        }
        let int = |name: &str| -> Result<i64, TraceError> {
            let i = layout.iter().position(|l| *l == name).unwrap_or(0);
            let text = fields.get(i).copied().unwrap_or("");
            text.parse::<i64>().map_err(|_| {
                fail(format!(
                    "{path}: expected the {name} of a type {kind} record to be an integer, found {text:?}"
                ))
            })
        };
        let time = int("time")?;
        let time = u64::try_from(time).map_err(|_| {
            fail(format!(
                "{path}: expected a time of 0 µs or more in a type {kind} record, found {time}"
            ))
        })?;
        let has = |name: &str| layout.contains(&name);
        // A field Charm++ writes as a C `int`.
        let small = |name: &str| -> Result<i32, TraceError> {
            let value = int(name)?;
            i32::try_from(value).map_err(|_| {
                fail(format!(
                    "{path}: expected the {name} of a type {kind} record to be a 32-bit integer, found {value}"
                ))
            })
        };
        let rec = Rec {
            act,
            time,
            entry: if has("entry") { small("entry")? } else { 0 },
            event: if has("event") { small("event")? } else { 0 },
            pe: if has("PE") { small("PE")? } else { -1 },
            // A negative length (none was measured) is no bytes.
            len: if has("length") {
                u32::try_from(small("length")?).unwrap_or(0)
            } else {
                0
            },
            offset: line_start,
        };
        // The records wait here until every log is read, so their number is bounded before the
        // model is built: a begin (half of a pair of records) is an enter, and most records are
        // begins and ends, so more than twice the event limit in records is refused now; the
        // model's own events are counted exactly as they are pushed.
        *records_so_far += 1;
        budget.check(
            Limit::Events,
            records_so_far.div_ceil(2),
            FORMAT_NAME,
            bytes,
            line_start,
        )?;
        recs.push(rec);
    }
    Ok(recs)
}

/// The PE number of a log's path `STEM.N.log` or `STEM.N.log.gz`.
fn log_pe(stem: &str, path: &str) -> Option<u32> {
    let rest = path.strip_prefix(stem)?.strip_prefix('.')?;
    let number = rest
        .strip_suffix(".log.gz")
        .or_else(|| rest.strip_suffix(".log"))?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    number.parse().ok()
}

/// Reads a Projections trace from its files (paths relative to any common folder, and their
/// bytes, every log already inflated: `formats::import_files` inflates `.log.gz` logs within the
/// budget, keeping their names).
pub fn parse_files(
    files: &BTreeMap<String, std::borrow::Cow<'_, [u8]>>,
    fallback_name: &str,
    budget: &Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    let candidates: Vec<(&String, &[u8])> = files
        .iter()
        .map(|(p, b)| (p, b.as_ref()))
        .filter(|(p, b)| is_sts_path(p) && looks_like_sts(strip_bom(b)))
        .collect();
    let (sts_path, sts_bytes) = match candidates.as_slice() {
        [] => {
            let names: Vec<&str> = files.keys().map(String::as_str).take(5).collect();
            return Err(TraceError::at_offset(
                FORMAT_NAME,
                &[],
                0,
                format!(
                    "expected a NAME.sts file (PROJECTIONS_ID or VERSION first) beside the logs, found {}",
                    if names.is_empty() {
                        "no files".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        }
        [one] => *one,
        many => {
            let names: Vec<&str> = many.iter().map(|(p, _)| p.as_str()).collect();
            return Err(TraceError::at_offset(
                FORMAT_NAME,
                &[],
                0,
                format!(
                    "expected one .sts file, found {}: {}",
                    many.len(),
                    names.join(", ")
                ),
            ));
        }
    };
    let stem = &sts_path[..sts_path.len() - 4];
    let sts = parse_sts(sts_path, sts_bytes, budget)?;
    let mut notes = Vec::new();
    let mut input_bytes = sts_bytes.len() as u64;
    let mut logs: Vec<Option<Log>> = (0..sts.pes).map(|_| None).collect();
    let mut ignored = Vec::new();
    for (path, bytes) in files {
        let Some(pe) = log_pe(stem, path) else {
            continue;
        };
        let Some(slot) = logs.get_mut(pe as usize) else {
            ignored.push(path.clone());
            continue;
        };
        if let Some(existing) = slot {
            // Both NAME.N.log and NAME.N.log.gz: the plain text one is read.
            let keep_plain = path.ends_with(".log");
            notes.push(format!(
                "PE {pe} has two logs, {} and {path}: {} was read",
                existing.path,
                if keep_plain {
                    path.as_str()
                } else {
                    existing.path
                }
            ));
            if !keep_plain {
                continue;
            }
        }
        if bytes.starts_with(&[0x1f, 0x8b]) {
            return Err(TraceError::at_offset(
                FORMAT_NAME,
                bytes,
                0,
                format!(
                    "{path}: expected the log's text (gzip logs are inflated before they come here)"
                ),
            ));
        }
        let text: &[u8] = bytes;
        input_bytes = input_bytes.saturating_add(text.len() as u64);
        budget.check(Limit::InputBytes, input_bytes, FORMAT_NAME, text, 0)?;
        *slot = Some(Log {
            path: path.as_str(),
            bytes: text,
            recs: Vec::new(),
        });
    }
    if logs.iter().all(Option::is_none) {
        return Err(TraceError::at_offset(
            FORMAT_NAME,
            sts_bytes,
            0,
            format!(
                "{sts_path} describes {} PEs: expected their logs {stem}.0.log … (or .log.gz) beside it, found none",
                sts.pes
            ),
        ));
    }
    if !ignored.is_empty() {
        notes.push(format!(
            "{} logs name PEs past the {} the .sts declares and were not read (the first: {})",
            ignored.len(),
            sts.pes,
            ignored[0]
        ));
    }
    let missing: Vec<usize> = (0..logs.len()).filter(|&k| logs[k].is_none()).collect();
    if let Some(first) = missing.first() {
        notes.push(format!(
            "{} of the {} PEs have no log (the first: PE {first}, {stem}.{first}.log): their rows are empty",
            missing.len(),
            sts.pes
        ));
    }

    // Pass 1: every log's mapped records.
    let mut skipped: BTreeMap<u32, usize> = BTreeMap::new();
    let mut records_so_far = 0u64;
    for log in logs.iter_mut().flatten() {
        log.recs = parse_log(
            log.path,
            log.bytes,
            &mut skipped,
            &mut records_so_far,
            budget,
        )?;
    }

    // The creations by the (PE, event) a begin names them with: the PE and record index.
    let mut creations: HashMap<(i32, i32), (u32, usize)> = HashMap::new();
    let mut duplicate_creations = 0usize;
    for (pe, log) in logs.iter().enumerate() {
        let Some(log) = log else { continue };
        for (i, r) in log.recs.iter().enumerate() {
            if r.act == Act::Create {
                match creations.entry((r.pe, r.event)) {
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert((pe as u32, i));
                    }
                    std::collections::hash_map::Entry::Occupied(_) => duplicate_creations += 1,
                }
            }
        }
    }
    // Each begin that names a creation: (sending PE, creation index, receiving PE), sorted so
    // each creation's arrivals are one run; and whether each begin is an arrival.
    let mut arrivals: Vec<(u32, usize, u32)> = Vec::new();
    let mut arrival_of: Vec<Vec<Option<(u32, usize)>>> = Vec::with_capacity(logs.len());
    let mut unnamed_begins = 0usize;
    for (pe, log) in logs.iter().enumerate() {
        let mut of = Vec::new();
        if let Some(log) = log {
            of.reserve(log.recs.len());
            for r in &log.recs {
                let found = if r.act == Act::Begin {
                    let found = creations.get(&(r.pe, r.event)).copied();
                    match found {
                        Some((from, i)) => arrivals.push((from, i, pe as u32)),
                        None => unnamed_begins += 1,
                    }
                    found
                } else {
                    None
                };
                of.push(found);
            }
        }
        arrival_of.push(of);
    }
    arrivals.sort_unstable();

    // Pass 2: the model.
    let mut builder = TraceBuilder::new(
        stem.rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(fallback_name),
        Clock {
            ticks_per_second: Some(1_000_000),
        },
    );
    let model = |offset: usize, bytes: &[u8], path: &str, e: ModelError| {
        TraceError::at_offset(FORMAT_NAME, bytes, offset, format!("{path}: {e}"))
    };
    let mut node_of_pe: Vec<NodeId> = Vec::with_capacity(sts.pes as usize);
    match sts.smp {
        Some((size, nodes)) if u64::from(size) * u64::from(nodes) <= u64::from(sts.pes) => {
            let node_ids: Vec<NodeId> = (0..nodes)
                .map(|n| builder.add_node(format!("node {n}")))
                .collect();
            let workers = size * nodes;
            for pe in 0..sts.pes {
                let n = if pe < workers {
                    pe / size
                } else {
                    (pe - workers) % nodes
                };
                node_of_pe.push(node_ids[n as usize]);
            }
        }
        other => {
            if other.is_some() {
                notes.push(format!(
                    "the .sts's SMPMODE names more worker PEs than its {} PEs: each PE is on its own node",
                    sts.pes
                ));
            }
            for pe in 0..sts.pes {
                node_of_pe.push(builder.add_node(format!("PE {pe}")));
            }
        }
    }
    let mut process_of_pe = Vec::with_capacity(sts.pes as usize);
    for pe in 0..sts.pes {
        let p = builder
            .add_process(format!("PE {pe}"), node_of_pe[pe as usize])
            .map_err(|e| model(0, sts_bytes, sts_path, e))?;
        process_of_pe.push(p);
    }
    let mut entry_regions: HashMap<i32, RegionId> = HashMap::new();
    let mut unknown_entries = 0usize;
    let span_regions: Vec<RegionId> = SPANS
        .iter()
        .map(|name| builder.add_region(*name, RegionRole::Activity))
        .collect();
    let mut unopened_ends: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut unnamed_creations = 0usize;
    let mut misplaced_bounds = 0usize;
    let mut tag_overflow = 0usize;
    let tag_of = |event: i32, overflow: &mut usize| {
        u32::try_from(event).unwrap_or_else(|_| {
            *overflow += 1;
            0
        })
    };
    let mut pushed = 0u64;
    for (pe, log) in logs.iter().enumerate() {
        let Some(log) = log else { continue };
        let process = process_of_pe[pe];
        let mut stack: Vec<RegionId> = Vec::new();
        let last = log.recs.len().saturating_sub(1);
        for (i, r) in log.recs.iter().enumerate() {
            let at = Time(r.time);
            let mut push = |builder: &mut TraceBuilder, record: EventRecord| {
                pushed += 1;
                budget.check(Limit::Events, pushed, FORMAT_NAME, log.bytes, r.offset)?;
                builder
                    .push(record)
                    .map_err(|e| model(r.offset, log.bytes, log.path, e))
            };
            let mut region_of_entry = |builder: &mut TraceBuilder, entry: i32| {
                *entry_regions.entry(entry).or_insert_with(|| {
                    let name = match sts.entries.get(&i64::from(entry)) {
                        Some((name, chare)) => match sts.chares.get(chare) {
                            Some(chare) => format!("{chare}::{name}"),
                            None => name.clone(),
                        },
                        None => {
                            unknown_entries += 1;
                            format!("entry {entry}")
                        }
                    };
                    builder.add_region(name, RegionRole::Activity)
                })
            };
            match r.act {
                Act::Create => {
                    let key = (pe as u32, i);
                    let start = arrivals.partition_point(|a| (a.0, a.1) < key);
                    let end = arrivals.partition_point(|a| (a.0, a.1) <= key);
                    if start == end {
                        unnamed_creations += 1;
                    }
                    for &(_, _, to) in &arrivals[start..end] {
                        push(
                            &mut builder,
                            EventRecord {
                                peer: Some(process_of_pe[to as usize]),
                                tag: tag_of(r.event, &mut tag_overflow),
                                size: u64::from(r.len),
                                ..EventRecord::plain(process, at, EventKind::MsgSend)
                            },
                        )?;
                    }
                }
                Act::Begin | Act::SpanBegin(_) => {
                    let region = match r.act {
                        Act::SpanBegin(s) => span_regions[s as usize],
                        _ => {
                            if let Some(Some((from, ci))) = arrival_of[pe].get(i).copied() {
                                let creation =
                                    logs[from as usize].as_ref().and_then(|l| l.recs.get(ci));
                                push(
                                    &mut builder,
                                    EventRecord {
                                        peer: Some(process_of_pe[from as usize]),
                                        tag: tag_of(r.event, &mut tag_overflow),
                                        size: u64::from(creation.map_or(r.len, |c| c.len)),
                                        ..EventRecord::plain(process, at, EventKind::MsgArr)
                                    },
                                )?;
                            }
                            region_of_entry(&mut builder, r.entry)
                        }
                    };
                    stack.push(region);
                    budget.check(
                        Limit::Depth,
                        stack.len() as u64,
                        FORMAT_NAME,
                        log.bytes,
                        r.offset,
                    )?;
                    push(
                        &mut builder,
                        EventRecord {
                            region: Some(region),
                            ..EventRecord::plain(process, at, EventKind::Enter)
                        },
                    )?;
                }
                Act::End | Act::SpanEnd(_) => {
                    let (region, what) = match r.act {
                        Act::SpanEnd(s) => (span_regions[s as usize], SPANS[s as usize]),
                        _ => (region_of_entry(&mut builder, r.entry), "END_PROCESSING"),
                    };
                    if stack.last() == Some(&region) {
                        stack.pop();
                        push(
                            &mut builder,
                            EventRecord {
                                region: Some(region),
                                ..EventRecord::plain(process, at, EventKind::Leave)
                            },
                        )?;
                    } else {
                        *unopened_ends.entry(what).or_insert(0) += 1;
                    }
                }
                Act::Start if i == 0 => {
                    push(
                        &mut builder,
                        EventRecord::plain(process, at, EventKind::ProcInit),
                    )?;
                }
                Act::Stop if i == last => {
                    push(
                        &mut builder,
                        EventRecord::plain(process, at, EventKind::ProcExit),
                    )?;
                }
                Act::Start | Act::Stop => misplaced_bounds += 1,
            }
        }
    }

    if unnamed_creations > 0 {
        notes.push(format!(
            "{unnamed_creations} message creations are processed by no logged BEGIN_PROCESSING (no message drawn)"
        ));
    }
    if unnamed_begins > 0 {
        notes.push(format!(
            "{unnamed_begins} BEGIN_PROCESSING records name no logged creation (entered without a message)"
        ));
    }
    if duplicate_creations > 0 {
        notes.push(format!(
            "{duplicate_creations} creations repeat an earlier creation's PE and event number (the first is the one matched)"
        ));
    }
    for (what, n) in &unopened_ends {
        let name = if *what == "END_PROCESSING" {
            "END_PROCESSING records".to_owned()
        } else {
            format!("ends of {what}")
        };
        notes.push(format!(
            "skipped {n} {name} with no open begin of the same region on top of their PE's stack"
        ));
    }
    if misplaced_bounds > 0 {
        notes.push(format!(
            "{misplaced_bounds} BEGIN_COMPUTATION or END_COMPUTATION records are not their PE's first or last record and were not mapped"
        ));
    }
    if unknown_entries > 0 {
        notes.push(format!(
            "{unknown_entries} entry methods are not in the .sts (named \"entry N\")"
        ));
    }
    if tag_overflow > 0 {
        notes.push(format!(
            "{tag_overflow} messages have a negative event number (tagged 0)"
        ));
    }
    notes.extend(super::reading::skipped_notes(skipped.iter().map(
        |(kind, n)| (format!("records of type {kind} ({})", type_name(*kind)), *n),
    )));
    Ok((builder.build(), notes))
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_names_give_their_pe() {
        assert_eq!(log_pe("run/hello", "run/hello.3.log"), Some(3));
        assert_eq!(log_pe("run/hello", "run/hello.12.log.gz"), Some(12));
        assert_eq!(log_pe("run/hello", "run/hello.sum.log"), None);
        assert_eq!(log_pe("run/hello", "run/hello.3.sum"), None);
        assert_eq!(log_pe("run/hello", "run/hellox.3.log"), None);
    }

    #[test]
    fn quoted_and_bare_names() {
        assert_eq!(name_and_rest(" \"Main\" -1"), ("Main", " -1"));
        assert_eq!(name_and_rest("Main"), ("Main", ""));
    }
}
