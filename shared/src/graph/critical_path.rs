//! Longest paths on the execution graph: the critical path (weights = elapsed time), and the
//! same algorithm with other weights (WCPA, CPU-time relabelling, what-if).
//!
//! One pass in topological order, O(V + E): dist(v) = max(dist(prev) + w_program(v),
//! dist(send) + w_message(v)), seeded at each process's first vertex.

use serde::{Deserialize, Serialize};

use crate::graph::execution::{ExecutionGraph, ProgramEdge};
use crate::model::time::Time;
use crate::model::{EventIdx, ProcessId, Trace};

/// A path weight: ticks (`u64`) or weighted ticks (`f64`).
pub trait Weight: Copy + PartialOrd + Default {
    /// The sum of two weights (saturating for ticks: no trace time overflows a path).
    fn plus(self, other: Self) -> Self;
}

impl Weight for u64 {
    fn plus(self, other: u64) -> u64 {
        self.saturating_add(other)
    }
}

impl Weight for f64 {
    fn plus(self, other: f64) -> f64 {
        self + other
    }
}

/// The weight of each vertex's in-edges.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeWeights<T> {
    /// The weight of the program edge into each vertex; for a process's first vertex, which
    /// has none, the weight of its start edge from the trace's origin (one array for both, as
    /// a vertex has one or the other).
    pub program: Vec<T>,
    /// The weight of the message edge into each arrival vertex.
    pub message: Vec<T>,
    /// The weight of the edge from a collective's hub into each waiting member's leave.
    pub collective: Vec<T>,
}

impl<T: Weight> EdgeWeights<T> {
    /// All-zero weights for `n` vertices.
    pub fn zeros(n: usize) -> EdgeWeights<T> {
        EdgeWeights {
            program: vec![T::default(); n],
            message: vec![T::default(); n],
            collective: vec![T::default(); n],
        }
    }
}

impl EdgeWeights<u64> {
    /// Elapsed time: computation edges weigh their duration, blocked edges 0, message edges
    /// their transit (arrival − send, 0 when a clock violation makes it negative), a
    /// collective's hub edge the member's time after the last entry, and a process's start its
    /// offset from the origin.
    pub fn elapsed(trace: &Trace, graph: &ExecutionGraph) -> EdgeWeights<u64> {
        let n = graph.len();
        let mut w = EdgeWeights::zeros(n);
        for v in (0..n as u32).map(EventIdx) {
            let i = v.index();
            let e = elapsed_into(trace, graph, v);
            w.program[i] = if graph.prev(v).is_some() {
                e.program
            } else {
                e.seed
            };
            w.message[i] = e.message;
            w.collective[i] = e.collective;
        }
        w
    }
}

/// The weights of one vertex's in-edges.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct InEdges<T> {
    /// From the trace's origin (a process's first vertex).
    pub seed: T,
    /// From its program predecessor.
    pub program: T,
    /// From its message's send.
    pub message: T,
    /// From its collective's hub.
    pub collective: T,
}

/// The elapsed-time weights of `v`'s in-edges (see [`EdgeWeights::elapsed`]), for passes that
/// need them one vertex at a time.
pub fn elapsed_into(trace: &Trace, graph: &ExecutionGraph, v: EventIdx) -> InEdges<u64> {
    let times = trace.events.time();
    let i = v.index();
    let mut w = InEdges {
        seed: graph.time(v).0.saturating_sub(graph.origin().0),
        ..InEdges::default()
    };
    if let Some(prev) = graph.prev(v) {
        w.program = match graph.in_edge(v) {
            ProgramEdge::Blocked | ProgramEdge::Start => 0,
            ProgramEdge::Computation | ProgramEdge::Waiting => {
                graph.time(v).0.saturating_sub(graph.time(prev).0)
            }
        };
    }
    if let Some(send) = graph.message_from(v) {
        w.message = times[i].0.saturating_sub(times[send.index()].0);
    }
    if let Some(h) = graph.hub_into(v) {
        w.collective = graph.time(v).0.saturating_sub(graph.hub_time(h).0);
    }
    w
}

/// Which in-edge gave a vertex its heaviest weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The vertex starts its process.
    Start,
    /// Its program predecessor.
    Program,
    /// Its message.
    Message,
    /// Its collective's hub.
    Collective,
}

/// The result of a longest-path pass.
#[derive(Debug, Clone, PartialEq)]
pub struct LongestPath<T> {
    /// The heaviest weight reaching each vertex.
    pub dist: Vec<T>,
    /// Which in-edge gave it.
    pub via: Vec<Via>,
    /// Each collective hub's heaviest source enter.
    pub hub_best: Vec<Option<EventIdx>>,
    /// The vertex where the heaviest path ends (a process's last vertex).
    pub end: Option<EventIdx>,
    /// The path's total weight.
    pub length: T,
}

