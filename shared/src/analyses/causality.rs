//! Causality: vector clocks, happened-before, the pre-area and post-area of an event, the Hasse
//! diagram (transitive reduction of program-order and message edges), longest-path layers for
//! drawing it, and Lamport clocks as a logical time axis.
//!
//! Vector clocks are stored sparsely: only a receive completion changes another process's
//! component, so each vertex points at the snapshot of its latest receive (or of its process's
//! start) and its own component is its 1-based position in program order.
//! Memory is O((receives + processes) · p), not O(N · p).

use serde::{Deserialize, Serialize};

use crate::graph::execution::ExecutionGraph;
use crate::model::{EventIdx, ProcessId, Trace};

/// Vector clocks and program positions of every vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct Causality {
    n_processes: usize,
    process: Vec<ProcessId>,
    /// Each vertex's 1-based position in its process's program order.
    local: Vec<u32>,
    /// Each vertex's snapshot index.
    snapshot_of: Vec<u32>,
    /// Snapshots, `n_processes` components each.
    clocks: Vec<u32>,
    /// Each process's vertices in program order (CSR).
    program_start: Vec<u32>,
    program: Vec<EventIdx>,
}

/// An index range of a process's events in program order: positions [start, end) (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessRange {
    /// The process.
    pub process: ProcessId,
    /// First position in program order.
    pub start: u32,
    /// One past the last position.
    pub end: u32,
}

/// What a Hasse edge stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HasseKind {
    /// Program order within a process.
    Program,
    /// A message.
    Message,
    /// A collective: a source member's enter before a waiting member's leave (through the
    /// instance's hub in the execution graph).
    Collective,
}

/// A Hasse edge: the covering relation of happened-before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HasseEdge {
    /// The earlier event.
    pub from: EventIdx,
    /// The later event.
    pub to: EventIdx,
    /// What it stands for.
    pub kind: HasseKind,
}

/// Whether `v` starts a new vector-clock snapshot: a receive completion or a collective's end
/// (it joins another clock), or a process's first vertex.
fn takes_snapshot(graph: &ExecutionGraph, v: EventIdx) -> bool {
    graph.message_from(v).is_some() || graph.hub_into(v).is_some() || graph.prev(v).is_none()
}

/// How many vector-clock snapshots [`Causality::new`] makes for `graph`.
fn snapshots(graph: &ExecutionGraph) -> u64 {
    (0..graph.len())
        .filter(|&i| takes_snapshot(graph, EventIdx(i as u32)))
        .count() as u64
}

impl Causality {
    /// The bytes [`Causality::new`] allocates for `trace`, counted in one pass over the graph
    /// before anything is built: 4 bytes × processes for every snapshot (each receive, each
    /// collective's end, each process's start) and for every collective's own clock, and 16
    /// bytes an event. A trace of many processes costs about 4 × processes² even with few
    /// events, which is what a caller checks against its memory budget. Saturates rather than
    /// wraps.
    pub fn estimated_bytes(trace: &Trace, graph: &ExecutionGraph) -> u64 {
        let n = graph.len() as u64;
        let p = trace.processes.len() as u64;
        let clocks = p.saturating_mul(snapshots(graph).saturating_add(graph.n_hubs() as u64));
        clocks
            .saturating_mul(4)
            .saturating_add(n.saturating_mul(16))
            .saturating_add(p.saturating_add(1).saturating_mul(4))
    }

