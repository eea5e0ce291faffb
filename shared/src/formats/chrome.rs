//! Chrome's Trace Event Format (JSON): import and export.
//!
//! Import: each (pid, tid) thread becomes a process on the node of its pid; `X` and `B`/`E`
//! slices become enter/leave of regions named after them; instant events (`i`, `I`, `R`)
//! become probes; flows become messages — v1 `s`/`t`/`f` events keyed by (cat, name, id), and
//! v2 `bind_id` with `flow_out`/`flow_in` on slices. Timestamps are µs; ticks are ns.
//! `C` counter events are counters of their thread (one series per numeric arg). Dangling flows
//! and other phases are skipped and counted in the notes.
//!
//! Export writes a trace Perfetto and chrome://tracing open: state spans as `X` slices,
//! messages as flow arrows, and every model event as an instant of category `tracescope` whose
//! args carry it exactly, so that re-importing gives the same model.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::graph::pairing::pair_messages;
use crate::graph::states::{State, state_spans};
use crate::model::error::{Position, TraceError};
use crate::model::time::{Clock, Time};
use crate::model::{
    Counter, CounterKind, EventKind, EventRecord, NodeId, ProcessId, RegionId, RegionRole, StrId,
    Trace, TraceBuilder,
};

/// The format's name.
pub const FORMAT_NAME: &str = "chrome-json";
/// The category of events that carry a Tracescope model event exactly.
const MODEL_CATEGORY: &str = "tracescope";
/// The category of exported state slices (skipped on import).
const STATE_CATEGORY: &str = "tracescope.state";
/// The category of exported message flows (skipped on import when model events are present).
const FLOW_CATEGORY: &str = "tracescope.message";

#[derive(Deserialize)]
#[serde(untagged)]
enum Id<'a> {
    Int(i64),
    Float(f64),
    #[serde(borrow)]
    Str(Cow<'a, str>),
}

impl Id<'_> {
    /// Appends the id as text (`7`, `7.5`, `"main"` → `main`) to `out`.
    fn write_key(&self, out: &mut String) {
        match self {
            Id::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Id::Float(x) => {
                let _ = write!(out, "{x}");
            }
            Id::Str(s) => out.push_str(s),
        }
    }
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ph: Cow<'a, str>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(default, borrow)]
    pid: Option<Id<'a>>,
    #[serde(default, borrow)]
    tid: Option<Id<'a>>,
    #[serde(default, borrow)]
    id: Option<Id<'a>>,
    #[serde(default, borrow)]
    bind_id: Option<Id<'a>>,
    #[serde(default)]
    flow_in: bool,
    #[serde(default)]
    flow_out: bool,
    #[serde(default, borrow)]
    args: Option<&'a RawValue>,
}

/// What an exported file carries besides its events, so that re-importing restores the model.
#[derive(serde::Serialize, Deserialize)]
struct ModelParts {
    name: String,
    ticks_per_second: Option<u64>,
    regions: Vec<crate::model::Region>,
    links: Vec<crate::model::Link>,
    cpu_samples: Vec<crate::model::CpuSample>,
    link_samples: Vec<crate::model::LinkSample>,
    #[serde(default)]
    counters: Vec<Counter>,
}

#[derive(Deserialize)]
struct OtherData {
    #[serde(default)]
    tracescope: Option<ModelParts>,
}

/// The args of an exported model event.
#[derive(Deserialize, Default)]
struct ModelArgs {
    #[serde(default)]
    peer: Option<u32>,
    #[serde(default)]
    tag: u32,
    #[serde(default)]
    size: u64,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    role: Option<RegionRole>,
    #[serde(default)]
    request: Option<std::num::NonZeroU32>,
    #[serde(default)]
    tick: Option<u64>,
}

#[derive(Deserialize, Default)]
struct NameArgs {
    #[serde(default)]
    name: Option<String>,
}

/// Where a flow touches a thread: (time in ns, thread, event offset, direction).
#[derive(Clone, Copy)]
struct FlowPoint {
    time: u64,
    thread: usize,
    offset: usize,
    /// 0 start/out, 1 step, 2 finish/in.
    stage: u8,
}

