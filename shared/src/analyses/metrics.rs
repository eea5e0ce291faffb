//! The whole analysis of a trace: execution time, computation, speedup, efficiency, granularity,
//! critical path, weighted critical path (WCPA) with its phase table, Quartz normalized processor
//! time, the parallelism profile, POP factors, bounds and diagnostics.
//!
//! The definitions follow `docs/analysis.md`, whose decisions D-a to D-f are
//! binding; the comments name the decision each computation follows.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use crate::analyses::utilization::{Utilization, cpu_utilization, link_utilization};
use crate::analyses::validate::{
    Diagnostic, DiagnosticCount, EXAMPLES_PER_KIND, ValidationOptions, count_diagnostics,
    first_of_each_kind, validate,
};
use crate::graph::context::Context;
use crate::graph::critical_path::{
    EdgeWeights, LongestPath, PathEdge, SegmentKind, longest_path, path_edges,
};
use crate::graph::execution::ProgramEdge;
use crate::graph::states::State;
use crate::graph::timeline::Hints;
use crate::model::{Direction, EventIdx, EventKind, LinkId, NodeId, ProcessId, RegionId, Trace};

/// Options of the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AnalysisOptions {
    /// Validation options (the clock condition's minimum latency).
    pub validation: ValidationOptions,
    /// What the headline figures count as a processor (the report sets it from the format).
    #[serde(default)]
    pub processors: ProcessorKind,
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
    /// The id of the region it ran in: rankings are keyed by it (two regions may share a name).
    #[serde(default)]
    pub region_id: Option<RegionId>,
    /// The id of the phase it ran in (an index into the context's `attribution.phases`).
    #[serde(default)]
    pub phase_id: Option<u32>,
}

/// A row of a ranking: what it is, its weight and its share of a total.
///
/// Rankings are keyed by `id`, never by `name`: two processes (or regions) may share a name and
/// still get a row each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// What it is, as a label (a process, region or phase name; "(none)" for unattributed time).
    pub name: String,
    /// What it is, as an id: the process id, region id or phase id (an index into the context's
    /// `attribution.phases`) the ranking is of; none for unattributed time and for rankings of
    /// kinds.
    #[serde(default)]
    pub id: Option<u32>,
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
    /// The same time as a tree, process → region → phase, heaviest first at every level (the
    /// heaviest [`NPT_TREE_PROCESSES`] processes; empty in the whole-run report, which keeps
    /// the flat rankings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tree: Vec<NptBranch>,
}

/// The most processes an NPT tree lists (the heaviest).
pub const NPT_TREE_PROCESSES: usize = 1000;

/// A row of the NPT tree: a process (its children its regions), a region of that process (its
/// children the phases it ran in) or a phase of that region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NptBranch {
    /// The process, region or phase id (none for time in no phase).
    pub id: Option<u32>,
    /// Its name.
    pub name: String,
    /// Inclusive: a process's whole NPT; a region's time with it anywhere on the stack; a
    /// phase's part of that.
    pub inclusive: f64,
    /// Exclusive: a process's time outside every region; a region's time with it innermost; a
    /// phase's part of that.
    pub exclusive: f64,
    /// The next level, heaviest (inclusive) first. A process's time outside every region is a
    /// child of its own, `(outside regions)` with no id, split by phase like a region.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<NptBranch>,
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

/// Which clocks a measurement was taken on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clocks {
    /// The times as recorded.
    #[default]
    Recorded,
    /// The controlled logical clock's repair of them (some message arrived before it was sent
    /// on the recorded clocks, which would make the critical path longer than the run).
    Repaired,
}

/// What the headline figures count as a processor (`docs/analysis.md`, "Headline figures").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessorKind {
    /// The nodes that run the program: each node is one CPU on which its processes timeslice
    /// (a transputer, the emulator's nodes, the native format's model). The emulator's host
    /// (a node `host` whose only process is `iserver`) and nodes whose processes recorded no
    /// event are not processors.
    #[default]
    Nodes,
    /// The threads (the model's processes) that recorded events, each on a core of its own:
    /// the threads of one Chrome pid, or the locations of an OTF2 or Paraver node, run at once.
    Threads,
}

