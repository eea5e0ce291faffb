//! Wait states (Scalasca's definitions, analysis.md §3.1), short- and long-term delay costs of
//! their root causes (§3.2), the critical-path profile in Scalasca's terms, and Ravel's
//! lateness (§3.4).
//!
//! A send's or receive's call interval is the `communication` region around it (an
//! `MPI_Send`), or the event itself when there is none; a blocking receive is entered at its
//! `recv_call` and left at its completion.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::graph::context::Context;
use crate::graph::execution::ProgramEdge;
use crate::model::{EventIdx, EventKind, ProcessId, RegionId, RegionRole, Trace};

/// A wait-state pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitKind {
    /// A receive waited for a send that started late: min(send enter, receive leave) − receive
    /// enter.
    LateSender,
    /// A synchronous send waited for a receive that started late: receive enter − send enter,
    /// when the send left after the receive entered.
    LateReceiver,
    /// A collective member waited for the last one to enter (N×N and barriers).
    WaitAtCollective,
    /// A one-to-all member waited for the root to enter.
    LateBroadcast,
    /// An all-to-one root waited for the last member to enter.
    EarlyReduce,
}

/// One wait state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitState {
    /// The pattern.
    pub kind: WaitKind,
    /// The process that waited.
    pub process: ProcessId,
    /// The event where it is charged (the receive completion, the send, the collective leave).
    pub event: EventIdx,
    /// The event that caused it (the late send or receive, the last entry).
    pub cause: EventIdx,
    /// How long.
    pub time: f64,
    /// The innermost region it was charged in.
    pub region: Option<String>,
    /// That region's id (rankings by region are keyed by it).
    #[serde(default)]
    pub region_id: Option<RegionId>,
}

/// Call intervals [enter, leave] of each event's innermost communication region, by event.
fn call_intervals(trace: &Trace) -> Vec<Option<(u64, u64)>> {
    let e = &trace.events;
    let mut out = vec![None; e.len()];
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    for process in trace.process_ids() {
        stack.clear();
        for i in trace.process_events(process) {
            match (e.kind()[i], e.region().at(i)) {
                (EventKind::Enter, Some(r)) => {
                    let communication = trace
                        .regions
                        .get(r.index())
                        .is_some_and(|r| r.role == RegionRole::Communication);
                    stack.push((if communication { i } else { usize::MAX }, Vec::new()));
                }
                (EventKind::Leave, Some(_)) => {
                    if let Some((enter, inside)) = stack.pop()
                        && enter != usize::MAX
                    {
                        for j in inside {
                            out[j] = Some((e.time()[enter].0, e.time()[i].0));
                        }
                    }
                }
                _ => {
                    if let Some((enter, inside)) = stack.last_mut()
                        && *enter != usize::MAX
                    {
                        inside.push(i);
                    }
                }
            }
        }
    }
    out
}

