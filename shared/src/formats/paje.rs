//! Pajé traces (PajeNG, ViTE, SimGrid, StarPU, EZTrace 1.x): a self-describing text format whose
//! header declares each event's fields (`%EventDef Name id` … `%EndEventDef`); data lines give
//! the fields in that order, strings possibly quoted.
//!
//! Mapping:
//! - Every container but the root becomes a process on a node of its own (named after it);
//!   `PajeCreateContainer` / `PajeDestroyContainer` are its `proc_init` / `proc_exit`; a
//!   destroyed container's open states end with it.
//! - States (`PajeSetState`, `PushState`, `PopState`, `ResetState`) become regions named by the
//!   state's value; `PajeNewEvent` becomes a probe.
//! - Links (`PajeStartLink` / `PajeEndLink`, matched by type and key) become messages from the
//!   start container to the end container.
//! - Variables: a variable `X_used` with a sibling `X` on the same container (SimGrid's
//!   `power_used`/`power`) becomes utilization samples `X_used / X` of the container's node;
//!   every variable is also a counter of its container (the value it holds from each change).
//! - Dates are seconds unless told otherwise ([`TimeUnit`]); a header written by GTG, the
//!   library EZTrace 1.x writes Pajé with, means milliseconds. Ticks are nanoseconds.

use std::collections::HashMap;

use super::stream::Lines;
use crate::model::error::{Position, TraceError};
use crate::model::time::{Clock, Time};
use crate::model::{
    Counter, CounterKind, CpuSample, EventKind, EventRecord, NodeId, ProcessId, RegionId,
    RegionRole, Sample, Trace, TraceBuilder,
};

/// The format's name.
pub const FORMAT_NAME: &str = "paje";

/// The unit of a Pajé trace's dates (the format does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds (PajeNG, SimGrid, StarPU).
    Seconds,
    /// Milliseconds (EZTrace 1.x).
    Milliseconds,
    /// Microseconds.
    Microseconds,
    /// Nanoseconds.
    Nanoseconds,
}

impl TimeUnit {
    /// Every unit, by its short name.
    pub const ALL: [TimeUnit; 4] = [
        TimeUnit::Seconds,
        TimeUnit::Milliseconds,
        TimeUnit::Microseconds,
        TimeUnit::Nanoseconds,
    ];

    /// The short name: `s`, `ms`, `us` or `ns`.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Microseconds => "us",
            TimeUnit::Nanoseconds => "ns",
        }
    }

    /// The unit with this short name.
    pub fn from_name(name: &str) -> Option<TimeUnit> {
        TimeUnit::ALL.into_iter().find(|u| u.name() == name)
    }

    fn nanoseconds(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1e9,
            TimeUnit::Milliseconds => 1e6,
            TimeUnit::Microseconds => 1e3,
            TimeUnit::Nanoseconds => 1.0,
        }
    }
}

/// Whether the definitions are GTG's (EZTrace 1.x): its container type definition has id 0
/// and the fields Name, Type, Alias; its entity value definition id 5 and Type, Name, Color,
/// Alias.
fn is_gtg(definitions: &HashMap<String, Definition>) -> bool {
    let has = |id: &str, name: &str, fields: &[&str]| {
        definitions
            .get(id)
            .is_some_and(|d| d.name == name && d.fields.iter().eq(fields.iter()))
    };
    has("0", "PajeDefineContainerType", &["Name", "Type", "Alias"])
        && has(
            "5",
            "PajeDefineEntityValue",
            &["Type", "Name", "Color", "Alias"],
        )
}

fn error(at: Position, message: impl Into<String>) -> TraceError {
    TraceError::at(FORMAT_NAME, at, message)
}

/// Splits a data line into fields: whitespace-separated, double quotes group.
fn fields(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        if bytes[i] == b'"' {
            let end = line[i + 1..].find('"').map_or(line.len(), |e| i + 1 + e);
            out.push(&line[i + 1..end]);
            i = end + 1;
        } else {
            let end = line[i..]
                .find(|c: char| c.is_ascii_whitespace())
                .map_or(line.len(), |e| i + e);
            out.push(&line[i..end]);
            i = end;
        }
    }
    out
}

/// Whether the text is a Pajé trace: it starts with an event definition.
pub fn looks_like(text: &[u8]) -> bool {
    text.starts_with(b"%EventDef")
}

