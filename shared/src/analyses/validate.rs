//! Trace validation in the spirit of SIMPLE's CHECKTRACE: every problem is a [`Diagnostic`]
//! naming its events and the results it affects; the analyses still run.
//!
//! It owns the severity policy (`docs/analysis.md`, "Diagnostics"): a diagnostic is an
//! [`Severity::Error`] only when the trace is certainly inconsistent; what a trace cut short
//! (tracing started or stopped mid-run) explains is a [`Severity::Warning`]; what a correct run
//! writes (a task that migrated between threads) is a [`Severity::Note`].
//! It also owns [`count_diagnostics`], the per-kind summary reports give instead of every
//! diagnostic (a trace may have millions).

use serde::{Deserialize, Serialize};

use crate::graph::execution::ExecutionGraph;
use crate::graph::pairing::Pairing;
use crate::model::{EventIdx, EventKind, RegionId, Trace};

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The trace is inconsistent; results it affects are approximations.
    Error,
    /// Suspicious, repairable (clock skew), or explained by a trace cut short.
    Warning,
    /// Worth knowing but legal: what a correct run writes.
    Note,
}

impl Severity {
    /// The name JSON gives it (`error`, `warning`, `note`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }

    /// The severity named `name` (as JSON names it), if any.
    pub fn from_name(name: &str) -> Option<Severity> {
        [Severity::Error, Severity::Warning, Severity::Note]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// What is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// A send with no arrival on its channel.
    UnmatchedSend,
    /// An arrival with no send on its channel.
    UnmatchedArrival,
    /// An event earlier than the event recorded before it in the same process.
    OutOfOrder,
    /// A message that arrived before its send plus the minimum latency.
    ClockViolation,
    /// A leave with no open enter of its region.
    LeaveWithoutEnter,
    /// A region still open at the process's last event.
    UnclosedRegion,
    /// An event before the process's `proc_init`.
    EventBeforeInit,
    /// An event after the process's `proc_exit`.
    EventAfterExit,
    /// More than one `proc_init` or `proc_exit` in a process.
    DuplicateInitOrExit,
    /// A receive call that no arrival completed.
    ReceiveNeverCompleted,
    /// A message edge that closed a causality cycle and was left out of the graph.
    CausalityCycle,
    /// A non-blocking receive posted and never completed, or completed and never posted.
    UnmatchedRequest,
    /// A collective instance some members of its communicator never reached, or that left no
    /// leave event.
    IncompleteCollective,
}

impl DiagnosticKind {
    /// Every kind, in declaration order.
    pub const ALL: [DiagnosticKind; 13] = [
        DiagnosticKind::UnmatchedSend,
        DiagnosticKind::UnmatchedArrival,
        DiagnosticKind::OutOfOrder,
        DiagnosticKind::ClockViolation,
        DiagnosticKind::LeaveWithoutEnter,
        DiagnosticKind::UnclosedRegion,
        DiagnosticKind::EventBeforeInit,
        DiagnosticKind::EventAfterExit,
        DiagnosticKind::DuplicateInitOrExit,
        DiagnosticKind::ReceiveNeverCompleted,
        DiagnosticKind::CausalityCycle,
        DiagnosticKind::UnmatchedRequest,
        DiagnosticKind::IncompleteCollective,
    ];

    /// The name JSON gives it (`unmatched_send`, …).
    pub fn name(self) -> &'static str {
        match self {
            DiagnosticKind::UnmatchedSend => "unmatched_send",
            DiagnosticKind::UnmatchedArrival => "unmatched_arrival",
            DiagnosticKind::OutOfOrder => "out_of_order",
            DiagnosticKind::ClockViolation => "clock_violation",
            DiagnosticKind::LeaveWithoutEnter => "leave_without_enter",
            DiagnosticKind::UnclosedRegion => "unclosed_region",
            DiagnosticKind::EventBeforeInit => "event_before_init",
            DiagnosticKind::EventAfterExit => "event_after_exit",
            DiagnosticKind::DuplicateInitOrExit => "duplicate_init_or_exit",
            DiagnosticKind::ReceiveNeverCompleted => "receive_never_completed",
            DiagnosticKind::CausalityCycle => "causality_cycle",
            DiagnosticKind::UnmatchedRequest => "unmatched_request",
            DiagnosticKind::IncompleteCollective => "incomplete_collective",
        }
    }

