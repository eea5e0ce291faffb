//! The trace model: nodes, processes placed on nodes, and their events.
//!
//! Events are stored as a struct of arrays, grouped by process: process `p`'s events are the
//! index range [`Trace::process_events`] and, within it, in the order the trace recorded them.
//! Every id is a small integer newtype, and no event owns a heap allocation
//! (probe texts are interned once in [`Trace::strings`]).

pub mod counter;
pub mod error;
mod ids;
mod narrow;
mod opt_ids;
pub mod synthetic;
pub mod time;

pub use counter::{Counter, CounterKind};
pub use ids::{EventIdx, LinkId, NodeId, ProcessId, RawId, RegionId, StrId};
pub use narrow::{Narrow, Narrowing, Requests, Sizes, Tags};
pub use opt_ids::OptIds;

use std::num::NonZeroU32;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::model::time::{Clock, Time};

/// What happened at an event: the founding thesis's five events plus user probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The process started.
    ProcInit,
    /// The process ended.
    ProcExit,
    /// The process sent a message to `peer`.
    MsgSend,
    /// The process called receive and may block until a message arrives.
    RecvCall,
    /// A message from `peer` arrived at the process.
    MsgArr,
    /// A user probe: a tag and a text, e.g. `probe(READ_IMAGE, "reading image")`.
    Probe,
    /// The process entered a region.
    Enter,
    /// The process left a region.
    Leave,
    /// The process posted a non-blocking receive (`MPI_Irecv`), identified by `request`; the
    /// `msg_arr` with the same request completes it.
    RecvPost,
    /// The process stopped running: it waits for what its `tag` says (a [`WaitReason`]),
    /// described by its `text` (the channel, link or timer); for [`WaitReason::Ready`], `peer`
    /// is the process whose action released it, when one did. Only sources that see the
    /// scheduler (the emulator) write waits; elsewhere a process computes between events.
    Wait,
    /// The process got its processor back and runs; `peer`, when known, is the process that
    /// gave the processor up to it (the one that ran before on that processor).
    Run,
}

/// Why a process waits, as the scheduler knows it: a [`EventKind::Wait`]'s `tag`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitReason {
    /// It can run and waits for the processor (released, time-sliced or preempted).
    Ready,
    /// Blocked in an input on a channel, until the sender comes.
    Input,
    /// Blocked in an output on a channel, until the receiver takes the message.
    Output,
    /// Waiting in an ALT for one of its guards.
    Alt,
    /// Waiting on a timer for a time to come.
    Timer,
    /// A PAR's parent waiting for its branches to end.
    Children,
    /// Stopped (STOP, or an error that stops the process).
    Stopped,
    /// The process instance ended; its row runs again later (a PAR in a loop starts the same
    /// branch again).
    Ended,
}

impl WaitReason {
    /// Every reason, by its code.
    pub const ALL: [WaitReason; 8] = [
        WaitReason::Ready,
        WaitReason::Input,
        WaitReason::Output,
        WaitReason::Alt,
        WaitReason::Timer,
        WaitReason::Children,
        WaitReason::Stopped,
        WaitReason::Ended,
    ];

    /// The reason a wait's tag codes (`None` for a code no reason has).
    pub fn from_code(code: u32) -> Option<WaitReason> {
        WaitReason::ALL.get(code as usize).copied()
    }

    /// The reason's code, a wait's tag.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// The reason's name, e.g. `output`.
    pub fn name(self) -> &'static str {
        match self {
            WaitReason::Ready => "ready",
            WaitReason::Input => "input",
            WaitReason::Output => "output",
            WaitReason::Alt => "alt",
            WaitReason::Timer => "timer",
            WaitReason::Children => "children",
            WaitReason::Stopped => "stopped",
            WaitReason::Ended => "ended",
        }
    }

    /// Whether the time waited counts on a critical path by itself, as computation's does:
    /// waiting for a time, or for the processor when the trace does not say who held it, has
    /// no other process to blame.
    pub fn counts_its_time(self) -> bool {
        matches!(self, WaitReason::Ready | WaitReason::Timer)
    }
}