impl ProcessorKind {
    /// The plural noun the page and the CLI name processors with.
    pub fn noun(self) -> &'static str {
        match self {
            ProcessorKind::Nodes => "nodes",
            ProcessorKind::Threads => "threads",
        }
    }
}

/// The headline figures, all on one set of processors so that they agree: speedup over serial
/// work, efficiency per processor and the POP factors, whose product is that efficiency.
///
/// With P processors, each with work W_p, total work W = Σ W_p and execution time T:
/// speedup = W / T, efficiency = W / (P·T), load balance = mean W_p / max W_p,
/// serialisation = max W_p / ideal, transfer = ideal / T, parallel efficiency = their product
/// = mean W_p / T = efficiency.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Figures {
    /// What a processor is here.
    pub processor_kind: ProcessorKind,
    /// P: how many processors ran the program.
    pub processors: u64,
    /// T: last event − first event (the same as `execution_time`).
    pub execution_time: u64,
    /// W: the processors' work. On nodes, each node's CPU time (its processes' computation,
    /// which timeslicing shares); on threads, each thread's wall time computing.
    pub work: f64,
    /// Speedup over serial work: W / T, how many processors' worth of work ran at once on
    /// average (the time one processor would need for the work, divided by the run's).
    pub speedup: f64,
    /// Efficiency per processor: speedup / P = W / (P·T).
    pub efficiency: f64,
    /// POP load balance over the processors: mean W_p / max W_p.
    pub load_balance: f64,
    /// POP serialisation efficiency: max W_p / ideal time.
    pub serialisation: f64,
    /// POP transfer efficiency: ideal time / T.
    pub transfer: f64,
    /// POP parallel efficiency: load balance × serialisation × transfer (= efficiency).
    pub parallel_efficiency: f64,
    /// The run on an ideal network: the longest path with every transit 0, and never shorter
    /// than the busiest processor's work (a processor does its work one piece at a time).
    pub ideal_time: f64,
}

impl Figures {
    /// Each figure's label and definition, in the order the page and the CLI show them: the one
    /// text both use, so that a figure means the same wherever it is shown.
    pub fn definitions(&self) -> Vec<(&'static str, String)> {
        let processors = match self.processor_kind {
            ProcessorKind::Nodes => format!(
                "the {} nodes that ran the program: nodes whose processes recorded events, \
                 the emulator's host not counted (processes on one node share its CPU)",
                self.processors
            ),
            ProcessorKind::Threads => format!(
                "the {} threads that recorded events, each counted as a core of its own \
                 (the trace has no CPUs, only processes and their threads)",
                self.processors
            ),
        };
        let work = match self.processor_kind {
            ProcessorKind::Nodes => "Σ of each node's CPU time spent computing",
            ProcessorKind::Threads => "Σ of each thread's time spent computing",
        };
        vec![
            ("Processors", processors),
            ("Work", work.to_owned()),
            (
                "Speedup over serial work",
                "work / execution time: the time one processor would need for the work, \
                 divided by the run's"
                    .to_owned(),
            ),
            (
                "Efficiency per processor",
                format!(
                    "speedup / processors = work / ({} × execution time)",
                    self.processor_kind.noun()
                ),
            ),
            (
                "Load balance",
                format!("mean / max of the {}' work", self.processor_kind.noun()),
            ),
            (
                "Serialisation efficiency",
                "max work of a processor / execution time on an ideal network (every transit 0)"
                    .to_owned(),
            ),
            (
                "Transfer efficiency",
                "execution time on an ideal network / execution time".to_owned(),
            ),
            (
                "Parallel efficiency (POP)",
                "load balance × serialisation × transfer = efficiency per processor".to_owned(),
            ),
        ]
    }

    /// The definition of the figure labelled `label`.
    pub fn definition(&self, label: &str) -> Option<String> {
        self.definitions()
            .into_iter()
            .find(|(l, _)| *l == label)
            .map(|(_, d)| d)
    }
}

