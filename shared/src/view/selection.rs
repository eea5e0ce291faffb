//! Analyses of a selection: a time window and a set of processes (a box dragged on the Gantt
//! chart, or `?start=&end=&processes=` on the API).
//!
//! Whole-trace results that are paths or lists are kept where they lie inside the selection:
//! critical-path and WCPA segments of the selected processes clipped to the window, each
//! weight scaled by the part of its interval kept, then ranked again per process, region and
//! phase (the WCPA phase table of the selection); wait states charged inside it; diagnostics
//! with an event inside it. Quantities of time are computed over the selection itself: busy and
//! blocked time per process, Quartz's NPT with every computation clipped to the window,
//! statistics of states, regions and event kinds starting in it, and the communication matrix
//! of the messages sent in it between selected processes.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analyses::metrics::{
    Npt, Segment, Share, npt_in, path_rankings, process_label, rank, region_label,
};
use crate::analyses::stats::{Histogram, Statistics, histogram, statistics_of};
use crate::analyses::validate::{
    Diagnostic, DiagnosticCount, DiagnosticKind, Severity, count_diagnostics,
};
use crate::analyses::waits::{CostRow, WaitKind, WaitState, delay_cost_rows};
use crate::graph::context::Context;
use crate::graph::states::State;
use crate::model::{EventIdx, EventKind, ProcessId, RegionId, Trace};

/// A time window `[start, end)` in ticks and a set of processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    start: u64,
    end: u64,
    /// `None`: every process.
    processes: Option<Vec<bool>>,
    /// The events the workspace's event filter keeps, by index (`None`: every event).
    events: Option<Vec<bool>>,
}

/// Why a selection cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// The window is empty or reversed.
    #[error("the window must end after it starts (start {start}, end {end})")]
    Window {
        /// The start asked for.
        start: u64,
        /// The end asked for.
        end: u64,
    },
    /// The process list does not parse.
    #[error("processes {text:?}, at byte {at}: expected {expected}")]
    Syntax {
        /// The list as given.
        text: String,
        /// The byte offset of the problem.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// A process number is not in the trace.
    #[error("process {process} is not in the trace (it has {count} processes, 0 to {last})", last = count.saturating_sub(1))]
    NoProcess {
        /// The number asked for.
        process: u64,
        /// How many processes the trace has.
        count: usize,
    },
    /// The event filter does not parse.
    #[error("{0}")]
    Filter(String),
}

impl Selection {
    /// The whole trace: every process, from the first event to just after the last.
    pub fn whole(trace: &Trace) -> Selection {
        let (start, end) = trace
            .time_bounds()
            .map_or((0, 1), |(a, b)| (a.0, b.0.saturating_add(1)));
        Selection {
            start,
            end,
            processes: None,
            events: None,
        }
    }

    /// A window (each end defaulting to the trace's) and a process list such as `0,2-5`
    /// (process numbers as in the trace, ranges inclusive; `None` or empty: every process).
    pub fn new(
        trace: &Trace,
        start: Option<u64>,
        end: Option<u64>,
        processes: Option<&str>,
    ) -> Result<Selection, SelectionError> {
        let whole = Selection::whole(trace);
        let (start, end) = (start.unwrap_or(whole.start), end.unwrap_or(whole.end));
        if start >= end {
            return Err(SelectionError::Window { start, end });
        }
        let processes = match processes.map(str::trim) {
            None | Some("") => None,
            Some(text) => Some(parse_processes(text, trace.processes.len())?)
                .filter(|keep| !keep.iter().all(|&k| k)),
        };
        Ok(Selection {
            start,
            end,
            processes,
            events: None,
        })
    }

