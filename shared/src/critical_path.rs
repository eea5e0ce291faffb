//! Longest paths on the execution graph: the critical path (weights = elapsed time), and the
//! same algorithm with other weights (WCPA, CPU-time relabelling, what-if).
//!
//! One pass in topological order, O(V + E): dist(v) = max(dist(prev) + w_program(v),
//! dist(send) + w_message(v)), seeded at each process's first vertex.

use std::ops::Add;

use serde::{Deserialize, Serialize};

use crate::graph::{ExecutionGraph, ProgramEdge};
use crate::model::{EventIdx, ProcessId, Trace};
use crate::time::Time;

/// A path weight: ticks (`u64`) or weighted ticks (`f64`).
pub trait Weight: Copy + PartialOrd + Add<Output = Self> + Default {}
impl Weight for u64 {}
impl Weight for f64 {}

/// The weight of each vertex's in-edges.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeWeights<T> {
    /// For a process's first vertex: the weight of reaching it from the trace's origin.
    pub seed: Vec<T>,
    /// The weight of the program edge into each vertex.
    pub program: Vec<T>,
    /// The weight of the message edge into each arrival vertex.
    pub message: Vec<T>,
}

impl EdgeWeights<u64> {
    /// Elapsed time: computation edges weigh their duration, blocked edges 0, message edges
    /// their transit (arrival − send, 0 when a clock violation makes it negative), and a
    /// process's start its offset from the origin.
    pub fn elapsed(trace: &Trace, graph: &ExecutionGraph) -> EdgeWeights<u64> {
        let n = graph.len();
        let times = trace.events.time();
        let mut w = EdgeWeights { seed: vec![0; n], program: vec![0; n], message: vec![0; n] };
        for v in (0..n as u32).map(EventIdx) {
            let i = v.index();
            w.seed[i] = graph.time(v).0.saturating_sub(graph.origin().0);
            if let Some(prev) = graph.prev(v) {
                w.program[i] = match graph.in_edge(v) {
                    ProgramEdge::Blocked | ProgramEdge::Start => 0,
                    ProgramEdge::Computation => graph.time(v).0.saturating_sub(graph.time(prev).0),
                };
            }
            if let Some(send) = graph.message_from(v) {
                w.message[i] = times[i].0.saturating_sub(times[send.index()].0);
            }
        }
        w
    }
}

/// The result of a longest-path pass.
#[derive(Debug, Clone, PartialEq)]
pub struct LongestPath<T> {
    /// The heaviest weight reaching each vertex.
    pub dist: Vec<T>,
    /// Whether that weight came through the vertex's message edge.
    pub via_message: Vec<bool>,
    /// The vertex where the heaviest path ends (a process's last vertex).
    pub end: Option<EventIdx>,
    /// The path's total weight.
    pub length: T,
}

/// The heaviest path through the graph under `weights`.
pub fn longest_path<T: Weight>(graph: &ExecutionGraph, weights: &EdgeWeights<T>) -> LongestPath<T> {
    let n = graph.len();
    let mut dist = vec![T::default(); n];
    let mut via_message = vec![false; n];
    let mut end: Option<EventIdx> = None;
    let mut length = T::default();
    for v in graph.topological_order() {
        let i = v.index();
        let mut best = match graph.prev(v) {
            Some(prev) => dist[prev.index()] + weights.program[i],
            None => weights.seed[i],
        };
        if let Some(send) = graph.message_from(v) {
            let through_message = dist[send.index()] + weights.message[i];
            // On a tie the message wins: the arrival determined the completion.
            if through_message >= best {
                best = through_message;
                via_message[i] = true;
            }
        }
        dist[i] = best;
        let later = |e: EventIdx| graph.time(v) > graph.time(e) || (graph.time(v) == graph.time(e) && v > e);
        if graph.next(v).is_none() && (end.is_none() || best > length || (best == length && end.is_some_and(later))) {
            end = Some(v);
            length = best;
        }
    }
    LongestPath { dist, via_message, end, length }
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
    /// A process blocked in a receive (weight 0 on paths).
    Blocked,
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
            (SegmentKind::Transit, Some(from)) => (trace.events.time()[from.index()], trace.events.time()[self.to.index()]),
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
        let edge = match (path.via_message[v.index()], graph.message_from(v), graph.prev(v)) {
            (true, Some(send), _) => PathEdge { from: Some(send), to: v, kind: SegmentKind::Transit },
            (_, _, Some(prev)) => {
                let kind = match graph.in_edge(v) {
                    ProgramEdge::Blocked => SegmentKind::Blocked,
                    ProgramEdge::Computation | ProgramEdge::Start => SegmentKind::Computation,
                };
                PathEdge { from: Some(prev), to: v, kind }
            }
            _ => PathEdge { from: None, to: v, kind: SegmentKind::Start },
        };
        edges.push(edge);
        cursor = edge.from;
    }
    edges.reverse();
    edges
}