impl EventKind {
    /// Every kind, in declaration order.
    pub const ALL: [EventKind; 11] = [
        EventKind::ProcInit,
        EventKind::ProcExit,
        EventKind::MsgSend,
        EventKind::RecvCall,
        EventKind::MsgArr,
        EventKind::Probe,
        EventKind::Enter,
        EventKind::Leave,
        EventKind::RecvPost,
        EventKind::Wait,
        EventKind::Run,
    ];

    /// The kind's name in the native format and the API, e.g. `msg_send`.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::ProcInit => "proc_init",
            EventKind::ProcExit => "proc_exit",
            EventKind::MsgSend => "msg_send",
            EventKind::RecvCall => "recv_call",
            EventKind::MsgArr => "msg_arr",
            EventKind::Probe => "probe",
            EventKind::Enter => "enter",
            EventKind::Leave => "leave",
            EventKind::RecvPost => "recv_post",
            EventKind::Wait => "wait",
            EventKind::Run => "run",
        }
    }

    /// The kind in people's words, as the page and diagnostics say it, e.g. `message arrival`.
    pub fn words(self) -> &'static str {
        match self {
            EventKind::ProcInit => "process start",
            EventKind::ProcExit => "process end",
            EventKind::MsgSend => "message send",
            EventKind::RecvCall => "receive call",
            EventKind::MsgArr => "message arrival",
            EventKind::Probe => "probe",
            EventKind::Enter => "region entry",
            EventKind::Leave => "region exit",
            EventKind::RecvPost => "posted receive",
            EventKind::Wait => "wait",
            EventKind::Run => "back on the processor",
        }
    }

    /// Whether the kind names a region (enter and leave).
    pub fn has_region(self) -> bool {
        matches!(self, EventKind::Enter | EventKind::Leave)
    }

    /// Whether the kind names a peer process (the destination of a send, the source of an arrival).
    pub fn has_peer(self) -> bool {
        matches!(self, EventKind::MsgSend | EventKind::MsgArr)
    }
}

/// A processor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The node's name, e.g. `T800 #12`.
    pub name: String,
}

/// A process and the node it runs on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Process {
    /// The process's name, e.g. `rank 0` or `worker`.
    pub name: String,
    /// The node the process runs on.
    pub node: NodeId,
}

/// What a region stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionRole {
    /// A unit of work: a function, a loop, a library call.
    Activity,
    /// A phase of the program, such as "reading image" or "distribute".
    Phase,
    /// A message-passing call such as `MPI_Send` or `MPI_Recv`: the call interval of the sends
    /// and receives inside it.
    Communication,
    /// A barrier: every member waits for the last to enter.
    Barrier,
    /// An all-to-all collective (`MPI_Allreduce`, `MPI_Alltoall`): every member waits for the
    /// last to enter.
    AllToAll,
    /// A one-to-all collective (`MPI_Bcast`, `MPI_Scatter`): the members wait for the root, the
    /// `peer` of the enter event.
    OneToAll,
    /// An all-to-one collective (`MPI_Reduce`, `MPI_Gather`): the root, the `peer` of the enter
    /// event, waits for the members.
    AllToOne,
}

impl RegionRole {
    /// Whether the role is a collective operation.
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            RegionRole::Barrier
                | RegionRole::AllToAll
                | RegionRole::OneToAll
                | RegionRole::AllToOne
        )
    }
}

/// A named code region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// The region's name.
    pub name: String,
    /// What it stands for.
    pub role: RegionRole,
}

/// One end of a link: a node and its link number (0 to 3 on a transputer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LinkEnd {
    /// The node.
    pub node: NodeId,
    /// The node's link number.
    pub link: u8,
}

/// A bidirectional point-to-point link between two nodes; each direction is a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// One end.
    pub a: LinkEnd,
    /// The other end.
    pub b: LinkEnd,
    /// The link's speed, when known.
    pub bits_per_second: Option<u64>,
}

/// A direction of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// From end `a` to end `b`.
    AToB,
    /// From end `b` to end `a`.
    BToA,
}

