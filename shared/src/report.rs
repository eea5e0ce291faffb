//! The report: everything `tracescope analyze --json` prints and `GET /api/runs/{id}/analysis`
//! answers, as one typed value built by [`build`] from one analysis context.
//!
//! Fields are only ever added, never renamed or removed: scripts read this object.

use serde::{Deserialize, Serialize};

use crate::analyses::clocks::{ClcOptions, controlled_logical_clock};
use crate::analyses::metrics::{Analysis, AnalysisOptions, ProcessorKind, analyze_context};
use crate::analyses::summary::{TraceSummary, summarize};
use crate::analyses::waits::{
    CriticalPathProfile, WaitState, WaitSummary, critical_path_profile, summarize_waits,
};
use crate::analyses::whatif::{ScenarioError, WhatIf, parse_scenario, what_if};
use crate::formats::Format;
use crate::graph::context::Context;

/// The report on one trace: a stable object with named fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The file that was analysed, as given on the command line (the run's name on the server).
    pub file: String,
    /// Counts and time span.
    #[serde(flatten)]
    pub summary: TraceSummary,
    /// The analyses.
    #[serde(flatten)]
    pub analysis: Analysis,
    /// Wait states, their totals and their root causes (delay costs).
    pub wait_states: WaitSummary,
    /// The critical path in Scalasca's terms: computation vs communication and their imbalance.
    pub critical_path_profile: CriticalPathProfile,
    /// Clock-condition violations and what the controlled logical clock would move.
    pub clock_violations: ClockReport,
    /// The what-if scenario, when one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what_if: Option<WhatIf>,
    /// What the importer skipped or could not use (unknown records, dangling flows, a
    /// location with no event file, …), one sentence each.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Clock-condition violations and their repair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockReport {
    /// The minimum latency checked, in ticks.
    pub min_latency: u64,
    /// How many messages arrive before their send plus the minimum latency.
    pub count: usize,
    /// The worst: how far before its send + latency a message arrives.
    pub worst: f64,
    /// How many events the controlled logical clock moves to repair them.
    pub repair_moves: usize,
    /// The largest move.
    pub repair_max_shift: f64,
    /// Violations left after repair (only causality cycles leave any).
    pub violations_after_repair: usize,
}

/// What a report is of and what it asks for beyond the default analyses.
#[derive(Debug, Clone)]
pub struct ReportRequest<'a> {
    /// The file or run name the report names.
    pub file: &'a str,
    /// The format the trace was read from.
    pub format: Format,
    /// The importer's notes.
    pub notes: &'a [String],
    /// Analysis options.
    pub options: AnalysisOptions,
}

/// Builds the report from the trace's context and its wait states (computed once by the caller,
/// who usually keeps them: the server answers wait-state selections from the same list).
/// It has no what-if part; [`with_what_if`] adds one.
pub fn build(cx: &Context<'_>, waits: &[WaitState], request: &ReportRequest<'_>) -> Report {
    let summary = summarize(cx.trace, request.format, &cx.pairing);
    let options = AnalysisOptions {
        processors: processor_kind(request.format),
        ..request.options
    };
    let analysis = analyze_context(cx, options);
    Report {
        file: request.file.to_owned(),
        summary,
        wait_states: summarize_waits(cx, waits),
        critical_path_profile: critical_path_profile(cx, &analysis, waits),
        clock_violations: clock_report(cx, request.options.validation.min_latency),
        what_if: None,
        notes: request.notes.to_vec(),
        analysis,
    }
}

/// What a format's traces count as processors for the headline figures: nodes where a node is
/// one CPU (the native and binary models, Tmon, Pajé's and ShiViz's one process per node), the
/// threads that recorded events where a node is a machine whose threads run at once (a Chrome
/// pid, an OTF2 system-tree node, a Paraver node, a Projections SMP node whose PEs are cores).
pub fn processor_kind(format: Format) -> ProcessorKind {
    match format {
        Format::ChromeJson | Format::Otf2 | Format::Paraver | Format::Projections => {
            ProcessorKind::Threads
        }
        Format::TracescopeJson
        | Format::TracescopeBinary
        | Format::Tmon
        | Format::Paje
        | Format::Shiviz => ProcessorKind::Nodes,
    }
}

/// The report with the what-if scenario `scenario` (`transit=0`, `latency=1,bandwidth=200`, …)
/// replayed on the same context.
pub fn with_what_if(
    mut report: Report,
    cx: &Context<'_>,
    scenario: &str,
) -> Result<Report, ScenarioError> {
    report.what_if = Some(what_if(cx, &parse_scenario(scenario, cx)?));
    Ok(report)
}

/// Clock-condition violations at `min_latency` and the controlled logical clock's repair.
fn clock_report(cx: &Context<'_>, min_latency: u64) -> ClockReport {
    let times = cx.trace.events.time();
    let worst = cx
        .pairing
        .messages
        .iter()
        .map(|m| {
            times[m.send.index()].0 as f64 + min_latency as f64 - times[m.arrival.index()].0 as f64
        })
        .fold(0.0, f64::max);
    let clc = ClcOptions {
        min_latency: min_latency as f64,
        ..ClcOptions::default()
    };
    let repair = controlled_logical_clock(cx.trace, &cx.pairing, clc);
    ClockReport {
        min_latency,
        count: repair.violations_before,
        worst,
        repair_moves: repair.moves.len(),
        repair_max_shift: repair.max_shift,
        violations_after_repair: repair.violations_after,
    }
}
