//! Pajé traces (PajeNG, ViTE, SimGrid, StarPU, EZTrace 1.x): a self-describing text format whose
//! header declares each event's fields (`%EventDef Name id` … `%EndEventDef`); data lines give
//! the fields in that order, strings possibly quoted.
//!
//! Mapping:
//! - Every container but the root becomes a process on a node of its own (named after it);
//!   `PajeCreateContainer` / `PajeDestroyContainer` are its `proc_init` / `proc_exit`; a
//!   destroyed container's open states end with it.
//! - States (`PajeSetState`, `PushState`, `PopState`, `ResetState`) become regions named by the
//!   state's value; `PajeNewEvent` becomes a probe. Each state type of a container is its own
//!   stack, but the model's regions of one process must nest: the changes of one date are
//!   written leaves first (innermost first), then states opened and closed at that date (enter
//!   before leave), then the states that stay open; a state left under another type's open
//!   state closes that one and opens it again at the same date (said in a note).
//! - `#` lines are comments (SimGrid writes two at the top); destroying the root container `0`
//!   (which no line creates) is accepted, as PajeNG does.
//! - Links (`PajeStartLink` / `PajeEndLink`, matched by type and key) become messages from the
//!   start container to the end container.
//! - Variables: a variable `X_used` with a sibling `X` on the same container (SimGrid's
//!   `power_used`/`power`) becomes utilization samples `X_used / X` of the container's node;
//!   every variable is also a counter of its container (the value it holds from each change).
//! - Dates are seconds unless told otherwise ([`TimeUnit`]); a trace written by EZTrace 1.x
//!   (recognised by its type names `CT_Program`, `CT_Process`, `CT_Thread`, or by the header
//!   GTG lays out, every alias after its name) means milliseconds. A note says which unit was
//!   assumed and why. Ticks are nanoseconds.

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

/// Whether the header is laid out as GTG (the library EZTrace 1.x writes Pajé with) lays it
/// out, whatever its definition numbers: its type and value definitions put the alias after
/// the name (`Name, Type, Alias`; `Type, Name, Color, Alias`), where PajeNG, Poti, SimGrid,
/// StarPU and Batsim put it before.
fn is_gtg_header(definitions: &HashMap<String, Definition>) -> bool {
    let mut seen = false;
    for def in definitions.values() {
        if !def.name.starts_with("PajeDefine") {
            continue;
        }
        let at = |field: &str| def.fields.iter().position(|f| f == field);
        if let (Some(alias), Some(name)) = (at("Alias"), at("Name")) {
            if alias < name {
                return false;
            }
            seen = true;
        }
    }
    seen
}

/// The container types EZTrace 1.x defines in every trace it converts (its program, process
/// and thread containers), by alias or name.
const EZTRACE_TYPES: [&str; 3] = ["CT_Program", "CT_Process", "CT_Thread"];

/// The unit of the dates when none was asked for, and the note saying why: milliseconds for
/// EZTrace 1.x (its type names, or GTG's header), seconds otherwise.
fn infer_unit(
    definitions: &HashMap<String, Definition>,
    type_names: &HashMap<String, String>,
) -> (TimeUnit, String) {
    if let Some(t) = EZTRACE_TYPES.iter().find(|t| type_names.contains_key(**t)) {
        return (
            TimeUnit::Milliseconds,
            format!(
                "dates read as milliseconds: the container type {t} is EZTrace's, and EZTrace 1.x writes Pajé dates in milliseconds (--time-unit overrides)"
            ),
        );
    }
    if is_gtg_header(definitions) {
        return (
            TimeUnit::Milliseconds,
            "dates read as milliseconds: the header is laid out as GTG lays it out (aliases after names), as EZTrace 1.x writes it (--time-unit overrides)".to_owned(),
        );
    }
    (
        TimeUnit::Seconds,
        "dates read as seconds, the unit of PajeNG, SimGrid and StarPU: nothing in the trace says EZTrace (--time-unit overrides)".to_owned(),
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

/// Whether the text is a Pajé trace: after any blank or `#` comment lines (SimGrid writes two
/// at the top), it starts with an event definition.
pub fn looks_like(text: &[u8]) -> bool {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        return line
            .strip_prefix(b"%")
            .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"EventDef"));
    }
    false
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

