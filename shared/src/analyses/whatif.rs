//! What-if replay, tier 1 (analysis.md §6): the happened-before structure and the matching stay
//! as recorded; computation and transit weights are edited and the longest path is run again
//! (receives complete at max(call, arrival), decision D-c). Tier 3's network model (latency +
//! size / bandwidth) is offered as a transit edit. Also CPM slack per edge.

use serde::{Deserialize, Serialize};

use crate::analyses::metrics::process_label;
use crate::graph::context::Context;
use crate::graph::critical_path::{EdgeWeights, SegmentKind, longest_path, path_edges};
use crate::graph::execution::ProgramEdge;
use crate::model::{EventIdx, EventKind, ProcessId, RegionId};

/// One edit of the graph's weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "change")]
pub enum Change {
    /// Every message's transit becomes this (0 = an ideal network).
    AllTransits {
        /// The new transit.
        transit: f64,
    },
    /// Every message's transit is multiplied by this (0.5 = double bandwidth).
    ScaleTransits {
        /// The factor.
        factor: f64,
    },
    /// Every message's transit becomes latency + size / bandwidth (tier 3's network model).
    Network {
        /// Latency in ticks.
        latency: f64,
        /// Bytes per tick.
        bandwidth: f64,
    },
    /// The message arriving at this event gets this transit.
    Transit {
        /// The arrival event.
        arrival: EventIdx,
        /// The new transit.
        transit: f64,
    },
    /// The computation edge ending at this event gets this duration.
    Computation {
        /// The event the edge ends at.
        to: EventIdx,
        /// The new duration.
        duration: f64,
    },
    /// Computation inside this region (innermost) is multiplied by this.
    ScaleRegion {
        /// The region.
        region: RegionId,
        /// The factor.
        factor: f64,
    },
    /// Computation in this phase is multiplied by this.
    ScalePhase {
        /// The phase name.
        phase: String,
        /// The factor.
        factor: f64,
    },
}

/// The outcome of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIf {
    /// The edits applied.
    pub changes: Vec<Change>,
    /// The recorded execution time.
    pub baseline: f64,
    /// The predicted execution time.
    pub execution_time: f64,
    /// baseline − predicted.
    pub benefit: f64,
    /// The predicted critical path's edges with their edited weights, in time order.
    pub critical_path: Vec<WhatIfSegment>,
    /// When each process ends, replayed with the recorded weights and with the edited ones.
    #[serde(default)]
    pub processes: Vec<WhatIfProcess>,
    /// The longest computations (at most [`WHAT_IF_SPANS`]), when they ran replayed with the
    /// recorded weights and with the edited ones: the measured and the predicted chart.
    #[serde(default)]
    pub spans: Vec<WhatIfSpan>,
}

/// The most computations a what-if answer draws.
pub const WHAT_IF_SPANS: usize = 4000;

/// One process under a scenario (ticks from the run's start).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIfProcess {
    /// The process.
    pub process: ProcessId,
    /// Its name.
    pub name: String,
    /// When it ends with the recorded weights.
    pub measured_end: f64,
    /// When it ends with the edited weights.
    pub predicted_end: f64,
}

/// One computation under a scenario: `[start, end]` replayed with the recorded weights and with
/// the edited ones (ticks from the run's start).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WhatIfSpan {
    /// Its process.
    pub process: ProcessId,
    /// With the recorded weights.
    pub measured: (f64, f64),
    /// With the edited weights.
    pub predicted: (f64, f64),
}

/// An edge of a predicted critical path.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WhatIfSegment {
    /// What the edge is.
    pub kind: SegmentKind,
    /// The event it starts from (none for a start offset).
    pub from_event: Option<EventIdx>,
    /// The event it ends at.
    pub to_event: EventIdx,
    /// Its edited weight.
    pub weight: f64,
}

/// The recorded elapsed weights as `f64`.
pub fn observed_weights(cx: &Context<'_>) -> EdgeWeights<f64> {
    let w = EdgeWeights::elapsed(cx.trace, &cx.graph);
    let f = |v: Vec<u64>| v.into_iter().map(|x| x as f64).collect();
    EdgeWeights {
        program: f(w.program),
        message: f(w.message),
        collective: f(w.collective),
    }
}

/// Applies edits to weights.
pub fn edit(cx: &Context<'_>, weights: &mut EdgeWeights<f64>, changes: &[Change]) {
    let trace = cx.trace;
    let e = &trace.events;
    for change in changes {
        for v in (0..cx.graph.len() as u32).map(EventIdx) {
            let i = v.index();
            let send = cx.graph.message_from(v);
            let computation = cx
                .graph
                .prev(v)
                .filter(|_| cx.graph.in_edge(v) == ProgramEdge::Computation);
            match change {
                Change::AllTransits { transit } if send.is_some() => weights.message[i] = *transit,
                Change::ScaleTransits { factor } if send.is_some() => weights.message[i] *= factor,
                Change::Network { latency, bandwidth } if send.is_some() && *bandwidth > 0.0 => {
                    let size = send.map_or(e.size().at(i), |s| {
                        e.size().at(s.index()).max(e.size().at(i))
                    });
                    weights.message[i] = latency + size as f64 / bandwidth;
                }
                Change::Transit { arrival, transit } if *arrival == v && send.is_some() => {
                    weights.message[i] = *transit
                }
                Change::Computation { to, duration } if *to == v && computation.is_some() => {
                    weights.program[i] = *duration
                }
                Change::ScaleRegion { region, factor } => {
                    if let Some(prev) = computation
                        && cx.attribution.region.at(prev.index()) == Some(*region)
                    {
                        weights.program[i] *= factor;
                    }
                }
                Change::ScalePhase { phase, factor } => {
                    if let Some(prev) = computation
                        && cx.attribution.phase_name(prev) == Some(phase.as_str())
                    {
                        weights.program[i] *= factor;
                    }
                }
                _ => {}
            }
        }
    }
}