/// Whether a node is the emulator's host: a node named `host` whose processes are all the
/// `iserver` (the simulator's naming, `simulator-wasm/src/trace.rs`). It serves the program's
/// I/O beside the network and runs none of the program.
pub fn is_emulator_host(trace: &Trace, node: NodeId) -> bool {
    let mut on_node = trace.processes.iter().filter(|p| p.node == node).peekable();
    trace
        .nodes
        .get(node.index())
        .is_some_and(|n| n.name == "host")
        && on_node.peek().is_some()
        && on_node.all(|p| p.name == "iserver")
}

/// The headline figures of an analysis on `kind`'s processors (decision in
/// `docs/analysis.md`, "Headline figures").
pub fn figures(cx: &Context<'_>, analysis: &Analysis, kind: ProcessorKind) -> Figures {
    let trace = cx.trace;
    let has_events = |p: ProcessId| !trace.process_events(p).is_empty();
    let (work_of, ideal_network): (Vec<f64>, f64) = match kind {
        ProcessorKind::Nodes => {
            let mut runs = vec![false; trace.nodes.len()];
            let mut work = vec![0.0; trace.nodes.len()];
            for (p, times) in trace.process_ids().zip(&analysis.process_times) {
                let node = trace.processes[p.index()].node;
                if let (Some(r), Some(w)) = (runs.get_mut(node.index()), work.get_mut(node.index()))
                {
                    *r |= has_events(p);
                    *w += times.computation;
                }
            }
            let work = (0..trace.nodes.len())
                .filter(|&k| runs[k] && !is_emulator_host(trace, NodeId(k as u32)))
                .map(|k| work[k])
                .collect();
            (work, analysis.pop.ideal_time)
        }
        ProcessorKind::Threads => {
            let work = trace
                .process_ids()
                .zip(&analysis.process_times)
                .filter(|(p, _)| has_events(*p))
                .map(|(_, t)| t.wall_computation as f64)
                .collect();
            // Threads do not share a CPU: the ideal network is the wall-time path with every
            // transit 0.
            let mut weights = EdgeWeights::elapsed(trace, &cx.graph);
            weights.message.fill(0);
            (work, longest_path(&cx.graph, &weights).length as f64)
        }
    };
    let processors = work_of.len() as u64;
    let work: f64 = work_of.iter().sum();
    let max_work = work_of.iter().copied().fold(0.0, f64::max);
    let mean_work = ratio(work, processors as f64);
    let t = analysis.execution_time as f64;
    let ideal_time = ideal_network.max(max_work);
    let speedup = ratio(work, t);
    let load_balance = ratio(mean_work, max_work);
    let serialisation = ratio(max_work, ideal_time);
    let transfer = ratio(ideal_time, t);
    Figures {
        processor_kind: kind,
        processors,
        execution_time: analysis.execution_time,
        work,
        speedup,
        efficiency: ratio(speedup, processors as f64),
        load_balance,
        serialisation,
        transfer,
        parallel_efficiency: load_balance * serialisation * transfer,
        ideal_time,
    }
}

/// The whole analysis, as `tracescope analyze --json` prints it (fields are only ever added).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Nodes hosting processes, the emulator's host and idle nodes included: the `n` of
    /// `efficiency`, WCPA and the bounds, kept with this meaning for scripts that read it.
    /// The headline figures' processors are `figures.processors`.
    pub processors: u64,
    /// The headline figures on one set of processors, each with one definition
    /// (`docs/analysis.md`, "Headline figures"); `speedup`, `efficiency` and `pop` keep their
    /// older meanings.
    #[serde(default)]
    pub figures: Figures,
    /// The clocks `execution_time` and `critical_path` are measured on (the same for both, so
    /// the path is never longer than the run); the other analyses use the recorded times.
    #[serde(default)]
    pub clocks: Clocks,
    /// Last event − first event.
    pub execution_time: u64,
    /// Σ CPU time spent computing (relabelled when processes timeslice).
    pub total_computation: f64,
    /// Σ wall time spent computing.
    pub wall_computation: u64,
    /// total_computation / execution_time (the emulator's host's computation included; see
    /// `figures.speedup`).
    pub speedup: f64,
    /// speedup / processors (per node hosting a process; see `figures.efficiency`).
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
    /// POP factors over processes (every process counted as if on a core of its own; see
    /// `figures` for the factors over the processors).
    pub pop: Pop,
    /// Speedup bounds.
    pub bounds: Bounds,
    /// Busy and blocked time per process.
    pub process_times: Vec<ProcessTimes>,
    /// CPU utilization per node over the execution time.
    pub node_utilization: Vec<NodeUtilization>,
    /// Utilization per link and direction over the execution time.
    pub link_utilization: Vec<LinkUse>,
    /// The first diagnostics of each kind and severity (at most
    /// [`EXAMPLES_PER_KIND`](crate::analyses::validate::EXAMPLES_PER_KIND) of each), in the order
    /// validation found them: a trace may have millions, and the report stays small. The
    /// server's `diagnostics` analysis part pages through all of them.
    pub diagnostics: Vec<Diagnostic>,
    /// How many diagnostics validation found in all.
    #[serde(default)]
    pub diagnostics_total: usize,
    /// The diagnostics counted by kind and severity, errors first, with the first few of each.
    #[serde(default)]
    pub diagnostic_counts: Vec<DiagnosticCount>,
}

