//! Chrome's Trace Event Format (JSON): import and export.
//!
//! Import: each (pid, tid) thread with events becomes a process on the node of its pid (`M`
//! metadata names threads and pids, and makes none); `X` and `B`/`E` slices become enter/leave
//! of regions named after them, ordered at each tick so that they nest (see [`Pending`]);
//! instant events (`i`, `I`, `R`) become probes; flows become messages by Catapult's rule — v1
//! `s`/`t`/`f` events keyed by (scope, cat, name, id), bound to slices, an `f` closing its flow
//! — and v2 `bind_id` with `flow_out`/`flow_in` on slices. Timestamps are µs (numbers, or
//! strings that spell one); ticks are ns. `C` counter events are counters of their thread (one
//! series per numeric arg). An array without its closing bracket, or with a trailing comma, is
//! read as Catapult reads it. Dangling flows and other phases are skipped and counted in the
//! notes.
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
use crate::graph::states::state_spans;
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

/// A number, or a string that reads as one: some producers (Hermes) quote their timestamps,
/// and Catapult and Perfetto read them as numbers. A visitor rather than an untagged enum, so
/// that the number every event carries is parsed directly, without buffering.
fn number_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number of µs, or a string that spells one")
        }
        fn visit_f64<E>(self, x: f64) -> Result<Self::Value, E> {
            Ok(Some(x))
        }
        fn visit_i64<E>(self, x: i64) -> Result<Self::Value, E> {
            Ok(Some(x as f64))
        }
        fn visit_u64<E>(self, x: u64) -> Result<Self::Value, E> {
            Ok(Some(x as f64))
        }
        fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<Self::Value, E> {
            t.trim()
                .parse::<f64>()
                .map(Some)
                .map_err(|_| E::custom(format!("expected a number of µs, found the string {t:?}")))
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(Visitor)
        }
    }
    d.deserialize_option(Visitor)
}

/// An `id2`: an id global to the trace, or local to the event's process.
#[derive(Deserialize)]
struct Id2<'a> {
    #[serde(default, borrow)]
    global: Option<Id<'a>>,
    #[serde(default, borrow)]
    local: Option<Id<'a>>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ph: Cow<'a, str>,
    #[serde(default, deserialize_with = "number_or_text")]
    ts: Option<f64>,
    #[serde(default, deserialize_with = "number_or_text")]
    dur: Option<f64>,
    #[serde(default, borrow)]
    pid: Option<Id<'a>>,
    #[serde(default, borrow)]
    tid: Option<Id<'a>>,
    #[serde(default, borrow)]
    id: Option<Id<'a>>,
    #[serde(default, borrow)]
    id2: Option<Id2<'a>>,
    #[serde(default, borrow)]
    scope: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    bp: Option<Cow<'a, str>>,
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

/// What a flow event does to its flow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FlowPhase {
    /// v1 `s`: opens the flow, bound to the enclosing slice.
    Start,
    /// v1 `t`: continues it, bound to the enclosing slice.
    Step,
    /// v1 `f`: closes it, bound to the enclosing slice (`"bp": "e"`) or else to the next slice
    /// that begins on its thread.
    Finish { enclosing: bool },
    /// v2 `flow_out`: the slice produces the flow.
    Out,
    /// v2 `flow_in`: the slice consumes it.
    In,
    /// v2 `flow_in` and `flow_out`: the slice consumes it and produces it again.
    InOut,
}

/// Where a flow touches a thread: (time in ns, thread, event offset, what it does).
#[derive(Clone, Copy)]
struct FlowPoint {
    time: u64,
    thread: usize,
    offset: usize,
    phase: FlowPhase,
}

/// Stages of a thread's events at one tick, in the order they sort (see [`Pending`]).
mod stage {
    /// The leave of a slice that began before this tick.
    pub const LEAVE: u8 = 0;
    /// The enter of a slice that ends after this tick (or whose end is not known yet).
    pub const ENTER: u8 = 1;
    /// The enter and the leave of a zero-length slice, the enter first.
    pub const ZERO: u8 = 2;
    /// Everything else: instants, flows, model events.
    pub const OTHER: u8 = 3;
}