/// Replays the trace with edits and returns the predicted execution time.
pub fn what_if(cx: &Context<'_>, changes: &[Change]) -> WhatIf {
    let base = observed_weights(cx);
    let measured = longest_path(&cx.graph, &base);
    let baseline = measured.length;
    let mut edited = base;
    edit(cx, &mut edited, changes);
    let path = longest_path(&cx.graph, &edited);
    let (processes, spans) = replayed(cx, &measured.dist, &path.dist);
    let critical_path = path_edges(&cx.graph, &path)
        .into_iter()
        .map(|e| {
            let i = e.to.index();
            let weight = match e.kind {
                SegmentKind::Transit => edited.message[i],
                SegmentKind::Collective => edited.collective[i],
                SegmentKind::Start
                | SegmentKind::Computation
                | SegmentKind::Blocked
                | SegmentKind::Waiting => edited.program[i],
            };
            WhatIfSegment {
                kind: e.kind,
                from_event: e.from,
                to_event: e.to,
                weight,
            }
        })
        .filter(|s| s.weight > 0.0)
        .collect();
    WhatIf {
        changes: changes.to_vec(),
        baseline,
        execution_time: path.length,
        benefit: baseline - path.length,
        critical_path,
        processes,
        spans,
    }
}

/// Each process's end and the longest computations, replayed twice (`before` and `after` are
/// the two longest-path distances of every vertex).
fn replayed(
    cx: &Context<'_>,
    before: &[f64],
    after: &[f64],
) -> (Vec<WhatIfProcess>, Vec<WhatIfSpan>) {
    let mut processes = Vec::new();
    let mut spans = Vec::new();
    for process in cx.trace.process_ids() {
        let mut prev: Option<EventIdx> = None;
        for v in cx.graph.program(process) {
            if let (Some(p), ProgramEdge::Computation) = (prev, cx.graph.in_edge(v)) {
                let (a, b) = (p.index(), v.index());
                if before[b] > before[a] || after[b] > after[a] {
                    spans.push(WhatIfSpan {
                        process,
                        measured: (before[a], before[b]),
                        predicted: (after[a], after[b]),
                    });
                }
            }
            prev = Some(v);
        }
        if let Some(last) = prev {
            processes.push(WhatIfProcess {
                process,
                name: process_label(cx.trace, Some(process.0)),
                measured_end: before[last.index()],
                predicted_end: after[last.index()],
            });
        }
    }
    if spans.len() > WHAT_IF_SPANS {
        let length = |s: &WhatIfSpan| s.measured.1 - s.measured.0;
        spans.select_nth_unstable_by(WHAT_IF_SPANS, |a, b| length(b).total_cmp(&length(a)));
        spans.truncate(WHAT_IF_SPANS);
    }
    (processes, spans)
}

/// CPM slack of every vertex's in-edges: how much each edge could grow before it lengthens the
/// longest path (0 on the critical path).
#[derive(Debug, Clone, PartialEq)]
pub struct Slack {
    /// Slack of each vertex's program in-edge (`None` without one).
    pub program: Vec<Option<f64>>,
    /// Slack of each vertex's message in-edge (`None` without one).
    pub message: Vec<Option<f64>>,
    /// The longest path's length.
    pub length: f64,
}

/// Forward and backward passes: slack(u → v) = L − (dist(u) + w + tail(v)).
pub fn slack(cx: &Context<'_>, weights: &EdgeWeights<f64>) -> Slack {
    let graph = &cx.graph;
    let forward = longest_path(graph, weights);
    let n = graph.len();
    let mut tail = vec![0.0f64; n];
    let order: Vec<EventIdx> = graph.topological_order().collect();
    // Each vertex's out-edges are its program successor and, for a send, its arrival.
    let mut arrival_of = vec![None; n];
    for v in &order {
        if let Some(s) = graph.message_from(*v) {
            arrival_of[s.index()] = Some(*v);
        }
    }
    // The heaviest continuation from each collective hub, known once its targets are done.
    let mut hub_tail = vec![0.0f64; graph.n_hubs()];
    for &v in order.iter().rev() {
        let i = v.index();
        let via_next = graph
            .next(v)
            .map(|w| weights.program[w.index()] + tail[w.index()]);
        let via_message =
            arrival_of[i].map(|w: EventIdx| weights.message[w.index()] + tail[w.index()]);
        let via_hub = graph.hub_from(v).map(|h| hub_tail[h]);
        tail[i] = via_next
            .into_iter()
            .chain(via_message)
            .chain(via_hub)
            .fold(0.0, f64::max);
        if let Some(h) = graph.hub_into(v) {
            hub_tail[h] = hub_tail[h].max(weights.collective[i] + tail[i]);
        }
    }
    let length = forward.length;
    let program = (0..n)
        .map(|i| {
            let v = EventIdx(i as u32);
            graph
                .prev(v)
                .map(|p| length - (forward.dist[p.index()] + weights.program[i] + tail[i]))
        })
        .collect();
    let message = (0..n)
        .map(|i| {
            let v = EventIdx(i as u32);
            graph
                .message_from(v)
                .map(|s| length - (forward.dist[s.index()] + weights.message[i] + tail[i]))
        })
        .collect();
    Slack {
        program,
        message,
        length,
    }
}