/// Analyses a trace.
pub fn analyze(trace: &Trace, options: AnalysisOptions) -> Analysis {
    analyze_context(&Context::new(trace), options)
}

/// Analyses a trace whose context is already built (so other analyses can share it).
pub fn analyze_context(cx: &Context<'_>, options: AnalysisOptions) -> Analysis {
    let trace = cx.trace;
    let (start, end) = trace.time_bounds().unwrap_or_default();
    let n = cx.timeline.n_processors as u64;
    // The execution time and the critical path on one set of clocks: the recorded ones, or
    // their repair when a message arrives before its send.
    let repaired = repaired_clocks(cx);
    let repaired_cx = repaired.as_ref().map(Context::new);
    let (clocks, timing) = match &repaired_cx {
        Some(rcx) => (Clocks::Repaired, rcx),
        None => (Clocks::Recorded, cx),
    };
    let execution_time = timing
        .trace
        .time_bounds()
        .map_or(0, |(first, last)| last.0 - first.0);

    let processes = process_times(cx);
    let total_computation: f64 = processes.iter().map(|p| p.computation).sum();
    let wall_computation = processes
        .iter()
        .map(|p| p.wall_computation)
        .fold(0u64, u64::saturating_add);
    let elapsed = EdgeWeights::elapsed(timing.trace, &timing.graph);
    let communication: u64 = timing
        .pairing
        .messages
        .iter()
        .map(|m| elapsed.message[m.arrival.index()])
        .fold(0, u64::saturating_add);
    let speedup = ratio(total_computation, execution_time as f64);
    let efficiency = ratio(speedup, n as f64);

    let cp = longest_path(&timing.graph, &elapsed);
    let critical_path = critical_path_report(timing, &cp, &elapsed);
    let mut cpu_weights = cx.cpu_time_weights(|transit| transit as f64);
    let cpu_time_cp = longest_path(&cx.graph, &cpu_weights).length;
    // The ideal network: the same CPU times with messages that take no time.
    cpu_weights.message.fill(0.0);
    let ideal = longest_path(&cx.graph, &cpu_weights).length;
    drop(cpu_weights);

    let wcpa_weights = cx.wcpa_weights();
    let heaviest = longest_path(&cx.graph, &wcpa_weights);
    let wcpa_segments = segments(cx, &path_edges(&cx.graph, &heaviest), &wcpa_weights, |w| w);
    let wcpa = Wcpa {
        weight: heaviest.length,
        phases: shares(
            &wcpa_segments,
            heaviest.length,
            |s| s.phase_id,
            |id| phase_label(cx, id),
        ),
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
    let diagnostics = validate(trace, &cx.pairing, &cx.graph, options.validation);
    let mut analysis = Analysis {
        processors: n,
        figures: Figures::default(),
        clocks,
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
        diagnostics: first_of_each_kind(&diagnostics, EXAMPLES_PER_KIND),
        diagnostics_total: diagnostics.len(),
        diagnostic_counts: count_diagnostics(&diagnostics, EXAMPLES_PER_KIND),
    };
    analysis.figures = figures(cx, &analysis, options.processors);
    analysis
}

/// The trace on repaired clocks when some message arrives before its send, else `None`.
fn repaired_clocks(cx: &Context<'_>) -> Option<Trace> {
    let times = cx.trace.events.time();
    let violated = cx
        .pairing
        .messages
        .iter()
        .any(|m| times[m.arrival.index()] < times[m.send.index()]);
    if !violated {
        return None;
    }
    let repair = crate::analyses::clocks::controlled_logical_clock(
        cx.trace,
        &cx.pairing,
        crate::analyses::clocks::ClcOptions::default(),
    );
    crate::analyses::clocks::repaired_trace(cx.trace, &repair)
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
    let mut hints = cx.timeline.hints();
    for span in &cx.spans {
        let Some(t) = times.get_mut(span.process.index()) else {
            continue;
        };
        let node = cx.trace.processes[span.process.index()].node;
        match span.state {
            State::Computing => {
                t.wall_computation = t.wall_computation.saturating_add(span.end.0 - span.start.0);
                t.computation +=
                    cx.timeline
                        .cpu_time_near(node, span.start.0, span.end.0, &mut hints);
            }
            _ => t.blocked = t.blocked.saturating_add(span.end.0 - span.start.0),
        }
    }
    times
}

/// Attributes path edges, keeping those with positive duration or weight, each weighed with
/// `weights` read as `f64` (only the path's edges are converted, not the whole graph's weights).
fn segments<T: Copy>(
    cx: &Context<'_>,
    edges: &[PathEdge],
    weights: &EdgeWeights<T>,
    as_f64: impl Fn(T) -> f64,
) -> Vec<Segment> {
    let region_name = |r: Option<RegionId>| {
        r.and_then(|r| cx.trace.regions.get(r.index()))
            .map(|r| r.name.clone())
    };
    edges
        .iter()
        .filter_map(|edge| {
            let (start, end) = edge.interval(cx.trace, &cx.graph);
            let to = edge.to.index();
            let weight = as_f64(match edge.kind {
                SegmentKind::Transit => weights.message[to],
                SegmentKind::Collective => weights.collective[to],
                SegmentKind::Start
                | SegmentKind::Computation
                | SegmentKind::Blocked
                | SegmentKind::Waiting => weights.program[to],
            });
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
                region: source.and_then(|s| region_name(cx.attribution.region.at(s.index()))),
                phase: source.and_then(|s| cx.attribution.phase_name(s).map(str::to_owned)),
                region_id: source.and_then(|s| cx.attribution.region.at(s.index())),
                phase_id: source.and_then(|s| cx.attribution.phase.at(s.index())),
            })
        })
        .collect()
}

