//! `tracescope analyze FILE`: reads a trace and reports on it, as text or as a stable JSON object.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use shared::TraceError;
use shared::summary::TraceSummary;

/// The `--json` output of `tracescope analyze`: a stable object with named fields.
/// Fields are only ever added, never renamed or removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalyzeReport {
    /// The file that was analysed, as given on the command line.
    pub file: String,
    /// Counts and time span.
    #[serde(flatten)]
    pub summary: TraceSummary,
}

/// Imports `bytes` (named `file`) and builds the report.
pub fn analyze(bytes: &[u8], file: &str) -> Result<AnalyzeReport, TraceError> {
    let name = std::path::Path::new(file).file_name().map_or(file, |n| n.to_str().unwrap_or(file));
    let imported = shared::import::import(bytes, None, name)?;
    let pairing = shared::pairing::pair_messages(&imported.trace);
    let summary = shared::summary::summarize(&imported.trace, imported.format, &pairing);
    Ok(AnalyzeReport { file: file.to_owned(), summary })
}

/// The report for people.
pub fn render_text(report: &AnalyzeReport) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(out, "{}", s.name);
    let _ = writeln!(out, "  file        {}", report.file);
    let _ = writeln!(out, "  format      {}", s.format.name());
    let _ = writeln!(out, "  nodes       {}", s.nodes);
    let _ = writeln!(out, "  processes   {}", s.processes);
    let _ = writeln!(out, "  events      {}", s.events);
    let _ = writeln!(
        out,
        "  messages    {} ({} unmatched sends, {} unmatched arrivals)",
        s.messages, s.unmatched_sends, s.unmatched_arrivals
    );
    let _ = writeln!(out, "  time span   {} .. {} ticks ({})", s.time.start.0, s.time.end.0, s.time.duration_text);
    out
}