    /// The selection with the event filter `text` (the filter language of
    /// `analyses::patterns::Filter`, e.g. `kind=send process=A`; `None` or empty: none). The
    /// filter narrows the lists of events — messages (by their send), wait states (by the
    /// waiting event), diagnostics and the statistics of event kinds — never the quantities of
    /// time, which are the processes' over the window.
    pub fn with_filter(
        mut self,
        trace: &Trace,
        text: Option<&str>,
    ) -> Result<Selection, SelectionError> {
        self.events = match text.map(str::trim) {
            None | Some("") => None,
            Some(text) => {
                let filter = crate::analyses::patterns::Filter::parse(text, trace)
                    .map_err(|e| SelectionError::Filter(e.to_string()))?;
                Some(
                    (0..trace.events.len())
                        .map(|i| filter.matches(trace, EventIdx(i as u32)))
                        .collect(),
                )
            }
        };
        Ok(self)
    }

    /// Whether the event filter keeps event `event` (always, without a filter).
    pub fn keeps(&self, event: EventIdx) -> bool {
        self.events
            .as_ref()
            .is_none_or(|keep| keep.get(event.index()).copied().unwrap_or(false))
    }

    /// The window `[start, end)`.
    pub fn window(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    /// Whether `process` is selected.
    pub fn has(&self, process: ProcessId) -> bool {
        self.processes
            .as_ref()
            .is_none_or(|keep| keep.get(process.index()).copied().unwrap_or(false))
    }

    /// Whether tick `t` is in the window.
    pub fn contains(&self, t: u64) -> bool {
        t >= self.start && t < self.end
    }

    /// The part of `[a, b)` inside the window, if any.
    fn clip(&self, a: u64, b: u64) -> Option<(u64, u64)> {
        let (a, b) = (a.max(self.start), b.min(self.end));
        (a < b).then_some((a, b))
    }
}

/// Parses `0,2-5` into a mask over `count` processes.
fn parse_processes(text: &str, count: usize) -> Result<Vec<bool>, SelectionError> {
    let syntax = |at: usize, expected| SelectionError::Syntax {
        text: text.to_owned(),
        at,
        expected,
    };
    let mut keep = vec![false; count];
    let mut offset = 0;
    for item in text.split(',') {
        let trimmed_at = offset + (item.len() - item.trim_start().len());
        let number = |s: &str, at: usize| -> Result<u64, SelectionError> {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax(at, "a process number"));
            }
            s.parse().map_err(|_| syntax(at, "a process number"))
        };
        let (first, last) = match item.split_once('-') {
            Some((a, b)) => (
                number(a, trimmed_at)?,
                number(b, offset + a.len() + 1 + (b.len() - b.trim_start().len()))?,
            ),
            None => {
                let n = number(item, trimmed_at)?;
                (n, n)
            }
        };
        if first > last {
            return Err(syntax(trimmed_at, "a range that does not go backwards"));
        }
        for p in [first, last] {
            if p >= count as u64 {
                return Err(SelectionError::NoProcess { process: p, count });
            }
        }
        keep[first as usize..=last as usize].fill(true);
        offset += item.len() + 1;
    }
    Ok(keep)
}

/// A path (critical path or WCPA) inside a selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathInSelection {
    /// The weight of the path inside the selection.
    pub weight: f64,
    /// How many segments lie inside it (more than `segments` holds when a limit cut them).
    pub total_segments: usize,
    /// The segments, clipped to the window, in time order.
    pub segments: Vec<Segment>,
    /// The weight per process, heaviest first; shares are of `weight`.
    pub by_process: Vec<Share>,
    /// The weight per innermost region.
    pub by_region: Vec<Share>,
    /// The weight per phase: for WCPA, the selection's phase table.
    pub by_phase: Vec<Share>,
}

/// The part of a path's `segments` inside `selection`, at most `limit` segments listed.
pub fn path_in(
    cx: &Context<'_>,
    segments: &[Segment],
    selection: &Selection,
    limit: usize,
) -> PathInSelection {
    let kept: Vec<Segment> = segments
        .iter()
        .filter(|s| selection.has(s.process))
        .filter_map(|s| {
            if s.end <= s.start {
                return selection.contains(s.start).then(|| s.clone());
            }
            let (a, b) = selection.clip(s.start, s.end)?;
            let part = (b - a) as f64 / (s.end - s.start) as f64;
            Some(Segment {
                start: a,
                end: b,
                weight: s.weight * part,
                ..s.clone()
            })
        })
        .collect();
    let weight: f64 = kept.iter().map(|s| s.weight).sum();
    let [by_process, by_region, by_phase] = path_rankings(cx, &kept, weight);
    PathInSelection {
        weight,
        total_segments: kept.len(),
        by_process,
        by_region,
        by_phase,
        segments: kept.into_iter().take(limit).collect(),
    }
}

