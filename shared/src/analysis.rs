//! The whole analysis of a trace: execution time, computation, speedup, efficiency, granularity,
//! critical path, weighted critical path (WCPA) with its phase table, Quartz normalized processor
//! time, the parallelism profile, POP factors, bounds and diagnostics.
//!
//! The definitions follow `../shared/reference/analysis.md`, whose decisions D-a to D-f are
//! binding; the comments name the decision each computation follows.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::attribution::Attribution;
use crate::critical_path::{
    EdgeWeights, LongestPath, PathEdge, SegmentKind, longest_path, path_edges,
};
use crate::graph::{ExecutionGraph, ProgramEdge};
use crate::model::{Direction, EventIdx, EventKind, LinkId, NodeId, ProcessId, RegionId, Trace};
use crate::pairing::{Pairing, pair_messages};
use crate::states::{State, StateSpan, state_spans_of};
use crate::timeline::Timeline;
use crate::utilization::{Utilization, cpu_utilization, link_utilization};
use crate::validate::{Diagnostic, ValidationOptions, validate};

/// Options of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AnalysisOptions {
    /// Validation options (the clock condition's minimum latency).
    pub validation: ValidationOptions,
}

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
        let elapsed = EdgeWeights::elapsed(self.trace, &self.graph);
        let n = self.graph.len();
        let mut w = EdgeWeights::zeros(n);
        for v in (0..n as u32).map(EventIdx) {
            let i = v.index();
            w.seed[i] = elapsed.seed[i] as f64;
            w.message[i] = message_weight(elapsed.message[i]);
            w.collective[i] = elapsed.collective[i] as f64;
            if let (Some(prev), ProgramEdge::Computation) =
                (self.graph.prev(v), self.graph.in_edge(v))
            {
                w.program[i] = self.timeline.cpu_time(
                    self.node_of(v),
                    self.graph.time(prev).0,
                    self.graph.time(v).0,
                );
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
        let weight = |node: NodeId, a: u64, b: u64| {
            if b <= a {
                0.0
            } else {
                n_proc * (b - a) as f64 - self.timeline.others_busy_time(node, a, b)
            }
        };
        for v in (0..n as u32).map(EventIdx) {
            let i = v.index();
            let node = self.node_of(v);
            w.seed[i] = weight(node, origin, self.graph.time(v).0);
            if let (Some(prev), ProgramEdge::Computation) =
                (self.graph.prev(v), self.graph.in_edge(v))
            {
                w.program[i] = weight(node, self.graph.time(prev).0, self.graph.time(v).0);
            }
            if let Some(send) = self.graph.message_from(v) {
                w.message[i] = weight(node, times[send.index()].0, times[i].0);
            }
            if let Some(h) = self.graph.hub_into(v) {
                w.collective[i] = weight(node, self.graph.hub_time(h).0, self.graph.time(v).0);
            }
        }
        w
    }
}

/// computation : communication (decision D-d).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Granularity {
    /// Total computation (CPU time).
    pub computation: f64,
    /// Total communication: the sum of message transit times (M).
    pub communication: u64,
    /// computation / communication, when there is communication.
    pub ratio: Option<f64>,
    /// Computation's share of computation + communication.
    pub computation_share: Option<f64>,
}

/// One segment of a path, attributed to a process, node, region and phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// Computation, message transit, start offset or blocked (0 weight).
    pub kind: SegmentKind,
    /// The process it belongs to (the receiver's, for a transit).
    pub process: ProcessId,
    /// That process's node.
    pub node: NodeId,
    /// The event it starts from (none for a start offset).
    pub from_event: Option<EventIdx>,
    /// The event it ends at.
    pub to_event: EventIdx,
    /// When it starts.
    pub start: u64,
    /// When it ends.
    pub end: u64,
    /// Its weight on the path (elapsed ticks for the critical path, WCPA weight for WCPA).
    pub weight: f64,
    /// The innermost region it ran in (the sender's, for a transit).
    pub region: Option<String>,
    /// The phase it ran in (the sender's, for a transit).
    pub phase: Option<String>,
}

/// A name and its share of a total.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// What it is (a process, region or phase name; "(none)" for unattributed time).
    pub name: String,
    /// Its weight.
    pub weight: f64,
    /// Its share of the total, from 0 to 1.
    pub share: f64,
}