    /// Computes every vertex's vector clock in one topological pass. The snapshots' room is
    /// reserved exactly (counted first), so building takes [`Causality::estimated_bytes`] and
    /// not up to twice as much while a growing vector doubles.
    pub fn new(trace: &Trace, graph: &ExecutionGraph) -> Causality {
        let n = graph.len();
        let p = trace.processes.len();
        let clock_words = usize::try_from(snapshots(graph))
            .unwrap_or(usize::MAX)
            .saturating_mul(p);
        let mut c = Causality {
            n_processes: p,
            process: trace.events.process().to_vec(),
            local: vec![0; n],
            snapshot_of: vec![0; n],
            clocks: Vec::with_capacity(clock_words),
            program_start: Vec::with_capacity(p + 1),
            program: Vec::with_capacity(n),
        };
        c.program_start.push(0);
        for process in trace.process_ids() {
            for (pos, v) in graph.program(process).enumerate() {
                c.local[v.index()] = pos as u32 + 1;
                c.program.push(v);
            }
            c.program_start.push(c.program.len() as u32);
        }
        // Each hub's clock: the component-wise max of its sources, made when first needed.
        let mut hub_clock: Vec<Option<Vec<u32>>> = vec![None; graph.n_hubs()];
        for v in graph.topological_order() {
            let i = v.index();
            let hub = graph.hub_into(v);
            if let Some(h) = hub
                && hub_clock[h].is_none()
            {
                let mut clock = vec![0u32; p];
                for source in graph.hub_sources(h) {
                    for (q, slot) in clock.iter_mut().enumerate() {
                        *slot = (*slot).max(c.component(source, q));
                    }
                }
                hub_clock[h] = Some(clock);
            }
            let joins = graph.message_from(v).is_some() || hub.is_some();
            match graph.prev(v) {
                prev if joins => {
                    let snapshot = (c.clocks.len() / p.max(1)) as u32;
                    for q in 0..p {
                        let mut value = prev.map_or(0, |pv| c.component(pv, q));
                        if let Some(send) = graph.message_from(v) {
                            value = value.max(c.component(send, q));
                        }
                        if let Some(clock) = hub.and_then(|h| hub_clock[h].as_ref()) {
                            value = value.max(clock[q]);
                        }
                        c.clocks.push(value);
                    }
                    c.snapshot_of[i] = snapshot;
                }
                Some(prev) => c.snapshot_of[i] = c.snapshot_of[prev.index()],
                None => {
                    c.snapshot_of[i] = (c.clocks.len() / p.max(1)) as u32;
                    c.clocks.extend(std::iter::repeat_n(0, p));
                }
            }
        }
        c
    }

    /// Component `q` of `v`'s vector clock.
    pub fn component(&self, v: EventIdx, q: usize) -> u32 {
        let i = v.index();
        if self.process[i].index() == q {
            self.local[i]
        } else {
            self.clocks
                .get(self.snapshot_of[i] as usize * self.n_processes + q)
                .copied()
                .unwrap_or(0)
        }
    }

    /// `v`'s whole vector clock.
    pub fn vector_clock(&self, v: EventIdx) -> Vec<u32> {
        (0..self.n_processes)
            .map(|q| self.component(v, q))
            .collect()
    }

    /// `v`'s 1-based position in its process's program order.
    pub fn position(&self, v: EventIdx) -> u32 {
        self.local[v.index()]
    }

    /// Whether `e` happened before `f` (e → f, e ≠ f).
    pub fn happened_before(&self, e: EventIdx, f: EventIdx) -> bool {
        e != f && self.component(f, self.process[e.index()].index()) >= self.local[e.index()]
    }

    /// Whether neither happened before the other.
    pub fn concurrent(&self, e: EventIdx, f: EventIdx) -> bool {
        e != f && !self.happened_before(e, f) && !self.happened_before(f, e)
    }

    fn program_of(&self, q: usize) -> &[EventIdx] {
        let start = self.program_start[q] as usize;
        let end = self.program_start[q + 1] as usize;
        &self.program[start..end]
    }

    /// The causal past of `f`: per process, the program-order prefix that happened before it.
    pub fn pre_area(&self, f: EventIdx) -> Vec<ProcessRange> {
        let me = self.process[f.index()].index();
        (0..self.n_processes)
            .map(|q| {
                let end = if q == me {
                    self.local[f.index()] - 1
                } else {
                    self.component(f, q)
                };
                ProcessRange {
                    process: ProcessId(q as u32),
                    start: 0,
                    end,
                }
            })
            .filter(|r| r.end > r.start)
            .collect()
    }

    /// The causal future of `e`: per process, the program-order suffix that it happened before.
    pub fn post_area(&self, e: EventIdx) -> Vec<ProcessRange> {
        let me = self.process[e.index()].index();
        let idx = self.local[e.index()];
        (0..self.n_processes)
            .map(|q| {
                let program = self.program_of(q);
                let start = if q == me {
                    idx
                } else {
                    // Component `me` never decreases along q's program, so binary search.
                    program.partition_point(|&f| self.component(f, me) < idx) as u32
                };
                ProcessRange {
                    process: ProcessId(q as u32),
                    start,
                    end: program.len() as u32,
                }
            })
            .filter(|r| r.end > r.start)
            .collect()
    }

    /// The events of a range.
    pub fn range_events(&self, range: ProcessRange) -> &[EventIdx] {
        let program = self.program_of(range.process.index());
        program
            .get(range.start as usize..range.end as usize)
            .unwrap_or(&[])
    }
}