/// One of a thread's pending events, in 32 bytes: where it sorts, and its record — compact
/// (a kind and the one id its kind carries) or, for the rare record with more, an index into
/// `Reader::full`. The thread's events are sorted by (time, stage, rank, seq) once read.
///
/// At one tick the slices that end there close first, innermost (shortest) first, and among
/// slices of one extent in the reverse of their opening order; then the slices that begin
/// there open, outermost (longest) first; then each zero-length slice opens and closes at
/// once, in the order read; then come the other events. So a zero-length slice's enter comes
/// before its own leave, a slice that ends at a tick closes before one that begins at it, and
/// slices that nest in time nest in the model.
#[derive(Clone, Copy)]
struct Pending {
    time: u64,
    /// Among equal times and stages: the slice's length (leaves) or `u64::MAX` less it
    /// (enters).
    rank: u64,
    /// Arrival order (for the leave of a slice, `u32::MAX` less its enter's), last.
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
    /// Each thread's pid (an index in `pids`) and tid, in the order first seen.
    thread_ids: Vec<(usize, String)>,
    /// The pids in the order first seen, and their index by text.
    pids: Vec<String>,
    pid_index: HashMap<String, usize>,
    /// Whether a thread has an event of the model or a counter: only those become processes
    /// (a thread or pid named by metadata and nothing else is not one).
    used: Vec<bool>,
    /// Whether this is Tracescope's own export, whose every declared thread and pid is a
    /// process and node of the model (so that their numbering survives the round trip).
    export: bool,
    pending: Vec<Vec<Pending>>,
    /// The records too rich for a compact pending event.
    full: Vec<EventRecord>,
    regions: FxHashMap<String, RegionId>,
    thread_names: HashMap<usize, String>,
    /// Names of pids (by index in `pids`) from `process_name` metadata.
    node_names: HashMap<usize, String>,
    /// Each thread's open `B` slices: the region, the begin time and the enter's index in the
    /// thread's pending events (its place among simultaneous events is settled by its `E`).
    open: Vec<Vec<(RegionId, u64, usize)>>,
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
        let node = self.pid(&pid);
        let t = self.pending.len();
        self.thread_ids.push((node, tid));
        self.pending.push(Vec::new());
        self.open.push(Vec::new());
        self.used.push(false);
        self.threads.insert(key.clone(), t);
        self.key = key;
        Ok(t)
    }

    /// The index of a pid in `pids`, first seen now or before.
    fn pid(&mut self, pid: &str) -> usize {
        if let Some(&n) = self.pid_index.get(pid) {
            return n;
        }
        let n = self.pids.len();
        self.pids.push(pid.to_owned());
        self.pid_index.insert(pid.to_owned(), n);
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

    /// Adds an event to a thread's pending events, sorted by (time, `order`, arrival).
    fn push(&mut self, thread: usize, time: u64, order: (u8, u64), mut record: EventRecord) {
        if let Some(used) = self.used.get_mut(thread) {
            *used = true;
        }
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

    /// Adds a slice of known extent: its enter and its leave, placed among simultaneous events
    /// as [`Pending`] says.
    fn push_slice(
        &mut self,
        thread: usize,
        extent: (u64, u64),
        enter: EventRecord,
        leave: EventRecord,
    ) {
        let index = self.pending.get(thread).map_or(0, Vec::len);
        self.push(thread, extent.0, (stage::ENTER, 0), enter);
        self.close_begun(thread, extent, index, leave);
    }

    /// Adds the leave of a slice whose enter is the thread's pending event `index`, and places
    /// both among simultaneous events now that the slice's extent is known.
    fn close_begun(
        &mut self,
        thread: usize,
        (begin, end): (u64, u64),
        index: usize,
        leave: EventRecord,
    ) {
        let Some(enter) = self.pending.get_mut(thread).and_then(|p| p.get_mut(index)) else {
            return;
        };
        let enter_seq = enter.seq;
        if end < begin {
            // An E earlier than its B stays so: the leave sorts before the enter and
            // validation reports it, as the trace is inconsistent; the enter keeps the place
            // of a slice never closed (Catapult ignores an E that moves time backward).
            self.push(thread, end, (stage::ZERO, 0), leave);
        } else if end == begin {
            enter.stage = stage::ZERO;
            enter.rank = 0;
            self.push(thread, end, (stage::ZERO, 0), leave);
        } else {
            let length = end - begin;
            enter.stage = stage::ENTER;
            enter.rank = u64::MAX - length;
            self.push(thread, end, (stage::LEAVE, length), leave);
            // Slices of one extent close in the reverse of their opening order.
            if let Some(last) = self.pending.get_mut(thread).and_then(|p| p.last_mut()) {
                last.seq = u32::MAX - enter_seq;
            }
        }
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
                        let node = self.pid(&pid);
                        self.node_names.insert(node, n);
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
                self.push(thread, t, (stage::OTHER, 0), r);
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
                        let mut enter = EventRecord::plain(ProcessId(0), Time(0), EventKind::Enter);
                        enter.region = Some(region);
                        let mut leave = enter;
                        leave.kind = EventKind::Leave;
                        self.push_slice(thread, (t, end), enter, leave);
                    }
                    "B" => {
                        let region = self.region(name, RegionRole::Activity);
                        let index = self.pending.get(thread).map_or(0, Vec::len);
                        self.open[thread].push((region, t, index));
                        // Slices begun and not yet ended nest: past the depth limit here, at
                        // this event, rather than once the model is built.
                        self.budget.check_at(
                            super::budget::Limit::Depth,
                            self.open[thread].len() as u64,
                            FORMAT_NAME,
                            at,
                        )?;
                        let mut enter = EventRecord::plain(ProcessId(0), Time(0), EventKind::Enter);
                        enter.region = Some(region);
                        // Its length is not known before its E: until then it is the
                        // outermost of the slices that begin at its time.
                        self.push(thread, t, (stage::ENTER, 0), enter);
                    }
                    _ => match self.open[thread].pop() {
                        Some((region, begin, index)) => {
                            let mut leave =
                                EventRecord::plain(ProcessId(0), Time(0), EventKind::Leave);
                            leave.region = Some(region);
                            self.close_begun(thread, (begin, t), index, leave);
                        }
                        None => *self.skipped.entry("E without B".to_owned()).or_default() += 1,
                    },
                }
                // v2 flows bind to the slice that carries them (as in Perfetto, on X and B).
                if let (Some(bind), "X" | "B") = (&ev.bind_id, ph) {
                    let mut key = "v2:".to_owned();
                    bind.write_key(&mut key);
                    let phase = match (ev.flow_in, ev.flow_out) {
                        (true, true) => Some(FlowPhase::InOut),
                        (true, false) => Some(FlowPhase::In),
                        (false, true) => Some(FlowPhase::Out),
                        (false, false) => None,
                    };
                    match phase {
                        Some(phase) => self.flows.entry(key).or_default().push(FlowPoint {
                            time: t,
                            thread,
                            offset,
                            phase,
                        }),
                        None => {
                            *self
                                .skipped
                                .entry("bind_id without flow_in or flow_out".to_owned())
                                .or_default() += 1
                        }
                    }
                }
            }
            "i" | "I" | "R" => {
                let t = time(self)?;
                let mut probe = EventRecord::plain(ProcessId(0), Time(0), EventKind::Probe);
                probe.text = Some(self.builder.intern(name));
                self.push(thread, t, (stage::OTHER, 0), probe);
            }
            "s" | "t" | "f" => {
                let t = time(self)?;
                // A v1 flow is keyed by its scope, category, name and id, as Perfetto keys
                // it; an `id2` is global to the trace or local to the event's pid.
                let mut key = format!("v1:{}:{cat}:{name}:", ev.scope.as_deref().unwrap_or(""));
                match (&ev.id, &ev.id2) {
                    (Some(id), _) => id.write_key(&mut key),
                    (
                        None,
                        Some(Id2 {
                            global: Some(id), ..
                        }),
                    ) => {
                        key.push_str("global:");
                        id.write_key(&mut key);
                    }
                    (
                        None,
                        Some(Id2 {
                            local: Some(id), ..
                        }),
                    ) => {
                        key.push_str("local:");
                        match &ev.pid {
                            Some(p) => p.write_key(&mut key),
                            None => key.push('0'),
                        }
                        key.push(':');
                        id.write_key(&mut key);
                    }
                    _ => {
                        *self
                            .skipped
                            .entry("flow events without an id".to_owned())
                            .or_default() += 1;
                        return Ok(());
                    }
                }
                let phase = match ph {
                    "s" => FlowPhase::Start,
                    "t" => FlowPhase::Step,
                    _ => FlowPhase::Finish {
                        enclosing: ev.bp.as_deref() == Some("e"),
                    },
                };
                self.flows.entry(key).or_default().push(FlowPoint {
                    time: t,
                    thread,
                    offset,
                    phase,
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

    /// Turns flows into messages by the format's rule, as Catapult reads it: a v1 `s` opens a
    /// flow (a second `s` while it is open is ignored), each `t` continues it and `f` closes
    /// it, so an id used again after its `f` starts a new flow; `s` and `t` bind to the slice
    /// enclosing them, `f` to the enclosing slice with `"bp": "e"` and otherwise to the next
    /// slice that begins on its thread (at that slice's begin); a point outside any slice
    /// draws nothing. A v2 `flow_out` slice produces a flow that each later `flow_in` slice
    /// consumes. Each arrow between two threads is a message.
    fn messages(&mut self, notes: &mut Vec<String>) {
        let mut flows: Vec<(String, Vec<FlowPoint>)> =
            std::mem::take(&mut self.flows).into_iter().collect();
        flows.sort_by_key(|(_, points)| points.first().map(|p| p.offset));
        let mut slices: HashMap<usize, Slices> = HashMap::new();
        let mut tag = 0u32;
        let (mut dangling, mut unbound, mut duplicate, mut unfinished) = (0, 0, 0, 0);
        for (_, mut points) in flows {
            points.sort_by_key(|p| (p.time, p.offset));
            // The open flow's last point (thread, time), and whether it is open.
            let mut source: Option<(usize, u64)> = None;
            let mut open = false;
            // Whether the open flow has drawn nothing yet.
            let mut fresh = false;
            for p in points {
                let here = (p.thread, p.time);
                let mut arrow = |from: (usize, u64), to: (usize, u64), reader: &mut Self| {
                    if from.0 != to.0 {
                        tag = tag.wrapping_add(1);
                        reader.arrow(from, to, tag);
                    }
                };
                match p.phase {
                    FlowPhase::Start if open => duplicate += 1,
                    FlowPhase::Start | FlowPhase::Step | FlowPhase::Finish { enclosing: true } => {
                        if p.phase != FlowPhase::Start && !open {
                            dangling += 1;
                            continue;
                        }
                        let bound = self.slices(&mut slices, p.thread).encloses(p.time);
                        match (bound, source) {
                            (false, _) => {
                                unbound += 1;
                                source = None;
                                open = false;
                                continue;
                            }
                            (true, Some(from)) if p.phase != FlowPhase::Start => {
                                arrow(from, here, self);
                                fresh = false;
                            }
                            _ => fresh = true,
                        }
                        open = !matches!(p.phase, FlowPhase::Finish { .. });
                        source = open.then_some(here);
                    }
                    FlowPhase::Finish { enclosing: false } => {
                        let Some(from) = source.filter(|_| open) else {
                            dangling += 1;
                            continue;
                        };
                        match self.slices(&mut slices, p.thread).next_begin(p.time) {
                            Some(begin) => arrow(from, (p.thread, begin), self),
                            None => unbound += 1,
                        }
                        source = None;
                        open = false;
                        fresh = false;
                    }
                    FlowPhase::Out if open => duplicate += 1,
                    FlowPhase::Out => {
                        source = Some(here);
                        open = true;
                        fresh = true;
                    }
                    FlowPhase::In | FlowPhase::InOut => {
                        // A consumer takes the arrow from the last producer; a producer may
                        // have several consumers.
                        let Some(from) = source else {
                            dangling += 1;
                            continue;
                        };
                        arrow(from, here, self);
                        fresh = false;
                        open = p.phase == FlowPhase::InOut;
                        if open {
                            source = Some(here);
                            fresh = true;
                        }
                    }
                }
            }
            if open && fresh {
                unfinished += 1;
            }
        }
        for (n, what) in [
            (
                unfinished,
                "flows have a start but no end and draw no arrow",
            ),
            (
                dangling,
                "flow steps or ends come with no open flow of their id and draw no arrow",
            ),
            (
                unbound,
                "flow events lie outside any slice of their thread (an f without \"bp\": \"e\": before no later slice) and draw no arrow, as in Catapult and Perfetto",
            ),
            (
                duplicate,
                "flow starts come while a flow of their id is open and are ignored, as in Catapult",
            ),
        ] {
            if n > 0 {
                notes.push(format!("{n} {what}"));
            }
        }
    }

    /// A message from `from` to `to` (thread, time), with its tag.
    fn arrow(&mut self, from: (usize, u64), to: (usize, u64), tag: u32) {
        let mut send = EventRecord::plain(ProcessId(0), Time(0), EventKind::MsgSend);
        send.peer = Some(ProcessId(to.0 as u32));
        send.tag = tag;
        let mut arrival = EventRecord::plain(ProcessId(0), Time(0), EventKind::MsgArr);
        arrival.peer = Some(ProcessId(from.0 as u32));
        arrival.tag = tag;
        self.push(from.0, from.1, (stage::OTHER, 0), send);
        self.push(to.0, to.1, (stage::OTHER, 1), arrival);
    }

    /// A thread's slices, read once from its pending events: each enter knows its slice's
    /// extent (a zero-length slice's is its tick; a positive one's length is in its rank; a
    /// slice never closed, or closed by an E earlier than its B, lasts to the end).
    fn slices<'s>(&self, cache: &'s mut HashMap<usize, Slices>, thread: usize) -> &'s Slices {
        cache.entry(thread).or_insert_with(|| {
            let extents = self
                .pending
                .get(thread)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter(|p| p.kind == EventKind::Enter)
                .map(|p| match (p.stage, p.rank) {
                    (stage::ZERO, _) => (p.time, p.time),
                    (_, 0) => (p.time, u64::MAX),
                    (_, rank) => (p.time, p.time.saturating_add(u64::MAX - rank)),
                })
                .collect();
            Slices::new(extents)
        })
    }
}

