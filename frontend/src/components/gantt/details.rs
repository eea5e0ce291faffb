//! What the pop-ups say, and how a path becomes overlay bars: pure functions of the trace and
//! the analysis results, tested natively.

use shared::Trace;
use shared::analysis::Segment;
use shared::critical_path::SegmentKind;
use shared::states::State;
use shared::time::Duration;

use super::layout::{PathBar, colors, name_color};

/// The colour of a critical-path segment.
pub fn critical_color(_: &Segment) -> &'static str {
    colors::PATH
}

/// The colour of a WCPA segment: its phase's.
pub fn phase_color(s: &Segment) -> &'static str {
    name_color(s.phase.as_deref().unwrap_or("(none)"))
}

/// A time for people: `12.5 ms` on a clocked trace, `25` (ticks) otherwise.
pub fn time_text(trace: &Trace, t: u64) -> String {
    match trace.clock.ticks_per_second {
        Some(_) => trace.clock.format_duration(Duration(t)),
        None => t.to_string(),
    }
}

/// A duration for people: `12.5 ms`, or `25 ticks`.
pub fn duration_text(trace: &Trace, d: u64) -> String {
    trace.clock.format_duration(Duration(d))
}

fn process_text(trace: &Trace, row: usize) -> String {
    match trace.processes.get(row) {
        Some(p) => match trace.nodes.get(p.node.index()) {
            Some(node) => format!("{} on {}", p.name, node.name),
            None => p.name.clone(),
        },
        None => format!("process {row}"),
    }
}

fn kind_text(kind: SegmentKind) -> &'static str {
    match kind {
        SegmentKind::Start => "start offset",
        SegmentKind::Computation => "computation",
        SegmentKind::Transit => "message transit",
        SegmentKind::Blocked => "blocked",
        SegmentKind::Collective => "collective",
    }
}

/// The overlay bars of a path's segments (a transit runs from the sender's row to the
/// receiver's; everything else stays on its process's row).
pub fn path_bars(
    trace: &Trace,
    segments: &[Segment],
    color: impl Fn(&Segment) -> &'static str,
) -> Vec<PathBar> {
    let process = trace.events.process();
    segments
        .iter()
        .map(|s| {
            let to_row = s.process.index();
            let from_row = match (s.kind, s.from_event) {
                (SegmentKind::Transit, Some(from)) => {
                    process.get(from.index()).map_or(to_row, |p| p.index())
                }
                _ => to_row,
            };
            PathBar {
                from_row,
                to_row,
                start: s.start,
                end: s.end,
                color: color(s),
            }
        })
        .collect()
}

/// The pop-up of a path segment: what, where, when, how long, its region and phase, and its
/// share of the path (`total`: the path's length or weight).
pub fn segment_lines(trace: &Trace, path_name: &str, s: &Segment, total: f64) -> Vec<String> {
    let bar = path_bars(trace, std::slice::from_ref(s), |_| "")[0];
    let place = if bar.from_row == bar.to_row {
        process_text(trace, bar.to_row)
    } else {
        format!(
            "{} → {}",
            process_text(trace, bar.from_row),
            process_text(trace, bar.to_row)
        )
    };
    let mut lines = vec![
        format!("{path_name}: {} of {place}", kind_text(s.kind)),
        format!(
            "from {} to {} (duration {})",
            time_text(trace, s.start),
            time_text(trace, s.end),
            duration_text(trace, s.end.saturating_sub(s.start))
        ),
    ];
    let share = if total > 0.0 {
        100.0 * s.weight / total
    } else {
        0.0
    };
    lines.push(format!(
        "weight {}, {share:.1} % of the path",
        weight_text(s.weight)
    ));
    if let Some(region) = &s.region {
        lines.push(format!("region {region}"));
    }
    if let Some(phase) = &s.phase {
        lines.push(format!("phase {phase}"));
    }
    lines
}

/// A weight without needless decimals: `25`, `7.5`, `0.333`.
fn weight_text(w: f64) -> String {
    if w.fract() == 0.0 && w.abs() < 1e15 {
        format!("{}", w as i64)
    } else {
        format!("{w:.3}")
    }
}

/// The pop-up of a state bar.
pub fn span_lines(
    trace: &Trace,
    row: usize,
    (start, end, state): (u64, u64, State),
) -> Vec<String> {
    let what = match state {
        State::Computing => "computing",
        State::Blocked => "blocked in a receive",
    };
    vec![
        format!("{} {what}", process_text(trace, row)),
        format!(
            "from {} to {} (duration {})",
            time_text(trace, start),
            time_text(trace, end),
            duration_text(trace, end.saturating_sub(start))
        ),
    ]
}

/// A time's text for the window readout.
pub fn window_text(trace: &Trace, (start, end): (u64, u64)) -> String {
    match trace.clock.ticks_per_second {
        Some(_) => format!(
            "window {} – {} ({})",
            time_text(trace, start),
            time_text(trace, end),
            duration_text(trace, end.saturating_sub(start))
        ),
        None => format!("window {start} – {end} ticks"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_data::worked_example;
    use super::*;
    use shared::analysis::{AnalysisOptions, analyze};

    #[test]
    fn the_worked_examples_critical_path_reads_as_in_the_thesis() {
        let trace = worked_example();
        let analysis = analyze(&trace, AnalysisOptions::default());
        let cp = &analysis.critical_path;
        let bars = path_bars(&trace, &cp.segments, |_| "red");
        // T4a: A comp 25 → m1 8 → B comp 5 → m2 10 → A comp 3 → m3 3 → B comp 15.
        let expected = [
            (0, 0, 0, 25),
            (0, 1, 25, 33),
            (1, 1, 33, 38),
            (1, 0, 38, 48),
            (0, 0, 48, 51),
            (0, 1, 51, 54),
            (1, 1, 54, 69),
        ];
        let got: Vec<_> = bars
            .iter()
            .map(|b| (b.from_row, b.to_row, b.start, b.end))
            .collect();
        assert_eq!(got, expected);
        let lines = segment_lines(&trace, "Critical path", &cp.segments[0], cp.length as f64);
        assert_eq!(lines[0], "Critical path: computation of A on T800 #0");
        assert_eq!(lines[1], "from 0 to 25 (duration 25 ticks)");
        assert!(lines[2].contains("36.2 %"), "{lines:?}");
        let transit = segment_lines(&trace, "Critical path", &cp.segments[1], 69.0);
        assert_eq!(
            transit[0],
            "Critical path: message transit of A on T800 #0 → B on T800 #1"
        );
    }

    #[test]
    fn bars_and_windows_read_with_units() {
        let trace = worked_example();
        assert_eq!(
            span_lines(&trace, 0, (35, 48, State::Blocked)),
            [
                "A on T800 #0 blocked in a receive",
                "from 35 to 48 (duration 13 ticks)"
            ]
        );
        assert_eq!(window_text(&trace, (0, 69)), "window 0 – 69 ticks");
    }
}