/// Every Late Sender and Late Receiver wait state.
pub fn wait_states(cx: &Context<'_>) -> Vec<WaitState> {
    let trace = cx.trace;
    let e = &trace.events;
    let calls = call_intervals(trace);
    let region_id = |v: EventIdx| cx.attribution.region.at(v.index());
    let mut out = Vec::new();
    // Non-blocking receives completed in one wait call (a `Waitall`) are charged once, with the
    // largest of their Late Sender times: the latest sender.
    let mut multi: HashMap<(ProcessId, u64, u64), WaitState> = HashMap::new();
    for m in &cx.pairing.messages {
        let (s, r) = (m.send.index(), m.arrival.index());
        let send_time = e.time()[s].0;
        let (send_enter, send_leave) = calls[s].unwrap_or((send_time, send_time));
        let completion = cx.graph.time(m.arrival).0;
        let call = cx.graph.prev(m.arrival).filter(|&p| {
            cx.graph.in_edge(m.arrival) == ProgramEdge::Blocked
                && e.kind()[p.index()] == EventKind::RecvCall
        });
        let recv_enter = match (call, calls[r]) {
            (Some(call), _) => e.time()[call.index()].0,
            (None, Some((enter, _))) => enter,
            (None, None) => completion,
        };
        let late_sender = send_enter.min(completion).saturating_sub(recv_enter);
        if late_sender > 0
            && let (Some(_), Some((enter, leave))) = (e.request().at(r), calls[r])
        {
            let candidate = WaitState {
                kind: WaitKind::LateSender,
                process: e.process()[r],
                event: m.arrival,
                cause: m.send,
                time: late_sender as f64,
                region: None,
                region_id: region_id(m.arrival),
            };
            let slot = multi
                .entry((e.process()[r], enter, leave))
                .or_insert_with(|| candidate.clone());
            if candidate.time > slot.time {
                *slot = candidate;
            }
        } else if late_sender > 0 {
            out.push(WaitState {
                kind: WaitKind::LateSender,
                process: e.process()[r],
                event: m.arrival,
                cause: m.send,
                time: late_sender as f64,
                region: None,
                region_id: call.and_then(region_id).or_else(|| region_id(m.arrival)),
            });
        }
        if send_leave > recv_enter && recv_enter > send_enter {
            out.push(WaitState {
                kind: WaitKind::LateReceiver,
                process: e.process()[s],
                event: m.send,
                cause: call.unwrap_or(m.arrival),
                time: (recv_enter - send_enter) as f64,
                region: None,
                region_id: region_id(m.send),
            });
        }
    }
    let mut grouped: Vec<WaitState> = multi.into_values().collect();
    grouped.sort_by_key(|w| w.event);
    out.extend(grouped);
    out.extend(collective_waits(cx));
    for w in &mut out {
        w.region = w
            .region_id
            .and_then(|r| trace.regions.get(r.index()))
            .map(|r| r.name.clone());
    }
    out
}

/// Waits inside collectives: N×N and barrier members wait for the last entry, one-to-all
/// members for the root, an all-to-one root for the last member.
fn collective_waits(cx: &Context<'_>) -> Vec<WaitState> {
    let trace = cx.trace;
    let time = |v: EventIdx| trace.events.time()[v.index()].0;
    let mut out = Vec::new();
    for c in crate::graph::collectives::collectives(trace) {
        let latest = |members: &mut dyn Iterator<
            Item = &(ProcessId, EventIdx, Option<EventIdx>),
        >| { members.max_by_key(|m| (time(m.1), m.1)).map(|m| m.1) };
        let root_enter = c.members.iter().find(|m| Some(m.0) == c.root).map(|m| m.1);
        for &(process, enter, leave) in &c.members {
            let Some(leave) = leave else { continue };
            let (kind, cause) = match c.role {
                RegionRole::OneToAll if Some(process) != c.root => {
                    (WaitKind::LateBroadcast, root_enter)
                }
                RegionRole::AllToOne if Some(process) == c.root => (
                    WaitKind::EarlyReduce,
                    latest(&mut c.members.iter().filter(|m| Some(m.0) != c.root)),
                ),
                RegionRole::Barrier | RegionRole::AllToAll => {
                    (WaitKind::WaitAtCollective, latest(&mut c.members.iter()))
                }
                _ => continue,
            };
            let Some(cause) = cause else { continue };
            let wait = time(cause).saturating_sub(time(enter));
            if wait > 0 {
                out.push(WaitState {
                    kind,
                    process,
                    event: leave,
                    cause,
                    time: wait as f64,
                    region: None,
                    region_id: Some(c.region),
                });
            }
        }
    }
    out
}

/// Wait time per process and per region.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitSummary {
    /// Every wait state.
    pub states: Vec<WaitState>,
    /// Total wait per process and pattern: (process name, pattern, time, process id), keyed by
    /// the id (two processes may share a name), heaviest first.
    pub by_process: Vec<(String, WaitKind, f64, ProcessId)>,
    /// Total wait per region and pattern: (region name, pattern, time, region id), keyed by
    /// the id, heaviest first.
    pub by_region: Vec<(String, WaitKind, f64, Option<RegionId>)>,
    /// Root causes: short-term delay costs per process and call path: (process name, call path,
    /// cost, process id).
    pub short_term_costs: Vec<CostRow>,
    /// Root causes: long-term delay costs per process and call path, as above.
    pub long_term_costs: Vec<CostRow>,
}