/// A measured utilization over [start, end], as a fraction from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The start of the sampling period.
    pub start: Time,
    /// The end of the sampling period.
    pub end: Time,
    /// The busy fraction of the period, from 0 to 1.
    pub utilization: f32,
}

/// A CPU utilization sample of a node.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpuSample {
    /// The node measured.
    pub node: NodeId,
    /// The measurement.
    pub sample: Sample,
}

/// A utilization sample of one direction of a link.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkSample {
    /// The link measured.
    pub link: LinkId,
    /// The direction measured.
    pub direction: Direction,
    /// The measurement.
    pub sample: Sample,
}

/// One event, as an importer hands it to the [`TraceBuilder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventRecord {
    /// The process the event happened in.
    pub process: ProcessId,
    /// When it happened.
    pub time: Time,
    /// What happened.
    pub kind: EventKind,
    /// The destination of a send or the source of an arrival.
    pub peer: Option<ProcessId>,
    /// The message tag or type, or the probe tag.
    pub tag: u32,
    /// The message length in bytes, or the receive buffer size.
    pub size: u64,
    /// The probe text.
    pub text: Option<StrId>,
    /// The region entered or left.
    pub region: Option<RegionId>,
    /// The non-blocking receive request a `recv_post` opens and a `msg_arr` completes.
    pub request: Option<NonZeroU32>,
}

impl EventRecord {
    /// An event with no peer, tag, size, text, region or request.
    pub fn plain(process: ProcessId, time: Time, kind: EventKind) -> Self {
        EventRecord {
            process,
            time,
            kind,
            peer: None,
            tag: 0,
            size: 0,
            text: None,
            region: None,
            request: None,
        }
    }
}

/// The events of a trace as a struct of arrays, grouped by process.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Events {
    process_start: Vec<u32>,
    process: Vec<ProcessId>,
    time: Vec<Time>,
    kind: Vec<EventKind>,
    peer: OptIds<ProcessId>,
    tag: Tags,
    size: Sizes,
    text: OptIds<StrId>,
    region: OptIds<RegionId>,
    request: Requests,
}

impl Events {
    /// Gives back the columns' spare capacity (a column read from serialized data grows by
    /// doubling; shrinking a large one returns its pages without copying).
    fn shrink_to_fit(&mut self) {
        self.process_start.shrink_to_fit();
        self.process.shrink_to_fit();
        self.time.shrink_to_fit();
        self.kind.shrink_to_fit();
        self.peer.shrink_to_fit();
        self.tag.shrink_to_fit();
        self.size.shrink_to_fit();
        self.text.shrink_to_fit();
        self.region.shrink_to_fit();
        self.request.shrink_to_fit();
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// Each event's process.
    pub fn process(&self) -> &[ProcessId] {
        &self.process
    }

    /// Each event's time.
    pub fn time(&self) -> &[Time] {
        &self.time
    }

    /// Each event's kind.
    pub fn kind(&self) -> &[EventKind] {
        &self.kind
    }

    /// Each event's peer process (sends and arrivals only).
    pub fn peer(&self) -> &OptIds<ProcessId> {
        &self.peer
    }

    /// Each event's tag.
    pub fn tag(&self) -> &Tags {
        &self.tag
    }

    /// Each event's size in bytes.
    pub fn size(&self) -> &Sizes {
        &self.size
    }

    /// Each event's probe text.
    pub fn text(&self) -> &OptIds<StrId> {
        &self.text
    }

    /// Each event's region (enter and leave only).
    pub fn region(&self) -> &OptIds<RegionId> {
        &self.region
    }

    /// Each event's non-blocking receive request (`recv_post` and its completing `msg_arr`).
    pub fn request(&self) -> &Requests {
        &self.request
    }

    /// One event, gathered from the arrays.
    pub fn get(&self, idx: EventIdx) -> Option<EventRecord> {
        let i = idx.index();
        Some(EventRecord {
            process: *self.process.get(i)?,
            time: *self.time.get(i)?,
            kind: *self.kind.get(i)?,
            peer: self.peer.get(i)?,
            tag: self.tag.get(i)?,
            size: self.size.get(i)?,
            text: self.text.get(i)?,
            region: self.region.get(i)?,
            request: (i < self.request.len())
                .then(|| self.request.at(i))
                .flatten(),
        })
    }
}

/// A whole trace: the machine, the processes on it and everything they did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "UncheckedTrace")]
pub struct Trace {
    /// A name for the run, usually the uploaded file's name.
    pub name: String,
    /// What one tick means.
    pub clock: Clock,
    /// The processors.
    pub nodes: Vec<Node>,
    /// The processes, each on one node.
    pub processes: Vec<Process>,
    /// The events, grouped by process.
    pub events: Events,
    /// Interned strings (probe texts).
    pub strings: Vec<String>,
    /// Named code regions, entered and left by events.
    pub regions: Vec<Region>,
    /// Links between nodes.
    pub links: Vec<Link>,
    /// Measured CPU utilization of nodes, by node and then time.
    pub cpu_samples: Vec<CpuSample>,
    /// Measured utilization of links, by link, direction and then time.
    pub link_samples: Vec<LinkSample>,
    /// Sampled series (hardware counters, metrics, variables), by process.
    #[serde(default)]
    pub counters: Vec<Counter>,
}

/// The serialized shape of a [`Trace`], checked before it becomes one.
#[derive(Deserialize)]
struct UncheckedTrace {
    name: String,
    clock: Clock,
    nodes: Vec<Node>,
    processes: Vec<Process>,
    events: Events,
    strings: Vec<String>,
    regions: Vec<Region>,
    links: Vec<Link>,
    cpu_samples: Vec<CpuSample>,
    link_samples: Vec<LinkSample>,
    #[serde(default)]
    counters: Vec<Counter>,
}

impl TryFrom<UncheckedTrace> for Trace {
    type Error = String;

