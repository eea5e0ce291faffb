//! `tracescope analyze FILE`: reads a trace and reports on it, as text or as a stable JSON object.

use std::fmt::Write as _;

use shared::TraceError;
use shared::analyses::metrics::{AnalysisOptions, Share};
use shared::graph::context::Context;
use shared::model::time::Clock;
use shared::report::{self, Report, ReportRequest};

/// What `tracescope analyze` should do beyond the default analyses.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Analysis options.
    pub options: AnalysisOptions,
    /// A what-if scenario (`transit=0`, `latency=1,bandwidth=200`, …).
    pub what_if: Option<String>,
    /// The format to read, instead of detecting it.
    pub format: Option<shared::formats::Format>,
}

/// Why `tracescope analyze` failed.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The what-if scenario could not be read.
    #[error(transparent)]
    Scenario(#[from] shared::analyses::whatif::ScenarioError),
}

/// Imports `bytes` (named `file`) and builds the report.
pub fn analyze(bytes: &[u8], file: &str, request: &Request) -> Result<Report, AnalyzeError> {
    let name = std::path::Path::new(file)
        .file_name()
        .map_or(file, |n| n.to_str().unwrap_or(file));
    let imported = shared::formats::import(bytes, request.format, name)?;
    analyze_imported(&imported, file, request)
}

/// Builds the report of an already imported trace.
pub fn analyze_imported(
    imported: &shared::formats::Imported,
    file: &str,
    request: &Request,
) -> Result<Report, AnalyzeError> {
    let cx = Context::new(&imported.trace);
    let waits = shared::analyses::waits::wait_states(&cx);
    let report = report::build(
        &cx,
        &waits,
        &ReportRequest {
            file,
            format: imported.format,
            notes: &imported.notes,
            options: request.options,
        },
    );
    Ok(match &request.what_if {
        Some(scenario) => report::with_what_if(report, &cx, scenario)?,
        None => report,
    })
}

/// A number without trailing zeros: `85`, `1.5`, `0.617` (three decimals at most).
fn num(x: f64) -> String {
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// A duration in ticks, with its real-time value when the clock has a unit.
fn ticks(clock: Clock, x: f64) -> String {
    match clock.seconds(shared::model::time::Duration(x.round().max(0.0) as u64)) {
        Some(seconds) => format!(
            "{} ticks ({})",
            num(x),
            shared::model::time::format_seconds(seconds)
        ),
        None => format!("{} ticks", num(x)),
    }
}

/// The top rows of a ranking, as an indented table.
fn ranking(out: &mut String, title: &str, rows: &[Share], limit: usize) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(out, "  {title}");
    for row in rows.iter().take(limit) {
        let _ = writeln!(
            out,
            "    {:>6.1}%  {:>12}  {}",
            row.share * 100.0,
            num(row.weight),
            row.name
        );
    }
    if rows.len() > limit {
        let _ = writeln!(out, "    … {} more", rows.len() - limit);
    }
}