/// One process's time inside a selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessInSelection {
    /// The process.
    pub process: ProcessId,
    /// Its name.
    pub name: String,
    /// Ticks computing inside the window.
    pub computing: u64,
    /// Ticks blocked inside the window.
    pub blocked: u64,
    /// computing / window length.
    pub busy_share: f64,
    /// blocked / window length.
    pub blocked_share: f64,
}

/// Counts and times of a selection (the Gantt chart's range statistics).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectionSummary {
    /// The window's first tick.
    pub start: u64,
    /// The tick after its last.
    pub end: u64,
    /// How many processes are selected.
    pub processes: usize,
    /// Events of selected processes inside the window.
    pub events: u64,
    /// Messages sent inside the window by a selected process.
    pub messages_sent: u64,
    /// Their bytes.
    pub bytes_sent: u64,
    /// Messages that arrived inside the window at a selected process.
    pub messages_received: u64,
    /// Ticks computing, all selected processes.
    pub computing: u64,
    /// Ticks blocked, all selected processes.
    pub blocked: u64,
    /// computing / (processes · window length), from the per-process times (exact when the
    /// totals saturate).
    pub busy_share: f64,
    /// Whether `computing` or `blocked` stopped at the clock's last tick, u64::MAX: the sum
    /// of the processes' times is larger than a tick count can hold (their own are exact).
    #[serde(default)]
    pub saturated: bool,
    /// Per selected process.
    pub per_process: Vec<ProcessInSelection>,
}

/// Counts and busy and blocked time inside `selection`.
pub fn summary(cx: &Context<'_>, selection: &Selection) -> SelectionSummary {
    let trace = cx.trace;
    let e = &trace.events;
    let (start, end) = selection.window();
    let length = (end - start) as f64;
    let mut per_process: Vec<ProcessInSelection> = trace
        .process_ids()
        .filter(|&p| selection.has(p))
        .map(|process| ProcessInSelection {
            process,
            name: trace.processes[process.index()].name.clone(),
            computing: 0,
            blocked: 0,
            busy_share: 0.0,
            blocked_share: 0.0,
        })
        .collect();
    let mut slot = vec![usize::MAX; trace.processes.len()];
    for (k, p) in per_process.iter().enumerate() {
        slot[p.process.index()] = k;
    }
    for span in &cx.spans {
        let k = slot
            .get(span.process.index())
            .copied()
            .unwrap_or(usize::MAX);
        if k == usize::MAX {
            continue;
        }
        if let Some((a, b)) = selection.clip(span.start.0, span.end.0) {
            match span.state {
                State::Computing => per_process[k].computing += b - a,
                _ => per_process[k].blocked += b - a,
            }
        }
    }
    for p in &mut per_process {
        p.busy_share = p.computing as f64 / length;
        p.blocked_share = p.blocked as f64 / length;
    }
    let mut events = 0;
    for p in trace.process_ids().filter(|&p| selection.has(p)) {
        let range = trace.process_events(p);
        let times = &e.time()[range];
        // A process's events are in time order.
        let a = times.partition_point(|t| t.0 < start);
        let b = times.partition_point(|t| t.0 < end);
        events += (b - a) as u64;
    }
    let (mut messages_sent, mut bytes_sent, mut messages_received) = (0, 0u64, 0);
    for m in &cx.pairing.messages {
        let (s, r) = (m.send.index(), m.arrival.index());
        if selection.has(e.process()[s]) && selection.contains(e.time()[s].0) {
            messages_sent += 1;
            bytes_sent = bytes_sent.saturating_add(e.size().at(s));
        }
        if selection.has(e.process()[r]) && selection.contains(e.time()[r].0) {
            messages_received += 1;
        }
    }
    // Each process's time fits the clock, their sum need not (processes that each compute for
    // most of a clock near 2^64): it saturates at the clock's last tick rather than wrapping,
    // and says so; the share is taken from the exact sum.
    let exact = |time: fn(&ProcessInSelection) -> u64| {
        per_process
            .iter()
            .fold(0u128, |sum, p| sum + u128::from(time(p)))
    };
    let (computing_exact, blocked_exact) = (exact(|p| p.computing), exact(|p| p.blocked));
    let saturated = computing_exact > u128::from(u64::MAX) || blocked_exact > u128::from(u64::MAX);
    let computing = u64::try_from(computing_exact).unwrap_or(u64::MAX);
    let blocked = u64::try_from(blocked_exact).unwrap_or(u64::MAX);
    SelectionSummary {
        start,
        end,
        processes: per_process.len(),
        events,
        messages_sent,
        bytes_sent,
        messages_received,
        computing,
        blocked,
        busy_share: if per_process.is_empty() {
            0.0
        } else {
            computing_exact as f64 / (length * per_process.len() as f64)
        },
        saturated,
        per_process,
    }
}