/// One change of a container's states, gathered until its date is complete.
#[derive(Clone, Copy)]
enum StateOp {
    /// `PajePushState`: a state of this type opens above the type's open ones.
    Push(u32, RegionId),
    /// `PajePopState`: the type's innermost open state closes.
    Pop(u32),
    /// `PajeSetState`: the type's open states close and this one opens.
    Set(u32, RegionId),
    /// `PajeResetState`: the type's open states close.
    Reset(u32),
}

/// Where an open state is while a date's changes are worked out: one open before the date (its
/// place in the model's stack), or one opened at the date (its place among those).
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Before(usize),
    New(usize),
}

/// The states of one container: the regions open in the model (innermost last, each with its
/// state type), and the changes of the date being read.
#[derive(Default)]
struct ContainerStates {
    open: Vec<(u32, RegionId)>,
    /// The date being gathered and the sequence number of its first change.
    date: Option<(u64, usize)>,
    ops: Vec<StateOp>,
}

/// Buffers reused by every [`ContainerStates::flush`], so that a date's changes allocate
/// nothing once the largest date has been seen.
#[derive(Default)]
struct Scratch {
    /// Each type's stack of open states as the date's changes leave it; the first `used` are
    /// this date's.
    stacks: Vec<(u32, Vec<Slot>)>,
    used: usize,
    /// Which states open before the date it closes.
    closed_before: Vec<bool>,
    /// The states it opens, and whether it closes them too.
    opened: Vec<(RegionId, bool)>,
    /// States of another type closed and opened again.
    kept: Vec<(u32, RegionId)>,
    /// The states it leaves open: their place in `opened`, and their type.
    still_open: Vec<(usize, u32)>,
    /// How many states of another type were closed and opened again, over the whole trace.
    reopened: usize,
}

impl Scratch {
    fn clear(&mut self, open: usize) {
        self.used = 0;
        self.closed_before.clear();
        self.closed_before.resize(open, false);
        self.opened.clear();
        self.kept.clear();
        self.still_open.clear();
    }
}

/// The events read, each with its date and sequence number (the line it comes from); they are
/// sorted by process, date and sequence number when the trace is built.
type Records = Vec<(u64, usize, EventRecord)>;

impl ContainerStates {
    /// Adds a change at date `t` from line `seq`, writing out the previous date's changes first.
    fn change(
        &mut self,
        process: ProcessId,
        t: u64,
        seq: usize,
        op: StateOp,
        records: &mut Records,
        scratch: &mut Scratch,
    ) {
        if self.date.is_some_and(|(d, _)| d != t) {
            self.flush(process, records, scratch);
        }
        self.date.get_or_insert((t, seq));
        self.ops.push(op);
    }

