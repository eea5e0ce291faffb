//! The Hasse view's diagram: the happened-before covering relation as drawn — events as
//! vertices on their process's row, Hasse edges as lines — with local runs (consecutive events
//! of one process that no message or collective touches) collapsed into one vertex with a
//! count, as ShiViz does, and each vertex placed on three x axes: its longest-path layer in
//! the collapsed diagram, its Lamport time, and its physical time.
//!
//! Everything here is computed from the engine's [`Causality`] and [`hasse_edges`]; the view
//! only lays it out.

use serde::{Deserialize, Serialize};

use crate::analyses::causality::{Causality, HasseKind, hasse_edges, lamport_clocks};
use crate::graph::execution::ExecutionGraph;
use crate::model::time::Time;
use crate::model::{EventIdx, EventKind, ProcessId, Trace};

/// The quantity the diagram's x axis shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// Longest-path layers of the drawn diagram (ShiViz's layout).
    #[default]
    Layer,
    /// Lamport clocks of the events.
    Lamport,
    /// Physical time: a causality history diagram.
    Physical,
}

/// A drawn vertex: one event, or a collapsed local run of `count` events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vertex {
    /// The (first) event.
    pub event: EventIdx,
    /// How many events it stands for (1 unless a collapsed run).
    pub count: u32,
    /// Its process.
    pub process: ProcessId,
    /// The first event's kind.
    pub kind: EventKind,
    /// Its longest-path layer in the drawn diagram.
    pub layer: u32,
    /// The first event's Lamport time.
    pub lamport: u32,
    /// The first event's time.
    pub time: Time,
    /// The last event's time (= `time` for one event).
    pub last_time: Time,
}

/// A drawn edge between two vertices (indices into [`Diagram::vertices`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// The earlier vertex.
    pub from: u32,
    /// The later vertex.
    pub to: u32,
    /// What it stands for.
    pub kind: HasseKind,
    /// Whether it goes back in physical time (a clock-condition violation).
    pub backwards: bool,
}

/// The diagram of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagram {
    /// The vertices, grouped by process in program order.
    pub vertices: Vec<Vertex>,
    /// The Hasse edges between different vertices.
    pub edges: Vec<Edge>,
    /// How many layers the diagram has.
    pub layers: u32,
    /// Each event's vertex (index into `vertices`).
    pub vertex_of: Vec<u32>,
}

/// How the diagram collapses local runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collapse<'a> {
    /// Every event is its own vertex.
    None,
    /// Local runs of two or more events are one vertex, but for the runs whose first event is
    /// listed (ascending), which stay expanded.
    Runs {
        /// First events of runs kept expanded, ascending.
        expanded: &'a [EventIdx],
    },
}

impl Diagram {
    /// The diagram of `trace` (its execution graph `graph`, causality `causality`).
    pub fn new(
        trace: &Trace,
        graph: &ExecutionGraph,
        causality: &Causality,
        collapse: Collapse<'_>,
    ) -> Diagram {
        let n = trace.events.len();
        let hasse = hasse_edges(graph, causality);
        // Events a message or collective touches are always vertices of their own.
        let mut talks = vec![false; n];
        for h in hasse.iter().filter(|h| h.kind != HasseKind::Program) {
            talks[h.from.index()] = true;
            talks[h.to.index()] = true;
        }
        for (i, &peer) in trace.events.peer().iter().enumerate() {
            talks[i] |= peer.is_some();
        }
        let lamport = lamport_clocks(graph);
        let times = trace.events.time();
        let kinds = trace.events.kind();
        let mut vertices: Vec<Vertex> = Vec::new();
        let mut vertex_of = vec![0u32; n];
        for p in trace.process_ids() {
            let range = trace.process_events(p);
            let mut i = range.start;
            while i < range.end {
                // A local run [i, j): events no message or collective touches.
                let mut j = i;
                while j < range.end && !talks[j] {
                    j += 1;
                }
                let kept = match collapse {
                    Collapse::None => true,
                    Collapse::Runs { expanded } => {
                        j - i < 2 || expanded.binary_search(&EventIdx(i as u32)).is_ok()
                    }
                };
                let mut push = |a: usize, b: usize| {
                    let id = vertices.len() as u32;
                    vertex_of[a..b].fill(id);
                    vertices.push(Vertex {
                        event: EventIdx(a as u32),
                        count: (b - a) as u32,
                        process: p,
                        kind: kinds[a],
                        layer: 0,
                        lamport: lamport.get(a).copied().unwrap_or(0),
                        time: times[a],
                        last_time: times[b - 1],
                    });
                };
                // A talking event is a vertex of its own; a kept run one vertex per event.
                if j == i {
                    push(i, i + 1);
                } else if kept {
                    (i..j).for_each(|k| push(k, k + 1));
                } else {
                    push(i, j);
                }
                i = j.max(i + 1);
            }
        }
        let mut edges: Vec<Edge> = hasse
            .iter()
            .filter_map(|h| {
                let (from, to) = (vertex_of[h.from.index()], vertex_of[h.to.index()]);
                (from != to).then_some(Edge {
                    from,
                    to,
                    kind: h.kind,
                    backwards: times[h.to.index()] < times[h.from.index()],
                })
            })
            .collect();
        edges.sort_unstable_by_key(|e| (e.to, e.from));
        edges.dedup_by_key(|e| (e.to, e.from, e.kind));
        // Layers in the drawn diagram: edges end at a vertex's first event, so visiting first
        // events in topological order sees every source's layer before it is needed.
        let mut first_in = vec![0u32; vertices.len() + 1];
        for e in &edges {
            first_in[e.to as usize + 1] += 1;
        }
        for k in 1..first_in.len() {
            first_in[k] += first_in[k - 1];
        }
        for v in graph.topological_order() {
            let id = vertex_of[v.index()] as usize;
            if vertices[id].event != v {
                continue;
            }
            let ins = &edges[first_in[id] as usize..first_in[id + 1] as usize];
            vertices[id].layer = ins
                .iter()
                .map(|e| vertices[e.from as usize].layer + 1)
                .max()
                .unwrap_or(0);
        }
        let layers = vertices.iter().map(|v| v.layer + 1).max().unwrap_or(0);
        Diagram {
            vertices,
            edges,
            layers,
            vertex_of,
        }
    }

    /// A vertex's position on `axis`: its layer, its Lamport time, or its time in ticks.
    pub fn x(&self, vertex: &Vertex, axis: Axis) -> u64 {
        match axis {
            Axis::Layer => u64::from(vertex.layer),
            Axis::Lamport => u64::from(vertex.lamport),
            Axis::Physical => vertex.time.0,
        }
    }

    /// The extent of `axis`: `[first, last]` over every vertex.
    pub fn extent(&self, axis: Axis) -> (u64, u64) {
        let xs = self.vertices.iter().map(|v| self.x(v, axis));
        let first = xs.clone().min().unwrap_or(0);
        let last = xs.max().unwrap_or(0);
        (first, last)
    }
}