/// The critical path: the longest path of the execution graph, in elapsed time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    /// Its length in ticks (= execution time for a consistent trace).
    pub length: u64,
    /// Its segments with positive length, in time order.
    pub segments: Vec<Segment>,
    /// Its share per process.
    pub by_process: Vec<Share>,
    /// Its share per innermost region.
    pub by_region: Vec<Share>,
    /// Its share per phase.
    pub by_phase: Vec<Share>,
    /// Its computation and transit totals.
    pub computation: f64,
    /// Its transit total.
    pub transit: f64,
}

/// The weighted critical path (decision D-a) and its phase table (the thesis's Table 6.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wcpa {
    /// The heaviest path's weight.
    pub weight: f64,
    /// Each phase's weight on the heaviest path and its share, heaviest first.
    pub phases: Vec<Share>,
    /// The heaviest path's segments.
    pub segments: Vec<Segment>,
}

/// Quartz's normalized processor time (decision D-b), ranked, heaviest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Npt {
    /// Per process.
    pub processes: Vec<Share>,
    /// Per region, inclusive (time with the region anywhere on the stack).
    pub regions_inclusive: Vec<Share>,
    /// Per region, exclusive (time with the region innermost).
    pub regions_exclusive: Vec<Share>,
    /// Per phase.
    pub phases: Vec<Share>,
    /// Σ NPT = wall time with at least one processor busy.
    pub total: f64,
}

/// Wall time with k processors busy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParallelismProfile {
    /// `time_with[k]`: ticks during which exactly k processors were busy.
    pub time_with: Vec<u64>,
    /// Σ k·time_k / execution time (the founding P_T times n).
    pub mean: f64,
    /// Σ k·time_k / Σ_{k≥1} time_k.
    pub mean_while_busy: f64,
}

/// POP efficiency factors: PE = LB × SerE × TE.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pop {
    /// mean(comp) / max(comp) over processes.
    pub load_balance: f64,
    /// max(comp) / ideal time.
    pub serialisation: f64,
    /// ideal time / execution time.
    pub transfer: f64,
    /// The product, = efficiency.
    pub parallel_efficiency: f64,
    /// The execution time on an ideal network (all transits 0).
    pub ideal_time: f64,
}

/// Speedup bounds from the trace (analysis.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Average parallelism A = T1 / T∞ (computation / critical path).
    pub average_parallelism: f64,
    /// Eager, Zahorjan and Lazowska's lower bound on speedup: nA / (n + A − 1).
    pub speedup_lower: f64,
    /// The upper bound min(n, A).
    pub speedup_upper: f64,
}

/// A node's CPU utilization over the whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeUtilization {
    /// The node.
    pub node: NodeId,
    /// Its name.
    pub name: String,
    /// Its CPU utilization over the execution time.
    pub cpu: Utilization,
}

/// A link's utilization in each direction over the whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkUse {
    /// The link.
    pub link: LinkId,
    /// From end a to end b.
    pub a_to_b: Utilization,
    /// From end b to end a.
    pub b_to_a: Utilization,
}

/// Times of one process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessTimes {
    /// The process.
    pub process: ProcessId,
    /// Its name.
    pub name: String,
    /// CPU time spent computing (wall time shared with timesliced neighbours).
    pub computation: f64,
    /// Wall time spent computing.
    pub wall_computation: u64,
    /// Wall time blocked in receives.
    pub blocked: u64,
}

/// The whole analysis, as `tracescope analyze --json` prints it (fields are only ever added).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The number of processors (nodes hosting processes).
    pub processors: u64,
    /// Last event − first event.
    pub execution_time: u64,
    /// Σ CPU time spent computing (relabelled when processes timeslice).
    pub total_computation: f64,
    /// Σ wall time spent computing.
    pub wall_computation: u64,
    /// total_computation / execution_time.
    pub speedup: f64,
    /// speedup / processors.
    pub efficiency: f64,
    /// computation : communication (D-d).
    pub granularity: Granularity,
    /// The critical path.
    pub critical_path: CriticalPath,
    /// The critical path with CPU-time weights: the predicted time with a processor per process.
    pub cpu_time_critical_path: f64,
    /// The weighted critical path.
    pub wcpa: Wcpa,
    /// Normalized processor time.
    pub npt: Npt,
    /// Time with k processors busy.
    pub parallelism_profile: ParallelismProfile,
    /// POP factors.
    pub pop: Pop,
    /// Speedup bounds.
    pub bounds: Bounds,
    /// Busy and blocked time per process.
    pub process_times: Vec<ProcessTimes>,
    /// CPU utilization per node over the execution time.
    pub node_utilization: Vec<NodeUtilization>,
    /// Utilization per link and direction over the execution time.
    pub link_utilization: Vec<LinkUse>,
    /// Everything validation found.
    pub diagnostics: Vec<Diagnostic>,
}