/// One of a thread's pending events, in 32 bytes: where it sorts, and its record — compact
/// (a kind and the one id its kind carries) or, for the rare record with more, an index into
/// `Reader::full`. The thread's events are sorted by (time, stage, rank, seq) once read.
#[derive(Clone, Copy)]
struct Pending {
    time: u64,
    /// Among equal times: leaves before enters before everything else (`stage`), then `rank`.
    rank: u64,
    /// Arrival order, last.
    seq: u32,
    stage: u8,
    kind: EventKind,
    /// Whether the record is `Reader::full[id]`.
    full: bool,
    /// The region (enter, leave), text (probe) or peer (send, arrival), or the index in `full`.
    id: u32,
    /// The message tag (send, arrival).
    tag: u32,
}

/// The record a compact pending event stands for.
fn expand(kind: EventKind, id: u32, tag: u32, process: ProcessId, time: Time) -> EventRecord {
    let mut r = EventRecord::plain(process, time, kind);
    match kind {
        EventKind::Enter | EventKind::Leave => r.region = Some(RegionId(id)),
        EventKind::Probe => r.text = Some(StrId(id)),
        EventKind::MsgSend | EventKind::MsgArr => {
            r.peer = Some(ProcessId(id));
            r.tag = tag;
        }
        _ => {}
    }
    r
}

/// The id that stands for `r` in a compact pending event, when its kind and that id (and the
/// tag) say all of it.
fn compact_id(r: &EventRecord) -> Option<u32> {
    let id = match r.kind {
        EventKind::Enter | EventKind::Leave => r.region.map(|x| x.0),
        EventKind::Probe => r.text.map(|x| x.0),
        EventKind::MsgSend | EventKind::MsgArr => r.peer.map(|p| p.0),
        _ => Some(0),
    }?;
    (expand(r.kind, id, r.tag, r.process, r.time) == *r).then_some(id)
}

struct Reader<'a> {
    budget: &'a super::budget::Budget,
    builder: TraceBuilder,
    /// Threads by their key: the pid, the tid, `#` and the pid's length (see `Reader::thread`).
    threads: FxHashMap<String, usize>,
    /// The key being looked up, reused so that known threads cost no allocation.
    key: String,
    nodes: HashMap<String, NodeId>,
    pending: Vec<Vec<Pending>>,
    /// The records too rich for a compact pending event.
    full: Vec<EventRecord>,
    regions: FxHashMap<String, RegionId>,
    thread_names: HashMap<usize, String>,
    node_names: HashMap<String, String>,
    open: Vec<Vec<RegionId>>,
    flows: FxHashMap<String, Vec<FlowPoint>>,
    model_events: usize,
    skipped: HashMap<String, usize>,
    /// Values read other than written, by what was done: each becomes a note.
    adjusted: super::reading::Adjusted,
    seq: usize,
    /// Counter series by (thread, series name), in the order first seen.
    counters: Vec<Counter>,
    counter_ids: HashMap<(usize, String), usize>,
}

fn error(at: Position, message: impl Into<String>) -> TraceError {
    TraceError::at(FORMAT_NAME, at, message)
}

/// µs (possibly fractional) to integer ns.
fn to_ns(at: Position, ts: f64) -> Result<u64, TraceError> {
    let ns = (ts * 1000.0).round();
    if !ns.is_finite() || ns < 0.0 || ns > u64::MAX as f64 {
        return Err(error(
            at,
            format!("expected a non-negative timestamp in µs, found {ts}"),
        ));
    }
    Ok(ns as u64)
}