/// Quartz's NPT of the selected processes with every computation clipped to the window.
pub fn npt(cx: &Context<'_>, selection: &Selection) -> Npt {
    npt_in(cx, selection.window(), &|p| selection.has(p))
}

/// Messages between selected processes sent inside the window, per sender and receiver (only
/// pairs that exchanged messages), as columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CommMatrix {
    /// The sender.
    pub from: Vec<ProcessId>,
    /// The receiver.
    pub to: Vec<ProcessId>,
    /// How many messages.
    pub count: Vec<u64>,
    /// Their bytes.
    pub bytes: Vec<u64>,
    /// Their transit times (send to arrival), summed.
    pub transit: Vec<u64>,
    /// All messages counted.
    pub messages: u64,
    /// All their bytes.
    pub total_bytes: u64,
}

/// The communication matrix of `selection`, pairs in (sender, receiver) order.
pub fn matrix(cx: &Context<'_>, selection: &Selection) -> CommMatrix {
    let e = &cx.trace.events;
    let mut cells: HashMap<(ProcessId, ProcessId), (u64, u64, u64)> = HashMap::new();
    for m in &cx.pairing.messages {
        let (s, r) = (m.send.index(), m.arrival.index());
        let (from, to) = (e.process()[s], e.process()[r]);
        if !(selection.has(from)
            && selection.has(to)
            && selection.contains(e.time()[s].0)
            && selection.keeps(m.send))
        {
            continue;
        }
        let cell = cells.entry((from, to)).or_default();
        cell.0 += 1;
        cell.1 = cell.1.saturating_add(e.size().at(s));
        cell.2 = cell
            .2
            .saturating_add(e.time()[r].0.saturating_sub(e.time()[s].0));
    }
    let mut pairs: Vec<_> = cells.into_iter().collect();
    pairs.sort_unstable_by_key(|&(pair, _)| pair);
    let mut out = CommMatrix::default();
    for ((from, to), (count, bytes, transit)) in pairs {
        out.from.push(from);
        out.to.push(to);
        out.count.push(count);
        out.bytes.push(bytes);
        out.transit.push(transit);
        out.messages += count;
        out.total_bytes = out.total_bytes.saturating_add(bytes);
    }
    out
}

/// Statistics of one subject inside a selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectStatistics {
    /// `state`, `region` or `event`.
    pub subject: String,
    /// The state (`computing`, `blocked`), region or event kind name.
    pub name: String,
    /// Frequency, distance and duration.
    pub statistics: Statistics,
}