/// Groups weights by a key and ranks them, heaviest first; unattributed weight is "(none)".
pub(crate) fn shares<T>(
    items: &[T],
    total: f64,
    key: impl Fn(&T) -> Option<u32>,
    label: impl Fn(Option<u32>) -> String,
) -> Vec<Share>
where
    T: HasWeight,
{
    let mut sums: FxHashMap<Option<u32>, f64> = FxHashMap::default();
    for item in items {
        *sums.entry(key(item)).or_default() += item.weight();
    }
    rank(sums, total, |&id| (id, label(id)))
}

/// Rows of a ranking from weights keyed by `K` (an id), heaviest first, ties in key order;
/// `row` gives a key's id and label.
pub(crate) fn rank<K: Eq + std::hash::Hash + Ord, S>(
    sums: HashMap<K, f64, S>,
    total: f64,
    row: impl Fn(&K) -> (Option<u32>, String),
) -> Vec<Share> {
    let mut rows: Vec<(K, f64)> = sums.into_iter().collect();
    rows.sort_by(|(ka, a), (kb, b)| b.total_cmp(a).then_with(|| ka.cmp(kb)));
    rows.into_iter()
        .map(|(key, weight)| {
            let (id, name) = row(&key);
            Share {
                name,
                id,
                weight,
                share: ratio(weight, total),
            }
        })
        .collect()
}