/// Rows of `(label, kind, time, id)` from totals keyed by `(id, kind)`, heaviest first.
fn sorted<K: Ord + Copy>(
    map: HashMap<(K, WaitKind), f64>,
    label: impl Fn(K) -> String,
) -> Vec<(String, WaitKind, f64, K)> {
    let mut v: Vec<_> = map.into_iter().collect();
    v.sort_by(|((ia, ka), a), ((ib, kb), b)| {
        b.total_cmp(a)
            .then_with(|| ia.cmp(ib))
            .then_with(|| ka.cmp(kb))
    });
    v.into_iter()
        .map(|((id, kind), time)| (label(id), kind, time, id))
        .collect()
}

fn sorted_costs(map: CostMap, label: impl Fn(ProcessId) -> String) -> Vec<CostRow> {
    let mut v: Vec<_> = map.into_iter().filter(|(_, t)| *t > 1e-12).collect();
    v.sort_by(|((pa, ra), a), ((pb, rb), b)| {
        b.total_cmp(a)
            .then_with(|| pa.cmp(pb))
            .then_with(|| ra.cmp(rb))
    });
    v.into_iter()
        .map(|((p, path), cost)| (label(p), path, cost, p))
        .collect()
}

/// Wait states aggregated, with delay costs.
pub fn summarize_waits(cx: &Context<'_>, states: &[WaitState]) -> WaitSummary {
    let name = |p: ProcessId| {
        cx.trace
            .processes
            .get(p.index())
            .map_or_else(|| format!("process {}", p.0), |p| p.name.clone())
    };
    let region_name = |r: Option<RegionId>| {
        r.and_then(|r| cx.trace.regions.get(r.index()))
            .map_or_else(|| "(none)".to_owned(), |r| r.name.clone())
    };
    let mut by_process = HashMap::new();
    let mut by_region = HashMap::new();
    for w in states {
        *by_process.entry((w.process, w.kind)).or_insert(0.0) += w.time;
        *by_region.entry((w.region_id, w.kind)).or_insert(0.0) += w.time;
    }
    let (short_term_costs, long_term_costs) = delay_cost_rows(cx, states);
    WaitSummary {
        by_process: sorted(by_process, name),
        by_region: sorted(by_region, region_name),
        short_term_costs,
        long_term_costs,
        states: states.to_vec(),
    }
}

/// Delay-cost rows of a process and call path: (process name, call path, cost, process id).
pub type CostRow = (String, String, f64, ProcessId);

/// The short- and long-term delay costs of `states` (their root causes), heaviest first.
pub fn delay_cost_rows(cx: &Context<'_>, states: &[WaitState]) -> (Vec<CostRow>, Vec<CostRow>) {
    let name = |p: ProcessId| {
        cx.trace
            .processes
            .get(p.index())
            .map_or_else(|| format!("process {}", p.0), |p| p.name.clone())
    };
    let (short, long) = delay_costs(cx, states);
    (sorted_costs(short, name), sorted_costs(long, name))
}

/// The callpath of a computation edge: the innermost region its source left open.
fn callpath(cx: &Context<'_>, source: EventIdx) -> String {
    cx.attribution
        .region
        .at(source.index())
        .and_then(|r| cx.trace.regions.get(r.index()))
        .map_or_else(|| "(none)".to_owned(), |r| r.name.clone())
}

type CostMap = HashMap<(ProcessId, String), f64>;