/// Analyses a trace.
pub fn analyze(trace: &Trace, options: AnalysisOptions) -> Analysis {
    analyze_context(&Context::new(trace), options)
}

/// Analyses a trace whose context is already built (so other analyses can share it).
pub fn analyze_context(cx: &Context<'_>, options: AnalysisOptions) -> Analysis {
    let trace = cx.trace;
    let (start, end) = trace.time_bounds().unwrap_or_default();
    let execution_time = end.0 - start.0;
    let n = cx.timeline.n_processors as u64;

    let processes = process_times(cx);
    let total_computation: f64 = processes.iter().map(|p| p.computation).sum();
    let wall_computation = processes
        .iter()
        .map(|p| p.wall_computation)
        .fold(0u64, u64::saturating_add);
    let elapsed = EdgeWeights::elapsed(trace, &cx.graph);
    let communication: u64 = cx
        .pairing
        .messages
        .iter()
        .map(|m| elapsed.message[m.arrival.index()])
        .fold(0, u64::saturating_add);
    let speedup = ratio(total_computation, execution_time as f64);
    let efficiency = ratio(speedup, n as f64);

    let cp = longest_path(&cx.graph, &elapsed);
    let critical_path = critical_path_report(cx, &cp, &elapsed);
    let cpu_time_cp =
        longest_path(&cx.graph, &cx.cpu_time_weights(|transit| transit as f64)).length;
    let ideal = longest_path(&cx.graph, &cx.cpu_time_weights(|_| 0.0)).length;

    let wcpa_weights = cx.wcpa_weights();
    let heaviest = longest_path(&cx.graph, &wcpa_weights);
    let wcpa_segments = segments(cx, &path_edges(&cx.graph, &heaviest), &wcpa_weights);
    let wcpa = Wcpa {
        weight: heaviest.length,
        phases: shares(&wcpa_segments, heaviest.length, |s| s.phase.clone()),
        segments: wcpa_segments,
    };

    let max_comp = processes.iter().map(|p| p.computation).fold(0.0, f64::max);
    let mean_comp = ratio(total_computation, processes.len() as f64);
    let pop = Pop {
        load_balance: ratio(mean_comp, max_comp),
        serialisation: ratio(max_comp, ideal),
        transfer: ratio(ideal, execution_time as f64),
        parallel_efficiency: ratio(mean_comp, execution_time as f64),
        ideal_time: ideal,
    };
    let average_parallelism = ratio(total_computation, cp.length as f64);
    let nf = n as f64;
    let bounds = Bounds {
        average_parallelism,
        speedup_lower: ratio(nf * average_parallelism, nf + average_parallelism - 1.0),
        speedup_upper: nf.min(average_parallelism),
    };
    Analysis {
        processors: n,
        execution_time,
        total_computation,
        wall_computation,
        speedup,
        efficiency,
        granularity: Granularity {
            computation: total_computation,
            communication,
            ratio: (communication > 0).then(|| total_computation / communication as f64),
            computation_share: (total_computation + communication as f64 > 0.0)
                .then(|| total_computation / (total_computation + communication as f64)),
        },
        critical_path,
        cpu_time_critical_path: cpu_time_cp,
        wcpa,
        npt: npt(cx),
        parallelism_profile: parallelism_profile(cx, start.0, end.0),
        pop,
        bounds,
        process_times: processes,
        node_utilization: (0..trace.nodes.len() as u32)
            .map(NodeId)
            .map(|node| NodeUtilization {
                node,
                name: trace.nodes[node.index()].name.clone(),
                cpu: cpu_utilization(cx, node, (start, end)),
            })
            .collect(),
        link_utilization: (0..trace.links.len() as u32)
            .map(LinkId)
            .map(|link| LinkUse {
                link,
                a_to_b: link_utilization(cx, link, Direction::AToB, (start, end)),
                b_to_a: link_utilization(cx, link, Direction::BToA, (start, end)),
            })
            .collect(),
        diagnostics: validate(trace, &cx.pairing, &cx.graph, options.validation),
    }
}