    fn try_from(t: UncheckedTrace) -> Result<Self, String> {
        let mut events = t.events;
        events.shrink_to_fit();
        let trace = Trace {
            name: t.name,
            clock: t.clock,
            nodes: t.nodes,
            processes: t.processes,
            events,
            strings: t.strings,
            regions: t.regions,
            links: t.links,
            cpu_samples: t.cpu_samples,
            link_samples: t.link_samples,
            counters: t.counters,
        };
        trace.check_consistency()?;
        Ok(trace)
    }
}

impl Trace {
    /// The index range of process `p`'s events (empty for an unknown process).
    pub fn process_events(&self, p: ProcessId) -> Range<usize> {
        let starts = &self.events.process_start;
        match (starts.get(p.index()), starts.get(p.index() + 1)) {
            (Some(&start), Some(&end)) => start as usize..end as usize,
            _ => 0..0,
        }
    }

    /// The process ids, in order.
    pub fn process_ids(&self) -> impl Iterator<Item = ProcessId> + '_ {
        (0..self.processes.len() as u32).map(ProcessId)
    }

    /// The trace without its events and samples: its name, clock, nodes, processes, regions,
    /// strings and links, for views that fetch the rest piece by piece.
    pub fn outline(&self) -> Trace {
        Trace {
            name: self.name.clone(),
            clock: self.clock,
            nodes: self.nodes.clone(),
            processes: self.processes.clone(),
            events: Events {
                process_start: vec![0; self.processes.len() + 1],
                ..Events::default()
            },
            strings: self.strings.clone(),
            regions: self.regions.clone(),
            links: self.links.clone(),
            cpu_samples: Vec::new(),
            link_samples: Vec::new(),
            counters: Vec::new(),
        }
    }

    /// The trace with every event at `times[i]` instead (a repaired clock), or `None` when
    /// the times are not one per event or would reorder a process's events.
    pub fn with_times(&self, times: Vec<Time>) -> Option<Trace> {
        if times.len() != self.events.len() {
            return None;
        }
        for p in self.process_ids() {
            if !times[self.process_events(p)].is_sorted() {
                return None;
            }
        }
        let mut trace = self.clone();
        trace.events.time = times;
        Some(trace)
    }