    /// The kind named `name` (as JSON names it), if any.
    pub fn from_name(name: &str) -> Option<DiagnosticKind> {
        DiagnosticKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The severity of a diagnostic of this kind when nothing in the trace mitigates it; the
    /// validation lowers it case by case (a send at the end of a trace cut short is a warning,
    /// a leave on the thread a task migrated to is a note), as `docs/analysis.md` tabulates.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::ClockViolation
            | DiagnosticKind::UnclosedRegion
            | DiagnosticKind::IncompleteCollective => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// The results (named as in `tracescope analyze --json`) whose values it makes approximate.
    pub fn affects(self) -> &'static [&'static str] {
        match self {
            DiagnosticKind::UnmatchedSend | DiagnosticKind::UnmatchedArrival => {
                &["critical_path", "wcpa", "granularity", "pop"]
            }
            DiagnosticKind::ClockViolation | DiagnosticKind::CausalityCycle => {
                &["critical_path", "wcpa", "granularity", "pop"]
            }
            DiagnosticKind::OutOfOrder => &[
                "critical_path",
                "wcpa",
                "npt",
                "parallelism_profile",
                "total_computation",
            ],
            DiagnosticKind::LeaveWithoutEnter | DiagnosticKind::UnclosedRegion => {
                &["npt", "critical_path"]
            }
            DiagnosticKind::EventBeforeInit
            | DiagnosticKind::EventAfterExit
            | DiagnosticKind::DuplicateInitOrExit => &["parallelism_profile", "total_computation"],
            DiagnosticKind::ReceiveNeverCompleted | DiagnosticKind::UnmatchedRequest => {
                &["critical_path", "wcpa", "execution_time"]
            }
            DiagnosticKind::IncompleteCollective => &["critical_path", "wcpa", "wait_states"],
        }
    }
}

/// One problem found in a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// What is wrong.
    pub kind: DiagnosticKind,
    /// How bad it is.
    pub severity: Severity,
    /// The events involved.
    pub events: Vec<EventIdx>,
    /// A sentence for people.
    pub message: String,
    /// The results it affects.
    pub affects: Vec<String>,
    /// The process of its first event (none when it has no events).
    #[serde(default)]
    pub process: Option<u32>,
    /// The time of its first event, in ticks (none when it has no events).
    #[serde(default)]
    pub time: Option<u64>,
}

impl Diagnostic {
    fn new(kind: DiagnosticKind, events: Vec<EventIdx>, message: String) -> Diagnostic {
        Diagnostic {
            kind,
            severity: kind.severity(),
            events,
            message,
            affects: kind.affects().iter().map(|s| (*s).to_owned()).collect(),
            process: None,
            time: None,
        }
    }

    /// The same diagnostic at another severity.
    fn at(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }
}

/// How many diagnostics of one kind and severity there are, with the first few.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticCount {
    /// What is wrong.
    pub kind: DiagnosticKind,
    /// How bad it is.
    pub severity: Severity,
    /// How many there are.
    pub count: usize,
    /// The first of them, in the order validation found them.
    pub first: Vec<Diagnostic>,
}

/// How many examples of each kind and severity a report keeps.
pub const EXAMPLES_PER_KIND: usize = 5;

/// The diagnostics counted by kind and severity, each group with its first `examples`
/// diagnostics: errors first, then warnings and notes, the largest group first within each.
pub fn count_diagnostics<'a>(
    diagnostics: impl IntoIterator<Item = &'a Diagnostic>,
    examples: usize,
) -> Vec<DiagnosticCount> {
    let mut out: Vec<DiagnosticCount> = Vec::new();
    for d in diagnostics {
        // There are at most 13 kinds times 3 severities, so a linear search is cheap.
        let group = match out
            .iter()
            .position(|c| c.kind == d.kind && c.severity == d.severity)
        {
            Some(at) => &mut out[at],
            None => {
                out.push(DiagnosticCount {
                    kind: d.kind,
                    severity: d.severity,
                    count: 0,
                    first: Vec::new(),
                });
                let last = out.len() - 1;
                &mut out[last]
            }
        };
        group.count += 1;
        if group.first.len() < examples {
            group.first.push(d.clone());
        }
    }
    out.sort_by(|a, b| {
        (a.severity, std::cmp::Reverse(a.count), a.kind.name()).cmp(&(
            b.severity,
            std::cmp::Reverse(b.count),
            b.kind.name(),
        ))
    });
    out
}