/// Statistics (count, rate, distance, duration; quartiles type 7) of each state, each region
/// entered and each event kind that occurs, over occurrences of selected processes that start
/// in the window.
pub fn statistics(cx: &Context<'_>, selection: &Selection) -> Vec<SubjectStatistics> {
    let trace = cx.trace;
    let (start, end) = selection.window();
    let length = end - start;
    let mut out = Vec::new();
    for (state, name) in STATES {
        out.push(SubjectStatistics {
            subject: "state".to_owned(),
            name: name.to_owned(),
            statistics: statistics_of(state_occurrences(cx, selection, state), length),
        });
    }
    let Occurrences { regions, mut kinds } = occurrences(trace, selection);
    for (r, occurrences) in regions.into_iter().enumerate() {
        if occurrences.is_empty() {
            continue;
        }
        out.push(SubjectStatistics {
            subject: "region".to_owned(),
            name: trace.regions[r].name.clone(),
            statistics: statistics_of(occurrences, length),
        });
    }
    for kind in EventKind::ALL {
        if let Some(occurrences) = kinds.remove(&kind) {
            out.push(SubjectStatistics {
                subject: "event".to_owned(),
                name: kind.name().to_owned(),
                statistics: statistics_of(occurrences, length),
            });
        }
    }
    out
}

/// The states statistics and histograms are taken of, with their names.
const STATES: [(State, &str); 2] = [(State::Computing, "computing"), (State::Blocked, "blocked")];

/// (start, duration) of each span of `state` of a selected process starting in the window.
fn state_occurrences(
    cx: &Context<'_>,
    selection: &Selection,
    state: State,
) -> Vec<(u64, Option<u64>)> {
    cx.spans
        .iter()
        .filter(|s| s.state == state && selection.has(s.process) && selection.contains(s.start.0))
        .map(|s| (s.start.0, Some(s.end.0 - s.start.0)))
        .collect()
}

/// Occurrences in a selection: (enter, duration) of each region instance entered in the
/// window, by region id; (time, none) of each event in the window, by kind.
struct Occurrences {
    regions: Vec<Vec<(u64, Option<u64>)>>,
    kinds: HashMap<EventKind, Vec<(u64, Option<u64>)>>,
}