/// The report for people, gprof-like: headline numbers, then the top of each ranking.
pub fn render_text(report: &Report) -> String {
    let s = &report.summary;
    let a = &report.analysis;
    let clock = Clock {
        ticks_per_second: s.time.ticks_per_second,
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", s.name);
    let _ = writeln!(out, "  file                {}", report.file);
    let _ = writeln!(out, "  format              {}", s.format.name());
    let _ = writeln!(out, "  nodes               {}", s.nodes);
    let _ = writeln!(out, "  processes           {}", s.processes);
    let _ = writeln!(out, "  events              {}", s.events);
    let _ = writeln!(
        out,
        "  messages            {} ({} unmatched sends, {} unmatched arrivals)",
        s.messages, s.unmatched_sends, s.unmatched_arrivals
    );
    let _ = writeln!(
        out,
        "  time span           {} .. {} ticks ({})",
        s.time.start.0, s.time.end.0, s.time.duration_text
    );
    for (i, note) in report.notes.iter().enumerate() {
        let label = if i == 0 { "importer notes" } else { "" };
        let _ = writeln!(out, "  {label:<20}{note}");
    }
    let _ = writeln!(out);
    let on = match a.clocks {
        shared::analyses::metrics::Clocks::Recorded => "recorded clocks",
        shared::analyses::metrics::Clocks::Repaired => {
            "repaired clocks: some messages arrive before their send"
        }
    };
    let _ = writeln!(
        out,
        "  execution time      {} (on the {on})",
        ticks(clock, a.execution_time as f64)
    );
    let _ = writeln!(
        out,
        "  computation         {}",
        ticks(clock, a.total_computation)
    );
    if a.wall_computation as f64 != a.total_computation {
        let _ = writeln!(
            out,
            "  wall computation    {} (computation above shares a node's CPU among its processes)",
            ticks(clock, a.wall_computation as f64)
        );
    }
    // The headline figures on one set of processors (`docs/analysis.md`, "Headline figures").
    let f = &a.figures;
    let _ = writeln!(
        out,
        "  processors          {} {}",
        f.processors,
        f.processor_kind.noun()
    );
    let _ = writeln!(out, "  work                {}", ticks(clock, f.work));
    let _ = writeln!(
        out,
        "  speedup             {} (work / execution time)",
        num(f.speedup)
    );
    let _ = writeln!(
        out,
        "  efficiency          {} (speedup / {} {})",
        num(f.efficiency),
        f.processors,
        f.processor_kind.noun()
    );
    let g = &a.granularity;
    let _ = match g.ratio {
        Some(ratio) => writeln!(
            out,
            "  granularity         {}:{} ({:.2}:1, {:.1}% computation)",
            num(g.computation),
            g.communication,
            ratio,
            g.computation_share.unwrap_or(0.0) * 100.0
        ),
        None => writeln!(
            out,
            "  granularity         {}:0 (no communication)",
            num(g.computation)
        ),
    };
    let _ = writeln!(
        out,
        "  critical path       {} (computation {}, transit {})",
        ticks(clock, a.critical_path.length as f64),
        num(a.critical_path.computation),
        num(a.critical_path.transit)
    );
    let _ = writeln!(out, "  WCPA                {}", num(a.wcpa.weight));
    let p = &a.figures;
    let _ = writeln!(
        out,
        "  POP                 load balance {} × serialisation {} × transfer {} = {} (per processor)",
        num(p.load_balance),
        num(p.serialisation),
        num(p.transfer),
        num(p.parallel_efficiency)
    );
    let profile: Vec<String> = a
        .parallelism_profile
        .time_with
        .iter()
        .enumerate()
        .map(|(k, t)| format!("{k}: {t}"))
        .collect();
    let _ = writeln!(
        out,
        "  parallelism         mean {} (while busy {}); ticks with k busy {{{}}}",
        num(a.parallelism_profile.mean),
        num(a.parallelism_profile.mean_while_busy),
        profile.join(", ")
    );
    let _ = writeln!(out);
    ranking(
        &mut out,
        "WCPA phases (share of the heaviest path)",
        &a.wcpa.phases,
        10,
    );
    ranking(
        &mut out,
        "Critical path by process",
        &a.critical_path.by_process,
        10,
    );
    ranking(
        &mut out,
        "Normalized processor time by process",
        &a.npt.processes,
        10,
    );
    ranking(
        &mut out,
        "Normalized processor time by region (inclusive)",
        &a.npt.regions_inclusive,
        10,
    );
    let w = &report.wait_states;
    if !w.by_process.is_empty() {
        let _ = writeln!(out, "  Wait states by process");
        for (name, kind, time, _) in w.by_process.iter().take(10) {
            let _ = writeln!(out, "    {:>12}  {kind:?}  {name}", num(*time));
        }
    }
    if !w.short_term_costs.is_empty() {
        let _ = writeln!(out, "  Root causes (short-term delay cost)");
        for (process, region, cost, _) in w.short_term_costs.iter().take(10) {
            let _ = writeln!(out, "    {:>12}  {process}: {region}", num(*cost));
        }
    }
    let _ = writeln!(out);
    let c = &report.clock_violations;
    let _ = writeln!(
        out,
        "  clock violations    {} (worst {} ticks; repair moves {} events, at most {} ticks)",
        c.count,
        num(c.worst),
        c.repair_moves,
        num(c.repair_max_shift)
    );
    if let Some(what_if) = &report.what_if {
        let _ = writeln!(
            out,
            "  what-if             {} instead of {} (benefit {})",
            num(what_if.execution_time),
            num(what_if.baseline),
            num(what_if.benefit)
        );
    }
    // Counts by kind and severity with the first example of each: a trace may have millions of
    // diagnostics, and `--json` or the server's `diagnostics` part give more.
    if a.diagnostic_counts.is_empty() {
        let _ = writeln!(out, "  diagnostics         none");
    } else {
        let of = |severity| {
            a.diagnostic_counts
                .iter()
                .filter(|c| c.severity == severity)
                .map(|c| c.count)
                .sum::<usize>()
        };
        use shared::analyses::validate::Severity;
        let _ = writeln!(
            out,
            "  diagnostics         {} ({} errors, {} warnings, {} notes)",
            a.diagnostics_total,
            of(Severity::Error),
            of(Severity::Warning),
            of(Severity::Note)
        );
        for c in &a.diagnostic_counts {
            let _ = writeln!(
                out,
                "    {:>12}  {} {}",
                c.count,
                c.severity.name(),
                c.kind.name()
            );
            if let Some(d) = c.first.first() {
                let _ = writeln!(out, "                  e.g. {}", d.message);
            }
        }
    }
    out
}

/// `tracescope analyze`: reads `file` and prints its report (text, or JSON with `json`).
pub fn command(
    file: &std::path::Path,
    json: bool,
    min_latency: u64,
    what_if: Option<String>,
    format: Option<shared::formats::Format>,
    options: &shared::formats::ImportOptions,
) -> anyhow::Result<()> {
    let imported = super::files::read_trace(file, format, options)?;
    let options = shared::analyses::metrics::AnalysisOptions {
        validation: shared::analyses::validate::ValidationOptions { min_latency },
        ..shared::analyses::metrics::AnalysisOptions::default()
    };
    let request = Request {
        options,
        what_if,
        format,
    };
    let report = analyze_imported(&imported, &file.display().to_string(), &request)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render_text(&report));
    }
    Ok(())
}