    /// Writes out the changes of the date gathered so far so that the regions nest: the states
    /// they close, innermost first (an open state of another type above one of them closes too,
    /// and opens again below the new ones); then the states opened and closed at this date,
    /// each entered then left; then the states that stay open, in the order they opened.
    fn flush(&mut self, process: ProcessId, records: &mut Records, scratch: &mut Scratch) {
        let Some((t, seq)) = self.date.take() else {
            return;
        };
        let ContainerStates { open, ops, .. } = self;
        let event = |kind: EventKind, r: RegionId| {
            let mut e = EventRecord::plain(process, Time(t), kind);
            e.region = Some(r);
            (t, seq, e)
        };
        // Most dates change one state of a container, and the states of its type are the
        // innermost open ones: written directly, as the general case below would write them.
        if let [op] = ops.as_slice() {
            let (ty, clear, push) = match *op {
                StateOp::Push(ty, r) => (ty, false, Some(r)),
                StateOp::Pop(ty) => (ty, false, None),
                StateOp::Set(ty, r) => (ty, true, Some(r)),
                StateOp::Reset(ty) => (ty, true, None),
            };
            // The open states this change closes: all of its type, or the innermost one.
            let first = if clear {
                open.iter().position(|o| o.0 == ty)
            } else if push.is_none() {
                open.iter().rposition(|o| o.0 == ty)
            } else {
                None
            };
            if first.is_none_or(|k| open[k..].iter().all(|o| o.0 == ty)) {
                if let Some(k) = first {
                    for &(_, r) in open[k..].iter().rev() {
                        records.push(event(EventKind::Leave, r));
                    }
                    open.truncate(k);
                }
                if let Some(r) = push {
                    records.push(event(EventKind::Enter, r));
                    open.push((ty, r));
                }
                ops.clear();
                return;
            }
        }
        scratch.clear(open.len());
        let Scratch {
            stacks,
            used,
            closed_before,
            opened,
            kept,
            still_open,
            reopened,
        } = scratch;
        for op in ops.drain(..) {
            let (ty, clear, push) = match op {
                StateOp::Push(ty, r) => (ty, false, Some(r)),
                StateOp::Pop(ty) => (ty, false, None),
                StateOp::Set(ty, r) => (ty, true, Some(r)),
                StateOp::Reset(ty) => (ty, true, None),
            };
            // The type's stack, made from the states open before the date on first use.
            let k = match stacks[..*used].iter().position(|s| s.0 == ty) {
                Some(k) => k,
                None => {
                    if *used == stacks.len() {
                        stacks.push((ty, Vec::new()));
                    }
                    let (slot_ty, slots) = &mut stacks[*used];
                    *slot_ty = ty;
                    slots.clear();
                    slots.extend(
                        open.iter()
                            .enumerate()
                            .filter(|(_, o)| o.0 == ty)
                            .map(|(i, _)| Slot::Before(i)),
                    );
                    *used += 1;
                    *used - 1
                }
            };
            let stack = &mut stacks[k].1;
            let mut close = |slot: Slot| match slot {
                Slot::Before(i) => closed_before[i] = true,
                Slot::New(i) => opened[i].1 = true,
            };
            if clear {
                while let Some(slot) = stack.pop() {
                    close(slot);
                }
            } else if push.is_none()
                && let Some(slot) = stack.pop()
            {
                close(slot);
            }
            if let Some(r) = push {
                opened.push((r, false));
                stack.push(Slot::New(opened.len() - 1));
            }
        }
        if let Some(lowest) = closed_before.iter().position(|&c| c) {
            for i in (lowest..open.len()).rev() {
                records.push(event(EventKind::Leave, open[i].1));
            }
            kept.extend(
                (lowest..open.len())
                    .filter(|&i| !closed_before[i])
                    .map(|i| open[i]),
            );
            *reopened += kept.len();
            open.truncate(lowest);
            for &(ty, r) in kept.iter() {
                records.push(event(EventKind::Enter, r));
                open.push((ty, r));
            }
        }
        for &(r, _) in opened.iter().filter(|o| o.1) {
            records.push(event(EventKind::Enter, r));
            records.push(event(EventKind::Leave, r));
        }
        // The states that stay open are those left on the stacks, entered in the order they
        // opened.
        for (ty, stack) in &stacks[..*used] {
            still_open.extend(stack.iter().filter_map(|slot| match *slot {
                Slot::New(i) => Some((i, *ty)),
                Slot::Before(_) => None,
            }));
        }
        still_open.sort_unstable();
        for &(i, ty) in still_open.iter() {
            let r = opened[i].0;
            records.push(event(EventKind::Enter, r));
            open.push((ty, r));
        }
    }