fn occurrences(trace: &Trace, selection: &Selection) -> Occurrences {
    let e = &trace.events;
    let mut regions: Vec<Vec<(u64, Option<u64>)>> = vec![Vec::new(); trace.regions.len()];
    let mut kinds: HashMap<EventKind, Vec<(u64, Option<u64>)>> = HashMap::new();
    let mut open: Vec<(RegionId, u64)> = Vec::new();
    for p in trace.process_ids().filter(|&p| selection.has(p)) {
        open.clear();
        for i in trace.process_events(p) {
            let t = e.time()[i].0;
            if selection.contains(t) && selection.keeps(EventIdx(i as u32)) {
                kinds.entry(e.kind()[i]).or_default().push((t, None));
            }
            match (e.kind()[i], e.region().at(i)) {
                (EventKind::Enter, Some(r)) => open.push((r, t)),
                (EventKind::Leave, Some(r)) => {
                    if let Some(at) = open.iter().rposition(|&(o, _)| o == r) {
                        let entered = open[at].1;
                        open.truncate(at);
                        if selection.contains(entered)
                            && let Some(list) = regions.get_mut(r.index())
                        {
                            list.push((entered, Some(t.saturating_sub(entered))));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Occurrences { regions, kinds }
}

/// A histogram of one quantity inside a selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectHistogram {
    /// `message`, `state` or `region`.
    pub subject: String,
    /// What is counted: `size` or `transit` of messages, a state's or a region's name.
    pub name: String,
    /// The values' unit: `bytes` or `ticks`.
    pub unit: String,
    /// The bins and the values' quartiles.
    pub histogram: Histogram,
}

/// The most bins a histogram has.
pub const HISTOGRAM_BINS: usize = 24;

/// The most regions histograms are drawn for (those with the most time in the selection).
pub const HISTOGRAM_REGIONS: usize = 6;

/// Histograms of a selection: message sizes and transit times (messages between selected
/// processes sent in the window), state durations, and the durations of the regions with the
/// most time (instances entered in the window). Quantities with no values are left out.
pub fn histograms(cx: &Context<'_>, selection: &Selection) -> Vec<SubjectHistogram> {
    let trace = cx.trace;
    let e = &trace.events;
    let mut sizes = Vec::new();
    let mut transits = Vec::new();
    for m in &cx.pairing.messages {
        let (s, r) = (m.send.index(), m.arrival.index());
        if selection.has(e.process()[s])
            && selection.has(e.process()[r])
            && selection.contains(e.time()[s].0)
            && selection.keeps(m.send)
        {
            sizes.push(e.size().at(s) as f64);
            transits.push(e.time()[r].0.saturating_sub(e.time()[s].0) as f64);
        }
    }
    let mut out = Vec::new();
    let mut push = |subject: &str, name: &str, unit: &str, mut values: Vec<f64>| {
        if let Some(histogram) = histogram(&mut values, HISTOGRAM_BINS, 1.0) {
            out.push(SubjectHistogram {
                subject: subject.to_owned(),
                name: name.to_owned(),
                unit: unit.to_owned(),
                histogram,
            });
        }
    };
    push("message", "size", "bytes", sizes);
    push("message", "transit", "ticks", transits);
    for (state, name) in STATES {
        let durations = state_occurrences(cx, selection, state)
            .into_iter()
            .filter_map(|(_, d)| d.map(|d| d as f64))
            .collect();
        push("state", name, "ticks", durations);
    }
    let mut regions: Vec<(usize, Vec<f64>)> = occurrences(trace, selection)
        .regions
        .into_iter()
        .enumerate()
        .map(|(r, list)| {
            (
                r,
                list.into_iter()
                    .filter_map(|(_, d)| d.map(|d| d as f64))
                    .collect(),
            )
        })
        .filter(|(_, list): &(usize, Vec<f64>)| !list.is_empty())
        .collect();
    let total = |list: &[f64]| list.iter().sum::<f64>();
    regions.sort_by(|(ra, a), (rb, b)| total(b).total_cmp(&total(a)).then(ra.cmp(rb)));
    for (r, durations) in regions.into_iter().take(HISTOGRAM_REGIONS) {
        push("region", &trace.regions[r].name, "ticks", durations);
    }
    out
}

/// Wait states inside a selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitsInSelection {
    /// How many wait states are charged inside it.
    pub total: usize,
    /// Their time in all.
    pub time: f64,
    /// Time per pattern, heaviest first.
    pub by_kind: Vec<Share>,
    /// Time per waiting process.
    pub by_process: Vec<Share>,
    /// The wait states (at most the limit asked for), longest first.
    pub wait_states: Vec<WaitState>,
    /// Time per call site: the innermost region of the waiting event, heaviest first.
    #[serde(default)]
    pub by_call_site: Vec<Share>,
    /// Root causes of these wait states: short-term delay costs per process and call path
    /// (Scalasca's delay analysis), heaviest first, at most the limit asked for.
    #[serde(default)]
    pub short_term_costs: Vec<CostRow>,
    /// Long-term delay costs (propagated through earlier waits), as above.
    #[serde(default)]
    pub long_term_costs: Vec<CostRow>,
}

/// The wait states charged to a selected process at an event inside the window.
pub fn waits_in(
    cx: &Context<'_>,
    waits: &[WaitState],
    selection: &Selection,
    limit: usize,
) -> WaitsInSelection {
    let trace = cx.trace;
    let e = &trace.events;
    let mut kept: Vec<&WaitState> = waits
        .iter()
        .filter(|w| {
            selection.has(w.process)
                && selection.keeps(w.event)
                && e.time()
                    .get(w.event.index())
                    .is_some_and(|t| selection.contains(t.0))
        })
        .collect();
    let time: f64 = kept.iter().map(|w| w.time).sum();
    let mut kind_time: HashMap<WaitKind, f64> = HashMap::new();
    let mut process_time: HashMap<ProcessId, f64> = HashMap::new();
    let mut site_time: HashMap<Option<RegionId>, f64> = HashMap::new();
    for w in &kept {
        *kind_time.entry(w.kind).or_default() += w.time;
        *process_time.entry(w.process).or_default() += w.time;
        *site_time.entry(w.region_id).or_default() += w.time;
    }
    let states: Vec<WaitState> = kept.iter().map(|&w| w.clone()).collect();
    let (mut short_term_costs, mut long_term_costs) = delay_cost_rows(cx, &states);
    short_term_costs.truncate(limit);
    long_term_costs.truncate(limit);
    // The kind's name as the API spells it (`late_sender`, ...).
    let kind_name = |kind: WaitKind| {
        serde_json::to_value(kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("{kind:?}"))
    };
    let by_kind: HashMap<String, f64> = kind_time
        .into_iter()
        .map(|(k, t)| (kind_name(k), t))
        .collect();
    kept.sort_by(|a, b| b.time.total_cmp(&a.time).then(a.event.cmp(&b.event)));
    WaitsInSelection {
        total: kept.len(),
        time,
        by_kind: rank(by_kind, time, |name| (None, name.clone())),
        by_process: rank(process_time, time, |p| {
            (Some(p.0), process_label(trace, Some(p.0)))
        }),
        by_call_site: rank(site_time, time, |r| {
            (r.map(|r| r.0), region_label(trace, r.map(|r| r.0)))
        }),
        wait_states: kept.into_iter().take(limit).cloned().collect(),
        short_term_costs,
        long_term_costs,
    }
}

/// Diagnostics inside a selection: how many of each kind and severity, and one page of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticsInSelection {
    /// How many diagnostics concern it (of the kind and severity asked for, if any).
    pub total: usize,
    /// One page of them: at most the limit asked for, from `offset` on, in the order validation
    /// found them.
    pub diagnostics: Vec<Diagnostic>,
    /// The position of the page's first diagnostic among the `total`.
    #[serde(default)]
    pub offset: usize,
    /// Those concerning the selection counted by kind and severity (whatever kind and severity
    /// were asked for), errors first, with the first few of each.
    #[serde(default)]
    pub counts: Vec<DiagnosticCount>,
}

/// Which diagnostics a page holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiagnosticsPage {
    /// How many matching diagnostics to skip.
    pub offset: usize,
    /// The most diagnostics the page holds.
    pub limit: usize,
    /// Only this kind, if given.
    pub kind: Option<DiagnosticKind>,
    /// Only this severity, if given.
    pub severity: Option<Severity>,
}

/// How many examples of each kind and severity [`diagnostics_in`] counts give.
pub const DIAGNOSTIC_EXAMPLES: usize = 3;

/// Diagnostics with an event of a selected process inside the window, and those about the
/// whole trace (no events): their counts, and the page `page` asks for.
pub fn diagnostics_in(
    trace: &Trace,
    diagnostics: &[Diagnostic],
    selection: &Selection,
    page: DiagnosticsPage,
) -> DiagnosticsInSelection {
    let e = &trace.events;
    let inside = |i: usize| {
        e.process().get(i).is_some_and(|&p| {
            selection.has(p)
                && selection.contains(e.time()[i].0)
                && selection.keeps(EventIdx(i as u32))
        })
    };
    let kept = || {
        diagnostics
            .iter()
            .filter(|d| d.events.is_empty() || d.events.iter().any(|v| inside(v.index())))
    };
    let counts = count_diagnostics(kept(), DIAGNOSTIC_EXAMPLES);
    let wanted = |d: &&Diagnostic| {
        page.kind.is_none_or(|k| d.kind == k) && page.severity.is_none_or(|s| d.severity == s)
    };
    DiagnosticsInSelection {
        total: counts
            .iter()
            .filter(|c| {
                page.kind.is_none_or(|k| c.kind == k)
                    && page.severity.is_none_or(|s| c.severity == s)
            })
            .map(|c| c.count)
            .sum(),
        diagnostics: kept()
            .filter(wanted)
            .skip(page.offset)
            .take(page.limit)
            .cloned()
            .collect(),
        offset: page.offset,
        counts,
    }
}