/// The first `examples` diagnostics of each kind and severity, in their order: what a report
/// lists in its `diagnostics` field (the complete list may be millions long).
pub fn first_of_each_kind(diagnostics: &[Diagnostic], examples: usize) -> Vec<Diagnostic> {
    let mut seen: std::collections::HashMap<(DiagnosticKind, Severity), usize> =
        std::collections::HashMap::new();
    diagnostics
        .iter()
        .filter(|d| {
            let n = seen.entry((d.kind, d.severity)).or_insert(0);
            *n += 1;
            *n <= examples
        })
        .cloned()
        .collect()
}

/// Options of validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ValidationOptions {
    /// The minimum message latency in ticks: an arrival earlier than send + this violates the
    /// clock condition.
    pub min_latency: u64,
}

/// What validation needs to know of one process's record to tell a trace cut short from an
/// inconsistent one.
#[derive(Debug, Clone, Copy, Default)]
struct Record {
    /// The time of its first `proc_init`: the process's start is in the trace.
    init: Option<u64>,
    /// The time of its last `proc_exit`: the process's end is in the trace.
    exit: Option<u64>,
    /// The index of its last event that is neither a leave nor a `proc_exit` (what a process
    /// still does after a blocking call returns), or its first event.
    last_busy: usize,
}

/// Each process's [`Record`].
fn records(trace: &Trace) -> Vec<Record> {
    let e = &trace.events;
    trace
        .process_ids()
        .map(|process| {
            let range = trace.process_events(process);
            let mut record = Record {
                last_busy: range.start,
                ..Record::default()
            };
            for i in range {
                let t = e.time()[i].0;
                match e.kind()[i] {
                    EventKind::ProcInit => {
                        record.init.get_or_insert(t);
                    }
                    EventKind::ProcExit => record.exit = Some(t),
                    EventKind::Leave | EventKind::Wait | EventKind::Run => {}
                    _ => record.last_busy = i,
                }
            }
            record
        })
        .collect()
}

/// A leave with no open enter on its process, or an enter never left on its process: the two
/// halves of a region a task may have carried from one thread to another.
#[derive(Debug, Clone, Copy)]
struct Orphan {
    process: u32,
    region: RegionId,
    event: EventIdx,
    time: u64,
}

/// Pairs each leave without enter with an enter of the same region left open on another
/// process of the same node at or before it (the task migrated between the node's threads):
/// the pairs as (leave's position in `leaves`, enter's position in `enters`).
fn migrations(trace: &Trace, leaves: &[Orphan], enters: &[Orphan]) -> Vec<(usize, usize)> {
    let node = |p: u32| trace.processes.get(p as usize).map(|p| p.node);
    // The open enters of each (node, region), earliest first, with the position of the first
    // one not taken yet.
    type Open = (Vec<usize>, usize);
    let mut open: std::collections::HashMap<(Option<crate::model::NodeId>, RegionId), Open> =
        std::collections::HashMap::new();
    for (at, enter) in enters.iter().enumerate() {
        open.entry((node(enter.process), enter.region))
            .or_default()
            .0
            .push(at);
    }
    for (list, _) in open.values_mut() {
        list.sort_by_key(|&at| (enters[at].time, enters[at].event));
    }
    let mut taken = vec![false; enters.len()];
    let mut order: Vec<usize> = (0..leaves.len()).collect();
    order.sort_by_key(|&at| (leaves[at].time, leaves[at].event));
    let mut out = Vec::new();
    for at in order {
        let leave = leaves[at];
        let Some((list, first_free)) = open.get_mut(&(node(leave.process), leave.region)) else {
            continue;
        };
        while list.get(*first_free).is_some_and(|&e| taken[e]) {
            *first_free += 1;
        }
        // The earliest enter still free that another process opened no later than the leave.
        // The scan is bounded so that a pathological trace stays linear.
        let found = list
            .get(*first_free..)
            .unwrap_or_default()
            .iter()
            .take(64)
            .take_while(|&&e| enters[e].time <= leave.time)
            .find(|&&e| !taken[e] && enters[e].process != leave.process)
            .copied();
        if let Some(e) = found {
            taken[e] = true;
            out.push((at, e));
        }
    }
    out
}