/// Short- and long-term delay costs (Böhme et al.): each Late Sender wait W is blamed on the
/// sender's extra computation d(i) = max(0, T_c(i) − T_w(i)) per callpath since the previous
/// synchronisation of the two processes; waits inside the sender's interval inherit cost and
/// pass it further back, processing waits from the latest to the earliest.
fn delay_costs(cx: &Context<'_>, states: &[WaitState]) -> (CostMap, CostMap) {
    let trace = cx.trace;
    let e = &trace.events;
    let graph = &cx.graph;
    let mut late_senders: Vec<&WaitState> = states
        .iter()
        .filter(|w| w.kind == WaitKind::LateSender)
        .collect();
    late_senders.sort_by_key(|w| std::cmp::Reverse((graph.time(w.event), w.event)));
    let wait_at: HashMap<EventIdx, f64> = late_senders.iter().map(|w| (w.event, w.time)).collect();
    // Each message's other end, by a binary search (sends are in order; arrivals sorted once).
    let messages = &cx.pairing.messages;
    let mut by_arrival: Vec<(EventIdx, EventIdx)> =
        messages.iter().map(|m| (m.arrival, m.send)).collect();
    by_arrival.sort_unstable();
    let partner = |v: EventIdx| {
        messages
            .binary_search_by_key(&v, |m| m.send)
            .ok()
            .map(|i| messages[i].arrival)
            .or_else(|| {
                by_arrival
                    .binary_search_by_key(&v, |&(arrival, _)| arrival)
                    .ok()
                    .map(|i| by_arrival[i].1)
            })
    };
    // Downstream cost accumulated at each wait.
    let mut accumulated: HashMap<EventIdx, f64> = HashMap::new();
    let (mut short, mut long) = (CostMap::new(), CostMap::new());
    for w in late_senders {
        let (send, waiter) = (w.cause, w.process);
        let causer = e.process()[send.index()];
        // The previous synchronisation of causer and waiter on the causer's timeline.
        let mut causer_start = None;
        let mut waiter_start = None;
        let mut cursor = graph.prev(send);
        while let Some(v) = cursor {
            let peer = e.peer().at(v.index());
            if peer == Some(waiter)
                && matches!(e.kind()[v.index()], EventKind::MsgSend | EventKind::MsgArr)
            {
                causer_start = Some(v);
                waiter_start = partner(v);
                break;
            }
            cursor = graph.prev(v);
        }
        let waiter_end = graph.prev(w.event).unwrap_or(w.event);
        // Time maps over the two intervals, and the waits inside the causer's.
        let walk = |from: Option<EventIdx>, to: EventIdx, process: ProcessId| {
            let mut map: HashMap<String, f64> = HashMap::new();
            let mut waits = Vec::new();
            let mut v = from.or_else(|| graph.first(process));
            while let Some(cur) = v {
                if cur == to {
                    break;
                }
                let Some(next) = graph.next(cur) else { break };
                if graph.in_edge(next) == ProgramEdge::Computation {
                    *map.entry(callpath(cx, cur)).or_default() +=
                        (graph.time(next).0 - graph.time(cur).0) as f64;
                }
                if let Some(&t) = wait_at.get(&next) {
                    waits.push((next, t));
                }
                v = Some(next);
            }
            (map, waits)
        };
        let (t_c, inner_waits) = walk(causer_start, send, causer);
        let (t_w, _) = walk(waiter_start, waiter_end, waiter);
        let wc: f64 = inner_waits.iter().map(|(_, t)| t).sum();
        let d: Vec<(String, f64)> = t_c
            .iter()
            .map(|(path, &tc)| {
                (
                    path.clone(),
                    (tc - t_w.get(path).copied().unwrap_or(0.0)).max(0.0),
                )
            })
            .collect();
        let big_d: f64 = d.iter().map(|(_, x)| x).sum();
        let denominator = big_d + wc;
        if denominator <= 0.0 {
            continue;
        }
        let r = accumulated.get(&w.event).copied().unwrap_or(0.0);
        let share = (w.time / denominator).min(1.0);
        for (path, di) in &d {
            *short.entry((causer, path.clone())).or_default() += share * di;
            *long.entry((causer, path.clone())).or_default() += r / denominator * di;
        }
        for (inner, t) in inner_waits {
            *accumulated.entry(inner).or_default() += (share + r / denominator) * t;
        }
    }
    (short, long)
}