struct Definition {
    name: String,
    fields: Vec<String>,
}

#[derive(Clone, Copy)]
struct Container {
    process: ProcessId,
    node: NodeId,
}

/// The containers, found by alias or by name: an alias wins (SimGrid names its links `1`, `2`…,
/// the aliases of its hosts).
#[derive(Default)]
struct Containers {
    by_alias: HashMap<String, Container>,
    by_name: HashMap<String, Container>,
}

impl Containers {
    fn get(&self, key: &str) -> Option<&Container> {
        self.by_alias.get(key).or_else(|| self.by_name.get(key))
    }
}

/// Reads a Pajé trace.
pub fn parse(
    input: &mut dyn std::io::BufRead,
    fallback_name: &str,
    budget: &super::budget::Budget,
    unit: Option<TimeUnit>,
) -> Result<(Trace, Vec<String>), TraceError> {
    let mut unit = unit;
    let mut unit_note = None;
    let mut definitions: HashMap<String, Definition> = HashMap::new();
    let mut defining: Option<(String, Definition)> = None;
    let mut builder = TraceBuilder::new(fallback_name, Clock::NANOSECONDS);
    let mut containers = Containers::default();
    let mut values: HashMap<String, String> = HashMap::new();
    let mut regions: HashMap<String, RegionId> = HashMap::new();
    let mut type_names: HashMap<String, String> = HashMap::new();
    // Open states per (container, state type).
    // Each container's open states by state type (keyed by process, so that a container's
    // stacks are one range whatever name or alias its records use).
    let mut states: std::collections::BTreeMap<(u32, String), Vec<RegionId>> =
        std::collections::BTreeMap::new();
    // Link ends by (type, key): (time, container, is start).
    type LinkEnd = (u64, String, bool, usize);
    let mut link_ends: HashMap<(String, String), Vec<LinkEnd>> = HashMap::new();
    // Variable values per (container, type name): (time since, value).
    let mut variables: HashMap<(String, String), (u64, f64)> = HashMap::new();
    let mut variable_history: Vec<(String, String, u64, u64, f64)> = Vec::new();
    let mut records: Vec<(u64, u8, usize, EventRecord)> = Vec::new();
    let mut skipped: HashMap<String, usize> = HashMap::new();
    let mut lines = Lines::new(input, FORMAT_NAME, budget);
    while let Some(line) = lines.next_line()? {
        let line_at = line.at;
        budget.check_at(
            super::budget::Limit::Events,
            records.len() as u64,
            FORMAT_NAME,
            line_at,
        )?;
        let line = line.text;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('%') {
            let words = fields(rest);
            match words.first().copied() {
                Some("EventDef") => {
                    let (Some(name), Some(id)) = (words.get(1), words.get(2)) else {
                        return Err(error(line_at, "expected %EventDef NAME ID"));
                    };
                    defining = Some((
                        id.to_string(),
                        Definition {
                            name: name.to_string(),
                            fields: Vec::new(),
                        },
                    ));
                }
                Some("EndEventDef") => {
                    let Some((id, def)) = defining.take() else {
                        return Err(error(line_at, "expected %EventDef before %EndEventDef"));
                    };
                    definitions.insert(id, def);
                }
                Some(field) => match &mut defining {
                    Some((_, def)) => def.fields.push(field.to_owned()),
                    None => {
                        return Err(error(
                            line_at,
                            format!("expected a field inside %EventDef, found {field:?}"),
                        ));
                    }
                },
                None => {}
            }
            continue;
        }
        let unit = *unit.get_or_insert_with(|| {
            if is_gtg(&definitions) {
                unit_note = Some(
                    "dates read as milliseconds: the header is GTG's, as EZTrace 1.x writes it (--time-unit overrides)".to_owned(),
                );
                TimeUnit::Milliseconds
            } else {
                TimeUnit::Seconds
            }
        });
        let words = fields(line);
        let Some(def) = words.first().and_then(|id| definitions.get(*id)) else {
            return Err(error(
                line_at,
                format!(
                    "expected an event id declared by %EventDef, found {:?}",
                    words.first().unwrap_or(&"")
                ),
            ));
        };
        if words.len() - 1 < def.fields.len() {
            return Err(error(
                line_at,
                format!(
                    "expected {} fields for {}, found {}",
                    def.fields.len(),
                    def.name,
                    words.len() - 1
                ),
            ));
        }
        let get = |name: &str| {
            def.fields
                .iter()
                .position(|f| f == name)
                .and_then(|i| words.get(i + 1))
                .copied()
        };
        let field = |name: &str| {
            get(name)
                .ok_or_else(|| error(line_at, format!("expected a field {name} in {}", def.name)))
        };
        let time = |name: &str| -> Result<u64, TraceError> {
            let t = field(name)?;
            let date: f64 = t.parse().map_err(|_| {
                error(
                    line_at,
                    format!("expected a date (a number of {}), found {t:?}", unit.name()),
                )
            })?;
            let ns = (date * unit.nanoseconds()).round();
            if !ns.is_finite() || ns < 0.0 || ns > u64::MAX as f64 {
                return Err(error(
                    line_at,
                    format!("expected a non-negative date, found {t:?}"),
                ));
            }
            Ok(ns as u64)
        };
        let seq = records.len();
        match def.name.as_str() {
            "PajeDefineContainerType"
            | "PajeDefineStateType"
            | "PajeDefineEventType"
            | "PajeDefineVariableType"
            | "PajeDefineLinkType" => {
                let name = field("Name")?.to_owned();
                if let Some(alias) = get("Alias") {
                    type_names.insert(alias.to_owned(), name.clone());
                }
                type_names.insert(name.clone(), name);
            }
            "PajeDefineEntityValue" => {
                let name = field("Name")?.to_owned();
                if let Some(alias) = get("Alias") {
                    values.insert(alias.to_owned(), name.clone());
                }
                values.insert(name.clone(), name);
            }
            "PajeCreateContainer" => {
                let t = time("Time")?;
                let name = field("Name")?.to_owned();
                let type_name = type_names.get(field("Type")?).cloned().unwrap_or_default();
                budget.check_at(
                    super::budget::Limit::Processes,
                    containers.by_name.len() as u64 + 1,
                    FORMAT_NAME,
                    line_at,
                )?;
                let node = builder.add_node(if type_name.is_empty() {
                    name.clone()
                } else {
                    format!("{name} ({type_name})")
                });
                let process = builder
                    .add_process(name.clone(), node)
                    .map_err(|e| error(line_at, e.to_string()))?;
                let container = Container { process, node };
                if let Some(alias) = get("Alias") {
                    containers.by_alias.insert(alias.to_owned(), container);
                }
                containers.by_name.insert(name, container);
                records.push((
                    t,
                    0,
                    seq,
                    EventRecord::plain(process, Time(t), EventKind::ProcInit),
                ));
            }
            "PajeDestroyContainer" => {
                let t = time("Time")?;
                let c = containers
                    .get(field("Name")?)
                    .ok_or_else(|| error(line_at, "expected a created container"))?;
                // A destroyed container's open states end with it, innermost first.
                let p = c.process;
                for (_, stack) in states.range_mut((p.0, String::new())..(p.0 + 1, String::new())) {
                    while let Some(r) = stack.pop() {
                        let mut e = EventRecord::plain(p, Time(t), EventKind::Leave);
                        e.region = Some(r);
                        records.push((t, 1, seq, e));
                    }
                }
                records.push((
                    t,
                    4,
                    seq,
                    EventRecord::plain(p, Time(t), EventKind::ProcExit),
                ));
            }
            "PajeSetState" | "PajePushState" | "PajePopState" | "PajeResetState" => {
                let t = time("Time")?;
                let container = field("Container")?;
                let Some(c) = containers.get(container) else {
                    *skipped
                        .entry("states of unknown containers".to_owned())
                        .or_default() += 1;
                    continue;
                };
                let process = c.process;
                let state_type = type_names.get(field("Type")?).cloned().unwrap_or_default();
                let stack = states.entry((process.0, state_type)).or_default();
                let leave =
                    |stack: &mut Vec<RegionId>,
                     records: &mut Vec<(u64, u8, usize, EventRecord)>| {
                        if let Some(r) = stack.pop() {
                            let mut e = EventRecord::plain(process, Time(t), EventKind::Leave);
                            e.region = Some(r);
                            records.push((t, 1, seq, e));
                        }
                    };
                match def.name.as_str() {
                    "PajePopState" => leave(stack, &mut records),
                    "PajeResetState" => {
                        while !stack.is_empty() {
                            leave(stack, &mut records);
                        }
                    }
                    name => {
                        if name == "PajeSetState" {
                            while !stack.is_empty() {
                                leave(stack, &mut records);
                            }
                        }
                        let value = field("Value")?;
                        let value = values
                            .get(value)
                            .cloned()
                            .unwrap_or_else(|| value.to_owned());
                        let r = *regions
                            .entry(value.clone())
                            .or_insert_with(|| builder.add_region(value, RegionRole::Activity));
                        stack.push(r);
                        let mut e = EventRecord::plain(process, Time(t), EventKind::Enter);
                        e.region = Some(r);
                        records.push((t, 2, seq, e));
                    }
                }
            }
            "PajeNewEvent" => {
                let t = time("Time")?;
                let Some(c) = containers.get(field("Container")?) else {
                    continue;
                };
                let value = field("Value")?;
                let value = values
                    .get(value)
                    .cloned()
                    .unwrap_or_else(|| value.to_owned());
                let mut e = EventRecord::plain(c.process, Time(t), EventKind::Probe);
                e.text = Some(builder.intern(&value));
                records.push((t, 3, seq, e));
            }
            "PajeStartLink" | "PajeEndLink" => {
                let t = time("Time")?;
                let start = def.name == "PajeStartLink";
                let end_field = if start {
                    ["StartContainer", "SourceContainer"]
                } else {
                    ["EndContainer", "DestContainer"]
                };
                let container =
                    get(end_field[0])
                        .or_else(|| get(end_field[1]))
                        .ok_or_else(|| {
                            error(
                                line_at,
                                format!("expected a field {} in {}", end_field[0], def.name),
                            )
                        })?;
                let key = (field("Type")?.to_owned(), field("Key")?.to_owned());
                link_ends.entry(key).or_default().push((
                    t,
                    container.to_owned(),
                    start,
                    line_at.offset,
                ));
            }
            "PajeSetVariable" | "PajeAddVariable" | "PajeSubVariable" => {
                let t = time("Time")?;
                let container = field("Container")?.to_owned();
                let type_name = type_names.get(field("Type")?).cloned().unwrap_or_default();
                let v = field("Value")?;
                let v: f64 = v
                    .parse()
                    .map_err(|_| error(line_at, format!("expected a number, found {v:?}")))?;
                let key = (container.clone(), type_name.clone());
                let previous = variables.get(&key).copied();
                let new = match (def.name.as_str(), previous) {
                    ("PajeAddVariable", Some((_, old))) => old + v,
                    ("PajeSubVariable", Some((_, old))) => old - v,
                    ("PajeSubVariable", None) => -v,
                    _ => v,
                };
                if let Some((since, old)) = previous
                    && t > since
                {
                    variable_history.push((container, type_name, since, t, old));
                }
                variables.insert(key, (t, new));
            }
            other => *skipped.entry(other.to_owned()).or_default() += 1,
        }
    }
    let input_end = lines.position();
    // Variables hold their last value until the end of the trace.
    let last = records
        .iter()
        .map(|r| r.0)
        .chain(variables.values().map(|v| v.0))
        .max()
        .unwrap_or(0);
    let mut open_variables: Vec<_> = variables
        .iter()
        .filter(|(_, (since, _))| *since < last)
        .collect();
    open_variables.sort_by(|a, b| a.0.cmp(b.0));
    for ((container, type_name), (since, value)) in open_variables {
        variable_history.push((container.clone(), type_name.clone(), *since, last, *value));
    }
    // Messages: each start matched with an end of the same (type, key).
    let mut message_tag = 0u32;
    let mut unmatched_links = 0;
    let mut keys: Vec<_> = link_ends.into_iter().collect();
    keys.sort_by_key(|(_, ends)| ends.first().map(|e| e.3));
    for (_, ends) in keys {
        let starts: Vec<_> = ends.iter().filter(|e| e.2).collect();
        let finishes: Vec<_> = ends.iter().filter(|e| !e.2).collect();
        unmatched_links += starts.len().abs_diff(finishes.len());
        for (s, f) in starts.iter().zip(&finishes) {
            let (Some(from), Some(to)) = (containers.get(&s.1), containers.get(&f.1)) else {
                unmatched_links += 1;
                continue;
            };
            message_tag = message_tag.wrapping_add(1);
            let mut send = EventRecord::plain(from.process, Time(s.0), EventKind::MsgSend);
            send.peer = Some(to.process);
            send.tag = message_tag;
            let mut arrival = EventRecord::plain(to.process, Time(f.0), EventKind::MsgArr);
            arrival.peer = Some(from.process);
            arrival.tag = message_tag;
            let seq = records.len();
            records.push((s.0, 3, seq, send));
            records.push((f.0, 3, seq + 1, arrival));
        }
    }
    // Utilization: X_used / X on the same container.
    let mut samples = 0;
    // Each variable's held values by (container, type), in the order they were held: a
    // capacity is found by binary search, not by a scan of every value (which made many
    // samples quadratic).
    type Spans = Vec<(u64, u64, f64)>;
    let mut held: HashMap<(&str, &str), Spans> = HashMap::new();
    for (container, type_name, start, end, value) in &variable_history {
        held.entry((container.as_str(), type_name.as_str()))
            .or_default()
            .push((*start, *end, *value));
    }
    for spans in held.values_mut() {
        spans.sort_by_key(|&(start, end, _)| (start, end));
    }
    for (container, type_name, start, end, used) in &variable_history {
        let Some(capacity_type) = type_name.strip_suffix("_used") else {
            continue;
        };
        let Some(c) = containers.get(container) else {
            continue;
        };
        // The capacity held over the whole sample: the last span starting at or before it.
        let capacity = held
            .get(&(container.as_str(), capacity_type))
            .and_then(|spans| {
                let after = spans.partition_point(|&(s2, _, _)| s2 <= *start);
                spans[..after].last().filter(|&&(_, e2, _)| e2 >= *end)
            })
            .map(|h| h.2)
            .or_else(|| {
                variables
                    .get(&(container.clone(), capacity_type.to_owned()))
                    .map(|v| v.1)
            });
        if let Some(capacity) = capacity.filter(|&c| c > 0.0) {
            let utilization = (used / capacity).clamp(0.0, 1.0) as f32;
            builder
                .add_cpu_sample(CpuSample {
                    node: c.node,
                    sample: Sample {
                        start: Time(*start),
                        end: Time(*end),
                        utilization,
                    },
                })
                .map_err(|e| error(input_end, e.to_string()))?;
            samples += 1;
        }
    }
    // Every variable is also a counter of its container: the value it holds from each change.
    let mut series: Vec<Counter> = Vec::new();
    let mut series_of: HashMap<(&str, &str), usize> = HashMap::new();
    for (container, type_name, start, end, value) in &variable_history {
        let Some(c) = containers.get(container) else {
            continue;
        };
        let k = *series_of
            .entry((container.as_str(), type_name.as_str()))
            .or_insert_with(|| {
                series.push(Counter::new(
                    type_name.clone(),
                    "",
                    c.process,
                    CounterKind::Gauge,
                ));
                series.len() - 1
            });
        let counter = &mut series[k];
        counter.times.push(Time(*start));
        counter.values.push(*value);
        // The held value ends where the next change starts, or at the end of the trace.
        counter.times.push(Time(*end));
        counter.values.push(*value);
    }
    let n_counters = series.len();
    for counter in series {
        builder
            .add_counter(counter)
            .map_err(|e| error(input_end, e.to_string()))?;
    }
    records.sort_by_key(|&(t, order, seq, ref r)| (r.process, t, order, seq));
    builder.reserve_events(records.len());
    for (_, _, _, r) in records {
        builder
            .push(r)
            .map_err(|e| error(input_end, e.to_string()))?;
    }
    let mut notes = super::reading::skipped_notes(
        skipped
            .iter()
            .map(|(what, &n)| (format!("{what} lines"), n)),
    );
    notes.extend(unit_note);
    if unmatched_links > 0 {
        notes.push(format!("{unmatched_links} link ends found no partner"));
    }
    notes.push(format!(
        "{samples} utilization samples from X_used/X variables, {n_counters} variables as counters"
    ));
    Ok((builder.build(), notes))
}
