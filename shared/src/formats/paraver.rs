//! Paraver traces (`.prv`, with `.pcf` labels and `.row` names when given), as BSC's Extrae,
//! MPItrace, COMPSs and the Paraver cutter write them, read with Paraver's own semantics.
//!
//! Mapping (the reference is `docs/formats.md`, "Paraver"):
//! - Each (application, task, thread) is a process, on the node the header places its task.
//! - States are a `state` gauge counter per thread, not regions.
//! - Each event type is its own timeline per thread (a non-zero value begins, the type's next
//!   record ends it). MPI call types, and every other type whose intervals nest with the
//!   types accepted before it on every thread, are regions; a type that cannot nest is kept
//!   whole as a gauge counter per thread, with a note. Sampled types (hardware counters,
//!   sampled call stacks, callers, sizes: [`TypeClass`]) are gauge counter samples. The class
//!   of a type comes from its number, so the `.pcf` changes names, never events.
//! - A communication record `3:…:lsend:psend:…:lrecv:precv:size:tag` gives a `msg_send` at the
//!   physical send, a receive at the logical receive (a blocking `recv_call` when its arrival
//!   follows it, else a `recv_post`) and a `msg_arr` at the physical receive.
//! - Legacy global-communication records (4) are skipped, as BSC's own reader does.

use std::collections::HashMap;

use super::stream::{Line, Lines};
use crate::model::counter::{Counter, CounterKind};
use crate::model::error::{Position, TraceError};
use crate::model::time::{Clock, Time};
use crate::model::{
    EventKind, EventRecord, NodeId, ProcessId, RegionId, RegionRole, Trace, TraceBuilder,
};

/// The format's name.
pub const FORMAT_NAME: &str = "paraver";

/// Labels from a `.pcf` file.
#[derive(Debug, Clone, Default)]
pub struct Labels {
    states: HashMap<u64, String>,
    /// Per event type: its label and, when declared, its value labels.
    types: HashMap<u64, (String, Option<HashMap<u64, String>>)>,
}