/// Checks a trace, its pairing and its graph.
pub fn validate(
    trace: &Trace,
    pairing: &Pairing,
    graph: &ExecutionGraph,
    options: ValidationOptions,
) -> Vec<Diagnostic> {
    let e = &trace.events;
    let mut out = Vec::new();
    let process_name = |p: u32| {
        trace
            .processes
            .get(p as usize)
            .map_or("?", |p| p.name.as_str())
    };
    // A time as the page shows it: with the trace's unit, or in ticks.
    let at = |t: u64| trace.clock.format_duration(crate::model::time::Duration(t));
    // An event in people's words: "the message arrival of task 3 at 84.07 µs".
    let describe = |i: EventIdx| {
        let p = e.process()[i.index()];
        format!(
            "the {} of {} at {}",
            e.kind()[i.index()].words(),
            process_name(p.0),
            at(e.time()[i.index()].0)
        )
    };
    let region_name = |r: RegionId| {
        trace
            .regions
            .get(r.index())
            .map_or("?", |r| r.name.as_str())
    };
    let records = records(trace);
    let record = |p: Option<crate::model::ProcessId>| {
        p.and_then(|p| records.get(p.index()))
            .copied()
            .unwrap_or_default()
    };
    for &send in &pairing.unmatched_sends {
        // The arrival may lie after the receiver's record stops (tracing stopped mid-run),
        // unless the receiver's own end, after the send, is in the trace.
        let t = e.time()[send.index()].0;
        let receiver = record(e.peer().at(send.index()));
        let d = Diagnostic::new(
            DiagnosticKind::UnmatchedSend,
            vec![send],
            format!("{} has no arrival", describe(send)),
        );
        out.push(match receiver.exit {
            Some(exit) if exit >= t => d,
            _ => Diagnostic {
                message: format!(
                    "{}; its receiver's record has no process end after it, so the arrival may come after tracing stopped",
                    d.message
                ),
                ..d
            }
            .at(Severity::Warning),
        });
    }
    for &arrival in &pairing.unmatched_arrivals {
        // The send may lie before the sender's record begins (tracing started mid-run), unless
        // the sender's own start, before the arrival, is in the trace.
        let t = e.time()[arrival.index()].0;
        let sender = record(e.peer().at(arrival.index()));
        let d = Diagnostic::new(
            DiagnosticKind::UnmatchedArrival,
            vec![arrival],
            format!("{} has no send", describe(arrival)),
        );
        out.push(match sender.init {
            Some(init) if init <= t => d,
            _ => Diagnostic {
                message: format!(
                    "{}; its sender's record has no process start before it, so the send may come before tracing started",
                    d.message
                ),
                ..d
            }
            .at(Severity::Warning),
        });
    }
    for m in &pairing.messages {
        let (sent, arrived) = (e.time()[m.send.index()].0, e.time()[m.arrival.index()].0);
        if arrived < sent.saturating_add(options.min_latency) {
            out.push(Diagnostic::new(
                DiagnosticKind::ClockViolation,
                vec![m.send, m.arrival],
                format!(
                    "{} came before its send at {} plus the minimum latency {}",
                    describe(m.arrival),
                    at(sent),
                    at(options.min_latency)
                ),
            ));
        }
    }
    for &(send, arrival) in graph.dropped_messages() {
        out.push(Diagnostic::new(
            DiagnosticKind::CausalityCycle,
            vec![send, arrival],
            format!(
                "the message from {} to {} closes a causality cycle and is left out of the graph",
                describe(send),
                describe(arrival)
            ),
        ));
    }
    for (hub, leave) in graph.dropped_collectives() {
        out.push(Diagnostic::new(
            DiagnosticKind::CausalityCycle,
            vec![*leave],
            format!("the collective wait of {} closes a causality cycle (hub {hub}) and is left out of the graph", describe(*leave)),
        ));
    }
    let collectives = crate::graph::collectives::collectives(trace);
    let mut members_of: std::collections::HashMap<(RegionId, u32), usize> =
        std::collections::HashMap::new();
    for c in &collectives {
        let n = members_of.entry((c.region, c.communicator)).or_insert(0);
        *n = (*n).max(c.members.len());
    }
    for c in &collectives {
        let expected = members_of
            .get(&(c.region, c.communicator))
            .copied()
            .unwrap_or(0);
        let open: Vec<EventIdx> = c
            .members
            .iter()
            .filter(|m| m.2.is_none())
            .map(|m| m.1)
            .collect();
        if c.members.len() < expected || !open.is_empty() {
            let name = trace
                .regions
                .get(c.region.index())
                .map_or("?", |r| r.name.as_str());
            out.push(Diagnostic::new(
                DiagnosticKind::IncompleteCollective,
                c.members.iter().map(|m| m.1).collect(),
                format!(
                    "{name} #{} on communicator {} has {} of {expected} members and {} without a leave",
                    c.sequence + 1,
                    c.communicator,
                    c.members.len(),
                    open.len()
                ),
            ));
        }
    }
    // Leaves without an enter and enters never left, per process, matched across processes
    // once every process is read.
    let (mut leaves, mut enters): (Vec<Orphan>, Vec<Orphan>) = (Vec::new(), Vec::new());
    for process in trace.process_ids() {
        let range = trace.process_events(process);
        let mut posted: std::collections::HashMap<std::num::NonZeroU32, EventIdx> =
            std::collections::HashMap::new();
        for i in range.clone() {
            let v = EventIdx(i as u32);
            match (e.kind()[i], e.request().at(i)) {
                (EventKind::RecvPost, Some(r)) => {
                    posted.insert(r, v);
                }
                (EventKind::MsgArr, Some(r)) if posted.remove(&r).is_none() => {
                    // The post may lie before the process's record begins, unless the
                    // process's own start is in the trace.
                    let started = records
                        .get(process.index())
                        .and_then(|r| r.init)
                        .is_some_and(|init| init <= e.time()[i].0);
                    let d = Diagnostic::new(
                        DiagnosticKind::UnmatchedRequest,
                        vec![v],
                        format!(
                            "{} completes request {r}, which was never posted",
                            describe(v)
                        ),
                    );
                    out.push(if started { d } else { d.at(Severity::Warning) });
                }
                _ => {}
            }
        }
        let mut left: Vec<EventIdx> = posted.into_values().collect();
        left.sort();
        for v in left {
            // A program may free or cancel a pending request, or stop with it pending, and
            // tracing may stop before it completes: legal, but the receive is missing.
            out.push(
                Diagnostic::new(
                    DiagnosticKind::UnmatchedRequest,
                    vec![v],
                    format!("{} is never completed", describe(v)),
                )
                .at(Severity::Warning),
            );
        }
        let mut stack: Vec<(RegionId, EventIdx)> = Vec::new();
        let (mut inits, mut exits) = (0, 0);
        let mut exited = false;
        for i in range.clone() {
            let v = EventIdx(i as u32);
            if i > range.start && e.time()[i] < e.time()[i - 1] {
                out.push(Diagnostic::new(
                    DiagnosticKind::OutOfOrder,
                    vec![EventIdx(i as u32 - 1), v],
                    format!(
                        "{} is earlier than the event recorded before it",
                        describe(v)
                    ),
                ));
            }
            if exited {
                out.push(Diagnostic::new(
                    DiagnosticKind::EventAfterExit,
                    vec![v],
                    format!("{} comes after its process's end", describe(v)),
                ));
            }
            match (e.kind()[i], e.region().at(i)) {
                (EventKind::ProcInit, _) => {
                    inits += 1;
                    if i > range.start && inits == 1 {
                        out.push(Diagnostic::new(
                            DiagnosticKind::EventBeforeInit,
                            vec![EventIdx(range.start as u32)],
                            format!(
                                "{} comes before its process's start",
                                describe(EventIdx(range.start as u32))
                            ),
                        ));
                    }
                }
                (EventKind::ProcExit, _) => {
                    exits += 1;
                    exited = true;
                }
                (EventKind::Enter, Some(r)) => stack.push((r, v)),
                (EventKind::Leave, Some(r)) => match stack.iter().rposition(|&(open, _)| open == r)
                {
                    Some(pos) => stack.truncate(pos),
                    None => leaves.push(Orphan {
                        process: process.0,
                        region: r,
                        event: v,
                        time: e.time()[i].0,
                    }),
                },
                _ => {}
            }
        }
        if inits > 1 || exits > 1 {
            let first = EventIdx(range.start as u32);
            out.push(Diagnostic::new(
                DiagnosticKind::DuplicateInitOrExit,
                vec![first],
                format!(
                    "process {} has {inits} process starts and {exits} process ends (one of each expected)",
                    process.0
                ),
            ));
        }
        enters.extend(stack.into_iter().map(|(region, enter)| Orphan {
            process: process.0,
            region,
            event: enter,
            time: e.time()[enter.index()].0,
        }));
        let last_busy = records
            .get(process.index())
            .map_or(range.start, |r| r.last_busy);
        for v in graph.program(process) {
            // The scheduler's own events (a wait in the receive) may come between a call and
            // its completion.
            let mut next = graph.next(v);
            while let Some(n) =
                next.filter(|n| matches!(e.kind()[n.index()], EventKind::Wait | EventKind::Run))
            {
                next = graph.next(n);
            }
            let completed = next.is_some_and(|next| e.kind()[next.index()] == EventKind::MsgArr);
            if e.kind()[v.index()] == EventKind::RecvCall && !completed {
                let d = Diagnostic::new(
                    DiagnosticKind::ReceiveNeverCompleted,
                    vec![v],
                    format!("{} is never completed by an arrival", describe(v)),
                );
                // A blocking receive after which the process does nothing but leave regions
                // and exit is where tracing stopped (or the run hung); one the process went on
                // from was certainly completed by an arrival the trace lost.
                out.push(if v.index() >= last_busy {
                    Diagnostic {
                        message: format!(
                            "{}; it is the process's last action, so tracing may have stopped while it waited",
                            d.message
                        ),
                        ..d
                    }
                    .at(Severity::Warning)
                } else {
                    d
                });
            }
        }
    }
    // A task that migrated between threads of a node enters a region on one and leaves it on
    // another (OpenMP untied tasks, Charm++ and StarPU workers): each half is legal.
    let moved = migrations(trace, &leaves, &enters);
    let mut leave_moved = vec![None; leaves.len()];
    let mut enter_moved = vec![None; enters.len()];
    for &(leave, enter) in &moved {
        leave_moved[leave] = Some(enter);
        enter_moved[enter] = Some(leave);
    }
    for (leave, partner) in leaves.iter().zip(&leave_moved) {
        let v = leave.event;
        out.push(match partner.and_then(|at| enters.get(at)) {
            Some(enter) => Diagnostic::new(
                DiagnosticKind::LeaveWithoutEnter,
                vec![v, enter.event],
                format!(
                    "{} leaves region {:?} that {} entered at {}: a task that moved between threads of one node",
                    describe(v),
                    region_name(leave.region),
                    process_name(enter.process),
                    enter.time
                ),
            )
            .at(Severity::Note),
            None => Diagnostic::new(
                DiagnosticKind::LeaveWithoutEnter,
                vec![v],
                format!("{} leaves a region it never entered", describe(v)),
            ),
        });
    }
    for (enter, partner) in enters.iter().zip(&enter_moved) {
        let v = enter.event;
        let name = region_name(enter.region);
        out.push(match partner.and_then(|at| leaves.get(at)) {
            Some(leave) => Diagnostic::new(
                DiagnosticKind::UnclosedRegion,
                vec![v, leave.event],
                format!(
                    "region {name:?} entered by {} is left by {} at {}: a task that moved between threads of one node",
                    describe(v),
                    process_name(leave.process),
                    leave.time
                ),
            )
            .at(Severity::Note),
            None => Diagnostic::new(
                DiagnosticKind::UnclosedRegion,
                vec![v],
                format!("region {name:?} entered by {} is never left", describe(v)),
            ),
        });
    }
    for d in &mut out {
        if let Some(first) = d.events.first() {
            d.process = e.process().get(first.index()).map(|p| p.0);
            d.time = e.time().get(first.index()).map(|t| t.0);
        }
    }
    out
}