/// a / b, or 0 when b is 0.
fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 { 0.0 } else { a / b }
}

fn process_times(cx: &Context<'_>) -> Vec<ProcessTimes> {
    let mut times: Vec<ProcessTimes> = cx
        .trace
        .processes
        .iter()
        .enumerate()
        .map(|(i, p)| ProcessTimes {
            process: ProcessId(i as u32),
            name: p.name.clone(),
            computation: 0.0,
            wall_computation: 0,
            blocked: 0,
        })
        .collect();
    for span in &cx.spans {
        let Some(t) = times.get_mut(span.process.index()) else {
            continue;
        };
        let node = cx.trace.processes[span.process.index()].node;
        match span.state {
            State::Computing => {
                t.wall_computation = t.wall_computation.saturating_add(span.end.0 - span.start.0);
                t.computation += cx.timeline.cpu_time(node, span.start.0, span.end.0);
            }
            State::Blocked => t.blocked = t.blocked.saturating_add(span.end.0 - span.start.0),
        }
    }
    times
}

/// Attributes path edges, keeping those with positive duration or weight.
fn segments(cx: &Context<'_>, edges: &[PathEdge], weights: &EdgeWeights<f64>) -> Vec<Segment> {
    let region_name = |r: Option<RegionId>| {
        r.and_then(|r| cx.trace.regions.get(r.index()))
            .map(|r| r.name.clone())
    };
    edges
        .iter()
        .filter_map(|edge| {
            let (start, end) = edge.interval(cx.trace, &cx.graph);
            let to = edge.to.index();
            let weight = match edge.kind {
                SegmentKind::Start => weights.seed[to],
                SegmentKind::Transit => weights.message[to],
                SegmentKind::Collective => weights.collective[to],
                SegmentKind::Computation | SegmentKind::Blocked => weights.program[to],
            };
            if end <= start && weight == 0.0 {
                return None;
            }
            // Program edges run in the code their source left open; a transit in the sender's.
            let source = edge.from;
            let process = edge.process(cx.trace);
            Some(Segment {
                kind: edge.kind,
                process,
                node: cx
                    .trace
                    .processes
                    .get(process.index())
                    .map_or(NodeId(0), |p| p.node),
                from_event: source,
                to_event: edge.to,
                start: start.0,
                end: end.0,
                weight,
                region: source.and_then(|s| region_name(cx.attribution.region[s.index()])),
                phase: source.and_then(|s| cx.attribution.phase_name(s).map(str::to_owned)),
            })
        })
        .collect()
}

/// Groups weights by a key and ranks them, heaviest first; unattributed weight is "(none)".
pub(crate) fn shares<T>(items: &[T], total: f64, key: impl Fn(&T) -> Option<String>) -> Vec<Share>
where
    T: HasWeight,
{
    let mut sums: HashMap<String, f64> = HashMap::new();
    for item in items {
        *sums
            .entry(key(item).unwrap_or_else(|| "(none)".to_owned()))
            .or_default() += item.weight();
    }
    rank(sums, total)
}

pub(crate) fn rank(sums: HashMap<String, f64>, total: f64) -> Vec<Share> {
    let mut out: Vec<Share> = sums
        .into_iter()
        .map(|(name, weight)| Share {
            name,
            weight,
            share: ratio(weight, total),
        })
        .collect();
    out.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

pub(crate) trait HasWeight {
    fn weight(&self) -> f64;
}

impl HasWeight for Segment {
    fn weight(&self) -> f64 {
        self.weight
    }
}

fn critical_path_report(
    cx: &Context<'_>,
    cp: &LongestPath<u64>,
    elapsed: &EdgeWeights<u64>,
) -> CriticalPath {
    let as_f64 = EdgeWeights {
        seed: elapsed.seed.iter().map(|&w| w as f64).collect(),
        program: elapsed.program.iter().map(|&w| w as f64).collect(),
        message: elapsed.message.iter().map(|&w| w as f64).collect(),
        collective: elapsed.collective.iter().map(|&w| w as f64).collect(),
    };
    let segments = segments(cx, &path_edges(&cx.graph, cp), &as_f64);
    let total = cp.length as f64;
    let process_name = |s: &Segment| {
        cx.trace
            .processes
            .get(s.process.index())
            .map(|p| p.name.clone())
    };
    let sum_of = |kind| {
        segments
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.weight)
            .sum()
    };
    CriticalPath {
        length: cp.length,
        by_process: shares(&segments, total, process_name),
        by_region: shares(&segments, total, |s| s.region.clone()),
        by_phase: shares(&segments, total, |s| s.phase.clone()),
        computation: sum_of(SegmentKind::Computation),
        transit: sum_of(SegmentKind::Transit),
        segments,
    }
}

