//! `tracescope analyze FILE`: reads a trace and reports on it, as text or as a stable JSON object.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use shared::TraceError;
use shared::analysis::{Analysis, AnalysisOptions, Share};
use shared::summary::TraceSummary;
use shared::time::Clock;

/// The `--json` output of `tracescope analyze`: a stable object with named fields.
/// Fields are only ever added, never renamed or removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalyzeReport {
    /// The file that was analysed, as given on the command line.
    pub file: String,
    /// Counts and time span.
    #[serde(flatten)]
    pub summary: TraceSummary,
    /// The analyses.
    #[serde(flatten)]
    pub analysis: Analysis,
}

/// Imports `bytes` (named `file`) and builds the report.
pub fn analyze(bytes: &[u8], file: &str, options: AnalysisOptions) -> Result<AnalyzeReport, TraceError> {
    let name = std::path::Path::new(file).file_name().map_or(file, |n| n.to_str().unwrap_or(file));
    let imported = shared::import::import(bytes, None, name)?;
    let pairing = shared::pairing::pair_messages(&imported.trace);
    let summary = shared::summary::summarize(&imported.trace, imported.format, &pairing);
    let analysis = shared::analysis::analyze(&imported.trace, options);
    Ok(AnalyzeReport { file: file.to_owned(), summary, analysis })
}

/// A number without trailing zeros: `85`, `1.5`, `0.617` (three decimals at most).
fn num(x: f64) -> String {
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0".to_owned() } else { text.to_owned() }
}

/// A duration in ticks, with its real-time value when the clock has a unit.
fn ticks(clock: Clock, x: f64) -> String {
    match clock.seconds(shared::time::Duration(x.round().max(0.0) as u64)) {
        Some(seconds) => format!("{} ticks ({})", num(x), shared::time::format_seconds(seconds)),
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
        let _ = writeln!(out, "    {:>6.1}%  {:>12}  {}", row.share * 100.0, num(row.weight), row.name);
    }
    if rows.len() > limit {
        let _ = writeln!(out, "    … {} more", rows.len() - limit);
    }
}

/// The report for people, gprof-like: headline numbers, then the top of each ranking.
pub fn render_text(report: &AnalyzeReport) -> String {
    let s = &report.summary;
    let a = &report.analysis;
    let clock = Clock { ticks_per_second: s.time.ticks_per_second };
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
    let _ = writeln!(out, "  time span           {} .. {} ticks ({})", s.time.start.0, s.time.end.0, s.time.duration_text);
    let _ = writeln!(out);
    let _ = writeln!(out, "  execution time      {}", ticks(clock, a.execution_time as f64));
    let _ = writeln!(out, "  computation         {}", ticks(clock, a.total_computation));
    if a.wall_computation as f64 != a.total_computation {
        let _ = writeln!(out, "  wall computation    {} (processes timeslice)", ticks(clock, a.wall_computation as f64));
    }
    let _ = writeln!(out, "  speedup             {}", num(a.speedup));
    let _ = writeln!(out, "  efficiency          {} on {} processors", num(a.efficiency), a.processors);
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
        None => writeln!(out, "  granularity         {}:0 (no communication)", num(g.computation)),
    };
    let _ = writeln!(
        out,
        "  critical path       {} (computation {}, transit {})",
        ticks(clock, a.critical_path.length as f64),
        num(a.critical_path.computation),
        num(a.critical_path.transit)
    );
    let _ = writeln!(out, "  WCPA                {}", num(a.wcpa.weight));
    let p = &a.pop;
    let _ = writeln!(
        out,
        "  POP                 load balance {} × serialisation {} × transfer {} = {}",
        num(p.load_balance),
        num(p.serialisation),
        num(p.transfer),
        num(p.parallel_efficiency)
    );
    let profile: Vec<String> =
        a.parallelism_profile.time_with.iter().enumerate().map(|(k, t)| format!("{k}: {t}")).collect();
    let _ = writeln!(
        out,
        "  parallelism         mean {} (while busy {}); ticks with k busy {{{}}}",
        num(a.parallelism_profile.mean),
        num(a.parallelism_profile.mean_while_busy),
        profile.join(", ")
    );
    let _ = writeln!(out);
    ranking(&mut out, "WCPA phases (share of the heaviest path)", &a.wcpa.phases, 10);
    ranking(&mut out, "Critical path by process", &a.critical_path.by_process, 10);
    ranking(&mut out, "Normalized processor time by process", &a.npt.processes, 10);
    ranking(&mut out, "Normalized processor time by region (inclusive)", &a.npt.regions_inclusive, 10);
    let _ = writeln!(out);
    if a.diagnostics.is_empty() {
        let _ = writeln!(out, "  diagnostics         none");
    } else {
        let _ = writeln!(out, "  diagnostics         {}", a.diagnostics.len());
        for d in a.diagnostics.iter().take(20) {
            let _ = writeln!(out, "    {:?} {:?}: {}", d.severity, d.kind, d.message);
        }
    }
    out
}