/// The most edges [`hasse_edges`] can answer for `graph`: each vertex's program and message
/// in-edges and one from each source of the collective it ends (a collective of p processes
/// has p² of them).
pub fn max_hasse_edges(graph: &ExecutionGraph) -> u64 {
    (0..graph.len())
        .map(|i| {
            let v = EventIdx(i as u32);
            let collective = graph
                .hub_into(v)
                .map_or(0, |h| graph.hub_source_count(h) as u64);
            u64::from(graph.prev(v).is_some())
                + u64::from(graph.message_from(v).is_some())
                + collective
        })
        .fold(0u64, u64::saturating_add)
}

/// The Hasse diagram: every program-order and message edge that no other path implies.
///
/// At a receive r with program predecessor p and send s, the message edge s → r is implied when
/// s happened before p, and the program edge p → r when p happened before s.
pub fn hasse_edges(graph: &ExecutionGraph, causality: &Causality) -> Vec<HasseEdge> {
    let mut edges = Vec::new();
    let mut sources: Vec<EventIdx> = Vec::new();
    for v in graph.topological_order() {
        let prev = graph.prev(v);
        let send = graph.message_from(v);
        sources.clear();
        if let Some(h) = graph.hub_into(v) {
            sources.extend(graph.hub_sources(h).filter(|&s| Some(s) != prev));
        }
        // Every other in-edge source of v; an in-edge is implied when its source happened
        // before another in-edge's source.
        let others = |from: EventIdx| {
            prev.into_iter()
                .chain(send)
                .chain(sources.iter().copied())
                .filter(move |&o| o != from)
        };
        let implied = |from: EventIdx| others(from).any(|o| causality.happened_before(from, o));
        if let Some(p) = prev
            && !implied(p)
        {
            edges.push(HasseEdge {
                from: p,
                to: v,
                kind: HasseKind::Program,
            });
        }
        if let Some(s) = send
            && !implied(s)
        {
            edges.push(HasseEdge {
                from: s,
                to: v,
                kind: HasseKind::Message,
            });
        }
        for &s in &sources {
            if !implied(s) {
                edges.push(HasseEdge {
                    from: s,
                    to: v,
                    kind: HasseKind::Collective,
                });
            }
        }
    }
    edges
}

/// Longest-path layers (ShiViz's space-time layout): 0 for events with no predecessor, else one
/// more than the deepest predecessor.
pub fn layers(graph: &ExecutionGraph) -> Vec<u32> {
    let mut layer = vec![0u32; graph.len()];
    for v in graph.topological_order() {
        let from_prev = graph.prev(v).map(|p| layer[p.index()] + 1);
        let from_send = graph.message_from(v).map(|s| layer[s.index()] + 1);
        let from_hub = graph
            .hub_into(v)
            .and_then(|h| graph.hub_sources(h).map(|s| layer[s.index()] + 1).max());
        layer[v.index()] = from_prev.max(from_send).max(from_hub).unwrap_or(0);
    }
    layer
}

/// Lamport clocks: 1 for a first event, else one more than the largest of its predecessors'.
pub fn lamport_clocks(graph: &ExecutionGraph) -> Vec<u32> {
    layers(graph).into_iter().map(|l| l + 1).collect()
}

#[cfg(test)]
mod tests {
    use super::Causality;
    use crate::graph::execution::ExecutionGraph;
    use crate::graph::pairing::pair_messages;

    /// The heap bytes a built `Causality` holds.
    fn held(c: &Causality) -> u64 {
        (4 * (c.process.capacity()
            + c.local.capacity()
            + c.snapshot_of.capacity()
            + c.clocks.capacity()
            + c.program_start.capacity()
            + c.program.capacity())) as u64
    }

    #[test]
    fn the_estimate_is_what_building_takes_and_grows_with_processes_squared() {
        for (processes, events) in [(16, 20_000), (300, 1_200), (2_000, 8_000)] {
            let trace = crate::model::synthetic::ring(processes, events);
            let graph = ExecutionGraph::new(&trace, &pair_messages(&trace));
            let estimate = Causality::estimated_bytes(&trace, &graph);
            let built = Causality::new(&trace, &graph);
            let held = held(&built);
            // The estimate leaves out only the hubs' own clocks (none in a ring) and rounding.
            assert!(estimate >= held, "{processes}: {estimate} < {held}");
            assert!(
                estimate <= held + held / 10 + 64,
                "{processes}: {estimate} ≫ {held}"
            );
        }
        // Few events a process, many processes: the clocks dominate, ~4 bytes × p² × 2 (each
        // process's start and its one receive).
        let trace = crate::model::synthetic::ring(50_000, 200_000);
        let graph = ExecutionGraph::new(&trace, &pair_messages(&trace));
        let estimate = Causality::estimated_bytes(&trace, &graph);
        assert!(estimate >= 4 * 50_000u64 * 50_000, "{estimate}");
    }
}
