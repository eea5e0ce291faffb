//! The analysis panels' tables: from the engine's typed answers (the run's report and the
//! selection API's parts), rows of text with an optional share bar and what a click on the row
//! does, and each table as CSV. Pure, so it is tested natively.

use shared::Trace;
use shared::analyses::metrics::{Analysis, Npt, NptBranch, Share};
use shared::analyses::validate::{Diagnostic, Severity};
use shared::graph::critical_path::SegmentKind;
use shared::view::selection::{
    CommMatrix, DiagnosticsInSelection, PathInSelection, SelectionSummary, SubjectStatistics,
    WaitsInSelection,
};

use crate::components::gantt::details::time_text;

/// What clicking a row does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Shows `[start, end)` in the Gantt chart with the critical path (or WCPA) drawn.
    Segment {
        /// Its start.
        start: u64,
        /// Its end.
        end: u64,
        /// Whether it is WCPA's (else the critical path's).
        wcpa: bool,
    },
    /// Shows only these processes in the views.
    Processes(Vec<u32>),
    /// Shows the messages from one process to another (and only those two processes).
    Messages {
        /// The sender.
        from: u32,
        /// The receiver.
        to: u32,
    },
    /// Selects this event in the views.
    Event(u64),
    /// Shows this process alone with one region's bars in colour.
    Region {
        /// The process.
        process: u32,
        /// The region.
        region: u32,
    },
}

/// One row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Its cells, as text.
    pub cells: Vec<String>,
    /// A share from 0 to 1 drawn as a bar after the cells.
    pub bar: Option<f64>,
    /// What a click does.
    pub action: Option<Action>,
}

/// A table of a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Its id (tests, file names).
    pub id: &'static str,
    /// Its title.
    pub title: String,
    /// Its column headings.
    pub columns: Vec<&'static str>,
    /// Its rows.
    pub rows: Vec<Row>,
    /// What the table leaves out, if anything.
    pub note: Option<String>,
}

/// A share as a percentage with one decimal.
pub fn percent(share: f64) -> String {
    format!("{:.1} %", (100.0 * share).max(0.0))
}

/// A weight in ticks, with its unit when the trace has one.
fn weight(trace: &Trace, w: f64) -> String {
    time_text(trace, w.round().max(0.0) as u64)
}

/// The table as CSV for spreadsheets (RFC 4180: fields with commas, quotes or line breaks are
/// quoted): numbers in base units with the unit in the heading (`super::csv`).
pub fn csv(table: &Table) -> String {
    let field = |text: &str| {
        if text.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_owned()
        }
    };
    let rows: Vec<Vec<String>> = table.rows.iter().map(|r| r.cells.clone()).collect();
    let mut out = String::new();
    for line in super::csv::spreadsheet(&table.columns, &rows) {
        let cells: Vec<String> = line.iter().map(|c| field(c)).collect();
        out.push_str(&cells.join(","));
        out.push_str("\r\n");
    }
    out
}

/// The headline metrics of the run and of the selection.
pub fn headline(trace: &Trace, analysis: &Analysis, summary: Option<&SelectionSummary>) -> Table {
    let mut rows = vec![
        (
            "Execution time",
            weight(trace, analysis.execution_time as f64),
        ),
        (
            "Computation (CPU time)",
            weight(trace, analysis.total_computation),
        ),
        ("Processors", {
            let noun = analysis.figures.processor_kind.noun();
            // `nodes` / `threads`: one of them is a node or a thread.
            crate::words::count(
                analysis.figures.processors as usize,
                noun.strip_suffix('s').unwrap_or(noun),
                noun,
            )
        }),
        ("Work", weight(trace, analysis.figures.work)),
        (
            "Speedup over serial work",
            format!("{:.2}", analysis.figures.speedup),
        ),
        (
            "Efficiency per processor",
            percent(analysis.figures.efficiency),
        ),
        (
            "Granularity (computation / communication)",
            analysis
                .granularity
                .ratio
                .map_or_else(|| "no communication".to_owned(), |r| format!("{r:.2}")),
        ),
        (
            "Mean parallelism",
            format!("{:.2}", analysis.parallelism_profile.mean),
        ),
    ];
    if let Some(s) = summary {
        rows.push((
            "Selection: window",
            format!(
                "{} – {}",
                time_text(trace, s.start),
                time_text(trace, s.end)
            ),
        ));
        rows.push(("Selection: processes", s.processes.to_string()));
        rows.push(("Selection: events", s.events.to_string()));
        rows.push((
            "Selection: messages sent",
            format!("{} ({} bytes)", s.messages_sent, s.bytes_sent),
        ));
        rows.push(("Selection: busy", percent(s.busy_share)));
    }
    // Each headline figure's definition, the same text the CLI and the comparison give.
    let note = definitions(
        analysis,
        &[
            "Processors",
            "Work",
            "Speedup over serial work",
            "Efficiency per processor",
        ],
    );
    Table {
        id: "summary",
        title: "Summary".to_owned(),
        columns: vec!["Metric", "Value"],
        rows: rows
            .into_iter()
            .map(|(name, value)| Row {
                cells: vec![name.to_owned(), value],
                bar: None,
                action: None,
            })
            .collect(),
        note: Some(note),
    }
}