/// The heaviest path through the graph under `weights`.
pub fn longest_path<T: Weight>(graph: &ExecutionGraph, weights: &EdgeWeights<T>) -> LongestPath<T> {
    let n = graph.len();
    let mut dist = vec![T::default(); n];
    let mut via = vec![Via::Start; n];
    let mut hub_dist = vec![T::default(); graph.n_hubs()];
    let mut hub_best: Vec<Option<EventIdx>> = vec![None; graph.n_hubs()];
    let mut end: Option<EventIdx> = None;
    let mut length = T::default();
    for v in graph.topological_order() {
        let i = v.index();
        let (mut best, mut how) = match graph.prev(v) {
            Some(prev) => (dist[prev.index()].plus(weights.program[i]), Via::Program),
            None => (weights.program[i], Via::Start),
        };
        if let Some(send) = graph.message_from(v) {
            let through_message = dist[send.index()].plus(weights.message[i]);
            // On a tie the message wins: the arrival determined the completion.
            if through_message >= best {
                best = through_message;
                how = Via::Message;
            }
        }
        if let Some(h) = graph.hub_into(v)
            && hub_best[h].is_some()
        {
            let through_hub = hub_dist[h].plus(weights.collective[i]);
            // On a tie the hub wins: the last entry determined the completion.
            if through_hub >= best {
                best = through_hub;
                how = Via::Collective;
            }
        }
        dist[i] = best;
        via[i] = how;
        if let Some(h) = graph.hub_from(v)
            && (hub_best[h].is_none() || best > hub_dist[h])
        {
            hub_dist[h] = best;
            hub_best[h] = Some(v);
        }
        let later = |e: EventIdx| {
            graph.time(v) > graph.time(e) || (graph.time(v) == graph.time(e) && v > e)
        };
        if graph.next(v).is_none()
            && (end.is_none() || best > length || (best == length && end.is_some_and(later)))
        {
            end = Some(v);
            length = best;
        }
    }
    LongestPath {
        dist,
        via,
        hub_best,
        end,
        length,
    }
}

/// What an edge of a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// From the trace's origin to a process's first event.
    Start,
    /// Computation between two events of a process.
    Computation,
    /// A message in transit.
    Transit,
    /// A process blocked in a receive or a collective (weight 0 on paths).
    Blocked,
    /// A collective member's completion after the last member entered.
    Collective,
    /// A process waiting for its processor or for a time (weighted by its duration: no other
    /// process's action ends it).
    Waiting,
}

/// One edge of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathEdge {
    /// The edge's source vertex (`None` for a start edge).
    pub from: Option<EventIdx>,
    /// The edge's target vertex.
    pub to: EventIdx,
    /// What the edge is.
    pub kind: SegmentKind,
}

impl PathEdge {
    /// The process the edge is attributed to: its own for program edges, the receiver's for a
    /// message (the process that waits on it, as decision D-a assigns message edges).
    pub fn process(&self, trace: &Trace) -> ProcessId {
        trace.events.process()[self.to.index()]
    }

    /// The edge's interval: [source time, target time], or the transit [send, arrival].
    pub fn interval(&self, trace: &Trace, graph: &ExecutionGraph) -> (Time, Time) {
        match (self.kind, self.from) {
            (SegmentKind::Transit, Some(from)) => (
                trace.events.time()[from.index()],
                trace.events.time()[self.to.index()],
            ),
            (SegmentKind::Collective, _) => {
                let start = graph
                    .hub_into(self.to)
                    .map_or(graph.time(self.to), |h| graph.hub_time(h));
                (start, graph.time(self.to))
            }
            (_, Some(from)) => (graph.time(from), graph.time(self.to)),
            (_, None) => (graph.origin(), graph.time(self.to)),
        }
    }
}

/// The edges of the heaviest path, from its start to its end.
pub fn path_edges<T>(graph: &ExecutionGraph, path: &LongestPath<T>) -> Vec<PathEdge> {
    let mut edges = Vec::new();
    let mut cursor = path.end;
    while let Some(v) = cursor {
        let edge = match (
            path.via[v.index()],
            graph.message_from(v),
            graph.prev(v),
            graph.hub_into(v),
        ) {
            (Via::Message, Some(send), _, _) => PathEdge {
                from: Some(send),
                to: v,
                kind: SegmentKind::Transit,
            },
            (Via::Collective, _, _, Some(h)) => PathEdge {
                from: path.hub_best[h],
                to: v,
                kind: SegmentKind::Collective,
            },
            (_, _, Some(prev), _) => {
                let kind = match graph.in_edge(v) {
                    ProgramEdge::Blocked => SegmentKind::Blocked,
                    ProgramEdge::Waiting => SegmentKind::Waiting,
                    ProgramEdge::Computation | ProgramEdge::Start => SegmentKind::Computation,
                };
                PathEdge {
                    from: Some(prev),
                    to: v,
                    kind,
                }
            }
            _ => PathEdge {
                from: None,
                to: v,
                kind: SegmentKind::Start,
            },
        };
        edges.push(edge);
        cursor = edge.from;
    }
    edges.reverse();
    edges
}
