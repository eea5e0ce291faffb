//! The execution graph (decision D-c): one vertex per event, program-order edges within each
//! process, and a message edge from each send to its arrival.
//!
//! The k-th `recv_call` of a process completes with the k-th `msg_arr` of that process; the
//! arrival event is the receive-completion vertex, at time max(call, arrival), and it follows its
//! call in program order even when the message arrived before the call.
//! The program edge from a call to its completion has weight 0 and state BLOCKED; the message
//! edge from the send into the completion weighs the transit time (arrival − send).
//! (A call followed by anything but its completion is a trace inconsistency that validation
//! reports; the process then counts as blocked until that next event.)
//! Every vertex has at most two in-edges (its program predecessor and its message), so the graph
//! is stored as flat per-vertex arrays rather than adjacency lists.

use serde::{Deserialize, Serialize};

use crate::graph::collectives::collectives;
use crate::graph::pairing::Pairing;
use crate::model::time::Time;
use crate::model::{EventIdx, EventKind, ProcessId, Trace, WaitReason};

/// "No vertex" in the per-vertex link arrays.
const NONE: u32 = u32::MAX;

/// The kind of a vertex's program-order in-edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramEdge {
    /// The vertex starts its process: no program predecessor.
    Start,
    /// The process computed from its predecessor to this vertex.
    Computation,
    /// The process was blocked in a receive from the call (the predecessor) to this completion,
    /// or in a scheduler wait for another process (an output, an ALT, a PAR's branches):
    /// another process's action ends it.
    Blocked,
    /// The process waited for its processor or for a time ([`WaitReason::counts_its_time`]):
    /// no other process's action ends it, so on a path its time counts as computation's
    /// does, but the processor was not busy with it.
    Waiting,
}

/// The execution graph of a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutionGraph {
    /// Each vertex's time: the event's time, or max(call, arrival) for a receive completion.
    time: Vec<Time>,
    /// Each vertex's program predecessor, or `NONE`.
    prev: Vec<u32>,
    /// Each vertex's program successor, or `NONE`.
    next: Vec<u32>,
    /// Each vertex's program in-edge kind.
    in_edge: Vec<ProgramEdge>,
    /// For an arrival vertex: its matched send, or `NONE`.
    msg_from: Vec<u32>,
    /// Vertices in a topological order.
    topo: Vec<u32>,
    /// The first vertex of each process in program order, or `NONE` for a process without events.
    first: Vec<u32>,
    /// Message edges dropped because they closed a cycle (clock-condition violations), as
    /// (send, arrival).
    dropped_messages: Vec<(EventIdx, EventIdx)>,
    /// For a collective member's enter that releases the others: its instance's hub.
    hub_from: Vec<u32>,
    /// For a collective member's leave that waits for the others: its instance's hub.
    hub_into: Vec<u32>,
    /// Each hub's source enters (CSR over `hub_sources`).
    hub_source_start: Vec<u32>,
    hub_sources: Vec<u32>,
    /// Each hub's target leaves (CSR over `hub_targets`).
    hub_target_start: Vec<u32>,
    hub_targets: Vec<u32>,
    /// Each hub's time: the latest source enter.
    hub_time: Vec<Time>,
    /// Collective dependencies dropped because they closed a cycle, as (hub, leave).
    dropped_collectives: Vec<(u32, EventIdx)>,
    /// The earliest event time.
    origin: Time,
}