/// NPT per process, region (inclusive and exclusive) and phase, from every computation edge.
fn npt(cx: &Context<'_>) -> Npt {
    npt_in(cx, (0, u64::MAX), &|_| true)
}

/// Normalized processor time (decision D-b) of the processes `keep` accepts, over the window
/// `[from, to)` only: each computation is clipped to the window. Shares are of this total.
pub fn npt_in(cx: &Context<'_>, (from, to): (u64, u64), keep: &dyn Fn(ProcessId) -> bool) -> Npt {
    let trace = cx.trace;
    let e = &trace.events;
    let mut by_process: HashMap<String, f64> = HashMap::new();
    let mut inclusive: HashMap<String, f64> = HashMap::new();
    let mut exclusive: HashMap<String, f64> = HashMap::new();
    let mut by_phase: HashMap<String, f64> = HashMap::new();
    let mut stack: Vec<RegionId> = Vec::new();
    let region_name = |r: RegionId| {
        trace
            .regions
            .get(r.index())
            .map_or_else(|| format!("region {}", r.0), |r| r.name.clone())
    };
    let mut total = 0.0;
    for process in trace.process_ids() {
        if !keep(process) {
            continue;
        }
        stack.clear();
        let node = trace.processes[process.index()].node;
        let mut process_total = 0.0;
        let mut prev: Option<EventIdx> = None;
        for v in cx.graph.program(process) {
            if let (Some(p), ProgramEdge::Computation) = (prev, cx.graph.in_edge(v)) {
                let (a, b) = (cx.graph.time(p).0.max(from), cx.graph.time(v).0.min(to));
                let value = if a < b {
                    cx.timeline.normalized_time(node, a, b)
                } else {
                    0.0
                };
                if value > 0.0 {
                    process_total += value;
                    let mut seen: Vec<RegionId> = Vec::with_capacity(stack.len());
                    for &r in &stack {
                        if !seen.contains(&r) {
                            seen.push(r);
                            *inclusive.entry(region_name(r)).or_default() += value;
                        }
                    }
                    if let Some(&top) = stack.last() {
                        *exclusive.entry(region_name(top)).or_default() += value;
                    }
                    let phase = cx.attribution.phase_name(p).unwrap_or("(none)").to_owned();
                    *by_phase.entry(phase).or_default() += value;
                }
            }
            match (e.kind()[v.index()], e.region()[v.index()]) {
                (EventKind::Enter, Some(r)) => stack.push(r),
                (EventKind::Leave, Some(r)) => {
                    if let Some(pos) = stack.iter().rposition(|&open| open == r) {
                        stack.truncate(pos);
                    }
                }
                _ => {}
            }
            prev = Some(v);
        }
        total += process_total;
        by_process.insert(trace.processes[process.index()].name.clone(), process_total);
    }
    Npt {
        processes: rank(by_process, total),
        regions_inclusive: rank(inclusive, total),
        regions_exclusive: rank(exclusive, total),
        phases: rank(by_phase, total),
        total,
    }
}

fn parallelism_profile(cx: &Context<'_>, start: u64, end: u64) -> ParallelismProfile {
    let mut time_with = vec![0u64; cx.timeline.n_processors + 1];
    for (a, b, k) in cx.timeline.busy_nodes.pieces(start, end) {
        let k = (k.round().max(0.0) as usize).min(time_with.len() - 1);
        time_with[k] = time_with[k].saturating_add(b - a);
    }
    // Sums of tick counts saturate rather than overflow on absurd timestamps.
    let weighted: u64 = time_with
        .iter()
        .enumerate()
        .map(|(k, t)| (k as u64).saturating_mul(*t))
        .fold(0, u64::saturating_add);
    let busy: u64 = time_with
        .iter()
        .skip(1)
        .fold(0, |a, &b| a.saturating_add(b));
    ParallelismProfile {
        mean: ratio(weighted as f64, (end - start) as f64),
        mean_while_busy: ratio(weighted as f64, busy as f64),
        time_with,
    }
}