/// A scenario could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("what-if {scenario:?}: {message}")]
pub struct ScenarioError {
    /// The scenario text.
    pub scenario: String,
    /// What was expected.
    pub message: String,
}

/// Reads a scenario: edits separated by `;`, each one of
/// `transit=V`, `transit*F`, `latency=L,bandwidth=B`, `message=EVENT:transit=V`,
/// `edge=EVENT:duration=V`, `region=NAME*F`, `phase=NAME*F`.
pub fn parse_scenario(text: &str, cx: &Context<'_>) -> Result<Vec<Change>, ScenarioError> {
    let err = |message: String| ScenarioError {
        scenario: text.to_owned(),
        message,
    };
    // A weight is a duration or a factor: finite and not negative. `NaN`, `inf` and `1e999`
    // parse as `f64` but would make every predicted time NaN or infinite (shown as null).
    let number = |s: &str| {
        let value = s
            .trim()
            .parse::<f64>()
            .map_err(|_| err(format!("{s:?} is not a number")))?;
        if value.is_finite() && value >= 0.0 {
            Ok(value)
        } else {
            Err(err(format!(
                "{s:?} is not a finite number of 0 or more (durations and factors are)"
            )))
        }
    };
    let event = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|&i| (i as usize) < cx.trace.events.len())
            .map(EventIdx)
            .ok_or_else(|| err(format!("{s:?} is not an event index")))
    };
    let mut changes = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let change = if let Some(v) = part.strip_prefix("transit=") {
            Change::AllTransits {
                transit: number(v)?,
            }
        } else if let Some(f) = part.strip_prefix("transit*") {
            Change::ScaleTransits { factor: number(f)? }
        } else if let Some(rest) = part.strip_prefix("latency=") {
            let (latency, bandwidth) = rest
                .split_once(",bandwidth=")
                .ok_or_else(|| err("expected latency=L,bandwidth=B".to_owned()))?;
            let bandwidth = number(bandwidth)?;
            if bandwidth == 0.0 {
                return Err(err(
                    "a bandwidth of 0 never delivers a message; give one above 0".to_owned(),
                ));
            }
            Change::Network {
                latency: number(latency)?,
                bandwidth,
            }
        } else if let Some(rest) = part.strip_prefix("message=") {
            let (e, v) = rest
                .split_once(":transit=")
                .ok_or_else(|| err("expected message=EVENT:transit=V".to_owned()))?;
            let arrival = event(e)?;
            if cx.trace.events.kind()[arrival.index()] != EventKind::MsgArr {
                return Err(err(format!("event {} is not a message arrival", arrival.0)));
            }
            Change::Transit {
                arrival,
                transit: number(v)?,
            }
        } else if let Some(rest) = part.strip_prefix("edge=") {
            let (e, v) = rest
                .split_once(":duration=")
                .ok_or_else(|| err("expected edge=EVENT:duration=V".to_owned()))?;
            Change::Computation {
                to: event(e)?,
                duration: number(v)?,
            }
        } else if let Some(rest) = part.strip_prefix("region=") {
            let (name, f) = rest
                .rsplit_once('*')
                .ok_or_else(|| err("expected region=NAME*F".to_owned()))?;
            let region = cx
                .trace
                .regions
                .iter()
                .position(|r| r.name == name)
                .ok_or_else(|| err(format!("no region {name:?}")))?;
            Change::ScaleRegion {
                region: RegionId(region as u32),
                factor: number(f)?,
            }
        } else if let Some(rest) = part.strip_prefix("phase=") {
            let (name, f) = rest
                .rsplit_once('*')
                .ok_or_else(|| err("expected phase=NAME*F".to_owned()))?;
            Change::ScalePhase {
                phase: name.to_owned(),
                factor: number(f)?,
            }
        } else {
            return Err(err(format!(
                "unknown edit {part:?}; expected transit=V, transit*F, latency=L,bandwidth=B, message=EVENT:transit=V, edge=EVENT:duration=V, region=NAME*F or phase=NAME*F"
            )));
        };
        changes.push(change);
    }
    if changes.is_empty() {
        return Err(err("no edit given".to_owned()));
    }
    Ok(changes)
}