impl Reader<'_> {
    fn thread(
        &mut self,
        pid: Option<&Id<'_>>,
        tid: Option<&Id<'_>>,
        at: Position,
    ) -> Result<usize, TraceError> {
        // The key is the pid, the tid, `#` and the pid's length: no two (pid, tid) pairs run
        // together into one key, and a known thread costs no allocation.
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        match pid {
            Some(p) => p.write_key(&mut key),
            None => key.push('0'),
        }
        let pid_len = key.len();
        match tid {
            Some(t) => t.write_key(&mut key),
            None => {
                let pid = key[..pid_len].to_owned();
                key.push_str(&pid);
            }
        }
        let _ = write!(key, "#{pid_len}");
        if let Some(&t) = self.threads.get(key.as_str()) {
            self.key = key;
            return Ok(t);
        }
        self.budget.check_at(
            super::budget::Limit::Processes,
            self.pending.len() as u64 + 1,
            FORMAT_NAME,
            at,
        )?;
        let pid = key[..pid_len].to_owned();
        let tid = key[pid_len..key.rfind('#').unwrap_or(key.len())].to_owned();
        let node = self.node(&pid);
        // The node was just declared, so this cannot fail.
        let _ = self
            .builder
            .add_process(format!("pid {pid} tid {tid}"), node);
        let t = self.pending.len();
        self.pending.push(Vec::new());
        self.open.push(Vec::new());
        self.threads.insert(key.clone(), t);
        self.key = key;
        Ok(t)
    }

    fn node(&mut self, pid: &str) -> NodeId {
        if let Some(&n) = self.nodes.get(pid) {
            return n;
        }
        let n = self.builder.add_node(format!("pid {pid}"));
        self.nodes.insert(pid.to_owned(), n);
        n
    }

    fn region(&mut self, name: &str, role: RegionRole) -> RegionId {
        if let Some(&r) = self.regions.get(name) {
            return r;
        }
        let r = self.builder.add_region(name, role);
        self.regions.insert(name.to_owned(), r);
        r
    }

    fn push(&mut self, thread: usize, time: u64, order: (u8, u64), mut record: EventRecord) {
        record.process = ProcessId(thread as u32);
        record.time = Time(time);
        self.seq += 1;
        let (full, id) = match compact_id(&record) {
            Some(id) => (false, id),
            None => {
                self.full.push(record);
                (true, (self.full.len() - 1) as u32)
            }
        };
        self.pending[thread].push(Pending {
            time,
            rank: order.1,
            seq: self.seq as u32,
            stage: order.0,
            kind: record.kind,
            full,
            id,
            tag: record.tag,
        });
    }

    fn event(&mut self, bytes: &[u8], at: Position) -> Result<(), TraceError> {
        let offset = at.offset;
        let ev: Event = serde_json::from_slice(bytes).map_err(|e| {
            error(
                super::json_stream::position_in(at, bytes, e.line(), e.column()),
                format!(
                    "expected a trace event object with \"ph\": {}",
                    super::json_stream::message_of(&e)
                ),
            )
        })?;
        let ph = ev.ph.as_ref();
        // Metadata names threads and nodes rather than belonging to one.
        let thread = if ph == "M" {
            usize::MAX
        } else {
            self.thread(ev.pid.as_ref(), ev.tid.as_ref(), at)?
        };
        let name = ev.name.as_deref().unwrap_or("");
        let cat = ev.cat.as_deref().unwrap_or("");
        let time = |_: &Self| match ev.ts {
            Some(ts) => to_ns(at, ts),
            None => Err(error(at, format!("expected \"ts\" on a {ph:?} event"))),
        };
        match ph {
            "M" => {
                let args: NameArgs = ev
                    .args
                    .and_then(|a| serde_json::from_str(a.get()).ok())
                    .unwrap_or_default();
                match (name, args.name) {
                    ("thread_name", Some(n)) => {
                        let thread = self.thread(ev.pid.as_ref(), ev.tid.as_ref(), at)?;
                        self.thread_names.insert(thread, n);
                    }
                    ("process_name", Some(n)) => {
                        let mut pid = String::new();
                        match &ev.pid {
                            Some(p) => p.write_key(&mut pid),
                            None => pid.push('0'),
                        }
                        self.node(&pid);
                        self.node_names.insert(pid, n);
                    }
                    _ => {}
                }
            }
            _ if cat == STATE_CATEGORY || cat == FLOW_CATEGORY => {}
            "i" | "I" if cat == MODEL_CATEGORY => {
                self.model_events += 1;
                let args: ModelArgs = match ev.args {
                    Some(a) => serde_json::from_str(a.get())
                        .map_err(|e| error(at, format!("expected tracescope event args: {e}")))?,
                    None => ModelArgs::default(),
                };
                let kind = crate::model::EventKind::ALL
                    .into_iter()
                    .find(|k| k.name() == name)
                    .ok_or_else(|| {
                        error(
                            at,
                            format!("expected a tracescope event kind, found {name:?}"),
                        )
                    })?;
                let mut r = EventRecord::plain(ProcessId(0), Time(0), kind);
                r.peer = args.peer.map(ProcessId);
                r.tag = args.tag;
                r.size = args.size;
                r.text = args.text.as_deref().map(|t| self.builder.intern(t));
                r.region = args
                    .region
                    .as_deref()
                    .map(|n| self.region(n, args.role.unwrap_or(RegionRole::Activity)));
                r.request = args.request;
                // The exact tick travels in args; ts is rounded to µs precision by some tools.
                let t = match args.tick {
                    Some(t) => t,
                    None => time(self)?,
                };
                self.push(thread, t, (2, 0), r);
            }
            "X" | "B" | "E" => {
                let t = time(self)?;
                match ph {
                    "X" => {
                        let dur = ev.dur.unwrap_or(0.0);
                        if dur < 0.0 {
                            // Read as an instant, and said so.
                            self.adjusted
                                .add("X slices with a negative dur, read as instants", || {
                                    at.describe()
                                });
                        }
                        let dur = dur.max(0.0);
                        let end = to_ns(at, ev.ts.unwrap_or(0.0) + dur)?;
                        let region = self.region(name, RegionRole::Activity);
                        let length = end - t;
                        let mut enter = EventRecord::plain(ProcessId(0), Time(0), EventKind::Enter);
                        enter.region = Some(region);
                        let mut leave = enter;
                        leave.kind = EventKind::Leave;
                        // At equal times: leaves first (inner before outer), then enters (outer
                        // before inner), then everything else.
                        self.push(thread, t, (1, u64::MAX - length), enter);
                        self.push(thread, end, (0, length), leave);
                    }
                    "B" => {
                        let region = self.region(name, RegionRole::Activity);
                        self.open[thread].push(region);
                        let mut enter = EventRecord::plain(ProcessId(0), Time(0), EventKind::Enter);
                        enter.region = Some(region);
                        self.push(thread, t, (1, 0), enter);
                    }
                    _ => match self.open[thread].pop() {
                        Some(region) => {
                            let mut leave =
                                EventRecord::plain(ProcessId(0), Time(0), EventKind::Leave);
                            leave.region = Some(region);
                            self.push(thread, t, (0, 0), leave);
                        }
                        None => *self.skipped.entry("E without B".to_owned()).or_default() += 1,
                    },
                }
                if let Some(bind) = &ev.bind_id {
                    let mut key = "v2:".to_owned();
                    bind.write_key(&mut key);
                    if ev.flow_out {
                        self.flows.entry(key.clone()).or_default().push(FlowPoint {
                            time: t,
                            thread,
                            offset,
                            stage: 0,
                        });
                    }
                    if ev.flow_in {
                        self.flows.entry(key).or_default().push(FlowPoint {
                            time: t,
                            thread,
                            offset,
                            stage: 2,
                        });
                    }
                }
            }
            "i" | "I" | "R" => {
                let t = time(self)?;
                let mut probe = EventRecord::plain(ProcessId(0), Time(0), EventKind::Probe);
                probe.text = Some(self.builder.intern(name));
                self.push(thread, t, (2, 0), probe);
            }
            "s" | "t" | "f" => {
                let t = time(self)?;
                let Some(id) = &ev.id else {
                    return Err(error(at, format!("expected \"id\" on a flow event {ph:?}")));
                };
                let stage = match ph {
                    "s" => 0,
                    "t" => 1,
                    _ => 2,
                };
                let mut key = format!("v1:{cat}:{name}:");
                id.write_key(&mut key);
                self.flows.entry(key).or_default().push(FlowPoint {
                    time: t,
                    thread,
                    offset,
                    stage,
                });
            }
            "C" => {
                let t = time(self)?;
                self.counter(thread, name, t, ev.args, at)?;
            }
            other => *self.skipped.entry(format!("phase {other:?}")).or_default() += 1,
        }
        Ok(())
    }

    /// A counter event: each numeric arg is a sample of the series `name` (one arg) or
    /// `name key` (several).
    fn counter(
        &mut self,
        thread: usize,
        name: &str,
        time: u64,
        args: Option<&RawValue>,
        at: Position,
    ) -> Result<(), TraceError> {
        let values: serde_json::Map<String, serde_json::Value> = match args {
            Some(a) => serde_json::from_str(a.get()).map_err(|e| {
                error(
                    at,
                    format!("expected counter args as an object of numbers: {e}"),
                )
            })?,
            None => serde_json::Map::new(),
        };
        let single = values.len() == 1;
        for (key, value) in values {
            let number = match &value {
                serde_json::Value::Number(n) => n.as_f64(),
                serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            };
            let Some(number) = number.filter(|v| v.is_finite()) else {
                *self
                    .skipped
                    .entry("counter values that are not numbers".to_owned())
                    .or_default() += 1;
                continue;
            };
            let series = if single {
                name.to_owned()
            } else {
                format!("{name} {key}")
            };
            let next = self.counters.len();
            let k = *self
                .counter_ids
                .entry((thread, series.clone()))
                .or_insert(next);
            if k == next {
                self.counters.push(Counter::new(
                    series,
                    "",
                    ProcessId(thread as u32),
                    CounterKind::Gauge,
                ));
            }
            self.counters[k].times.push(Time(time));
            self.counters[k].values.push(number);
        }
        Ok(())
    }

    /// Turns flows into messages: each consecutive pair of points on different threads.
    fn messages(&mut self, notes: &mut Vec<String>) {
        let mut flows: Vec<(String, Vec<FlowPoint>)> =
            std::mem::take(&mut self.flows).into_iter().collect();
        flows.sort_by_key(|(_, points)| points.first().map(|p| p.offset));
        let mut tag = 0u32;
        let mut dangling = 0;
        for (_, mut points) in flows {
            points.sort_by_key(|p| (p.time, p.stage, p.offset));
            if points.len() < 2 {
                dangling += 1;
                continue;
            }
            for pair in points.windows(2) {
                let (from, to) = (pair[0], pair[1]);
                if from.thread == to.thread {
                    continue;
                }
                tag = tag.wrapping_add(1);
                let mut send = EventRecord::plain(ProcessId(0), Time(0), EventKind::MsgSend);
                send.peer = Some(ProcessId(to.thread as u32));
                send.tag = tag;
                let mut arrival = EventRecord::plain(ProcessId(0), Time(0), EventKind::MsgArr);
                arrival.peer = Some(ProcessId(from.thread as u32));
                arrival.tag = tag;
                self.push(from.thread, from.time, (2, 0), send);
                self.push(to.thread, to.time, (2, 1), arrival);
            }
        }
        if dangling > 0 {
            notes.push(format!(
                "{dangling} flows have a start but no end (or the reverse) and draw no arrow"
            ));
        }
    }
}

