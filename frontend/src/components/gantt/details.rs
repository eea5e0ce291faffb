//! What the pop-ups say, and how a path becomes overlay bars: pure functions of the trace and
//! the analysis results, tested natively.

use shared::Trace;
use shared::analyses::metrics::Segment;
use shared::analyses::waits::{WaitKind, WaitState};
use shared::graph::critical_path::SegmentKind;
use shared::graph::states::State;
use shared::model::time::Duration;
use shared::model::{EventKind, RegionRole};

use super::palette::name_color;
use super::scene::draw::{bytes_text, colors};
use super::scene::overlays::PathBar;

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
        SegmentKind::Waiting => "waiting for the processor or a timer",
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
            let to = s.process.index();
            let from = match (s.kind, s.from_event) {
                (SegmentKind::Transit, Some(from)) => {
                    process.get(from.index()).map_or(to, |p| p.index())
                }
                _ => to,
            };
            PathBar {
                from,
                to,
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
    let place = if bar.from == bar.to {
        process_text(trace, bar.to)
    } else {
        format!(
            "{} → {}",
            process_text(trace, bar.from),
            process_text(trace, bar.to)
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
    lines.push(format!(
        "weight {}, {} of the path",
        weight_text(trace, s.weight),
        share_text(s.weight, total)
    ));
    if let Some(region) = &s.region {
        lines.push(format!("region {region}"));
    }
    if let Some(phase) = &s.phase {
        lines.push(format!("phase {phase}"));
    }
    lines
}

/// A number of ticks without needless decimals: `25`, `7.5`, `0.333`.
fn ticks_text(w: f64) -> String {
    if w.fract() == 0.0 && w.abs() < 1e15 {
        format!("{}", w as i64)
    } else {
        format!("{w:.3}")
    }
}

/// A path weight (weighted ticks) with its unit: `25 ticks`, or `4.36 µs (9134 ticks)` on a
/// clocked trace.
pub fn weight_text(trace: &Trace, w: f64) -> String {
    match trace.clock.ticks_per_second {
        Some(tps) if tps > 0 => format!(
            "{} ({} ticks)",
            shared::model::time::format_seconds(w / tps as f64),
            ticks_text(w)
        ),
        _ => format!("{} ticks", ticks_text(w)),
    }
}

/// A share of a total as a percentage that never reads 0 for a part that is not nothing:
/// `36.2 %`, `0.04 %`, `< 0.01 %`.
pub fn share_text(part: f64, total: f64) -> String {
    let share = if total > 0.0 {
        100.0 * part / total
    } else {
        0.0
    };
    if share <= 0.0 {
        "0 %".to_owned()
    } else if share < 0.01 {
        "< 0.01 %".to_owned()
    } else if share < 0.1 {
        format!("{share:.2} %")
    } else {
        format!("{share:.1} %")
    }
}

/// The pop-up of a state bar.
pub fn span_lines(
    trace: &Trace,
    row: usize,
    (start, end, state): (u64, u64, State),
) -> Vec<String> {
    let waits = wait_lines(trace, row, start, end);
    let what = match state {
        State::Computing => "computing",
        State::Blocked if waits.is_empty() => "blocked in a receive",
        State::Blocked => "blocked",
        State::Ready => "ready, waiting for the processor",
        State::Timer => "waiting on a timer",
        State::Children => "waiting for its PAR's branches",
        State::Stopped => "stopped or ended",
    };
    let mut lines = vec![
        format!("{} {what}", process_text(trace, row)),
        format!(
            "from {} to {} (duration {})",
            time_text(trace, start),
            time_text(trace, end),
            duration_text(trace, end.saturating_sub(start))
        ),
    ];
    lines.extend(waits);
    lines
}

/// What a process waited for over [start, end], as the scheduler recorded it (a trace of
/// the emulator): one line per wait, the first few; none for a trace without waits.
fn wait_lines(trace: &Trace, row: usize, start: u64, end: u64) -> Vec<String> {
    const SHOWN: usize = 6;
    let e = &trace.events;
    let Some(range) = trace
        .processes
        .get(row)
        .map(|_| trace.process_events(shared::model::ProcessId(row as u32)))
    else {
        return Vec::new();
    };
    let times = &e.time()[range.clone()];
    // From the last event at or before the span's start: the wait it began with.
    let from = times.partition_point(|t| t.0 <= start).saturating_sub(1);
    let mut lines = Vec::new();
    let mut more = 0usize;
    for i in range.start + from..range.end {
        let t = e.time()[i].0;
        if t > end || (t == end && t > start) {
            break;
        }
        if e.kind()[i] != EventKind::Wait {
            continue;
        }
        if lines.len() == SHOWN {
            more += 1;
            continue;
        }
        let text = e.text().at(i).and_then(|id| trace.string(id));
        let reason = shared::model::WaitReason::from_code(e.tag().at(i));
        lines.push(format!(
            "from {}: {}",
            time_text(trace, t),
            wait_text(reason, text)
        ));
    }
    if more > 0 {
        lines.push(format!("and {more} more waits"));
    }
    lines
}

/// A scheduler wait in words: `blocked in an output on channel 0x80000124`.
pub fn wait_text(reason: Option<shared::model::WaitReason>, on: Option<&str>) -> String {
    use shared::model::WaitReason as R;
    let on = on.map(|o| format!(" on {o}")).unwrap_or_default();
    match reason {
        Some(R::Ready) => "ready, waiting for the processor".to_owned(),
        Some(R::Input) => format!("blocked in an input{on}"),
        Some(R::Output) => format!("blocked in an output{on}"),
        Some(R::Alt) => "waiting in an ALT for one of its guards".to_owned(),
        Some(R::Timer) => "waiting on a timer".to_owned(),
        Some(R::Children) => "waiting for its PAR's branches to end".to_owned(),
        Some(R::Stopped) => "stopped".to_owned(),
        Some(R::Ended) => "ended (it runs again later)".to_owned(),
        None => format!("waiting{on}"),
    }
}

/// What an event kind is called in a pop-up: its words everywhere on the page
/// (`EventKind::words`), one name per concept.
pub fn event_kind_text(kind: EventKind) -> &'static str {
    kind.words()
}

/// The pop-up of an event: what and where, its message's partner, tag and length, and how
/// long its process was blocked around it (`blocked`: the blocked span it starts or ends).
pub fn event_lines(
    trace: &Trace,
    event: usize,
    partner: Option<usize>,
    blocked: Option<(u64, u64)>,
) -> Vec<String> {
    let e = &trace.events;
    let (Some(&kind), Some(&time), Some(process)) = (
        e.kind().get(event),
        e.time().get(event),
        e.process().get(event),
    ) else {
        return vec![format!("event {event} is not in the trace")];
    };
    let mut lines = vec![
        format!(
            "{} on {}",
            capitalised(event_kind_text(kind)),
            process_text(trace, process.index())
        ),
        format!("at {}", time_text(trace, time.0)),
    ];
    let name = |p: usize| {
        trace
            .processes
            .get(p)
            .map_or_else(|| format!("process {p}"), |p| p.name.clone())
    };
    let peer = e.peer().get(event).flatten().map(|p| name(p.index()));
    let tag = e.tag().get(event).unwrap_or(0);
    let size = e.size().get(event).unwrap_or(0);
    match kind {
        EventKind::MsgSend => lines.push(format!(
            "to {}, tag {tag}, {}",
            peer.unwrap_or_else(|| "?".to_owned()),
            bytes_text(size)
        )),
        EventKind::MsgArr => lines.push(format!(
            "from {}, tag {tag}, {}",
            peer.unwrap_or_else(|| "?".to_owned()),
            bytes_text(size)
        )),
        EventKind::RecvCall | EventKind::RecvPost => lines.push(match peer {
            Some(peer) => format!("from {peer}, tag {tag}"),
            None => format!("tag {tag}"),
        }),
        EventKind::Probe => {
            let text = e
                .text()
                .get(event)
                .flatten()
                .and_then(|id| trace.string(id))
                .unwrap_or("");
            lines.push(format!("tag {tag} {text}").trim_end().to_owned());
        }
        EventKind::Enter | EventKind::Leave => {
            if let Some(region) = e
                .region()
                .get(event)
                .flatten()
                .and_then(|r| trace.regions.get(r.index()))
            {
                lines.push(format!("region {}", region.name));
            }
        }
        EventKind::Wait => {
            let text = e
                .text()
                .get(event)
                .flatten()
                .and_then(|id| trace.string(id));
            let reason = shared::model::WaitReason::from_code(tag);
            lines.push(wait_text(reason, text));
            if let Some(peer) = peer {
                lines.push(format!("released by {peer}"));
            }
        }
        EventKind::ProcInit | EventKind::ProcExit | EventKind::Run => {}
    }
    match (kind, partner) {
        (EventKind::MsgSend | EventKind::MsgArr, Some(p)) => {
            let (Some(&pk), Some(&pt), Some(pp)) =
                (e.kind().get(p), e.time().get(p), e.process().get(p))
            else {
                return lines;
            };
            let (sent, arrived) = if kind == EventKind::MsgSend {
                (time.0, pt.0)
            } else {
                (pt.0, time.0)
            };
            let transit = if arrived >= sent {
                format!("in transit {}", duration_text(trace, arrived - sent))
            } else {
                format!(
                    "arrives {} before it is sent: the clocks disagree",
                    duration_text(trace, sent - arrived)
                )
            };
            lines.push(format!(
                "partner: {} on {} at {} ({transit})",
                event_kind_text(pk),
                name(pp.index()),
                time_text(trace, pt.0)
            ));
        }
        (EventKind::MsgSend, None) => lines.push("no arrival matches this send".to_owned()),
        (EventKind::MsgArr, None) => lines.push("no send matches this arrival".to_owned()),
        _ => {}
    }
    if let Some((start, end)) = blocked {
        lines.push(format!(
            "blocked from {} to {} ({})",
            time_text(trace, start),
            time_text(trace, end),
            duration_text(trace, end.saturating_sub(start))
        ));
    }
    lines
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// What a path says about an event: each of its segments that starts or ends there, with its
/// share of the path (`total`: the path's length or weight).
pub fn event_path_lines(
    trace: &Trace,
    path_name: &str,
    segments: &[Segment],
    total: f64,
    event: usize,
) -> Vec<String> {
    segments
        .iter()
        .filter_map(|s| {
            let ends = s.to_event.index() == event;
            let starts = s.from_event.is_some_and(|f| f.index() == event);
            if !(ends || starts) {
                return None;
            }
            Some(format!(
                "{path_name}: {} {} here ({} – {}, weight {}, {} of the path)",
                kind_text(s.kind),
                if ends { "ends" } else { "starts" },
                time_text(trace, s.start),
                time_text(trace, s.end),
                weight_text(trace, s.weight),
                share_text(s.weight, total)
            ))
        })
        .collect()
}

/// The wait states charged at an event or caused by it.
pub fn event_wait_lines(trace: &Trace, waits: &[WaitState], event: usize) -> Vec<String> {
    let e = &trace.events;
    let place = |k: usize| {
        let what = e
            .kind()
            .get(k)
            .map_or("event", |&kind| event_kind_text(kind));
        let process = e
            .process()
            .get(k)
            .map_or(String::new(), |p| process_text(trace, p.index()));
        let time = e
            .time()
            .get(k)
            .map_or(String::new(), |t| time_text(trace, t.0));
        format!("{what} on {process} at {time}")
    };
    waits
        .iter()
        .filter_map(|w| {
            let amount = match trace.clock.ticks_per_second {
                Some(_) => trace
                    .clock
                    .format_duration(Duration(w.time.round().max(0.0) as u64)),
                None => format!("{} ticks", ticks_text(w.time)),
            };
            if w.event.index() == event {
                Some(format!(
                    "wait state: {}, {amount}, caused by the {}",
                    wait_kind_text(w.kind),
                    place(w.cause.index())
                ))
            } else if w.cause.index() == event {
                Some(format!(
                    "causes a {} of {amount} at the {}",
                    wait_kind_text(w.kind),
                    place(w.event.index())
                ))
            } else {
                None
            }
        })
        .collect()
}

/// A wait-state pattern's name, as Scalasca writes it.
pub fn wait_kind_text(kind: WaitKind) -> &'static str {
    match kind {
        WaitKind::LateSender => "Late Sender",
        WaitKind::LateReceiver => "Late Receiver",
        WaitKind::WaitAtCollective => "Wait at Collective",
        WaitKind::LateBroadcast => "Late Broadcast",
        WaitKind::EarlyReduce => "Early Reduce",
    }
}

/// The pop-up of a region bar of `process` at nesting `depth` (0 outermost).
pub fn region_lines(
    trace: &Trace,
    process: usize,
    depth: usize,
    (start, end, region): (u64, u64, u32),
) -> Vec<String> {
    let (name, role) = trace
        .regions
        .get(region as usize)
        .map_or(("?", "region"), |r| {
            let role = match r.role {
                RegionRole::Activity => "region",
                RegionRole::Phase => "phase",
                RegionRole::Communication => "message-passing call",
                RegionRole::Barrier => "barrier",
                RegionRole::AllToAll => "all-to-all collective",
                RegionRole::OneToAll => "one-to-all collective",
                RegionRole::AllToOne => "all-to-one collective",
            };
            (r.name.as_str(), role)
        });
    vec![
        format!(
            "{} {name} on {}",
            capitalised(role),
            process_text(trace, process)
        ),
        format!(
            "from {} to {} (duration {})",
            time_text(trace, start),
            time_text(trace, end),
            duration_text(trace, end.saturating_sub(start))
        ),
        format!("nesting depth {depth}"),
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
    use shared::analyses::metrics::{AnalysisOptions, analyze};

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
            .map(|b| (b.from, b.to, b.start, b.end))
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
    fn a_region_bar_says_what_region_where_and_how_long() {
        let trace = shared::model::synthetic::ring_on_nodes(4, 2, 400);
        let compute = trace
            .regions
            .iter()
            .position(|r| r.name == "compute")
            .expect("compute") as u32;
        assert_eq!(
            region_lines(&trace, 0, 1, (2, 10, compute)),
            [
                "Region compute on rank 0 on node 0",
                "from 2 ns to 10 ns (duration 8 ns)",
                "nesting depth 1"
            ]
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

    #[test]
    fn an_event_pop_up_names_its_partner_its_wait_and_its_share_of_the_path() {
        let trace = worked_example();
        let model = super::super::model::GanttModel::new(&trace);
        // Event 1 is A's send of m1 at 25; event 8 is its arrival at B at 33.
        assert_eq!(
            (model.partner_of(1), model.partner_of(8)),
            (Some(8), Some(1))
        );
        assert_eq!(model.partner_of(0), None);
        assert_eq!(model.row_of_event(8), Some(1));
        assert_eq!(
            event_lines(&trace, 1, model.partner_of(1), None),
            [
                "Message send on A on T800 #0",
                "at 25",
                "to B, tag 1, 800 B",
                "partner: message arrival on B at 33 (in transit 8 ticks)"
            ]
        );
        assert_eq!(
            event_lines(&trace, 8, Some(1), Some((20, 33)))[2..],
            [
                "from A, tag 1, 800 B",
                "partner: message send on A at 25 (in transit 8 ticks)",
                "blocked from 20 to 33 (13 ticks)"
            ]
        );
        let analysis = analyze(&trace, AnalysisOptions::default());
        let cp = &analysis.critical_path;
        // T4a: A's computation 0–25 ends at the send, m1's transit 25–33 starts there.
        assert_eq!(
            event_path_lines(&trace, "Critical path", &cp.segments, cp.length as f64, 1),
            [
                "Critical path: computation ends here (0 – 25, weight 25 ticks, 36.2 % of the path)",
                "Critical path: message transit starts here (25 – 33, weight 8 ticks, 11.6 % of the path)"
            ]
        );
        // T13: B waited 5 ticks for m1 (receive call at 20, send at 25).
        let cx = shared::graph::context::Context::new(&trace);
        let waits = shared::analyses::waits::wait_states(&cx);
        assert_eq!(
            event_wait_lines(&trace, &waits, 8),
            ["wait state: Late Sender, 5 ticks, caused by the message send on A on T800 #0 at 25"]
        );
        assert_eq!(
            event_wait_lines(&trace, &waits, 1),
            ["causes a Late Sender of 5 ticks at the message arrival on B on T800 #1 at 33"]
        );
    }

    #[test]
    fn weights_and_shares_carry_their_units() {
        let mut trace = worked_example();
        assert_eq!(weight_text(&trace, 25.0), "25 ticks");
        trace.clock.ticks_per_second = Some(2_000_000_000);
        assert_eq!(weight_text(&trace, 9134.0), "4.567 µs (9134 ticks)");
        assert_eq!(share_text(25.0, 69.0), "36.2 %");
        assert_eq!(share_text(3.0, 10_000.0), "0.03 %");
        assert_eq!(share_text(1.0, 1e9), "< 0.01 %");
        assert_eq!(share_text(0.0, 10.0), "0 %");
    }
}