/// A path's weight per process, per region and per phase, as shares of `total`, keyed by ids.
pub(crate) fn path_rankings(cx: &Context<'_>, segments: &[Segment], total: f64) -> [Vec<Share>; 3] {
    [
        shares(
            segments,
            total,
            |s| Some(s.process.0),
            |id| process_label(cx.trace, id),
        ),
        shares(
            segments,
            total,
            |s| s.region_id.map(|r| r.0),
            |id| region_label(cx.trace, id),
        ),
        shares(segments, total, |s| s.phase_id, |id| phase_label(cx, id)),
    ]
}

/// The label of a process id.
pub(crate) fn process_label(trace: &Trace, id: Option<u32>) -> String {
    match id.and_then(|p| trace.processes.get(p as usize)) {
        Some(p) => p.name.clone(),
        None => id.map_or_else(|| "(none)".to_owned(), |p| format!("process {p}")),
    }
}

/// The label of a region id.
pub(crate) fn region_label(trace: &Trace, id: Option<u32>) -> String {
    match id.and_then(|r| trace.regions.get(r as usize)) {
        Some(r) => r.name.clone(),
        None => id.map_or_else(|| "(none)".to_owned(), |r| format!("region {r}")),
    }
}

/// The label of a phase id.
pub(crate) fn phase_label(cx: &Context<'_>, id: Option<u32>) -> String {
    id.and_then(|p| cx.attribution.phases.get(p as usize))
        .cloned()
        .unwrap_or_else(|| "(none)".to_owned())
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
    let segments = segments(cx, &path_edges(&cx.graph, cp), elapsed, |w| w as f64);
    let total = cp.length as f64;
    let [by_process, by_region, by_phase] = path_rankings(cx, &segments, total);
    let sum_of = |kind| {
        segments
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.weight)
            .sum()
    };
    CriticalPath {
        length: cp.length,
        by_process,
        by_region,
        by_phase,
        computation: sum_of(SegmentKind::Computation),
        transit: sum_of(SegmentKind::Transit),
        segments,
    }
}

/// NPT per process, region (inclusive and exclusive) and phase, from every computation edge
/// (the whole-run report keeps the flat rankings only).
fn npt(cx: &Context<'_>) -> Npt {
    let mut npt = npt_in(cx, (0, u64::MAX), &|_| true);
    npt.tree = Vec::new();
    npt
}

/// Inclusive time per (region, phase) of one process.
type RegionPhaseTime = FxHashMap<(RegionId, Option<u32>), f64>;

/// The regions open in one process, for inclusive times without walking the region stack per
/// edge: a region's time is what the process computed between the outermost enter of it and
/// its leave (a recursive region counts once), split at every change of phase (each open region
/// gets the time since it was entered or the phase began, whichever is later).
struct OpenRegions {
    count: Vec<u32>,
    entered_at: Vec<f64>,
    /// The distinct open regions, outermost first.
    distinct: Vec<RegionId>,
    /// The phase the process computes in, and its computed time when that phase began.
    phase: Option<u32>,
    phase_since: f64,
}

impl OpenRegions {
    fn new(n_regions: usize) -> OpenRegions {
        OpenRegions {
            count: vec![0; n_regions],
            entered_at: vec![0.0; n_regions],
            distinct: Vec::new(),
            phase: None,
            phase_since: 0.0,
        }
    }

    /// A new process: nothing open, no phase yet.
    fn restart(&mut self) {
        self.phase = None;
        self.phase_since = 0.0;
    }

    /// `r` is entered when the process has computed `now`.
    fn enter(&mut self, r: RegionId, now: f64) {
        if let Some(count) = self.count.get_mut(r.index()) {
            if *count == 0 {
                self.entered_at[r.index()] = now;
                self.distinct.push(r);
            }
            *count += 1;
        }
    }

    /// The time `r` has been open in the current phase, up to `now`, added to `inclusive`.
    fn charge(&self, r: RegionId, now: f64, inclusive: &mut RegionPhaseTime) {
        let time = now - self.entered_at[r.index()].max(self.phase_since);
        if time > 0.0 {
            *inclusive.entry((r, self.phase)).or_default() += time;
        }
    }

    /// The process computes in `phase` from `now` on.
    fn set_phase(&mut self, phase: Option<u32>, now: f64, inclusive: &mut RegionPhaseTime) {
        if phase != self.phase {
            for &r in &self.distinct {
                self.charge(r, now, inclusive);
            }
            self.phase = phase;
            self.phase_since = now;
        }
    }

