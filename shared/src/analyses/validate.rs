//! Trace validation in the spirit of SIMPLE's CHECKTRACE: every problem is a [`Diagnostic`]
//! naming its events and the results it affects; the analyses still run.

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
    /// Suspicious, or repairable (clock skew).
    Warning,
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
    /// How bad it is.
    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::ClockViolation | DiagnosticKind::UnclosedRegion => Severity::Warning,
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
}

impl Diagnostic {
    fn new(kind: DiagnosticKind, events: Vec<EventIdx>, message: String) -> Diagnostic {
        Diagnostic {
            kind,
            severity: kind.severity(),
            events,
            message,
            affects: kind.affects().iter().map(|s| (*s).to_owned()).collect(),
        }
    }
}

/// Options of validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ValidationOptions {
    /// The minimum message latency in ticks: an arrival earlier than send + this violates the
    /// clock condition.
    pub min_latency: u64,
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
    let describe = |i: EventIdx| {
        let p = e.process()[i.index()];
        let name = trace
            .processes
            .get(p.index())
            .map_or("?", |p| p.name.as_str());
        format!(
            "{} of {name} at {}",
            e.kind()[i.index()].name(),
            e.time()[i.index()].0
        )
    };
    for &send in &pairing.unmatched_sends {
        out.push(Diagnostic::new(
            DiagnosticKind::UnmatchedSend,
            vec![send],
            format!("{} has no arrival", describe(send)),
        ));
    }
    for &arrival in &pairing.unmatched_arrivals {
        out.push(Diagnostic::new(
            DiagnosticKind::UnmatchedArrival,
            vec![arrival],
            format!("{} has no send", describe(arrival)),
        ));
    }
    for m in &pairing.messages {
        let (sent, arrived) = (e.time()[m.send.index()].0, e.time()[m.arrival.index()].0);
        if arrived < sent.saturating_add(options.min_latency) {
            out.push(Diagnostic::new(
                DiagnosticKind::ClockViolation,
                vec![m.send, m.arrival],
                format!(
                    "{} arrived at {arrived}, before its send at {sent} plus the minimum latency {}",
                    describe(m.arrival),
                    options.min_latency
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
                    out.push(Diagnostic::new(
                        DiagnosticKind::UnmatchedRequest,
                        vec![v],
                        format!(
                            "{} completes request {r}, which was never posted",
                            describe(v)
                        ),
                    ));
                }
                _ => {}
            }
        }
        let mut left: Vec<EventIdx> = posted.into_values().collect();
        left.sort();
        for v in left {
            out.push(Diagnostic::new(
                DiagnosticKind::UnmatchedRequest,
                vec![v],
                format!("{} is never completed", describe(v)),
            ));
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
                    format!("{} comes after proc_exit", describe(v)),
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
                                "{} comes before proc_init",
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
                    None => out.push(Diagnostic::new(
                        DiagnosticKind::LeaveWithoutEnter,
                        vec![v],
                        format!("{} leaves a region it never entered", describe(v)),
                    )),
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
                    "process {} has {inits} proc_init and {exits} proc_exit events",
                    process.0
                ),
            ));
        }
        for (region, enter) in stack {
            let name = trace
                .regions
                .get(region.index())
                .map_or("?", |r| r.name.as_str());
            out.push(Diagnostic::new(
                DiagnosticKind::UnclosedRegion,
                vec![enter],
                format!(
                    "region {name:?} entered by {} is never left",
                    describe(enter)
                ),
            ));
        }
        for v in graph.program(process) {
            let completed = graph
                .next(v)
                .is_some_and(|next| e.kind()[next.index()] == EventKind::MsgArr);
            if e.kind()[v.index()] == EventKind::RecvCall && !completed {
                out.push(Diagnostic::new(
                    DiagnosticKind::ReceiveNeverCompleted,
                    vec![v],
                    format!("{} is never completed by an arrival", describe(v)),
                ));
            }
        }
    }
    out
}