impl ExecutionGraph {
    /// Builds the graph of `trace` with its message `pairing`.
    pub fn new(trace: &Trace, pairing: &Pairing) -> ExecutionGraph {
        let n = trace.events.len();
        let e = &trace.events;
        let mut graph = ExecutionGraph {
            time: e.time().to_vec(),
            prev: vec![NONE; n],
            next: vec![NONE; n],
            in_edge: vec![ProgramEdge::Start; n],
            msg_from: vec![NONE; n],
            topo: Vec::with_capacity(n),
            first: vec![NONE; trace.processes.len()],
            dropped_messages: Vec::new(),
            // Allocated with the first collective: most traces have none.
            hub_from: Vec::new(),
            hub_into: Vec::new(),
            hub_source_start: vec![0],
            hub_sources: Vec::new(),
            hub_target_start: vec![0],
            hub_targets: Vec::new(),
            hub_time: Vec::new(),
            dropped_collectives: Vec::new(),
            origin: trace.time_bounds().map_or(Time(0), |(start, _)| start),
        };
        for c in collectives(trace) {
            if graph.hub_from.is_empty() {
                graph.hub_from = vec![NONE; n];
                graph.hub_into = vec![NONE; n];
            }
            let hub = graph.hub_time.len() as u32;
            let mut latest = Time(0);
            for &(process, enter, leave) in &c.members {
                if c.is_source(process) {
                    graph.hub_from[enter.index()] = hub;
                    graph.hub_sources.push(enter.0);
                    latest = latest.max(e.time()[enter.index()]);
                }
                if let (true, Some(leave)) = (c.is_target(process), leave) {
                    graph.hub_into[leave.index()] = hub;
                    graph.hub_targets.push(leave.0);
                }
            }
            graph.hub_time.push(latest);
            graph.hub_source_start.push(graph.hub_sources.len() as u32);
            graph.hub_target_start.push(graph.hub_targets.len() as u32);
        }
        for m in &pairing.messages {
            graph.msg_from[m.arrival.index()] = m.send.0;
        }
        graph.add_releases(trace);
        let mut sequence = Vec::new();
        let hub_into = std::mem::take(&mut graph.hub_into);
        let is_hub_target = |v: usize| hub_into.get(v).is_some_and(|&h| h != NONE);
        for process in trace.process_ids() {
            walk_program(trace, process, &is_hub_target, &mut sequence, |step| {
                let v = step.vertex as usize;
                graph.time[v] = step.time;
                match step.prev {
                    None => graph.first[process.index()] = step.vertex,
                    Some(last) => {
                        graph.prev[v] = last;
                        graph.next[last as usize] = step.vertex;
                        // A scheduler wait that ends with no other process's event to come
                        // through (a link's hardware released it, or a hand-over found no
                        // edge) has nothing else to blame: it counts its time.
                        let orphan = step.edge == ProgramEdge::Blocked
                            && trace.events.kind()[last as usize] == EventKind::Wait
                            && graph.msg_from[v] == NONE;
                        graph.in_edge[v] = if orphan {
                            ProgramEdge::Waiting
                        } else {
                            step.edge
                        };
                    }
                }
            });
        }
        graph.hub_into = hub_into;
        graph.sort_topologically();
        graph
    }

    /// Release edges: a process made ready by another's action (a [`WaitReason::Ready`] wait
    /// naming its `peer`: the receiver that took its output, the branch whose end completed
    /// its PAR) depends on that action, the peer's last event at or before the release that
    /// is not itself a scheduler event; a run naming its `peer` depends on that process
    /// giving the processor up (its last event at or before the run). The edge is kept in the message arrays (a dependency
    /// with no transit), and only where that event has no message out already (a send's
    /// arrival carries the cause on its own).
    fn add_releases(&mut self, trace: &Trace) {
        let e = &trace.events;
        let ready = WaitReason::Ready.code();
        // An event releases at most one process this way (the sort keeps one message out of
        // each vertex); sources already used are marked, allocated with the first release.
        let mut used: Vec<bool> = Vec::new();
        for v in 0..e.len() {
            // A release into a wait for the processor, or a hand-over of the processor into a
            // run.
            let handover = e.kind()[v] == EventKind::Run;
            let release = e.kind()[v] == EventKind::Wait && e.tag().at(v) == ready;
            if !(handover || release) || self.msg_from[v] != NONE {
                continue;
            }
            let Some(peer) = e.peer().at(v) else {
                continue;
            };
            if peer.index() >= trace.processes.len() {
                continue;
            }
            let range = trace.process_events(peer);
            let times = &e.time()[range.clone()];
            let upto = times.partition_point(|&t| t <= e.time()[v]);
            // A release comes from what the releaser did (not its own scheduling); a
            // hand-over from the other process giving the processor up: its last own wait
            // (not a release another process recorded for it) or its end. Events at one tick
            // are ordered only within a process, so a later one of the same tick (the other
            // process running again) must not be taken for the cause.
            let gave_up = |u: usize| match e.kind()[u] {
                EventKind::Wait => e.tag().at(u) != ready || e.peer().at(u).is_none(),
                EventKind::ProcExit => true,
                _ => false,
            };
            let cause = (range.start..range.start + upto).rev().find(|&u| {
                if handover {
                    gave_up(u)
                } else {
                    !matches!(e.kind()[u], EventKind::Wait | EventKind::Run)
                }
            });
            if let Some(u) = cause.filter(|&u| e.kind()[u] != EventKind::MsgSend && u != v) {
                if used.is_empty() {
                    used = vec![false; e.len()];
                }
                if !std::mem::replace(&mut used[u], true) {
                    self.msg_from[v] = u as u32;
                }
            }
        }
    }