    /// The earliest and latest event times, or `None` for a trace without events.
    pub fn time_bounds(&self) -> Option<(Time, Time)> {
        let times = self.events.time();
        let min = times.iter().min()?;
        let max = times.iter().max()?;
        Some((*min, *max))
    }

    /// The heap memory the model holds, in bytes (vector capacities; strings by length).
    pub fn heap_bytes(&self) -> usize {
        fn vec<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        let e = &self.events;
        let events = vec(&e.process_start)
            + vec(&e.process)
            + vec(&e.time)
            + vec(&e.kind)
            + e.peer.heap_bytes()
            + e.tag.heap_bytes()
            + e.size.heap_bytes()
            + e.text.heap_bytes()
            + e.region.heap_bytes()
            + e.request.heap_bytes();
        let names = self.nodes.iter().map(|n| n.name.capacity()).sum::<usize>()
            + self
                .processes
                .iter()
                .map(|p| p.name.capacity())
                .sum::<usize>()
            + self.strings.iter().map(String::capacity).sum::<usize>()
            + self
                .regions
                .iter()
                .map(|r| r.name.capacity())
                .sum::<usize>();
        events
            + names
            + vec(&self.nodes)
            + vec(&self.processes)
            + vec(&self.strings)
            + vec(&self.regions)
            + vec(&self.links)
            + vec(&self.cpu_samples)
            + vec(&self.link_samples)
            + vec(&self.counters)
            + self
                .counters
                .iter()
                .map(|c| c.name.capacity() + c.unit.capacity() + vec(&c.times) + vec(&c.values))
                .sum::<usize>()
    }

    /// An interned string.
    pub fn string(&self, id: StrId) -> Option<&str> {
        self.strings.get(id.index()).map(String::as_str)
    }

    /// Checks the invariants a builder guarantees; used when a trace comes from serialized data.
    fn check_consistency(&self) -> Result<(), String> {
        let e = &self.events;
        let n = e.time.len();
        let lengths = [
            e.process.len(),
            e.kind.len(),
            e.peer.len(),
            e.tag.len(),
            e.size.len(),
            e.text.len(),
            e.region.len(),
            e.request.len(),
        ];
        if lengths.iter().any(|&len| len != n) {
            return Err(format!(
                "event arrays differ in length ({n} times, others {lengths:?})"
            ));
        }
        if n > u32::MAX as usize {
            return Err(format!("{n} events is more than the model holds"));
        }
        if e.process_start.len() != self.processes.len() + 1
            || e.process_start.first() != Some(&0)
            || e.process_start.last() != Some(&(n as u32))
            || e.process_start.windows(2).any(|w| w[0] > w[1])
        {
            return Err("process_start does not partition the events".to_owned());
        }
        for p in self.process_ids() {
            if self.events.process[self.process_events(p)]
                .iter()
                .any(|&q| q != p)
            {
                return Err(format!("events of process {} are out of their group", p.0));
            }
        }
        let n_procs = self.processes.len();
        if let Some(p) = self
            .processes
            .iter()
            .find(|p| p.node.index() >= self.nodes.len())
        {
            return Err(format!(
                "process {} is on node {}, which does not exist",
                p.name, p.node.0
            ));
        }
        if e.peer.iter().flatten().any(|q| q.index() >= n_procs) {
            return Err("an event names a peer process that does not exist".to_owned());
        }
        if e.text
            .iter()
            .flatten()
            .any(|s| s.index() >= self.strings.len())
        {
            return Err("an event names a string that does not exist".to_owned());
        }
        if e.region
            .iter()
            .flatten()
            .any(|r| r.index() >= self.regions.len())
        {
            return Err("an event names a region that does not exist".to_owned());
        }
        let n_nodes = self.nodes.len();
        if self
            .links
            .iter()
            .any(|l| l.a.node.index() >= n_nodes || l.b.node.index() >= n_nodes)
            || self.cpu_samples.iter().any(|s| s.node.index() >= n_nodes)
            || self
                .link_samples
                .iter()
                .any(|s| s.link.index() >= self.links.len())
        {
            return Err("a link or sample names a node or link that does not exist".to_owned());
        }
        if let Some(problem) = self.counters.iter().find_map(|c| c.problem(n_procs)) {
            return Err(problem);
        }
        if self.clock.ticks_per_second == Some(0) {
            return Err("the clock has 0 ticks per second".to_owned());
        }
        Ok(())
    }
}