/// Reads a Chrome trace (object with `traceEvents`, or a bare array) as it streams in: one
/// event's text is held at a time.
pub fn parse(
    input: &mut dyn std::io::Read,
    fallback_name: &str,
    budget: &super::budget::Budget,
) -> Result<(Trace, Vec<String>), TraceError> {
    let mut reader = Reader {
        budget,
        builder: TraceBuilder::new(fallback_name, Clock::NANOSECONDS),
        threads: FxHashMap::default(),
        nodes: HashMap::new(),
        pending: Vec::new(),
        full: Vec::new(),
        key: String::new(),
        regions: FxHashMap::default(),
        thread_names: HashMap::new(),
        node_names: HashMap::new(),
        open: Vec::new(),
        flows: FxHashMap::default(),
        model_events: 0,
        skipped: HashMap::new(),
        adjusted: super::reading::Adjusted::default(),
        seq: 0,
        counters: Vec::new(),
        counter_ids: HashMap::new(),
    };
    let mut parts: Option<ModelParts> = None;
    let mut n_events = 0u64;
    let walked = super::json_stream::walk(input, FORMAT_NAME, budget, &mut |part| {
        use super::json_stream::Piece;
        match (part.key, part.piece) {
            (_, Piece::Open) => Ok(()),
            (None | Some("traceEvents"), Piece::Element) => {
                n_events += 1;
                budget.check_at(super::budget::Limit::Events, n_events, FORMAT_NAME, part.at)?;
                reader.event(part.bytes, part.at)
            }
            (Some("otherData"), Piece::Member) => {
                // Tracescope's own exports carry the model's other parts here, before the
                // events, so that its regions keep their order; other producers' otherData is
                // theirs to define and is not read.
                let other = serde_json::from_slice::<OtherData>(part.bytes).ok();
                if let Some(p) = other.and_then(|o| o.tracescope) {
                    for region in &p.regions {
                        reader.region(&region.name, region.role);
                    }
                    parts = Some(p);
                }
                Ok(())
            }
            _ => serde_json::from_slice::<serde::de::IgnoredAny>(part.bytes)
                .map(|_| ())
                .map_err(|e| {
                    error(
                        super::json_stream::position_in(part.at, part.bytes, e.line(), e.column()),
                        super::json_stream::message_of(&e),
                    )
                }),
        }
    })?;
    let end = walked.end;
    if !walked.array && !walked.keys.iter().any(|k| k == "traceEvents") {
        return Err(error(
            Position::START,
            "expected a trace event array: a JSON array, or an object with \"traceEvents\"",
        ));
    }
    let mut notes = Vec::new();
    if reader.model_events == 0 {
        reader.messages(&mut notes);
    }
    notes.extend(super::reading::skipped_notes(
        reader
            .skipped
            .iter()
            .map(|(what, &n)| (format!("events: {what}"), n)),
    ));
    notes.extend(reader.adjusted.notes());
    for (thread, open) in reader.open.iter().enumerate() {
        if !open.is_empty() {
            notes.push(format!(
                "thread {thread} leaves {} B slices open",
                open.len()
            ));
        }
    }
    let mut builder = reader.builder;
    if let Some(p) = &parts {
        for &link in &p.links {
            builder
                .add_link(link)
                .map_err(|e| error(end, format!("otherData.tracescope: {e}")))?;
        }
        for &sample in &p.cpu_samples {
            builder
                .add_cpu_sample(sample)
                .map_err(|e| error(end, format!("otherData.tracescope: {e}")))?;
        }
        for &sample in &p.link_samples {
            builder
                .add_link_sample(sample)
                .map_err(|e| error(end, format!("otherData.tracescope: {e}")))?;
        }
    }
    let exported = parts
        .as_ref()
        .map(|p| p.counters.clone())
        .unwrap_or_default();
    for counter in reader.counters.into_iter().chain(exported) {
        builder
            .add_counter(counter)
            .map_err(|e| error(end, e.to_string()))?;
    }
    builder.reserve_events(reader.pending.iter().map(Vec::len).sum());
    let keep_recorded_order = reader.model_events > 0;
    let full = reader.full;
    for (thread, mut events) in reader.pending.into_iter().enumerate() {
        // Exported model events keep their recorded order; other events go in time order (the
        // keys are unique, so an unstable sort orders them as a stable one would).
        if !keep_recorded_order {
            events.sort_unstable_by_key(|p| (p.time, p.stage, p.rank, p.seq));
        }
        let process = ProcessId(thread as u32);
        for p in events {
            let r = if p.full {
                full[p.id as usize]
            } else {
                expand(p.kind, p.id, p.tag, process, Time(p.time))
            };
            builder.push(r).map_err(|e| error(end, e.to_string()))?;
        }
    }
    let mut trace = builder.build();
    if let Some(p) = &parts {
        trace.name.clone_from(&p.name);
        trace.clock = Clock {
            ticks_per_second: p.ticks_per_second,
        };
    }
    for (key, &node) in &reader.nodes {
        if let Some(name) = reader.node_names.get(key) {
            trace.nodes[node.index()].name = name.clone();
        }
    }
    for (&thread, name) in &reader.thread_names {
        if let Some(p) = trace.processes.get_mut(thread) {
            p.name = name.clone();
        }
    }
    Ok((trace, notes))
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// µs with ns precision, as Chrome's `ts` expects.
fn micros(ticks_ns: u64) -> String {
    format!("{}.{:03}", ticks_ns / 1000, ticks_ns % 1000)
}

/// Writes a trace as Chrome JSON (see the module docs).
pub fn write(trace: &Trace) -> String {
    // Chrome's time unit is µs; convert ticks to ns first when the clock is known.
    let tps = trace.clock.ticks_per_second.unwrap_or(1_000_000_000);
    let to_ns = |t: u64| -> u64 {
        ((t as u128) * 1_000_000_000 / tps as u128).min(u64::MAX as u128) as u64
    };
    let mut out = String::with_capacity(256 + trace.events.len() * 160);
    let parts = ModelParts {
        name: trace.name.clone(),
        ticks_per_second: trace.clock.ticks_per_second,
        regions: trace.regions.clone(),
        links: trace.links.clone(),
        cpu_samples: trace.cpu_samples.clone(),
        link_samples: trace.link_samples.clone(),
        counters: trace.counters.clone(),
    };
    out.push_str(
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"tracescope\",\"tracescope\":",
    );
    out.push_str(&serde_json::to_string(&parts).unwrap_or_else(|_| "null".to_owned()));
    out.push_str("},\"traceEvents\":[\n");
    let mut first = true;
    let mut line = |out: &mut String, text: String| {
        if !first {
            out.push_str(",\n");
        }
        first = false;
        out.push_str(&text);
    };
    for (n, node) in trace.nodes.iter().enumerate() {
        line(
            &mut out,
            format!(
                "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{n},\"tid\":0,\"args\":{{\"name\":{}}}}}",
                json(&node.name)
            ),
        );
    }
    for (p, process) in trace.processes.iter().enumerate() {
        line(
            &mut out,
            format!(
                "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{p},\"args\":{{\"name\":{}}}}}",
                process.node.0,
                json(&process.name)
            ),
        );
    }
    let pid = |p: ProcessId| trace.processes.get(p.index()).map_or(0, |p| p.node.0);
    for span in state_spans(trace) {
        let name = match span.state {
            State::Computing => "computing",
            State::Blocked => "blocked",
        };
        let (start, end) = (to_ns(span.start.0), to_ns(span.end.0));
        line(
            &mut out,
            format!(
                "{{\"ph\":\"X\",\"cat\":\"{STATE_CATEGORY}\",\"name\":\"{name}\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{}}}",
                pid(span.process),
                span.process.0,
                micros(start),
                micros(end - start)
            ),
        );
    }
    let e = &trace.events;
    for i in 0..e.len() {
        let kind = e.kind()[i];
        let mut args = String::new();
        let _ = write!(args, "\"tick\":{}", e.time()[i].0);
        if let Some(peer) = e.peer().at(i) {
            let _ = write!(args, ",\"peer\":{}", peer.0);
        }
        if e.tag().at(i) != 0 {
            let _ = write!(args, ",\"tag\":{}", e.tag().at(i));
        }
        if e.size().at(i) != 0 {
            let _ = write!(args, ",\"size\":{}", e.size().at(i));
        }
        if let Some(text) = e.text().at(i).and_then(|s| trace.string(s)) {
            let _ = write!(args, ",\"text\":{}", json(text));
        }
        if let Some(region) = e.region().at(i).and_then(|r| trace.regions.get(r.index())) {
            let role = serde_json::to_string(&region.role).unwrap_or_default();
            let _ = write!(args, ",\"region\":{},\"role\":{role}", json(&region.name));
        }
        if let Some(request) = e.request().at(i) {
            let _ = write!(args, ",\"request\":{request}");
        }
        line(
            &mut out,
            format!(
                "{{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"{MODEL_CATEGORY}\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{},\"args\":{{{args}}}}}",
                kind.name(),
                pid(e.process()[i]),
                e.process()[i].0,
                micros(to_ns(e.time()[i].0))
            ),
        );
    }
    // Messages as flow arrows, bound to the enclosing state slice at each end.
    for (n, m) in pair_messages(trace).messages.iter().enumerate() {
        for (ph, v) in [("s", m.send), ("f", m.arrival)] {
            let p = e.process()[v.index()];
            let bp = if ph == "f" { ",\"bp\":\"e\"" } else { "" };
            line(
                &mut out,
                format!(
                    "{{\"ph\":\"{ph}\",\"cat\":\"{FLOW_CATEGORY}\",\"name\":\"message\",\"id\":{n},\"pid\":{},\"tid\":{},\"ts\":{}{bp}}}",
                    pid(p),
                    p.0,
                    micros(to_ns(e.time()[v.index()].0))
                ),
            );
        }
    }
    out.push_str("\n]}\n");
    out
}