    /// Kahn's algorithm, with each collective hub released when its last source is sorted;
    /// message and collective edges into vertices left on a cycle are dropped and the sort is
    /// repeated, so the result is always a complete order.
    fn sort_topologically(&mut self) {
        let n = self.time.len();
        // Each send's arrival, for the sort only: the graph keeps the arrivals' sends.
        let mut msg_to = vec![NONE; n];
        for (arrival, &send) in self.msg_from.iter().enumerate() {
            if send != NONE {
                msg_to[send as usize] = arrival as u32;
            }
        }
        loop {
            let mut indegree: Vec<u8> = (0..n)
                .map(|v| {
                    u8::from(self.prev[v] != NONE)
                        + u8::from(self.msg_from[v] != NONE)
                        + u8::from(self.hub_into_at(v) != NONE)
                })
                .collect();
            let mut hub_pending: Vec<u32> = self
                .hub_source_start
                .windows(2)
                .map(|w| w[1] - w[0])
                .collect();
            self.topo.clear();
            self.topo
                .extend((0..n as u32).filter(|&v| indegree[v as usize] == 0));
            let release = |w: u32, indegree: &mut Vec<u8>, topo: &mut Vec<u32>| {
                indegree[w as usize] -= 1;
                if indegree[w as usize] == 0 {
                    topo.push(w);
                }
            };
            // Hubs without sources release their targets at once.
            for (h, &pending) in hub_pending.iter().enumerate() {
                if pending == 0 {
                    let targets: Vec<u32> = self.hub_target_list(h).to_vec();
                    for t in targets {
                        if self.hub_into_at(t as usize) == h as u32 {
                            release(t, &mut indegree, &mut self.topo);
                        }
                    }
                }
            }
            let mut head = 0;
            while head < self.topo.len() {
                let v = self.topo[head] as usize;
                head += 1;
                for w in [self.next[v], msg_to[v]] {
                    if w != NONE {
                        release(w, &mut indegree, &mut self.topo);
                    }
                }
                let h = self.hub_from_at(v);
                if h != NONE {
                    hub_pending[h as usize] -= 1;
                    if hub_pending[h as usize] == 0 {
                        let targets: Vec<u32> = self.hub_target_list(h as usize).to_vec();
                        for t in targets {
                            if self.hub_into_at(t as usize) == h {
                                release(t, &mut indegree, &mut self.topo);
                            }
                        }
                    }
                }
            }
            if self.topo.len() == n {
                return;
            }
            // Some vertices sit on a cycle, which only message and collective edges can close:
            // drop those into every vertex the sort could not reach.
            for (v, &remaining) in indegree.iter().enumerate() {
                if remaining == 0 {
                    continue;
                }
                if self.msg_from[v] != NONE {
                    let send = self.msg_from[v];
                    self.dropped_messages
                        .push((EventIdx(send), EventIdx(v as u32)));
                    msg_to[send as usize] = NONE;
                    self.msg_from[v] = NONE;
                }
                if self.hub_into_at(v) != NONE {
                    self.dropped_collectives
                        .push((self.hub_into_at(v), EventIdx(v as u32)));
                    self.hub_into[v] = NONE;
                }
            }
        }
    }

    fn hub_target_list(&self, h: usize) -> &[u32] {
        &self.hub_targets[self.hub_target_start[h] as usize..self.hub_target_start[h + 1] as usize]
    }

    /// The raw hub a vertex feeds (`NONE` without one, or in a trace without collectives).
    fn hub_from_at(&self, v: usize) -> u32 {
        self.hub_from.get(v).copied().unwrap_or(NONE)
    }