    /// `r` is left at `now`: the outermost leave adds its time to `inclusive`.
    fn close(&mut self, r: RegionId, now: f64, inclusive: &mut RegionPhaseTime) {
        let Some(&count) = self.count.get(r.index()) else {
            return;
        };
        self.count[r.index()] = count.saturating_sub(1);
        if count == 1 {
            self.charge(r, now, inclusive);
            // Leaves close from the top of the stack, so `r` is the innermost distinct region.
            if let Some(at) = self.distinct.iter().rposition(|&o| o == r) {
                self.distinct.remove(at);
            }
        }
    }
}

/// What one process's computation was spent in: exclusive time per (innermost region, phase)
/// and inclusive time per (region, phase).
#[derive(Default)]
struct ProcessNpt {
    total: f64,
    exclusive: FxHashMap<(Option<RegionId>, Option<u32>), f64>,
    inclusive: RegionPhaseTime,
}

/// One process's NPT over `[from, to)`.
fn process_npt(
    cx: &Context<'_>,
    process: ProcessId,
    (from, to): (u64, u64),
    open: &mut OpenRegions,
    stack: &mut Vec<RegionId>,
    hints: &mut Hints,
) -> ProcessNpt {
    let e = &cx.trace.events;
    let node = cx.trace.processes[process.index()].node;
    let mut out = ProcessNpt::default();
    stack.clear();
    open.restart();
    let mut prev: Option<EventIdx> = None;
    for v in cx.graph.program(process) {
        if let (Some(p), ProgramEdge::Computation) = (prev, cx.graph.in_edge(v)) {
            let (a, b) = (cx.graph.time(p).0.max(from), cx.graph.time(v).0.min(to));
            let value = if a < b {
                cx.timeline.normalized_time_near(node, a, b, hints)
            } else {
                0.0
            };
            if value > 0.0 {
                let phase = cx.attribution.phase.get(p.index()).flatten();
                open.set_phase(phase, out.total, &mut out.inclusive);
                out.total += value;
                *out.exclusive
                    .entry((stack.last().copied(), phase))
                    .or_default() += value;
            }
        }
        match (e.kind()[v.index()], e.region().at(v.index())) {
            (EventKind::Enter, Some(r)) => {
                open.enter(r, out.total);
                stack.push(r);
            }
            (EventKind::Leave, Some(r)) => {
                if let Some(pos) = stack.iter().rposition(|&o| o == r) {
                    // The leave closes its region and any left open inside it.
                    for closed in stack.drain(pos..).rev() {
                        open.close(closed, out.total, &mut out.inclusive);
                    }
                }
            }
            _ => {}
        }
        prev = Some(v);
    }
    // Regions never left end with the process.
    for left_open in stack.drain(..).rev() {
        open.close(left_open, out.total, &mut out.inclusive);
    }
    out
}

/// Branches sorted heaviest (inclusive) first, then by id.
fn heaviest_first(mut branches: Vec<NptBranch>) -> Vec<NptBranch> {
    branches.sort_by(|a, b| b.inclusive.total_cmp(&a.inclusive).then(a.id.cmp(&b.id)));
    branches
}