/// Why a builder refused an event or a process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// A process was placed on a node that was not declared.
    #[error("node {node} does not exist (the trace declares {n_nodes} nodes)")]
    UnknownNode {
        /// The node asked for.
        node: u32,
        /// How many nodes there are.
        n_nodes: usize,
    },
    /// An event names a process that was not declared.
    #[error("process {process} does not exist (the trace declares {n_processes} processes)")]
    UnknownProcess {
        /// The process asked for.
        process: u32,
        /// How many processes there are.
        n_processes: usize,
    },
    /// A send or an arrival without a peer process.
    #[error("a {kind} event needs a peer process")]
    MissingPeer {
        /// The event's kind.
        kind: &'static str,
    },
    /// An enter or leave names a region that was not declared.
    #[error("region {region} does not exist (the trace declares {n_regions} regions)")]
    UnknownRegion {
        /// The region asked for.
        region: u32,
        /// How many regions there are.
        n_regions: usize,
    },
    /// An enter or leave without a region.
    #[error("a {kind} event needs a region")]
    MissingRegion {
        /// The event's kind.
        kind: &'static str,
    },
    /// A link or sample names a link that was not declared.
    #[error("link {link} does not exist (the trace declares {n_links} links)")]
    UnknownLink {
        /// The link asked for.
        link: u32,
        /// How many links there are.
        n_links: usize,
    },
    /// A sample whose period ends before it starts, or whose utilization is outside [0, 1].
    #[error("a sample needs start ≤ end and a utilization from 0 to 1")]
    BadSample,
    /// A counter whose times and values differ in number or whose values are not finite.
    #[error("{0}")]
    BadCounter(String),
    /// The trace has more events than the model's 32-bit indices address.
    #[error("the trace has more than {max} events", max = u32::MAX)]
    TooManyEvents,
}

/// Builds a [`Trace`] from nodes, processes and events in any order.
///
/// Events pushed grouped by process (every importer that reads a process at a time) go straight
/// into the model's columns; the first event out of that order moves them into a list of
/// records, which `build` sorts by process. Either way the trace built is the same.
#[derive(Debug, Default)]
pub struct TraceBuilder {
    name: String,
    clock: Clock,
    nodes: Vec<Node>,
    processes: Vec<Process>,
    /// The events so far while they come grouped by process (`process_start` unused).
    columns: Events,
    /// The events once one came out of process order (then `columns` is empty).
    records: Vec<EventRecord>,
    /// Whether an event came out of process order.
    unordered: bool,
    strings: Vec<String>,
    string_ids: std::collections::HashMap<String, StrId>,
    regions: Vec<Region>,
    links: Vec<Link>,
    cpu_samples: Vec<CpuSample>,
    link_samples: Vec<LinkSample>,
    counters: Vec<Counter>,
}

impl TraceBuilder {
    /// A builder for a trace with this name and clock.
    pub fn new(name: impl Into<String>, clock: Clock) -> Self {
        TraceBuilder {
            name: name.into(),
            clock,
            ..TraceBuilder::default()
        }
    }

    /// Reserves room for `n` more events.
    pub fn reserve_events(&mut self, n: usize) {
        if self.unordered {
            self.records.reserve(n);
        } else {
            let c = &mut self.columns;
            c.process.reserve(n);
            c.time.reserve(n);
            c.kind.reserve(n);
            c.peer.reserve(n);
            c.tag.reserve(n);
            c.size.reserve(n);
            c.text.reserve(n);
            c.region.reserve(n);
        }
    }