/// "Label: definition." for each of `labels`, from the analysis's headline figures.
fn definitions(analysis: &Analysis, labels: &[&str]) -> String {
    labels
        .iter()
        .filter_map(|l| analysis.figures.definition(l).map(|d| format!("{l}: {d}.")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The POP factors over the headline figures' processors, each with a one-line reading.
pub fn pop(analysis: &Analysis) -> Table {
    let p = &analysis.figures;
    let reading = |value: f64, good: &str, bad: &str| {
        if value >= 0.9 {
            good.to_owned()
        } else {
            format!("{bad} ({} lost)", percent(1.0 - value))
        }
    };
    let rows = [
        (
            "Load balance",
            p.load_balance,
            reading(
                p.load_balance,
                "work is spread evenly",
                "some processors compute much more than others",
            ),
        ),
        (
            "Serialisation efficiency",
            p.serialisation,
            reading(
                p.serialisation,
                "processors rarely wait for each other",
                "processors wait on dependencies even with instant messages",
            ),
        ),
        (
            "Transfer efficiency",
            p.transfer,
            reading(
                p.transfer,
                "message transfer costs little",
                "time goes into moving messages",
            ),
        ),
        (
            "Parallel efficiency (POP)",
            p.parallel_efficiency,
            "= efficiency per processor".to_owned(),
        ),
    ];
    Table {
        id: "pop",
        title: "POP factors".to_owned(),
        columns: vec!["Factor", "Value", "Reading"],
        rows: rows
            .into_iter()
            .map(|(name, value, reading)| Row {
                cells: vec![name.to_owned(), percent(value), reading],
                bar: Some(value.clamp(0.0, 1.0)),
                action: None,
            })
            .collect(),
        note: Some(definitions(
            analysis,
            &[
                "Processors",
                "Load balance",
                "Serialisation efficiency",
                "Transfer efficiency",
                "Parallel efficiency (POP)",
            ],
        )),
    }
}

/// A path's segments inside the selection.
pub fn segments(trace: &Trace, path: &PathInSelection, wcpa: bool) -> Table {
    let name = |p: u32| {
        trace
            .processes
            .get(p as usize)
            .map_or_else(|| format!("process {p}"), |p| p.name.clone())
    };
    let rows = path
        .segments
        .iter()
        .map(|s| {
            let kind = match s.kind {
                SegmentKind::Start => "start",
                SegmentKind::Computation => "computation",
                SegmentKind::Transit => "transit",
                SegmentKind::Blocked => "blocked",
                SegmentKind::Collective => "collective",
                SegmentKind::Waiting => "waiting",
            };
            let share = if path.weight > 0.0 {
                s.weight / path.weight
            } else {
                0.0
            };
            Row {
                cells: vec![
                    name(s.process.0),
                    kind.to_owned(),
                    time_text(trace, s.start),
                    time_text(trace, s.end),
                    if wcpa {
                        format!("{:.1}", s.weight)
                    } else {
                        weight(trace, s.weight)
                    },
                    percent(share),
                    s.region.clone().unwrap_or_default(),
                    s.phase.clone().unwrap_or_default(),
                ],
                bar: Some(share),
                action: Some(Action::Segment {
                    start: s.start,
                    end: s.end,
                    wcpa,
                }),
            }
        })
        .collect();
    let hidden = path.total_segments.saturating_sub(path.segments.len());
    Table {
        id: if wcpa {
            "wcpa-segments"
        } else {
            "critical-path"
        },
        title: if wcpa {
            format!("WCPA segments (weight {:.1})", path.weight)
        } else {
            format!("Critical path ({})", weight(trace, path.weight))
        },
        columns: vec![
            "Process",
            "Kind",
            "From",
            "To",
            if wcpa {
                "Weight (processor-ticks)"
            } else {
                "Weight"
            },
            "Share",
            "Region",
            "Phase",
        ],
        rows,
        note: (hidden > 0).then(|| format!("{hidden} more segments not listed")),
    }
}

/// A ranking of shares (by process, region or phase): weights in the trace's time when `timed`
/// is given (else as numbers: WCPA's weights have no unit); `processes` makes a row click show
/// the process alone.
pub fn shares(
    id: &'static str,
    title: &str,
    what: &'static str,
    (list, timed): (&[Share], Option<&Trace>),
    processes: bool,
) -> Table {
    Table {
        id,
        title: title.to_owned(),
        // WCPA's weights are processor time (n · dt less the others' busy time), in ticks.
        columns: vec![
            what,
            if timed.is_some() {
                "Weight"
            } else {
                "Weight (processor-ticks)"
            },
            "Share",
        ],
        rows: list
            .iter()
            .map(|s| Row {
                cells: vec![
                    s.name.clone(),
                    match timed {
                        Some(trace) => weight(trace, s.weight),
                        None => format!("{:.1}", s.weight),
                    },
                    percent(s.share),
                ],
                bar: Some(s.share.clamp(0.0, 1.0)),
                action: match (processes, s.id) {
                    (true, Some(p)) => Some(Action::Processes(vec![p])),
                    _ => None,
                },
            })
            .collect(),
        note: None,
    }
}

/// Quartz's normalized processor time by process (inclusive of everything it computed).
pub fn npt(trace: &Trace, npt: &Npt) -> Table {
    let mut table = shares(
        "npt",
        &format!("Normalized processor time (Σ {})", weight(trace, npt.total)),
        "Process",
        (&npt.processes, Some(trace)),
        true,
    );
    table.columns = vec!["Process", "NPT", "Share"];
    table
}

/// Quartz's NPT as a tree: processes, each with its regions, each with its phases; siblings
/// heaviest first by inclusive (or exclusive) time. Returns each row's key beside the table:
/// `p<id>`, `p<id>/r<id>`, `p<id>/r<id>/f<id>` (its depth is its number of slashes).
pub fn npt_tree(trace: &Trace, npt: &Npt, by_exclusive: bool) -> (Table, Vec<String>) {
    let time = |b: &NptBranch| {
        if by_exclusive {
            b.exclusive
        } else {
            b.inclusive
        }
    };
    fn sorted(list: &[NptBranch], time: impl Fn(&NptBranch) -> f64) -> Vec<&NptBranch> {
        let mut v: Vec<&NptBranch> = list.iter().collect();
        v.sort_by(|a, b| time(b).total_cmp(&time(a)).then(a.id.cmp(&b.id)));
        v
    }
    let mut rows = Vec::new();
    let mut keys = Vec::new();
    let mut push = |branch: &NptBranch, key: String, action: Option<Action>| {
        let share = if npt.total > 0.0 {
            time(branch) / npt.total
        } else {
            0.0
        };
        rows.push(Row {
            cells: vec![
                branch.name.clone(),
                weight(trace, branch.inclusive),
                weight(trace, branch.exclusive),
                percent(share),
            ],
            bar: Some(share.clamp(0.0, 1.0)),
            action,
        });
        keys.push(key);
    };
    let id = |b: &NptBranch| b.id.map_or_else(|| "-".to_owned(), |i| i.to_string());
    for p in sorted(&npt.tree, time) {
        let process = p.id.unwrap_or(0);
        let pk = format!("p{}", id(p));
        push(p, pk.clone(), Some(Action::Processes(vec![process])));
        for r in sorted(&p.children, time) {
            let action = r.id.map(|region| Action::Region { process, region });
            let rk = format!("{pk}/r{}", id(r));
            push(r, rk.clone(), action.clone());
            for phase in sorted(&r.children, time) {
                push(phase, format!("{rk}/f{}", id(phase)), action.clone());
            }
        }
    }
    let table = Table {
        id: "npt-tree",
        title: format!(
            "Where the time goes: NPT by process → region → phase (Σ {})",
            weight(trace, npt.total)
        ),
        columns: vec!["Process / region / phase", "Inclusive", "Exclusive", "Share"],
        rows,
        note: Some(
            "Inclusive: with the region anywhere on the stack; exclusive: with it innermost (a process's exclusive time is outside every region). Click a region to see its bars alone in colour."
                .to_owned(),
        ),
    };
    (table, keys)
}

/// The root causes of the waiting: delay costs per process and call path (short-term: the
/// extra work that made a partner late; long-term: propagated through earlier waits).
pub fn delay_costs(trace: &Trace, w: &WaitsInSelection) -> Table {
    let mut rows: Vec<Row> = Vec::new();
    let most = w
        .short_term_costs
        .iter()
        .chain(&w.long_term_costs)
        .map(|c| c.2)
        .fold(0.0, f64::max);
    for (term, list) in [("short", &w.short_term_costs), ("long", &w.long_term_costs)] {
        for (name, path, cost, process) in list {
            rows.push(Row {
                cells: vec![
                    term.to_owned(),
                    name.clone(),
                    path.clone(),
                    weight(trace, *cost),
                ],
                bar: (most > 0.0).then(|| cost / most),
                action: Some(Action::Processes(vec![process.0])),
            });
        }
    }
    Table {
        id: "delay-costs",
        title: "Why they waited: delay costs (root causes)".to_owned(),
        columns: vec!["Term", "Process", "Call path", "Cost"],
        rows,
        note: Some(
            "Short-term: the extra work a late partner did since the two last synchronised; long-term: waits it caused further on."
                .to_owned(),
        ),
    }
}

/// A scenario's change per process: when each ends, measured and predicted.
pub fn what_if_processes(trace: &Trace, w: &shared::analyses::whatif::WhatIf) -> Table {
    let longest = w
        .processes
        .iter()
        .map(|p| p.measured_end.max(p.predicted_end))
        .fold(0.0, f64::max);
    Table {
        id: "what-if-processes",
        title: "What if: each process's end".to_owned(),
        columns: vec!["Process", "Measured end", "Predicted end", "Change"],
        rows: w
            .processes
            .iter()
            .map(|p| Row {
                cells: vec![
                    p.name.clone(),
                    weight(trace, p.measured_end),
                    weight(trace, p.predicted_end),
                    format!(
                        "{}{}",
                        if p.predicted_end < p.measured_end {
                            "−"
                        } else {
                            "+"
                        },
                        weight(trace, (p.predicted_end - p.measured_end).abs())
                    ),
                ],
                bar: (longest > 0.0).then(|| p.predicted_end / longest),
                action: Some(Action::Processes(vec![p.process.0])),
            })
            .collect(),
        note: None,
    }
}

/// The communication matrix: one row per sender–receiver pair, busiest first.
pub fn matrix(trace: &Trace, m: &CommMatrix) -> Table {
    let name = |p: u32| {
        trace
            .processes
            .get(p as usize)
            .map_or_else(|| format!("process {p}"), |p| p.name.clone())
    };
    let mut order: Vec<usize> = (0..m.count.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(m.bytes[i]),
            std::cmp::Reverse(m.count[i]),
            i,
        )
    });
    let most = m.bytes.iter().copied().max().unwrap_or(0).max(1);
    Table {
        id: "matrix",
        title: format!(
            "Communication matrix ({} messages, {} bytes)",
            m.messages, m.total_bytes
        ),
        columns: vec!["Sender", "Receiver", "Messages", "Bytes", "Transit"],
        rows: order
            .into_iter()
            .map(|i| Row {
                cells: vec![
                    name(m.from[i].0),
                    name(m.to[i].0),
                    m.count[i].to_string(),
                    m.bytes[i].to_string(),
                    time_text(trace, m.transit[i]),
                ],
                bar: Some(m.bytes[i] as f64 / most as f64),
                action: Some(Action::Messages {
                    from: m.from[i].0,
                    to: m.to[i].0,
                }),
            })
            .collect(),
        note: None,
    }
}

/// `LateSender` as `Late Sender`.
fn spaced(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i > 0 && c.is_uppercase() {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// The wait states: each one, longest first, clickable to its waiting event.
pub fn waits(trace: &Trace, w: &WaitsInSelection) -> Table {
    let name = |p: u32| {
        trace
            .processes
            .get(p as usize)
            .map_or_else(|| format!("process {p}"), |p| p.name.clone())
    };
    let longest = w.wait_states.iter().map(|s| s.time).fold(0.0, f64::max);
    Table {
        id: "wait-states",
        title: format!(
            "Wait states ({} of them, {} in all)",
            w.total,
            weight(trace, w.time)
        ),
        columns: vec!["Kind", "Process", "Time", "Region"],
        rows: w
            .wait_states
            .iter()
            .map(|s| Row {
                cells: vec![
                    spaced(&format!("{:?}", s.kind)),
                    name(s.process.0),
                    weight(trace, s.time),
                    s.region.clone().unwrap_or_default(),
                ],
                bar: (longest > 0.0).then(|| s.time / longest),
                action: Some(Action::Event(u64::from(s.event.0))),
            })
            .collect(),
        note: (w.total > w.wait_states.len())
            .then(|| format!("{} more not listed", w.total - w.wait_states.len())),
    }
}

/// Frequency, distance and duration statistics (SIMPLE's trcstat): quartiles of type 7.
pub fn statistics(trace: &Trace, list: &[SubjectStatistics]) -> Table {
    let quartiles = |s: &Option<shared::analyses::stats::Summary>| match s {
        Some(s) => format!(
            "{} / {} / {} (max {})",
            weight(trace, s.q1),
            weight(trace, s.median),
            weight(trace, s.q3),
            weight(trace, s.max)
        ),
        None => "—".to_owned(),
    };
    Table {
        id: "statistics",
        title: "Statistics (quartiles Q1 / median / Q3)".to_owned(),
        columns: vec!["Subject", "Name", "Count", "Duration", "Distance"],
        rows: list
            .iter()
            .map(|s| Row {
                cells: vec![
                    s.subject.clone(),
                    if s.subject == "event" {
                        crate::words::event_kind(&s.name)
                    } else {
                        s.name.clone()
                    },
                    s.statistics.count.to_string(),
                    quartiles(&s.statistics.duration),
                    quartiles(&s.statistics.distance),
                ],
                bar: None,
                action: None,
            })
            .collect(),
        note: None,
    }
}

/// The validation's diagnostics counted by kind and severity (errors first): the panel's
/// summary and its CSV; each row clicks to the group's first example.
pub fn diagnostics(d: &DiagnosticsInSelection) -> Table {
    let of = |severity: Severity| {
        d.counts
            .iter()
            .filter(|c| c.severity == severity)
            .map(|c| c.count)
            .sum::<usize>()
    };
    let all: usize = d.counts.iter().map(|c| c.count).sum();
    Table {
        id: "diagnostics",
        title: format!(
            "Validation ({all} diagnostics: {} errors, {} warnings, {} notes)",
            of(Severity::Error),
            of(Severity::Warning),
            of(Severity::Note)
        ),
        columns: vec!["Severity", "Kind", "Count", "Affects"],
        rows: d
            .counts
            .iter()
            .map(|c| Row {
                cells: vec![
                    c.severity.name().to_owned(),
                    crate::words::sentence(c.kind.name()),
                    c.count.to_string(),
                    c.kind
                        .affects()
                        .iter()
                        .map(|a| crate::words::analysis(a))
                        .collect::<Vec<_>>()
                        .join(", "),
                ],
                bar: None,
                action: c
                    .first
                    .first()
                    .and_then(|x| x.events.first())
                    .map(|e| Action::Event(u64::from(e.0))),
            })
            .collect(),
        note: None,
    }
}

/// Diagnostics as rows (where: process and time; what), each clickable to its first event.
pub fn diagnostic_rows(trace: &Trace, list: &[Diagnostic]) -> Vec<Row> {
    list.iter()
        .map(|x| Row {
            cells: vec![
                x.process
                    .and_then(|p| trace.processes.get(p as usize))
                    .map_or_else(|| "—".to_owned(), |p| p.name.clone()),
                x.time
                    .map_or_else(|| "—".to_owned(), |t| time_text(trace, t)),
                x.message.clone(),
            ],
            bar: None,
            action: x.events.first().map(|e| Action::Event(u64::from(e.0))),
        })
        .collect()
}

/// What a what-if scenario changes: the execution time before and after, and the new critical
/// path's weight by kind.
pub fn what_if(trace: &Trace, w: &shared::analyses::whatif::WhatIf) -> Table {
    let change = if w.baseline > 0.0 {
        format!(
            "{:+.1} %",
            100.0 * (w.execution_time - w.baseline) / w.baseline
        )
    } else {
        "—".to_owned()
    };
    let mut rows = vec![
        (
            "Measured execution time".to_owned(),
            weight(trace, w.baseline),
        ),
        (
            "Predicted execution time".to_owned(),
            format!("{} ({change})", weight(trace, w.execution_time)),
        ),
        ("Benefit".to_owned(), weight(trace, w.benefit)),
    ];
    let mut by_kind: Vec<(String, f64)> = Vec::new();
    for s in &w.critical_path {
        let kind = format!("{:?}", s.kind).to_lowercase();
        match by_kind.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, total)) => *total += s.weight,
            None => by_kind.push((kind, s.weight)),
        }
    }
    for (kind, total) in by_kind {
        rows.push((format!("New critical path: {kind}"), weight(trace, total)));
    }
    Table {
        id: "what-if",
        title: "What if".to_owned(),
        columns: vec!["", "Value"],
        rows: rows
            .into_iter()
            .map(|(a, b)| Row {
                cells: vec![a, b],
                bar: None,
                action: None,
            })
            .collect(),
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use shared::analyses::metrics::{AnalysisOptions, analyze_context};
    use shared::graph::context::Context;
    use shared::view::selection::{self, Selection};

    use super::*;
    use crate::components::gantt::test_data::worked_example;

    /// The value of a table's row whose first cell is `first`, column `column`.
    fn cell<'a>(table: &'a Table, first: &str, column: usize) -> &'a str {
        &table
            .rows
            .iter()
            .find(|r| r.cells[0] == first)
            .unwrap_or_else(|| panic!("no row {first} in {}", table.id))
            .cells[column]
    }

    #[test]
    fn the_worked_examples_npt_wcpa_waits_and_matrix_read_as_in_analysis_md() {
        let trace = worked_example();
        let cx = Context::new(&trace);
        let whole = Selection::whole(&trace);
        // NPT: A 29, B 34 (analysis.md §10).
        let npt_table = npt(&trace, &selection::npt(&cx, &whole));
        assert_eq!(cell(&npt_table, "A", 1), "29");
        assert_eq!(cell(&npt_table, "B", 1), "34");
        assert_eq!(
            npt_table.rows[0].action,
            Some(Action::Processes(vec![1])),
            "B first"
        );
        // WCPA: 101.
        let analysis = analyze_context(&cx, AnalysisOptions::default());
        assert!((analysis.wcpa.weight - 101.0).abs() < 1e-9);
        let wcpa = selection::path_in(&cx, &analysis.wcpa.segments, &whole, 1000);
        let wcpa_table = segments(&trace, &wcpa, true);
        assert!(wcpa_table.title.contains("101.0"), "{}", wcpa_table.title);
        // Matrix: 2×2 pairs, one each way.
        let m = matrix(&trace, &selection::matrix(&cx, &whole));
        assert_eq!(m.rows.len(), 2);
        assert_eq!(
            m.rows
                .iter()
                .map(|r| r.cells[2].parse::<u64>().expect("count"))
                .sum::<u64>(),
            cx.pairing.messages.len() as u64
        );
        // A Late Sender of 5.
        let prepared = shared::analyses::waits::wait_states(&cx);
        let w = waits(&trace, &selection::waits_in(&cx, &prepared, &whole, 100));
        assert!(
            w.rows
                .iter()
                .any(|r| r.cells[0] == "Late Sender" && r.cells[1] == "B" && r.cells[2] == "5"),
            "{:?}",
            w.rows
        );
    }

    #[test]
    fn the_validation_table_counts_each_kind_and_its_rows_say_where() {
        use shared::model::time::{Clock, Time};
        use shared::model::{EventKind, EventRecord, ProcessId, RegionRole, TraceBuilder};
        // A and B share a node. A sends to B, which exits after without receiving (an error);
        // A leaves r twice: once closing the r that B entered (a task that moved between
        // threads: two notes), once more (an error).
        let mut b = TraceBuilder::new("t", Clock::default());
        let node = b.add_node("n");
        let (a, bp) = (
            b.add_process("A", node).expect("node"),
            b.add_process("B", node).expect("node"),
        );
        let r = b.add_region("r", RegionRole::Activity);
        let mut push = |p: ProcessId, t: u64, kind: EventKind, f: &dyn Fn(&mut EventRecord)| {
            let mut e = EventRecord::plain(p, Time(t), kind);
            f(&mut e);
            b.push(e).expect("valid");
        };
        push(a, 0, EventKind::ProcInit, &|_| {});
        push(a, 5, EventKind::MsgSend, &|e| e.peer = Some(bp));
        push(a, 6, EventKind::Leave, &|e| e.region = Some(r));
        push(a, 7, EventKind::Leave, &|e| e.region = Some(r));
        push(a, 9, EventKind::ProcExit, &|_| {});
        push(bp, 0, EventKind::ProcInit, &|_| {});
        push(bp, 1, EventKind::Enter, &|e| e.region = Some(r));
        push(bp, 9, EventKind::ProcExit, &|_| {});
        let trace = b.build();
        let cx = Context::new(&trace);
        let all = shared::analyses::validate::validate(
            &trace,
            &cx.pairing,
            &cx.graph,
            AnalysisOptions::default().validation,
        );
        let d = selection::diagnostics_in(
            &trace,
            &all,
            &Selection::whole(&trace),
            selection::DiagnosticsPage::default(),
        );
        let table = diagnostics(&d);
        assert_eq!(
            table.title,
            "Validation (4 diagnostics: 2 errors, 0 warnings, 2 notes)"
        );
        let rows: Vec<(&str, &str, &str)> = table
            .rows
            .iter()
            .map(|r| {
                (
                    r.cells[0].as_str(),
                    r.cells[1].as_str(),
                    r.cells[2].as_str(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("error", "Leave without enter", "1"),
                ("error", "Unmatched send", "1"),
                ("note", "Leave without enter", "1"),
                ("note", "Unclosed region", "1"),
            ]
        );
        // What a kind affects is said in the page's words, not the engine's identifiers.
        assert_eq!(
            table.rows[1].cells[3],
            "critical path, weighted critical path (WCPA), granularity, POP efficiencies"
        );
        let send = all
            .iter()
            .find(|x| x.kind.name() == "unmatched_send")
            .expect("the send");
        let row = &diagnostic_rows(&trace, std::slice::from_ref(send))[0];
        assert_eq!(row.cells[..2], ["A".to_owned(), "5".to_owned()]);
        assert_eq!(row.action, Some(Action::Event(u64::from(send.events[0].0))));
    }

    #[test]
    fn a_what_if_without_transit_predicts_the_worked_examples_shorter_run() {
        let trace = worked_example();
        let cx = Context::new(&trace);
        let report = shared::report::build(
            &cx,
            &shared::analyses::waits::wait_states(&cx),
            &shared::report::ReportRequest {
                file: "t4",
                format: shared::formats::Format::TracescopeJson,
                notes: &[],
                options: AnalysisOptions::default(),
            },
        );
        let report = shared::report::with_what_if(report, &cx, "transit=0").expect("a scenario");
        let w = report.what_if.expect("replayed");
        let table = what_if(&trace, &w);
        assert_eq!(cell(&table, "Measured execution time", 1), "69");
        assert!(w.execution_time < 69.0);
        assert!(
            cell(&table, "Predicted execution time", 1).contains('%'),
            "{table:?}"
        );
        assert!(
            table
                .rows
                .iter()
                .all(|r| !r.cells[0].contains("transit") || r.cells[1] == "0")
        );
        // Each process's end, measured and predicted: B's run ends at 69, then at 53 (T10).
        let ends = what_if_processes(&trace, &w);
        assert_eq!(cell(&ends, "B", 1), "69");
        assert_eq!(cell(&ends, "B", 2), "53");
        assert_eq!(cell(&ends, "B", 3), "−16");
    }

    /// The worked example's headline figures (analysis.md, "Headline figures", and T4a): 2
    /// nodes, work 85 of 69 ticks, speedup 85 / 69 = 1.23, efficiency 85 / 138 = 61.6 %, the
    /// same as POP's product; each figure's definition is under its table.
    #[test]
    fn the_summary_and_pop_tables_show_the_figures_with_their_definitions() {
        let trace = worked_example();
        let cx = Context::new(&trace);
        let analysis = shared::analyses::metrics::analyze_context(&cx, AnalysisOptions::default());
        let summary = headline(&trace, &analysis, None);
        assert_eq!(cell(&summary, "Processors", 1), "2 nodes");
        assert_eq!(cell(&summary, "Speedup over serial work", 1), "1.23");
        assert_eq!(cell(&summary, "Efficiency per processor", 1), "61.6 %");
        let note = summary.note.clone().unwrap_or_default();
        assert!(
            note.contains("Speedup over serial work: work / execution time")
                && note.contains("Processors: the 2 nodes that ran the program"),
            "{note}"
        );
        let factors = pop(&analysis);
        assert_eq!(cell(&factors, "Parallel efficiency (POP)", 1), "61.6 %");
        assert!(
            factors
                .note
                .unwrap_or_default()
                .contains("load balance × serialisation × transfer = efficiency per processor")
        );
    }

    #[test]
    fn the_npt_tree_lists_processes_then_their_regions_and_phases() {
        let trace = worked_example();
        let cx = Context::new(&trace);
        let npt = selection::npt(&cx, &Selection::whole(&trace));
        let (table, keys) = npt_tree(&trace, &npt, false);
        // B (34) before A (29), each followed by its rows; the worked example has no regions:
        // each process's time is outside regions (analysis.md §10, T6′).
        let firsts: Vec<(&str, &str, &str)> = table
            .rows
            .iter()
            .zip(&keys)
            .filter(|(_, k)| !k.contains('/'))
            .map(|(r, k)| (k.as_str(), r.cells[0].as_str(), r.cells[1].as_str()))
            .collect();
        assert_eq!(firsts, [("p1", "B", "34"), ("p0", "A", "29")]);
        assert_eq!(table.rows[0].action, Some(Action::Processes(vec![1])));
        let inside: Vec<&str> = keys
            .iter()
            .filter(|k| k.starts_with("p1/"))
            .map(String::as_str)
            .collect();
        assert_eq!(inside[0], "p1/r-", "B's time outside regions: {keys:?}");
        assert_eq!(table.rows[1].cells[2], "34");
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let table = Table {
            id: "t",
            title: "t".to_owned(),
            columns: vec!["Name", "Value"],
            rows: vec![Row {
                cells: vec!["a, \"b\"".to_owned(), "1".to_owned()],
                bar: None,
                action: None,
            }],
            note: None,
        };
        assert_eq!(csv(&table), "Name,Value\r\n\"a, \"\"b\"\"\",1\r\n");
    }
}