/// One process's branch of the NPT tree: its regions, each with its phases.
fn npt_branch(cx: &Context<'_>, process: ProcessId, times: &ProcessNpt) -> NptBranch {
    let mut regions: FxHashMap<RegionId, NptBranch> = FxHashMap::default();
    let mut phases: FxHashMap<(RegionId, Option<u32>), NptBranch> = FxHashMap::default();
    let phase_branch = |phase: Option<u32>| NptBranch {
        id: phase,
        name: phase_label(cx, phase),
        inclusive: 0.0,
        exclusive: 0.0,
        children: Vec::new(),
    };
    let region_branch = |r: RegionId| NptBranch {
        id: Some(r.0),
        name: region_label(cx.trace, Some(r.0)),
        inclusive: 0.0,
        exclusive: 0.0,
        children: Vec::new(),
    };
    for (&(r, phase), &t) in &times.inclusive {
        regions
            .entry(r)
            .or_insert_with(|| region_branch(r))
            .inclusive += t;
        phases
            .entry((r, phase))
            .or_insert_with(|| phase_branch(phase))
            .inclusive += t;
    }
    let mut outside = 0.0;
    let mut outside_phases: FxHashMap<Option<u32>, NptBranch> = FxHashMap::default();
    for (&(r, phase), &t) in &times.exclusive {
        match r {
            Some(r) => {
                regions
                    .entry(r)
                    .or_insert_with(|| region_branch(r))
                    .exclusive += t;
                phases
                    .entry((r, phase))
                    .or_insert_with(|| phase_branch(phase))
                    .exclusive += t;
            }
            None => {
                outside += t;
                let branch = outside_phases
                    .entry(phase)
                    .or_insert_with(|| phase_branch(phase));
                branch.inclusive += t;
                branch.exclusive += t;
            }
        }
    }
    let mut by_region: FxHashMap<RegionId, Vec<NptBranch>> = FxHashMap::default();
    for ((r, _), branch) in phases {
        by_region.entry(r).or_default().push(branch);
    }
    let mut children: Vec<NptBranch> = regions
        .into_iter()
        .map(|(r, mut branch)| {
            branch.children = heaviest_first(by_region.remove(&r).unwrap_or_default());
            branch
        })
        .collect();
    // The time outside every region, split by phase too: a row of its own (no region id).
    if outside > 0.0 {
        children.push(NptBranch {
            id: None,
            name: "(outside regions)".to_owned(),
            inclusive: outside,
            exclusive: outside,
            children: heaviest_first(outside_phases.into_values().collect()),
        });
    }
    NptBranch {
        id: Some(process.0),
        name: process_label(cx.trace, Some(process.0)),
        inclusive: times.total,
        exclusive: outside,
        children: heaviest_first(children),
    }
}

/// Normalized processor time (decision D-b) of the processes `keep` accepts, over the window
/// `[from, to)` only: each computation is clipped to the window. Shares are of this total.
pub fn npt_in(cx: &Context<'_>, window: (u64, u64), keep: &dyn Fn(ProcessId) -> bool) -> Npt {
    let trace = cx.trace;
    let mut by_process: FxHashMap<ProcessId, f64> = FxHashMap::default();
    let mut inclusive: FxHashMap<RegionId, f64> = FxHashMap::default();
    let mut exclusive: FxHashMap<RegionId, f64> = FxHashMap::default();
    let mut by_phase: FxHashMap<Option<u32>, f64> = FxHashMap::default();
    let mut stack: Vec<RegionId> = Vec::new();
    let mut open = OpenRegions::new(trace.regions.len());
    let mut tree = Vec::new();
    let mut total = 0.0;
    let mut hints = cx.timeline.hints();
    for process in trace.process_ids() {
        if !keep(process) {
            continue;
        }
        let times = process_npt(cx, process, window, &mut open, &mut stack, &mut hints);
        for (&(r, _), &t) in &times.inclusive {
            *inclusive.entry(r).or_default() += t;
        }
        for (&(r, phase), &t) in &times.exclusive {
            if let Some(r) = r {
                *exclusive.entry(r).or_default() += t;
            }
            *by_phase.entry(phase).or_default() += t;
        }
        total += times.total;
        by_process.insert(process, times.total);
        tree.push(npt_branch(cx, process, &times));
    }
    let mut tree = heaviest_first(tree);
    tree.truncate(NPT_TREE_PROCESSES);
    let region = |r: &RegionId| (Some(r.0), region_label(trace, Some(r.0)));
    Npt {
        processes: rank(by_process, total, |p| {
            (Some(p.0), process_label(trace, Some(p.0)))
        }),
        regions_inclusive: rank(inclusive, total, region),
        regions_exclusive: rank(exclusive, total, region),
        phases: rank(by_phase, total, |&id| (id, phase_label(cx, id))),
        total,
        tree,
    }
}

fn parallelism_profile(cx: &Context<'_>, start: u64, end: u64) -> ParallelismProfile {
    let mut time_with = vec![0u64; cx.timeline.n_processors + 1];
    for (a, b, k) in cx.timeline.busy_nodes().pieces(start, end) {
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
