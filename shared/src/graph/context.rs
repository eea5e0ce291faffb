//! The analysis context: everything the analyses read of one trace, built once — its messages,
//! execution graph, process states, busy timelines and attribution — and the edge weights
//! derived from them (CPU time, WCPA).
//!
//! The server builds one per run and keeps it; `tracescope analyze` builds one per file.

use crate::graph::attribution::Attribution;
use crate::graph::critical_path::{EdgeWeights, elapsed_into};
use crate::graph::execution::{ExecutionGraph, ProgramEdge};
use crate::graph::pairing::{Pairing, pair_messages};
use crate::graph::states::{StateSpan, state_spans_of};
use crate::graph::timeline::{BusyAt, Hints, Timeline};
use crate::model::{EventIdx, NodeId, Trace};

/// Everything the analyses need, computed once per trace.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// Its messages.
    pub pairing: Pairing,
    /// Its execution graph.
    pub graph: ExecutionGraph,
    /// Its process states.
    pub spans: Vec<StateSpan>,
    /// Its busy functions.
    pub timeline: Timeline,
    /// Region and phase of every vertex.
    pub attribution: Attribution,
}

impl<'a> Context<'a> {
    /// Pairs messages, builds the graph, the states, the timeline and the attribution.
    pub fn new(trace: &'a Trace) -> Context<'a> {
        let pairing = pair_messages(trace);
        let graph = ExecutionGraph::new(trace, &pairing);
        let spans = state_spans_of(trace, &graph);
        let timeline = Timeline::new(trace, &spans);
        let attribution = Attribution::new(trace, &graph);
        Context {
            trace,
            pairing,
            graph,
            spans,
            timeline,
            attribution,
        }
    }

    fn node_of(&self, v: EventIdx) -> NodeId {
        let p = self.trace.events.process()[v.index()];
        self.trace
            .processes
            .get(p.index())
            .map_or(NodeId(0), |p| p.node)
    }

    /// Program-edge weights of CPU time: computation edges weigh the CPU time their process got
    /// while timeslicing with the other processes of its node (thesis §3.3, test T7); message
    /// edges weigh `message_weight`.
    pub fn cpu_time_weights(&self, message_weight: impl Fn(u64) -> f64) -> EdgeWeights<f64> {
        let n = self.graph.len();
        let mut w = EdgeWeights::zeros(n);
        let mut hints = self.timeline.hints();
        for v in (0..n as u32).map(EventIdx) {
            let i = v.index();
            let elapsed = elapsed_into(self.trace, &self.graph, v);
            w.message[i] = message_weight(elapsed.message);
            w.collective[i] = elapsed.collective as f64;
            match (self.graph.prev(v), self.graph.in_edge(v)) {
                (None, _) => w.program[i] = elapsed.seed as f64,
                (Some(prev), ProgramEdge::Computation) => {
                    w.program[i] = self.timeline.cpu_time_near(
                        self.node_of(v),
                        self.graph.time(prev).0,
                        self.graph.time(v).0,
                        &mut hints,
                    );
                }
                (Some(_), _) => {}
            }
        }
        w
    }

    /// WCPA weights (decision D-a): w = n·dt − B_o, where B_o is the busy time of the other
    /// processors during the edge; a message edge belongs to its receiver's processor; blocked
    /// edges weigh 0; a process's start is an edge from the origin on its own processor.
    pub fn wcpa_weights(&self) -> EdgeWeights<f64> {
        let n_proc = self.timeline.n_processors.max(1) as f64;
        let times = self.trace.events.time();
        let origin = self.graph.origin().0;
        let n = self.graph.len();
        let mut w = EdgeWeights::zeros(n);
        // One stream of searches per kind of edge: each moves forward with its process. A
        // vertex's own time serves its start edge and its program edge, and the next vertex's
        // program edge: its busy integrals are looked up once.
        let [mut at_vertex, mut at_origin, mut message, mut collective] =
            std::array::from_fn(|_| self.timeline.hints());
        let weight = |node: NodeId, a: u64, b: u64, hints: &mut Hints| {
            if b <= a {
                0.0
            } else {
                n_proc * (b - a) as f64 - self.timeline.others_busy_time_near(node, a, b, hints)
            }
        };
        let mut origin_busy: Vec<Option<BusyAt>> = vec![None; self.trace.nodes.len()];
        let mut last: Option<(EventIdx, BusyAt)> = None;
        for v in (0..n as u32).map(EventIdx) {
            let i = v.index();
            let node = self.node_of(v);
            let t = self.graph.time(v).0;
            let here = self.timeline.busy_at(node, t, &mut at_vertex);
            if self.graph.prev(v).is_none() && t > origin {
                let from = match origin_busy.get_mut(node.index()) {
                    Some(Some(busy)) => *busy,
                    Some(slot) => *slot.insert(self.timeline.busy_at(node, origin, &mut at_origin)),
                    None => self.timeline.busy_at(node, origin, &mut at_origin),
                };
                w.program[i] =
                    n_proc * (t - origin) as f64 - Timeline::others_busy_between(from, here);
            }
            if let (Some(prev), ProgramEdge::Computation) =
                (self.graph.prev(v), self.graph.in_edge(v))
            {
                let a = self.graph.time(prev).0;
                if t > a {
                    let from = match last {
                        Some((u, busy)) if u == prev => busy,
                        _ => self.timeline.busy_at(node, a, &mut at_origin),
                    };
                    w.program[i] =
                        n_proc * (t - a) as f64 - Timeline::others_busy_between(from, here);
                }
            }
            last = Some((v, here));
            if let Some(send) = self.graph.message_from(v) {
                w.message[i] = weight(node, times[send.index()].0, times[i].0, &mut message);
            }
            if let Some(h) = self.graph.hub_into(v) {
                w.collective[i] = weight(node, self.graph.hub_time(h).0, t, &mut collective);
            }
        }
        w
    }
}