/// A thread's slices, for binding flow events to them.
struct Slices {
    /// Begin times, sorted.
    begins: Vec<u64>,
    /// The latest end among the slices up to each one.
    max_end: Vec<u64>,
}

impl Slices {
    fn new(mut extents: Vec<(u64, u64)>) -> Slices {
        extents.sort_unstable();
        let mut latest = 0;
        let max_end = extents
            .iter()
            .map(|&(_, end)| {
                latest = latest.max(end);
                latest
            })
            .collect();
        Slices {
            begins: extents.iter().map(|&(begin, _)| begin).collect(),
            max_end,
        }
    }

    /// Whether some slice holds `time` (its begin and end included).
    fn encloses(&self, time: u64) -> bool {
        let n = self.begins.partition_point(|&b| b <= time);
        n > 0 && self.max_end.get(n - 1).is_some_and(|&end| end >= time)
    }

    /// The begin of the first slice that begins at `time` or later.
    fn next_begin(&self, time: u64) -> Option<u64> {
        let n = self.begins.partition_point(|&b| b < time);
        self.begins.get(n).copied()
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
        thread_ids: Vec::new(),
        pids: Vec::new(),
        pid_index: HashMap::new(),
        used: Vec::new(),
        export: false,
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
    let walked = super::json_stream::walk(input, FORMAT_NAME, budget, true, &mut |part| {
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
                    reader.export = true;
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
    match walked.ending {
        super::json_stream::Ending::Closed => {}
        super::json_stream::Ending::TrailingComma => notes.push(
            "the event array ends with a trailing comma (and perhaps no closing bracket): read as if closed, as Catapult reads it".to_owned(),
        ),
        super::json_stream::Ending::Unclosed => notes.push(
            "the event array has no closing bracket (a trace cut off, as the format allows): read to its last whole event".to_owned(),
        ),
    }
    let keep_recorded_order = reader.model_events > 0;
    if !keep_recorded_order {
        // Events go in time order (the keys are unique, so an unstable sort orders them as a
        // stable one would); exported model events keep their recorded order.
        for events in &mut reader.pending {
            events.sort_unstable_by_key(|p| (p.time, p.stage, p.rank, p.seq));
        }
        if !reader.flows.is_empty() {
            let before: Vec<usize> = reader.pending.iter().map(Vec::len).collect();
            reader.messages(&mut notes);
            for (events, n) in reader.pending.iter_mut().zip(before) {
                if events.len() > n {
                    // A sorted run and a short tail: the stable sort merges them.
                    events.sort_by_key(|p| (p.time, p.stage, p.rank, p.seq));
                }
            }
        }
    }
    notes.extend(super::reading::skipped_notes(
        reader
            .skipped
            .iter()
            .map(|(what, &n)| (format!("events: {what}"), n)),
    ));
    notes.extend(reader.adjusted.notes());
    let mut builder = reader.builder;
    // Only the threads with events (or counters) become processes, and only their pids nodes;
    // a Tracescope export declares exactly its model's, all of them.
    for counter in &reader.counters {
        if let Some(used) = reader.used.get_mut(counter.process.index()) {
            *used = true;
        }
    }
    let keep = |t: usize| reader.export || reader.used.get(t).copied().unwrap_or(false);
    let mut nodes: Vec<Option<NodeId>> = vec![None; reader.pids.len()];
    if reader.export {
        for (n, pid) in reader.pids.iter().enumerate() {
            nodes[n] = Some(builder.add_node(node_name(pid, reader.node_names.get(&n))));
        }
    }
    let mut process_of: Vec<Option<ProcessId>> = vec![None; reader.thread_ids.len()];
    for (t, (pid, tid)) in reader.thread_ids.iter().enumerate() {
        if !keep(t) {
            continue;
        }
        let text = reader.pids.get(*pid).map_or("", String::as_str);
        let node = match nodes.get(*pid).copied().flatten() {
            Some(node) => node,
            None => {
                let node = builder.add_node(node_name(text, reader.node_names.get(pid)));
                if let Some(slot) = nodes.get_mut(*pid) {
                    *slot = Some(node);
                }
                node
            }
        };
        let name = match reader.thread_names.get(&t) {
            Some(name) => name.clone(),
            None => format!("pid {text} tid {tid}"),
        };
        process_of[t] = Some(
            builder
                .add_process(name, node)
                .map_err(|e| error(end, e.to_string()))?,
        );
        if let Some(open) = reader.open.get(t).filter(|o| !o.is_empty()) {
            notes.push(format!(
                "thread pid {text} tid {tid} leaves {} B slices open",
                open.len()
            ));
        }
    }
    let model_process = |t: usize| process_of.get(t).copied().flatten();
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
    for mut counter in reader.counters {
        let Some(process) = model_process(counter.process.index()) else {
            continue;
        };
        counter.process = process;
        builder
            .add_counter(counter)
            .map_err(|e| error(end, e.to_string()))?;
    }
    for counter in exported {
        builder
            .add_counter(counter)
            .map_err(|e| error(end, e.to_string()))?;
    }
    builder.reserve_events(reader.pending.iter().map(Vec::len).sum());
    let full = reader.full;
    let (thread_ids, pids) = (&reader.thread_ids, &reader.pids);
    for (thread, events) in reader.pending.into_iter().enumerate() {
        let Some(process) = model_process(thread) else {
            continue;
        };
        // Complete slices nest by their times, known only now: the depth is checked as they
        // go into the model, and the error names the thread and the slice.
        let mut depth = 0u64;
        for p in events {
            match p.kind {
                EventKind::Enter => {
                    depth += 1;
                    budget
                        .check_at(super::budget::Limit::Depth, depth, FORMAT_NAME, end)
                        .map_err(|mut e| {
                            let (pid, tid) = thread_ids.get(thread).map_or(("?", "?"), |(p, t)| {
                                (pids.get(*p).map_or("?", String::as_str), t.as_str())
                            });
                            e.message = format!(
                                "{} (pid {pid}, tid {tid}: the slice that opens level {depth} \
                                 begins at {} µs; the trace was read to its end)",
                                e.message,
                                p.time as f64 / 1000.0
                            );
                            e
                        })?;
                }
                EventKind::Leave => depth = depth.saturating_sub(1),
                _ => {}
            }
            let r = if p.full {
                // Only exported model events are full records; their processes are the
                // model's own, declared in order.
                full[p.id as usize]
            } else {
                let mut r = expand(p.kind, p.id, p.tag, process, Time(p.time));
                // A message's peer is a thread until now.
                r.peer = r.peer.and_then(|peer| model_process(peer.index()));
                r
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
    Ok((trace, notes))
}

/// A node's name: its `process_name`, else `pid N`.
fn node_name(pid: &str, named: Option<&String>) -> String {
    match named {
        Some(name) => name.clone(),
        None => format!("pid {pid}"),
    }
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
        let name = span.state.name();
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