    /// The raw hub a vertex waits for (`NONE` without one, or in a trace without collectives).
    fn hub_into_at(&self, v: usize) -> u32 {
        self.hub_into.get(v).copied().unwrap_or(NONE)
    }

    /// The hub a collective member's enter feeds.
    pub fn hub_from(&self, v: EventIdx) -> Option<usize> {
        let h = self.hub_from_at(v.index());
        (h != NONE).then_some(h as usize)
    }

    /// The hub a collective member's leave waits for.
    pub fn hub_into(&self, v: EventIdx) -> Option<usize> {
        let h = self.hub_into_at(v.index());
        (h != NONE).then_some(h as usize)
    }

    /// The number of collective hubs.
    pub fn n_hubs(&self) -> usize {
        self.hub_time.len()
    }

    /// A hub's time: the latest enter of its sources.
    pub fn hub_time(&self, h: usize) -> Time {
        self.hub_time.get(h).copied().unwrap_or_default()
    }

    /// How many source enters hub `h` has (without walking them).
    pub fn hub_source_count(&self, h: usize) -> usize {
        let start = self.hub_source_start.get(h).copied().unwrap_or(0);
        let end = self.hub_source_start.get(h + 1).copied().unwrap_or(start);
        end.saturating_sub(start) as usize
    }

    /// A hub's source enters.
    pub fn hub_sources(&self, h: usize) -> impl Iterator<Item = EventIdx> + '_ {
        let range = self.hub_source_start[h] as usize..self.hub_source_start[h + 1] as usize;
        self.hub_sources[range].iter().map(|&v| EventIdx(v))
    }

    /// A hub's target leaves.
    pub fn hub_targets(&self, h: usize) -> impl Iterator<Item = EventIdx> + '_ {
        self.hub_target_list(h).iter().map(|&v| EventIdx(v))
    }

    /// Collective dependencies dropped to break cycles, as (hub, leave).
    pub fn dropped_collectives(&self) -> &[(u32, EventIdx)] {
        &self.dropped_collectives
    }

    /// The number of vertices (= events).
    pub fn len(&self) -> usize {
        self.time.len()
    }

    /// Whether the graph has no vertices.
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    /// The earliest event time; paths start counting here.
    pub fn origin(&self) -> Time {
        self.origin
    }

    /// A vertex's time (a receive completion's is max(call, arrival)).
    pub fn time(&self, v: EventIdx) -> Time {
        self.time[v.index()]
    }

    /// A vertex's program predecessor.
    pub fn prev(&self, v: EventIdx) -> Option<EventIdx> {
        some(self.prev[v.index()])
    }

    /// A vertex's program successor.
    pub fn next(&self, v: EventIdx) -> Option<EventIdx> {
        some(self.next[v.index()])
    }

    /// The kind of a vertex's program in-edge.
    pub fn in_edge(&self, v: EventIdx) -> ProgramEdge {
        self.in_edge[v.index()]
    }

    /// The send whose message edge enters `v`.
    pub fn message_from(&self, v: EventIdx) -> Option<EventIdx> {
        some(self.msg_from[v.index()])
    }

    /// Vertices in a topological order.
    pub fn topological_order(&self) -> impl Iterator<Item = EventIdx> + '_ {
        self.topo.iter().map(|&v| EventIdx(v))
    }

    /// A process's first vertex in program order.
    pub fn first(&self, p: ProcessId) -> Option<EventIdx> {
        self.first.get(p.index()).copied().and_then(some)
    }

    /// A process's vertices in program order.
    pub fn program(&self, p: ProcessId) -> impl Iterator<Item = EventIdx> + '_ {
        std::iter::successors(self.first(p), |&v| self.next(v))
    }

    /// Message edges dropped to break causality cycles, as (send, arrival).
    pub fn dropped_messages(&self) -> &[(EventIdx, EventIdx)] {
        &self.dropped_messages
    }
}

fn some(v: u32) -> Option<EventIdx> {
    (v != NONE).then_some(EventIdx(v))
}