impl Labels {
    /// Reads the STATES and EVENT_TYPE/VALUES sections of a `.pcf` file; unreadable lines are
    /// ignored (labels only name things).
    pub fn parse(pcf: &str) -> Labels {
        let mut labels = Labels::default();
        let mut section = "";
        let mut current_types: Vec<u64> = Vec::new();
        let pcf = pcf.strip_prefix('\u{feff}').unwrap_or(pcf);
        for line in pcf.lines() {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            if trimmed.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
                section = match trimmed {
                    "STATES" => "states",
                    "EVENT_TYPE" => {
                        current_types.clear();
                        "types"
                    }
                    "VALUES" => "values",
                    _ => "",
                };
                continue;
            }
            let mut words = trimmed.split_whitespace();
            match section {
                "states" => {
                    if let Some(n) = words.next().and_then(|w| w.parse().ok()) {
                        labels.states.insert(n, words.collect::<Vec<_>>().join(" "));
                    }
                }
                "types" => {
                    let _gradient = words.next();
                    if let Some(t) = words.next().and_then(|w| w.parse().ok()) {
                        current_types.push(t);
                        labels
                            .types
                            .insert(t, (words.collect::<Vec<_>>().join(" "), None));
                    }
                }
                "values" => {
                    if let Some(v) = words.next().and_then(|w| w.parse().ok()) {
                        let label = words.collect::<Vec<_>>().join(" ");
                        for t in &current_types {
                            if let Some((_, values)) = labels.types.get_mut(t) {
                                values
                                    .get_or_insert_with(HashMap::new)
                                    .insert(v, label.clone());
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        labels
    }
}

/// How an event type's values read. The class comes from the type's number alone, by the
/// ranges Extrae assigns (`src/common/events.h`, `src/merger/paraver/MPI_EventEncoding.h`),
/// never from the `.pcf`: labels only name things, so a trace reads into the same events
/// with and without them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeClass {
    /// Each value is a sample of a series of the thread: hardware counters, sampled call
    /// stacks, callers, sizes and the other values Extrae attaches to an event.
    Sample,
    /// An MPI call type (point-to-point, collective, other, one-sided, I/O): a non-zero value
    /// is a call, 0 its end.
    Mpi,
    /// Any other type: its own timeline, where a non-zero value begins and 0 ends.
    Timeline,
}

impl TypeClass {
    /// The class of an event type.
    pub fn of(event_type: u64) -> TypeClass {
        match event_type {
            50_000_001..=50_000_005 => TypeClass::Mpi,
            // Sampled functions and lines, counter overflows, sampled addresses.
            30_000_000..=32_999_999
            // Binary addresses, top-down levels, the active counter set, PAPI preset
            // counters, resource usage, PAPI native and uncore counters.
            | 41_000_000..=46_999_999
            // MPI values: sizes, roots, communicators, one-sided targets.
            | 50_000_006..=50_999_999
            // Burst statistics, OpenMP statistics.
            | 54_000_000..=54_999_999
            | 65_000_000..=65_999_999
            // Callers and caller lines of MPI calls and allocations.
            | 70_000_000..=89_999_999
            // I/O sizes and descriptors, the tracing mode, the executing CPU, process ids,
            // fork depth, the raw clock and the sampling interval.
            | 40_000_011
            | 40_000_013
            | 40_000_018
            | 40_000_033
            | 40_000_036..=40_000_038
            | 40_000_050
            | 40_000_133 => TypeClass::Sample,
            _ => TypeClass::Timeline,
        }
    }
}

fn error(at: Position, message: impl Into<String>) -> TraceError {
    TraceError::at(FORMAT_NAME, at, message)
}

fn fields(line: &Line<'_>, expected: usize, what: &str) -> Result<Vec<u64>, TraceError> {
    let parts: Vec<&str> = line.text.split(':').collect();
    if parts.len() < expected {
        return Err(error(
            line.at,
            format!(
                "expected {what} ({expected} fields), found {} fields",
                parts.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(parts.len());
    let mut at = line.at;
    for p in &parts {
        let value = p.trim().parse::<u64>().map_err(|_| {
            error(
                at,
                format!("expected a non-negative integer in {what}, found {p:?}"),
            )
        })?;
        out.push(value);
        at = at.plus(p.len() + 1);
    }
    Ok(out)
}

/// The header: `#Paraver (date):ftime[_unit]:nodes:nAppl:app1(nthreads:node,…)[:app2…]`.
struct Header {
    ticks_per_second: u64,
    nodes: usize,
    /// Per application, per task: (threads, node index).
    apps: Vec<Vec<(u64, usize)>>,
}

fn header(text: &str) -> Result<Header, TraceError> {
    let bad = |msg: &str| {
        error(
            Position::START,
            format!("expected a header #Paraver (date):ftime:nodes:applications: {msg}"),
        )
    };
    // A byte-order mark some editors write before the text is not part of the header.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("#Paraver")
        .ok_or_else(|| bad("no #Paraver"))?;
    let rest = match rest.find(')') {
        Some(i) => &rest[i + 1..],
        None => rest,
    };
    let rest = rest
        .strip_prefix(':')
        .ok_or_else(|| bad("no ':' after the date"))?;
    let (ftime, rest) = rest.split_once(':').ok_or_else(|| bad("no node field"))?;
    let ticks_per_second = if ftime.ends_with("_ns") {
        1_000_000_000
    } else if ftime.ends_with("_ms") {
        1_000
    } else {
        1_000_000
    };
    // The node field may hold a CPU list in parentheses, which contains commas and colons-free
    // numbers: take everything up to the ':' after its closing parenthesis.
    let (node_field, rest) = split_field(rest).ok_or_else(|| bad("no application count"))?;
    let nodes = node_field
        .split('(')
        .next()
        .unwrap_or("")
        .parse::<usize>()
        .map_err(|_| bad("the node count is not a number"))?;
    let (n_apps, mut rest) = split_field(rest).ok_or_else(|| bad("no application list"))?;
    let n_apps: usize = n_apps
        .trim()
        .parse()
        .map_err(|_| bad("the application count is not a number"))?;
    let mut apps = Vec::new();
    // As Paraver's own reader does: an application is `ntasks(threads:node,…)`, and the one
    // character after its `)` separates it from the next, a ':' or a ',' (the cutter and
    // other BSC tools write either).
    for _ in 0..n_apps {
        let (declared, after) = rest
            .split_once('(')
            .ok_or_else(|| bad("an application without (threads:node,…)"))?;
        let (inside, after) = after
            .split_once(')')
            .ok_or_else(|| bad("an application without (threads:node,…)"))?;
        let mut next = after.chars();
        next.next();
        rest = next.as_str();
        let mut tasks = Vec::new();
        for task in inside.split(',') {
            let (threads, node) = task
                .split_once(':')
                .ok_or_else(|| bad("a task without threads:node"))?;
            let threads: u64 = threads
                .trim()
                .parse()
                .map_err(|_| bad("a thread count is not a number"))?;
            let node: usize = node
                .trim()
                .parse()
                .map_err(|_| bad("a node number is not a number"))?;
            tasks.push((threads, node.saturating_sub(1)));
        }
        // The count before the list must agree with it.
        let declared = declared.trim();
        if declared.parse::<usize>().ok() != Some(tasks.len()) {
            return Err(bad(&format!(
                "an application declares {declared} tasks but lists {}",
                tasks.len()
            )));
        }
        apps.push(tasks);
    }
    let limit = super::reading::MAX_DECLARED;
    let threads: u64 = apps
        .iter()
        .flatten()
        .fold(0u64, |n, t| n.saturating_add(t.0.max(1)));
    let highest_node = apps
        .iter()
        .flatten()
        .map(|t| t.1 as u64 + 1)
        .max()
        .unwrap_or(0);
    if threads > limit || nodes as u64 > limit || highest_node > limit {
        return Err(bad(&format!(
            "it declares {} nodes and {threads} threads, more than the {limit} Tracescope reads",
            (nodes as u64).max(highest_node)
        )));
    }
    Ok(Header {
        ticks_per_second,
        nodes,
        apps,
    })
}

/// Splits at the first ':' that is not inside parentheses.
fn split_field(text: &str) -> Option<(&str, &str)> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth == 0 => return Some((&text[..i], &text[i + 1..])),
            _ => {}
        }
    }
    None
}

/// Names from a `.row` file: `LEVEL THREAD SIZE n` (or `TASK`) then one name per line.
pub fn row_names(row: &str) -> Vec<String> {
    let mut names = Vec::new();
    let row = row.strip_prefix('\u{feff}').unwrap_or(row);
    let mut lines = row.lines();
    while let Some(line) = lines.next() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["LEVEL", level, "SIZE", n] = words.as_slice()
            && let Ok(n) = n.parse::<usize>()
        {
            let level_names: Vec<String> = lines
                .by_ref()
                .take(n)
                .map(|l| l.trim().to_owned())
                .collect();
            // The finest level wins: threads over tasks.
            if *level == "THREAD" || (*level == "TASK" && names.is_empty()) {
                names = level_names;
            }
        }
    }
    names
}

/// The order of a thread's events at one tick: its start first, then the arrivals that complete
/// receives called earlier, then the regions (leaves and enters in nesting order), then sends,
/// then receive calls (each followed by its arrival when the data was already there), and its
/// end last.
const INIT: u8 = 0;
const ARRIVAL: u8 = 1;
const REGION: u8 = 2;
const SEND: u8 = 3;
const RECEIVE: u8 = 4;
const EXIT: u8 = 5;

/// An event waiting to be placed: (time, phase at the tick, sequence, after its call), record.
type Pending = (u64, u8, usize, u8, EventRecord);

/// One value of a type on a thread, from its record to the type's next record.
#[derive(Debug, Clone, Copy)]
struct Interval {
    start: u64,
    /// `u64::MAX` when the type never returns to 0 or another value.
    end: u64,
    event_type: u64,
    value: u64,
    /// The type's place in the order types were accepted as regions: on identical intervals,
    /// the type accepted first is outside.
    rank: usize,
}

/// Puts intervals in the order a nested stack enters them: by start, the longer first.
fn sort_for_nesting(intervals: &mut [Interval]) {
    intervals.sort_by(|a, b| {
        (a.start, std::cmp::Reverse(a.end), a.rank, a.event_type).cmp(&(
            b.start,
            std::cmp::Reverse(b.end),
            b.rank,
            b.event_type,
        ))
    });
}

/// Walks intervals sorted by [`sort_for_nesting`] as a stack, calling `each` with
/// `Some(index)` to enter and with the index of the interval to leave; returns false at the
/// first interval that overlaps an open one without nesting in it. Half-open: an interval
/// that ends at a tick is left before one that starts at that tick is entered.
fn walk_nesting(intervals: &[Interval], mut each: impl FnMut(usize, bool)) -> bool {
    let mut stack: Vec<usize> = Vec::new();
    for (i, x) in intervals.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let Some(t) = intervals.get(top) else { break };
            if t.end <= x.start {
                stack.pop();
                each(top, false);
            } else {
                break;
            }
        }
        if let Some(t) = stack.last().and_then(|&top| intervals.get(top))
            && x.end > t.end
        {
            return false;
        }
        stack.push(i);
        each(i, true);
    }
    while let Some(top) = stack.pop() {
        if intervals.get(top).is_some_and(|t| t.end != u64::MAX) {
            each(top, false);
        }
    }
    true
}

/// Reads a `.prv` trace, with optional `.pcf` labels.
///
/// Mapping (Paraver's own semantics, as its kernel reads a trace):
/// - A state record gives one sample of the thread's `state` counter (a gauge whose values
///   are state ids, labelled in the `.pcf`): states are a track per thread, not regions.
/// - Each event type is its own timeline on each thread: a non-zero value begins, the next
///   record of that type (0 or another value) ends it. MPI call types always, and every other
///   timeline type whose intervals nest with those of the types accepted before it on every
///   thread, become regions (MPI calls as `communication` regions). A type that overlaps
///   the others without nesting (two types are independent timelines in Paraver) is kept
///   whole as a gauge counter per thread with every value it takes, and a note names it.
/// - Sampled types (hardware counters, sampled call stacks, callers, sizes: [`TypeClass`])
///   are samples of a gauge counter per thread and type.
/// - A communication record gives a send at the physical send, a receive call at the logical
///   receive and an arrival at the physical receive (or at the call, when the data came
///   first).
pub fn parse(
    input: &mut dyn std::io::BufRead,
    labels: Option<&Labels>,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    let empty = Labels::default();
    let labels = labels.unwrap_or(&empty);
    let mut lines = Lines::new(input, FORMAT_NAME, budget);
    let first = lines.next_line()?.ok_or_else(|| {
        error(
            Position::START,
            "expected a #Paraver header, found an empty file",
        )
    })?;
    let header = header(first.text)?;
    let mut builder = TraceBuilder::new(
        fallback_name,
        Clock {
            ticks_per_second: Some(header.ticks_per_second),
        },
    );
    let n_nodes = header.nodes.max(
        header
            .apps
            .iter()
            .flatten()
            .map(|t| t.1 + 1)
            .max()
            .unwrap_or(1),
    );
    for n in 0..n_nodes {
        builder.add_node(format!("node {}", n + 1));
    }
    let declared: u64 = header
        .apps
        .iter()
        .flatten()
        .map(|&(n_threads, _)| n_threads.max(1))
        .fold(0, u64::saturating_add);
    budget.check_at(
        super::budget::Limit::Processes,
        declared,
        FORMAT_NAME,
        Position::START,
    )?;
    let mut threads: HashMap<(u64, u64, u64), ProcessId> = HashMap::new();
    for (a, tasks) in header.apps.iter().enumerate() {
        for (t, &(n_threads, node)) in tasks.iter().enumerate() {
            for th in 0..n_threads.max(1) {
                let name = if n_threads > 1 {
                    format!("task {}.{}", t + 1, th + 1)
                } else {
                    format!("task {}", t + 1)
                };
                let process = builder
                    .add_process(name, NodeId(node as u32))
                    .map_err(|e| error(Position::START, e.to_string()))?;
                threads.insert((a as u64 + 1, t as u64 + 1, th + 1), process);
            }
        }
    }
    let n_threads = threads.len();
    let process_of = |line: &Line<'_>, appl: u64, task: u64, thread: u64| {
        threads.get(&(appl, task, thread)).copied().ok_or_else(|| {
            error(
                line.at,
                format!("expected a thread the header declares, found {appl}:{task}:{thread}"),
            )
        })
    };
    let mut pending: Vec<Vec<Pending>> = vec![Vec::new(); n_threads];
    let mut lifetime: Vec<Option<(u64, u64)>> = vec![None; n_threads];
    let mut states: Vec<Option<Counter>> = vec![None; n_threads];
    // Per thread and type, the values of a timeline type in record order.
    let mut timelines: HashMap<(ProcessId, u64), Vec<(u64, u64)>> = HashMap::new();
    let mut samples: HashMap<(ProcessId, u64), Counter> = HashMap::new();
    let mut skipped: HashMap<String, usize> = HashMap::new();
    let mut seq = 0usize;
    let mut messages = 0u64;
    // What the records will give, for the event budget: three events per message, up to two
    // per value of a timeline type, and a sample (about the size of an event) per state and
    // per sampled value.
    let mut expected_events = 0u64;
    let push = |pending: &mut Vec<Vec<Pending>>,
                seq: &mut usize,
                p: ProcessId,
                (t, phase, after): (u64, u8, u8),
                mut r: EventRecord| {
        r.process = p;
        r.time = Time(t);
        *seq += 1;
        if let Some(list) = pending.get_mut(p.index()) {
            list.push((t, phase, *seq, after, r));
        }
        *seq
    };
    while let Some(line) = lines.next_line()? {
        let line = &line;
        budget.check_at(
            super::budget::Limit::Events,
            expected_events,
            FORMAT_NAME,
            line.at,
        )?;
        let kind = line.text.split(':').next().unwrap_or("");
        match kind {
            "" => {}
            "c" => {}
            "1" => {
                let f = fields(
                    line,
                    8,
                    "a state record 1:cpu:appl:task:thread:begin:end:state",
                )?;
                let p = process_of(line, f[2], f[3], f[4])?;
                let (begin, mut end, state) = (f[5], f[6], f[7]);
                if end < begin {
                    // Tools do write these (a COMPSs trace has one per thread start): the
                    // state's value is still known, only its end is not.
                    *skipped
                        .entry("ends of state records that end before they begin".to_owned())
                        .or_default() += 1;
                    end = begin;
                }
                if state != 2 {
                    let span = lifetime[p.index()].get_or_insert((begin, end));
                    *span = (span.0.min(begin), span.1.max(end));
                }
                expected_events += 1;
                let track = states[p.index()]
                    .get_or_insert_with(|| Counter::new("state", "", p, CounterKind::Gauge));
                track.times.push(Time(begin));
                track.values.push(state as f64);
            }
            "2" => {
                let f = fields(
                    line,
                    8,
                    "an event record 2:cpu:appl:task:thread:time:type:value",
                )?;
                let p = process_of(line, f[2], f[3], f[4])?;
                let time = f[5];
                for pair in f[6..].chunks(2) {
                    let &[event_type, value] = pair else {
                        return Err(error(line.at, "expected type:value pairs after the time"));
                    };
                    match TypeClass::of(event_type) {
                        TypeClass::Sample => {
                            expected_events += 1;
                            let series = samples.entry((p, event_type)).or_insert_with(|| {
                                Counter::new(
                                    type_name(labels, event_type),
                                    "",
                                    p,
                                    CounterKind::Gauge,
                                )
                            });
                            series.times.push(Time(time));
                            series.values.push(value as f64);
                        }
                        TypeClass::Mpi | TypeClass::Timeline => {
                            expected_events += 2;
                            timelines
                                .entry((p, event_type))
                                .or_default()
                                .push((time, value));
                        }
                    }
                }
            }
            "3" => {
                let f = fields(
                    line,
                    15,
                    "a communication record 3:cpu:appl:task:thread:lsend:psend:rcpu:rappl:rtask:rthread:lrecv:precv:size:tag",
                )?;
                let sender = process_of(line, f[2], f[3], f[4])?;
                let receiver = process_of(line, f[8], f[9], f[10])?;
                let (psend, lrecv, precv, size, tag) = (f[6], f[11], f[12], f[13], f[14]);
                let tag = u32::try_from(tag).unwrap_or(u32::MAX);
                expected_events += 3;
                let mut send = EventRecord::plain(sender, Time(psend), EventKind::MsgSend);
                send.peer = Some(receiver);
                send.tag = tag;
                send.size = size;
                let mut call = EventRecord::plain(receiver, Time(lrecv), EventKind::RecvCall);
                call.tag = tag;
                // The receive completes when the data is there and the receive was called: a
                // message that arrived before the call is taken at the call.
                let completed = precv.max(lrecv);
                // The call and its arrival share an id until the events are placed: a call
                // whose arrival comes right after it blocked until then (`recv_call`), any
                // other was a posted receive that a later wait completed (`recv_post`).
                messages += 1;
                let id = std::num::NonZeroU32::new(u32::try_from(messages).unwrap_or(u32::MAX));
                call.request = id;
                let mut arrival = EventRecord::plain(receiver, Time(completed), EventKind::MsgArr);
                arrival.peer = Some(sender);
                arrival.tag = tag;
                arrival.size = size;
                arrival.request = id;
                // At one tick a send comes before a receive call: an MPI_Sendrecv's receive
                // record may come first in the file, and a call left waiting behind a send
                // would read as a receive that never completed.
                push(&mut pending, &mut seq, sender, (psend, SEND, 0), send);
                let call_seq = push(&mut pending, &mut seq, receiver, (lrecv, RECEIVE, 0), call);
                if completed == lrecv {
                    // Right after its own call.
                    if let Some(list) = pending.get_mut(receiver.index()) {
                        arrival.process = receiver;
                        list.push((lrecv, RECEIVE, call_seq, 1, arrival));
                    }
                } else {
                    // Before the regions that waited for it are left at its tick.
                    push(
                        &mut pending,
                        &mut seq,
                        receiver,
                        (completed, ARRIVAL, 0),
                        arrival,
                    );
                }
            }
            "4" => {
                *skipped
                    .entry("global communication records (4)".to_owned())
                    .or_default() += 1
            }
            other if other.starts_with('#') => {}
            other => {
                return Err(error(
                    line.at,
                    format!("expected a record type 1, 2, 3, 4 or c, found {other:?}"),
                ));
            }
        }
    }
    let end_position = lines.position();
    // Each timeline type's values become intervals, per thread.
    let mut intervals: HashMap<(ProcessId, u64), Vec<Interval>> = HashMap::new();
    let mut keys: Vec<(ProcessId, u64)> = timelines.keys().copied().collect();
    keys.sort_unstable();
    for key in &keys {
        let Some(values) = timelines.get_mut(key) else {
            continue;
        };
        // Records of one thread come in time order; a stable sort keeps a tick's in file order.
        values.sort_by_key(|v| v.0);
        let mut list = Vec::new();
        let mut open: Option<(u64, u64)> = None;
        for &(time, value) in values.iter() {
            if let Some((start, v)) = open.take() {
                list.push(Interval {
                    start,
                    end: time,
                    event_type: key.1,
                    value: v,
                    rank: 0,
                });
            } else if value == 0 {
                *skipped
                    .entry("ends of nothing open".to_owned())
                    .or_default() += 1;
            }
            if value != 0 {
                open = Some((time, value));
            }
        }
        if let Some((start, v)) = open {
            list.push(Interval {
                start,
                end: u64::MAX,
                event_type: key.1,
                value: v,
                rank: 0,
            });
        }
        intervals.insert(*key, list);
    }
    // The types to try as regions: MPI calls first, then the others by number.
    let mut types: Vec<u64> = keys.iter().map(|k| k.1).collect();
    types.sort_unstable_by_key(|&t| (TypeClass::of(t) != TypeClass::Mpi, t));
    types.dedup();
    let mut accepted: Vec<Vec<Interval>> = vec![Vec::new(); n_threads];
    let mut rejected: Vec<(u64, usize)> = Vec::new();
    for (rank, &t) in types.iter().enumerate() {
        let mut merged: Vec<(usize, Vec<Interval>)> = Vec::new();
        let mut failing = 0usize;
        for (p, so_far) in accepted.iter().enumerate() {
            let Some(own) = intervals.get(&(ProcessId(p as u32), t)) else {
                continue;
            };
            let mut all = so_far.clone();
            all.extend(own.iter().map(|iv| Interval { rank, ..*iv }));
            sort_for_nesting(&mut all);
            if walk_nesting(&all, |_, _| {}) {
                merged.push((p, all));
            } else {
                failing += 1;
            }
        }
        if failing == 0 {
            for (p, all) in merged {
                if let Some(slot) = accepted.get_mut(p) {
                    *slot = all;
                }
            }
        } else {
            rejected.push((t, failing));
        }
    }
    // The accepted types' intervals, walked in nesting order, are the regions.
    let mut region_ids: HashMap<(u64, u64), RegionId> = HashMap::new();
    let mut names: HashMap<String, RegionId> = HashMap::new();
    for (p, list) in accepted.iter().enumerate() {
        let process = ProcessId(p as u32);
        let mut walked: Vec<(usize, bool)> = Vec::with_capacity(list.len() * 2);
        walk_nesting(list, |i, enter| walked.push((i, enter)));
        for (i, enter) in walked {
            let Some(iv) = list.get(i) else { continue };
            let region = *region_ids
                .entry((iv.event_type, iv.value))
                .or_insert_with(|| {
                    let name = region_name(labels, iv.event_type, iv.value);
                    *names.entry(name.clone()).or_insert_with(|| {
                        let role = if matches!(iv.event_type, 50_000_001 | 50_000_002) {
                            RegionRole::Communication
                        } else {
                            RegionRole::Activity
                        };
                        builder.add_region(name, role)
                    })
                });
            let (time, kind) = if enter {
                (iv.start, EventKind::Enter)
            } else {
                (iv.end, EventKind::Leave)
            };
            let mut record = EventRecord::plain(process, Time(time), kind);
            record.region = Some(region);
            push(&mut pending, &mut seq, process, (time, REGION, 0), record);
        }
    }
    // A type that cannot be regions is kept whole: every value it takes, per thread.
    let mut notes = Vec::new();
    for &(t, failing) in &rejected {
        notes.push(format!(
            "event type {t} ({}) overlaps other types without nesting on {failing} threads: \
             it is a gauge counter per thread (its values over time), not regions",
            type_name(labels, t)
        ));
        for key in keys.iter().filter(|k| k.1 == t) {
            if let Some(values) = timelines.get(key) {
                let mut series = Counter::new(type_name(labels, t), "", key.0, CounterKind::Gauge);
                series.times = values.iter().map(|v| Time(v.0)).collect();
                series.values = values.iter().map(|v| v.1 as f64).collect();
                samples.insert(*key, series);
            }
        }
    }
    for (i, span) in lifetime.iter().enumerate() {
        if let Some((begin, end)) = *span {
            let p = ProcessId(i as u32);
            // The thread lives from its first state that is not "not created", or its first
            // record if that is earlier (Extrae's main thread records its first events while
            // "not created"), to its last state or record, whichever is later (an event type
            // may close after the last state ends).
            let first = pending[i].iter().map(|r| r.0).min().unwrap_or(begin);
            let last = pending[i].iter().map(|r| r.0).max().unwrap_or(end);
            let (begin, end) = (begin.min(first), end.max(last));
            push(
                &mut pending,
                &mut seq,
                p,
                (begin, INIT, 0),
                EventRecord::plain(p, Time(begin), EventKind::ProcInit),
            );
            push(
                &mut pending,
                &mut seq,
                p,
                (end, EXIT, 0),
                EventRecord::plain(p, Time(end), EventKind::ProcExit),
            );
        }
    }
    builder.reserve_events(pending.iter().map(Vec::len).sum());
    for mut records in pending {
        records.sort_by_key(|&(t, phase, seq, after, _)| (t, phase, seq, after));
        let mut placed: Vec<EventRecord> = records.into_iter().map(|r| r.4).collect();
        for i in 0..placed.len() {
            if placed[i].kind != EventKind::RecvCall {
                continue;
            }
            let id = placed[i].request;
            let blocking = placed
                .get(i + 1)
                .is_some_and(|next| next.kind == EventKind::MsgArr && next.request == id);
            if blocking {
                placed[i].request = None;
                placed[i + 1].request = None;
            } else {
                placed[i].kind = EventKind::RecvPost;
            }
        }
        for r in placed {
            builder
                .push(r)
                .map_err(|e| error(end_position, e.to_string()))?;
        }
    }
    let mut series: Vec<Counter> = states.into_iter().flatten().collect();
    let mut sampled: Vec<((ProcessId, u64), Counter)> = samples.into_iter().collect();
    sampled.sort_by_key(|(k, _)| *k);
    series.extend(sampled.into_iter().map(|(_, c)| c));
    for counter in series {
        builder
            .add_counter(counter)
            .map_err(|e| error(end_position, e.to_string()))?;
    }
    notes.extend(super::reading::skipped_notes(skipped));
    Ok((builder.build(), notes))
}

/// A type's label, or its number.
fn type_name(labels: &Labels, event_type: u64) -> String {
    labels
        .types
        .get(&event_type)
        .map_or_else(|| format!("type {event_type}"), |d| d.0.clone())
}

/// The name of a region: the value's label (the type's when the value only says "begin"),
/// else the MPI call Extrae numbers so, else the type and the value.
fn region_name(labels: &Labels, event_type: u64, value: u64) -> String {
    let declared = labels.types.get(&event_type);
    let type_label = type_name(labels, event_type);
    let value_label = declared
        .and_then(|d| d.1.as_ref())
        .and_then(|v| v.get(&value))
        .cloned();
    match value_label {
        Some(l) if !matches!(l.as_str(), "Begin" | "Enabled" | "Start") => l,
        Some(_) => type_label,
        // Without labels, Extrae's MPI calls still have their names: Extrae numbers them once.
        None => match super::extrae_mpi::call_name(value) {
            Some(call) if (50_000_001..=50_000_005).contains(&event_type) => call.to_owned(),
            _ => format!("{type_label} {value}"),
        },
    }
}