    /// Declares a node.
    pub fn add_node(&mut self, name: impl Into<String>) -> NodeId {
        self.nodes.push(Node { name: name.into() });
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// Declares a process on a declared node.
    pub fn add_process(
        &mut self,
        name: impl Into<String>,
        node: NodeId,
    ) -> Result<ProcessId, ModelError> {
        self.check_node(node)?;
        self.processes.push(Process {
            name: name.into(),
            node,
        });
        Ok(ProcessId(self.processes.len() as u32 - 1))
    }

    /// Declares a region.
    pub fn add_region(&mut self, name: impl Into<String>, role: RegionRole) -> RegionId {
        self.regions.push(Region {
            name: name.into(),
            role,
        });
        RegionId(self.regions.len() as u32 - 1)
    }

    /// Declares a link between two declared nodes.
    pub fn add_link(&mut self, link: Link) -> Result<LinkId, ModelError> {
        self.check_node(link.a.node)?;
        self.check_node(link.b.node)?;
        self.links.push(link);
        Ok(LinkId(self.links.len() as u32 - 1))
    }

    /// Adds a CPU utilization sample of a declared node.
    pub fn add_cpu_sample(&mut self, sample: CpuSample) -> Result<(), ModelError> {
        self.check_node(sample.node)?;
        check_sample(&sample.sample)?;
        self.cpu_samples.push(sample);
        Ok(())
    }

    /// Adds a utilization sample of a declared link.
    pub fn add_link_sample(&mut self, sample: LinkSample) -> Result<(), ModelError> {
        if sample.link.index() >= self.links.len() {
            return Err(ModelError::UnknownLink {
                link: sample.link.0,
                n_links: self.links.len(),
            });
        }
        check_sample(&sample.sample)?;
        self.link_samples.push(sample);
        Ok(())
    }

    /// Adds a sampled series of a declared process; its samples are put in time order.
    pub fn add_counter(&mut self, mut counter: Counter) -> Result<(), ModelError> {
        if counter.process.index() >= self.processes.len() {
            return Err(ModelError::UnknownProcess {
                process: counter.process.0,
                n_processes: self.processes.len(),
            });
        }
        counter.sort();
        if let Some(problem) = counter.problem(self.processes.len()) {
            return Err(ModelError::BadCounter(problem));
        }
        self.counters.push(counter);
        Ok(())
    }

    fn check_node(&self, node: NodeId) -> Result<(), ModelError> {
        if node.index() < self.nodes.len() {
            Ok(())
        } else {
            Err(ModelError::UnknownNode {
                node: node.0,
                n_nodes: self.nodes.len(),
            })
        }
    }

    /// Interns a string, returning the same id for the same text.
    pub fn intern(&mut self, text: &str) -> StrId {
        if let Some(&id) = self.string_ids.get(text) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(text.to_owned());
        self.string_ids.insert(text.to_owned(), id);
        id
    }

    /// Adds an event after checking that the processes it names exist.
    pub fn push(&mut self, record: EventRecord) -> Result<(), ModelError> {
        let n_processes = self.processes.len();
        let check = |p: ProcessId| {
            if p.index() < n_processes {
                Ok(())
            } else {
                Err(ModelError::UnknownProcess {
                    process: p.0,
                    n_processes,
                })
            }
        };
        check(record.process)?;
        match (record.kind.has_peer(), record.peer) {
            (true, None) => {
                return Err(ModelError::MissingPeer {
                    kind: record.kind.name(),
                });
            }
            (_, Some(peer)) => check(peer)?,
            (false, None) => {}
        }
        match (record.kind.has_region(), record.region) {
            (true, None) => {
                return Err(ModelError::MissingRegion {
                    kind: record.kind.name(),
                });
            }
            (_, Some(r)) if r.index() >= self.regions.len() => {
                return Err(ModelError::UnknownRegion {
                    region: r.0,
                    n_regions: self.regions.len(),
                });
            }
            _ => {}
        }
        if self.records.len() + self.columns.len() >= u32::MAX as usize {
            return Err(ModelError::TooManyEvents);
        }
        if !self.unordered
            && self
                .columns
                .process
                .last()
                .is_some_and(|&last| last > record.process)
        {
            // Out of process order: the events so far become records, sorted when built.
            let columns = std::mem::take(&mut self.columns);
            self.records = (0..columns.len() as u32)
                .filter_map(|i| columns.get(EventIdx(i)))
                .collect();
            self.unordered = true;
        }
        if self.unordered {
            self.records.push(record);
        } else {
            let c = &mut self.columns;
            c.process.push(record.process);
            c.time.push(record.time);
            c.kind.push(record.kind);
            c.peer.push(record.peer);
            c.tag.push(record.tag);
            c.size.push(record.size);
            c.text.push(record.text);
            c.region.push(record.region);
            c.request.push(record.request);
        }
        Ok(())
    }

    /// The trace, with events grouped by process (a stable counting sort: each process keeps
    /// its events in the order they were pushed).
    pub fn build(self) -> Trace {
        let n_processes = self.processes.len();
        let mut process_start = vec![0u32; n_processes + 1];
        let events = if self.unordered {
            for r in &self.records {
                process_start[r.process.index() + 1] += 1;
            }
            for p in 0..n_processes {
                process_start[p + 1] += process_start[p];
            }
            let mut order = vec![0u32; self.records.len()];
            let mut next = process_start.clone();
            for (i, r) in self.records.iter().enumerate() {
                let slot = &mut next[r.process.index()];
                order[*slot as usize] = i as u32;
                *slot += 1;
            }
            let records = &self.records;
            Events {
                process: gather(&order, records, |r| r.process),
                time: gather(&order, records, |r| r.time),
                kind: gather(&order, records, |r| r.kind),
                peer: gather(&order, records, |r| r.peer),
                tag: gather(&order, records, |r| r.tag),
                size: gather(&order, records, |r| r.size),
                text: gather(&order, records, |r| r.text),
                region: gather(&order, records, |r| r.region),
                request: gather(&order, records, |r| r.request),
                process_start,
            }
        } else {
            // Already grouped by process: only the group boundaries are left to find.
            for p in &self.columns.process {
                process_start[p.index() + 1] += 1;
            }
            for p in 0..n_processes {
                process_start[p + 1] += process_start[p];
            }
            let mut c = self.columns;
            c.shrink_to_fit();
            Events { process_start, ..c }
        };
        let (text, strings) = renumber_strings(events.text, self.strings);
        let events = Events { text, ..events };
        Trace {
            name: self.name,
            clock: self.clock,
            nodes: self.nodes,
            processes: self.processes,
            events,
            strings,
            regions: self.regions,
            links: self.links,
            cpu_samples: sorted(self.cpu_samples, |s| (s.node, s.sample.start, s.sample.end)),
            link_samples: sorted(self.link_samples, |s| {
                (s.link, s.direction as u8, s.sample.start, s.sample.end)
            }),
            counters: self.counters,
        }
    }
}

fn check_sample(sample: &Sample) -> Result<(), ModelError> {
    if sample.start <= sample.end && (0.0..=1.0).contains(&sample.utilization) {
        Ok(())
    } else {
        Err(ModelError::BadSample)
    }
}

/// The items sorted (stably) by a key.
fn sorted<T, K: Ord>(mut items: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    items.sort_by_key(key);
    items
}

/// One field of the records, in `order`.
fn gather<T, C: FromIterator<T>>(
    order: &[u32],
    records: &[EventRecord],
    field: impl Fn(&EventRecord) -> T,
) -> C {
    order.iter().map(|&i| field(&records[i as usize])).collect()
}

/// Numbers strings in order of first use by the events and drops unused ones, so that equal
/// traces have equal string tables whatever order their importer interned them in.
fn renumber_strings(text: OptIds<StrId>, strings: Vec<String>) -> (OptIds<StrId>, Vec<String>) {
    let mut new_id = vec![None; strings.len()];
    let mut order = Vec::new();
    let text = text
        .iter()
        .map(|id| {
            let id = id?;
            let slot = new_id.get_mut(id.index())?;
            Some(*slot.get_or_insert_with(|| {
                order.push(id.index());
                StrId(order.len() as u32 - 1)
            }))
        })
        .collect();
    let mut strings: Vec<Option<String>> = strings.into_iter().map(Some).collect();
    let strings = order
        .into_iter()
        .filter_map(|i| strings.get_mut(i).and_then(Option::take))
        .collect();
    (text, strings)
}