/// A process's events in program order: each arrival that completes a receive is moved right
/// after its call; arrivals beyond the number of calls stay where they were recorded.
/// One vertex of a process's program order, as the execution graph has it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProgramStep {
    /// The vertex (event index).
    pub vertex: u32,
    /// Its program predecessor, if any.
    pub prev: Option<u32>,
    /// Its program in-edge ([`ProgramEdge::Start`] for the first).
    pub edge: ProgramEdge,
    /// Its time: the event's, or max(call, arrival) for a receive completion.
    pub time: Time,
}

/// Walks `process`'s vertices in program order with their in-edges and times: the one
/// definition the graph and the streaming state spans share. `is_hub_target(v)` says whether
/// event `v` is a collective member's leave that waits for the others.
pub(crate) fn walk_program(
    trace: &Trace,
    process: ProcessId,
    is_hub_target: &dyn Fn(usize) -> bool,
    sequence: &mut Vec<u32>,
    mut each: impl FnMut(ProgramStep),
) {
    let e = &trace.events;
    program_order(trace, process, sequence);
    let mut last: Option<(u32, Time)> = None;
    for &v in sequence.iter() {
        let own = e.time()[v as usize];
        let step = match last {
            None => ProgramStep {
                vertex: v,
                prev: None,
                edge: ProgramEdge::Start,
                time: own,
            },
            Some((prev, prev_time)) => {
                // A process that called receive is blocked until the next thing it does,
                // normally the completion of that receive; a non-blocking receive completes
                // inside a wait; a collective member waits from its enter to its leave.
                let (prev_kind, kind) = (e.kind()[prev as usize], e.kind()[v as usize]);
                let blocked = prev_kind == EventKind::RecvCall
                    || (kind == EventKind::MsgArr && e.request().at(v as usize).is_some())
                    || (prev_kind == EventKind::Enter && is_hub_target(v as usize));
                let time = if blocked && kind == EventKind::MsgArr {
                    own.max(prev_time)
                } else {
                    own
                };
                // A scheduler wait lasts until the process's next event; a reason this
                // model does not know counts its time, so no path loses it.
                // Waiting for the processor until a run that names who held it is blocked
                // time: the path comes through that process (a release edge).
                let handed = kind == EventKind::Run && e.peer().at(v as usize).is_some();
                let waits = (prev_kind == EventKind::Wait).then(|| {
                    match WaitReason::from_code(e.tag().at(prev as usize)) {
                        Some(WaitReason::Ready) => !handed,
                        reason => reason.is_none_or(WaitReason::counts_its_time),
                    }
                });
                ProgramStep {
                    vertex: v,
                    prev: Some(prev),
                    edge: match (blocked, waits) {
                        (true, _) | (false, Some(false)) => ProgramEdge::Blocked,
                        (false, Some(true)) => ProgramEdge::Waiting,
                        (false, None) => ProgramEdge::Computation,
                    },
                    time,
                }
            }
        };
        last = Some((v, step.time));
        each(step);
    }
}

fn program_order(trace: &Trace, process: ProcessId, out: &mut Vec<u32>) {
    out.clear();
    let range = trace.process_events(process);
    let kinds = &trace.events.kind()[range.clone()];
    let requests = trace.events.request();
    let n_calls = kinds.iter().filter(|&&k| k == EventKind::RecvCall).count();
    let mut calls_seen = 0;
    let mut arrivals_seen = 0;
    // Arrivals recorded before their call, waiting for it.
    let mut early = std::collections::VecDeque::new();
    for (offset, &kind) in kinds.iter().enumerate() {
        let v = (range.start + offset) as u32;
        match kind {
            // A non-blocking receive completes where it was recorded, inside its wait.
            EventKind::MsgArr if requests.at(v as usize).is_some() => out.push(v),
            EventKind::MsgArr => {
                let k = arrivals_seen;
                arrivals_seen += 1;
                if k >= n_calls || k < calls_seen {
                    // No call for it at all, or its call came first: it stays in place.
                    out.push(v);
                } else {
                    early.push_back(v);
                }
            }
            EventKind::RecvCall => {
                calls_seen += 1;
                out.push(v);
                if let Some(arrival) = early.pop_front() {
                    out.push(arrival);
                }
            }
            _ => out.push(v),
        }
    }
}