/// The critical path's profile in Scalasca's terms: computation vs non-wait communication, and
/// each one's imbalance (CP time minus the per-process average).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CriticalPathProfile {
    /// Computation on the critical path.
    pub computation: f64,
    /// Communication (message transit, "receive non-wait") on the critical path.
    pub communication: f64,
    /// computation − mean computation per process.
    pub computation_imbalance: f64,
    /// communication − mean non-wait receive time per process.
    pub communication_imbalance: f64,
}

/// The Scalasca-style critical-path profile.
pub fn critical_path_profile(
    cx: &Context<'_>,
    analysis: &crate::analyses::metrics::Analysis,
    states: &[WaitState],
) -> CriticalPathProfile {
    let n = cx.trace.processes.len().max(1) as f64;
    let late: f64 = states
        .iter()
        .filter(|w| w.kind == WaitKind::LateSender)
        .map(|w| w.time)
        .sum();
    let blocked: f64 = analysis
        .process_times
        .iter()
        .map(|p| p.blocked as f64)
        .sum();
    let cp = &analysis.critical_path;
    CriticalPathProfile {
        computation: cp.computation,
        communication: cp.transit,
        computation_imbalance: cp.computation - analysis.total_computation / n,
        communication_imbalance: cp.transit - (blocked - late) / n,
    }
}

/// Ravel's lateness of one communication event.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Lateness {
    /// The send or receive completion.
    pub event: EventIdx,
    /// Its logical step: 0 for a process's first communication, else one more than its local
    /// predecessor's and its sender's.
    pub step: u32,
    /// Its time minus the earliest time of any event at the same step.
    pub lateness: f64,
    /// Lateness not inherited from its happened-before parents: where a delay starts.
    pub differential: f64,
}

/// Lateness and differential lateness of every send and receive completion.
pub fn lateness(cx: &Context<'_>) -> Vec<Lateness> {
    let e = &cx.trace.events;
    let graph = &cx.graph;
    let is_comm =
        |v: EventIdx| matches!(e.kind()[v.index()], EventKind::MsgSend | EventKind::MsgArr);
    let n = graph.len();
    // The latest communication event at or before each vertex on its process.
    let mut last_comm: Vec<Option<EventIdx>> = vec![None; n];
    let mut step: Vec<Option<u32>> = vec![None; n];
    let mut parents: Vec<(Option<EventIdx>, Option<EventIdx>)> = vec![(None, None); n];
    for v in graph.topological_order() {
        let local = graph.prev(v).and_then(|p| last_comm[p.index()]);
        if is_comm(v) {
            let sender = graph.message_from(v);
            let s = [local, sender]
                .into_iter()
                .flatten()
                .filter_map(|p| step[p.index()])
                .map(|s| s + 1)
                .max();
            step[v.index()] = Some(s.unwrap_or(0));
            parents[v.index()] = (local, sender);
            last_comm[v.index()] = Some(v);
        } else {
            last_comm[v.index()] = local;
        }
    }
    let mut earliest: HashMap<u32, u64> = HashMap::new();
    for v in (0..n as u32).map(EventIdx) {
        if let Some(s) = step[v.index()] {
            let t = graph.time(v).0;
            earliest
                .entry(s)
                .and_modify(|x| *x = (*x).min(t))
                .or_insert(t);
        }
    }
    let late =
        |v: EventIdx| step[v.index()].map_or(0.0, |s| (graph.time(v).0 - earliest[&s]) as f64);
    (0..n as u32)
        .map(EventIdx)
        .filter_map(|v| {
            let s = step[v.index()]?;
            let lateness = late(v);
            let (a, b) = parents[v.index()];
            let inherited = [a, b].into_iter().flatten().map(late).fold(0.0, f64::max);
            Some(Lateness {
                event: v,
                step: s,
                lateness,
                differential: (lateness - inherited).max(0.0),
            })
        })
        .collect()
}