    /// Closes every open state at date `t` (the container is destroyed), innermost first.
    fn close_all(&mut self, process: ProcessId, t: u64, seq: usize, records: &mut Records) {
        while let Some((_, r)) = self.open.pop() {
            let mut e = EventRecord::plain(process, Time(t), EventKind::Leave);
            e.region = Some(r);
            records.push((t, seq, e));
        }
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
    // Each state type, by name, as a small number.
    let mut state_types: HashMap<String, u32> = HashMap::new();
    // Each container's states, by process.
    let mut states: Vec<ContainerStates> = Vec::new();
    // The buffers of a date's state changes, and the count of states reopened so that another
    // type's state could close under them.
    let mut scratch = Scratch::default();
    // Link ends by (type, key): (time, container, is start, offset, sequence number).
    type LinkEnd = (u64, String, bool, usize, usize);
    let mut link_ends: HashMap<(String, String), Vec<LinkEnd>> = HashMap::new();
    // Variable values per (container, type name): (time since, value).
    let mut variables: HashMap<(String, String), (u64, f64)> = HashMap::new();
    let mut variable_history: Vec<(String, String, u64, u64, f64)> = Vec::new();
    let mut records: Records = Vec::new();
    let mut skipped: HashMap<String, usize> = HashMap::new();
    let mut lines = Lines::new(input, FORMAT_NAME, budget);
    let mut first_line = true;
    while let Some(line) = lines.next_line()? {
        let line_at = line.at;
        budget.check_at(
            super::budget::Limit::Events,
            records.len() as u64,
            FORMAT_NAME,
            line_at,
        )?;
        let mut line = line.text;
        if std::mem::take(&mut first_line) {
            // A byte-order mark is not part of the first line's text.
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        let trimmed = line.trim();
        // Blank lines and `#` comments (SimGrid writes two at the top) carry nothing.
        if trimmed.is_empty() || trimmed.starts_with('#') {
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
        // The unit is settled at the first dated line: the types are all defined by then, and
        // EZTrace is known by their names.
        let unit = match unit {
            Some(u) => u,
            None if def.fields.iter().any(|f| f == "Time") => {
                let (u, note) = infer_unit(&definitions, &type_names);
                unit_note = Some(note);
                unit = Some(u);
                u
            }
            None => TimeUnit::Seconds,
        };
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
        let seq = line_at.line;
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
                if states.len() <= process.index() {
                    states.resize_with(process.index() + 1, ContainerStates::default);
                }
                records.push((
                    t,
                    seq,
                    EventRecord::plain(process, Time(t), EventKind::ProcInit),
                ));
            }
            "PajeDestroyContainer" => {
                let t = time("Time")?;
                let name = field("Name")?;
                let Some(c) = containers.get(name) else {
                    // The root container `0` is never created by a line, and PajeNG accepts
                    // its destruction at the end of a trace.
                    if name == "0" {
                        *skipped
                            .entry("destructions of the root container".to_owned())
                            .or_default() += 1;
                        continue;
                    }
                    return Err(error(
                        line_at,
                        format!("expected a created container, found {name:?}"),
                    ));
                };
                // A destroyed container's open states end with it, innermost first.
                let p = c.process;
                if let Some(s) = states.get_mut(p.index()) {
                    s.flush(p, &mut records, &mut scratch);
                    s.close_all(p, t, seq, &mut records);
                }
                records.push((t, seq, EventRecord::plain(p, Time(t), EventKind::ProcExit)));
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
                let state_type = type_names.get(field("Type")?).map_or("", String::as_str);
                let ty = match state_types.get(state_type) {
                    Some(&ty) => ty,
                    None => {
                        let ty = state_types.len() as u32;
                        state_types.insert(state_type.to_owned(), ty);
                        ty
                    }
                };
                let mut region = || -> Result<RegionId, TraceError> {
                    let value = field("Value")?;
                    let value = values
                        .get(value)
                        .cloned()
                        .unwrap_or_else(|| value.to_owned());
                    Ok(*regions
                        .entry(value.clone())
                        .or_insert_with(|| builder.add_region(value, RegionRole::Activity)))
                };
                let op = match def.name.as_str() {
                    "PajePopState" => StateOp::Pop(ty),
                    "PajeResetState" => StateOp::Reset(ty),
                    "PajeSetState" => StateOp::Set(ty, region()?),
                    _ => StateOp::Push(ty, region()?),
                };
                if let Some(s) = states.get_mut(process.index()) {
                    s.change(process, t, seq, op, &mut records, &mut scratch);
                    // The states open after the dates written out so far nest in the model:
                    // past the depth limit, the error is at this line, not after the end.
                    budget.check_at(
                        super::budget::Limit::Depth,
                        s.open.len() as u64,
                        FORMAT_NAME,
                        line_at,
                    )?;
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
                records.push((t, seq, e));
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
                    seq,
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
    for (p, s) in states.iter_mut().enumerate() {
        s.flush(ProcessId(p as u32), &mut records, &mut scratch);
        budget.check_at(
            super::budget::Limit::Depth,
            s.open.len() as u64,
            FORMAT_NAME,
            input_end,
        )?;
    }
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
            records.push((s.0, s.4, send));
            records.push((f.0, f.4, arrival));
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
    // Stable: the events of one line, and of one date's state changes, keep their order.
    records.sort_by_key(|&(t, seq, ref r)| (r.process, t, seq));
    builder.reserve_events(records.len());
    for (_, _, r) in records {
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
    let reopened = scratch.reopened;
    if reopened > 0 {
        notes.push(format!(
            "{reopened} times a state was closed and opened again at the same date, so that a state of another type on its container could end under it (the container's state types overlap; the model's regions of one process nest)"
        ));
    }
    if unmatched_links > 0 {
        notes.push(format!("{unmatched_links} link ends found no partner"));
    }
    notes.push(format!(
        "{samples} utilization samples from X_used/X variables, {n_counters} variables as counters"
    ));
    Ok((builder.build(), notes))
}
