//! Paraver traces (`.prv`, with `.pcf` labels when given), as BSC's Extrae and MPItrace write.
//!
//! Mapping:
//! - Each (application, task, thread) is a process, on the node the header places its task.
//! - A communication record `3:…:lsend:psend:…:lrecv:precv:size:tag` gives a `msg_send` at the
//!   physical send, a `recv_call` at the logical receive (the receive was posted) and a
//!   `msg_arr` at the physical receive (the data arrived).
//! - Punctual events `2:…:time:type:value…` of begin/end types become regions: a non-zero value
//!   enters the region named by its `.pcf` label, value 0 leaves the open region of that type.
//!   MPI point-to-point and collective calls are `communication` regions. Hardware counters
//!   (types 42000000–42999999) are skipped.
//! - States `1:…:begin:end:state` other than Idle (0), Running (1) and Not created (2) become
//!   regions named by their label; a thread starts (`proc_init`) at its first state that is
//!   not "Not created" and ends (`proc_exit`) at the end of its last state.
//! - Legacy global-communication records (4) are skipped, as BSC's own reader does.

use std::collections::HashMap;

use super::stream::{Line, Lines};
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

fn is_counter(event_type: u64) -> bool {
    (42_000_000..43_000_000).contains(&event_type)
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
        .parse()
        .map_err(|_| bad("the application count is not a number"))?;
    let mut apps = Vec::new();
    for _ in 0..n_apps {
        let (app, more) = split_field(rest).unwrap_or((rest, ""));
        rest = more;
        let inside = app
            .split_once('(')
            .and_then(|(_, r)| r.split_once(')'))
            .map(|(list, _)| list)
            .ok_or_else(|| bad("an application without (threads:node,…)"))?;
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
        let declared = app.split('(').next().unwrap_or("").trim();
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

/// Reads a `.prv` trace, with optional `.pcf` labels.
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
    let process_of = |line: &Line<'_>, appl: u64, task: u64, thread: u64| {
        threads.get(&(appl, task, thread)).copied().ok_or_else(|| {
            error(
                line.at,
                format!("expected a thread the header declares, found {appl}:{task}:{thread}"),
            )
        })
    };
    let mut regions: HashMap<String, RegionId> = HashMap::new();
    let mut region = |builder: &mut TraceBuilder, name: String, role: RegionRole| {
        *regions
            .entry(name.clone())
            .or_insert_with(|| builder.add_region(name, role))
    };
    // Per process: (time, order, sequence, record). At one tick: arrivals (completing the
    // receives before), then leaves, enters, sends and receive calls, then arrivals of those
    // calls.
    const ARRIVAL: u8 = 0;
    const LEAVE: u8 = 1;
    const ENTER: u8 = 2;
    const CALL: u8 = 3;
    const AFTER_CALL: u8 = 4;
    // A process's exit is the last thing at its tick.
    const EXIT: u8 = 5;
    let mut pending: Vec<Vec<(u64, u8, usize, EventRecord)>> = vec![Vec::new(); threads.len()];
    let mut lifetime: Vec<Option<(u64, u64)>> = vec![None; threads.len()];
    let mut open: HashMap<(ProcessId, u64), RegionId> = HashMap::new();
    let mut skipped: HashMap<&str, usize> = HashMap::new();
    let seq = std::cell::Cell::new(0usize);
    let push = |pending: &mut Vec<Vec<(u64, u8, usize, EventRecord)>>,
                p: ProcessId,
                t: u64,
                order: u8,
                mut r: EventRecord| {
        r.process = p;
        r.time = Time(t);
        seq.set(seq.get() + 1);
        pending[p.index()].push((t, order, seq.get(), r));
    };
    while let Some(line) = lines.next_line()? {
        let line = &line;
        budget.check_at(
            super::budget::Limit::Events,
            seq.get() as u64,
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
                let (begin, end, state) = (f[5], f[6], f[7]);
                if end < begin {
                    return Err(error(
                        line.at,
                        format!("expected a state's end ≥ its begin, found {begin}..{end}"),
                    ));
                }
                if state != 2 {
                    let span = lifetime[p.index()].get_or_insert((begin, end));
                    *span = (span.0.min(begin), span.1.max(end));
                }
                if state > 2 {
                    let name = labels
                        .states
                        .get(&state)
                        .cloned()
                        .unwrap_or_else(|| format!("state {state}"));
                    let r = region(&mut builder, name, RegionRole::Activity);
                    let mut enter = EventRecord::plain(p, Time(begin), EventKind::Enter);
                    enter.region = Some(r);
                    let mut leave = enter;
                    leave.kind = EventKind::Leave;
                    push(&mut pending, p, begin, ENTER, enter);
                    push(&mut pending, p, end, LEAVE, leave);
                }
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
                    let declared = labels.types.get(&event_type);
                    if is_counter(event_type)
                        || declared.is_some_and(|d| d.1.is_none() && d.0.contains("Size"))
                    {
                        *skipped.entry("counter values").or_default() += 1;
                        continue;
                    }
                    if value == 0 {
                        match open.remove(&(p, event_type)) {
                            Some(r) => {
                                let mut leave = EventRecord::plain(p, Time(time), EventKind::Leave);
                                leave.region = Some(r);
                                push(&mut pending, p, time, LEAVE, leave);
                            }
                            None => *skipped.entry("ends of nothing open").or_default() += 1,
                        }
                        continue;
                    }
                    let type_label =
                        declared.map_or_else(|| format!("type {event_type}"), |d| d.0.clone());
                    let value_label = declared
                        .and_then(|d| d.1.as_ref())
                        .and_then(|v| v.get(&value))
                        .cloned();
                    let name = match value_label {
                        Some(l) if !matches!(l.as_str(), "Begin" | "Enabled" | "Start") => l,
                        Some(_) => type_label.clone(),
                        None => format!("{type_label} {value}"),
                    };
                    // MPI point-to-point (50000001) and collectives (50000002) are calls.
                    let role = if matches!(event_type, 50_000_001 | 50_000_002) {
                        RegionRole::Communication
                    } else {
                        RegionRole::Activity
                    };
                    let r = region(&mut builder, name, role);
                    if let Some(previous) = open.insert((p, event_type), r) {
                        let mut leave = EventRecord::plain(p, Time(time), EventKind::Leave);
                        leave.region = Some(previous);
                        push(&mut pending, p, time, LEAVE, leave);
                    }
                    let mut enter = EventRecord::plain(p, Time(time), EventKind::Enter);
                    enter.region = Some(r);
                    push(&mut pending, p, time, ENTER, enter);
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
                let mut send = EventRecord::plain(sender, Time(psend), EventKind::MsgSend);
                send.peer = Some(receiver);
                send.tag = tag;
                send.size = size;
                let mut call = EventRecord::plain(receiver, Time(lrecv), EventKind::RecvCall);
                call.tag = tag;
                // The receive completes when the data is there and the receive was called: a
                // message that arrived before the call is taken at the call.
                let completed = precv.max(lrecv);
                let mut arrival = EventRecord::plain(receiver, Time(completed), EventKind::MsgArr);
                arrival.peer = Some(sender);
                arrival.tag = tag;
                arrival.size = size;
                push(&mut pending, sender, psend, CALL, send);
                push(&mut pending, receiver, lrecv, CALL, call);
                // An arrival completes the receive before the regions that waited for it are
                // left at the same tick; after its own call when both fall on one tick.
                let order = if completed == lrecv {
                    AFTER_CALL
                } else {
                    ARRIVAL
                };
                push(&mut pending, receiver, completed, order, arrival);
            }
            "4" => {
                *skipped
                    .entry("global communication records (4)")
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
    for (i, span) in lifetime.iter().enumerate() {
        if let Some((begin, end)) = *span {
            let p = ProcessId(i as u32);
            // The process lives from its first state to its last state or record, whichever
            // is later (an event type may close after the last state ends).
            let last = pending[i].iter().map(|r| r.0).max().unwrap_or(end);
            let end = end.max(last);
            push(
                &mut pending,
                p,
                begin,
                0,
                EventRecord::plain(p, Time(begin), EventKind::ProcInit),
            );
            push(
                &mut pending,
                p,
                end,
                EXIT,
                EventRecord::plain(p, Time(end), EventKind::ProcExit),
            );
        }
    }
    builder.reserve_events(pending.iter().map(Vec::len).sum());
    let end = lines.position();
    for mut records in pending {
        records.sort_by_key(|&(t, order, seq, ref r)| {
            (t, u8::from(r.kind != EventKind::ProcInit), order, seq)
        });
        for (_, _, _, r) in records {
            builder.push(r).map_err(|e| error(end, e.to_string()))?;
        }
    }
    let notes = super::reading::skipped_notes(skipped);
    Ok((builder.build(), notes))
}
