//! Analyses of a selection (a window and a set of processes) on the founding worked example,
//! with values worked by hand from analysis.md §10 (T4a, T4b, T6′, T13).

use serde_json::{Value, json};
use shared::analyses::metrics::{AnalysisOptions, analyze_context};
use shared::graph::context::Context;
use shared::view::selection::{self, Selection, SelectionError};

use crate::load;

/// Every selection result of the worked example for `window` and `processes`, as one JSON
/// object: `summary`, `critical_path`, `wcpa`, `npt`, `matrix`, `statistics` (by
/// "subject name"), `wait_states`.
fn select(window: (Option<u64>, Option<u64>), processes: Option<&str>) -> Value {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let analysis = analyze_context(&cx, AnalysisOptions::default());
    let waits = shared::analyses::waits::wait_states(&cx);
    let s = Selection::new(&trace, window.0, window.1, processes).expect("a valid selection");
    let statistics: serde_json::Map<String, Value> = selection::statistics(&cx, &s)
        .into_iter()
        .map(|row| {
            (
                format!("{} {}", row.subject, row.name),
                serde_json::to_value(row.statistics).expect("serializes"),
            )
        })
        .collect();
    json!({
        "summary": selection::summary(&cx, &s),
        "critical_path": selection::path_in(&cx, &analysis.critical_path.segments, &s, 100),
        "wcpa": selection::path_in(&cx, &analysis.wcpa.segments, &s, 100),
        "npt": selection::npt(&cx, &s),
        "matrix": selection::matrix(&cx, &s),
        "statistics": statistics,
        "wait_states": selection::waits_in(&cx, &waits, &s, 100),
        "histograms": selection::histograms(&cx, &s)
            .into_iter()
            .map(|h| (format!("{} {}", h.subject, h.name), serde_json::to_value(h.histogram).expect("serializes")))
            .collect::<serde_json::Map<String, Value>>(),
    })
}

fn check(window: (Option<u64>, Option<u64>), processes: Option<&str>, expected: &[(&str, f64)]) {
    let got = select(window, processes);
    let failures: Vec<String> = expected
        .iter()
        .filter_map(
            |&(pointer, want)| match got.pointer(pointer).and_then(Value::as_f64) {
                Some(value) if (value - want).abs() <= 1e-9 => None,
                value => Some(format!("{pointer}: expected {want}, got {value:?}")),
            },
        )
        .collect();
    assert!(
        failures.is_empty(),
        "window {window:?}, processes {processes:?}:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_whole_trace_selected_gives_the_whole_trace_values() {
    // T4a: the critical path is 69 (A 25 + 10 + 3 on A's side, m2's transit charged to its
    // receiver A; 8 + 5 + 3 + 15 on B's); T4b: WCPA 101; T6′: NPT 29 + 34 = 63.
    check(
        (None, None),
        None,
        &[
            ("/critical_path/weight", 69.0),
            ("/critical_path/total_segments", 7.0),
            ("/wcpa/weight", 101.0),
            ("/npt/total", 63.0),
            ("/summary/computing", 85.0),
            ("/summary/blocked", 37.0),
            // A: init, send, receive call, arrival, send, exit; B: init and two receives (call,
            // arrival), a send, exit.
            ("/summary/events", 13.0),
            ("/summary/messages_sent", 3.0),
            ("/summary/bytes_sent", 2100.0),
            ("/matrix/messages", 3.0),
            // The 2×2 matrix: A→B two messages of 800 + 300 bytes, B→A one of 1,000.
            ("/matrix/count/0", 2.0),
            ("/matrix/bytes/0", 1100.0),
            ("/matrix/count/1", 1.0),
            ("/matrix/bytes/1", 1000.0),
            ("/wait_states/time", 16.0),
            ("/statistics/state blocked/count", 3.0),
            ("/statistics/state blocked/duration/median", 13.0),
            // The histograms agree with the statistics: three blocked spans, median 13; three
            // messages of 2,100 bytes in all.
            ("/histograms/state blocked/summary/count", 3.0),
            ("/histograms/state blocked/summary/median", 13.0),
            ("/histograms/message size/summary/count", 3.0),
            ("/histograms/message size/summary/mean", 700.0),
        ],
    );
}

#[test]
fn one_process_keeps_its_part_of_the_paths_npt_and_waits() {
    // A: comp 25 + m2 10 + comp 3 on the critical path = 38; WCPA 30 + 15 + 6 = 51;
    // NPT (T6′) 15 + 9 + 3 + 2 = 29; Late Sender at A's receive (T13) 3.
    check(
        (None, None),
        Some("0"),
        &[
            ("/critical_path/weight", 38.0),
            ("/wcpa/weight", 51.0),
            ("/npt/total", 29.0),
            ("/wait_states/time", 3.0),
            ("/summary/computing", 40.0),
            ("/summary/blocked", 13.0),
            ("/matrix/messages", 0.0),
        ],
    );
    // B: 8 + 5 + 3 + 15 = 31; WCPA 8 + 8 + 4 + 30 = 50; NPT 34; Late Senders 5 + 8 = 13.
    check(
        (None, None),
        Some("1"),
        &[
            ("/critical_path/weight", 31.0),
            ("/wcpa/weight", 50.0),
            ("/npt/total", 34.0),
            ("/wait_states/time", 13.0),
        ],
    );
}

#[test]
fn a_window_clips_the_paths_and_counts_what_starts_in_it() {
    // [0, 30): A's comp 25 and 5 of m1's transit (25 → 33); NPT: both busy on [0, 20)
    // (10 each), A alone on [20, 30) (10); B's blocked span starts at 20.
    check(
        (Some(0), Some(30)),
        None,
        &[
            ("/critical_path/weight", 30.0),
            ("/critical_path/by_phase/0/weight", 30.0),
            ("/npt/total", 30.0),
            ("/summary/per_process/0/computing", 30.0),
            ("/summary/per_process/1/computing", 20.0),
            ("/summary/per_process/1/blocked", 10.0),
            ("/summary/messages_sent", 1.0),
            ("/summary/messages_received", 0.0),
            ("/statistics/state blocked/count", 1.0),
            ("/matrix/count/0", 1.0),
            ("/matrix/transit/0", 8.0),
        ],
    );
    // [0, 35) on B: busy 20 + 2, blocked 13, share 22/35; m1 arrived at 33 (Late Sender 5).
    check(
        (Some(0), Some(35)),
        Some("1"),
        &[
            ("/summary/computing", 22.0),
            ("/summary/blocked", 13.0),
            ("/summary/busy_share", 22.0 / 35.0),
            ("/summary/messages_received", 1.0),
            ("/wait_states/time", 5.0),
        ],
    );
}

#[test]
fn windows_and_processes_partition_the_paths_and_npt() {
    for cut in [1, 20, 25, 33, 48, 60] {
        for (pointer, whole) in [
            ("/critical_path/weight", 69.0),
            ("/wcpa/weight", 101.0),
            ("/npt/total", 63.0),
        ] {
            let part = |v: &Value| {
                v.pointer(pointer)
                    .and_then(Value::as_f64)
                    .expect("a number")
            };
            let (a, b) = (
                part(&select((None, Some(cut)), None)),
                part(&select((Some(cut), None), None)),
            );
            assert!(
                (a + b - whole).abs() < 1e-9,
                "{pointer} at {cut}: {a} + {b} != {whole}"
            );
        }
    }
}

#[test]
fn bad_selections_say_what_is_wrong() {
    let trace = load("t4-worked-example.json");
    assert_eq!(
        Selection::new(&trace, Some(9), Some(9), None),
        Err(SelectionError::Window { start: 9, end: 9 })
    );
    assert!(matches!(
        Selection::new(&trace, None, None, Some("0,x")),
        Err(SelectionError::Syntax { at: 2, .. })
    ));
    assert!(matches!(
        Selection::new(&trace, None, None, Some("1-0")),
        Err(SelectionError::Syntax { at: 0, .. })
    ));
    let error = Selection::new(&trace, None, None, Some("0, 2")).expect_err("only 2 processes");
    assert_eq!(
        error,
        SelectionError::NoProcess {
            process: 2,
            count: 2
        }
    );
    assert!(error.to_string().contains("0 to 1"), "{error}");
    let both = Selection::new(&trace, None, None, Some(" 0-1 ")).expect("valid");
    assert_eq!(both, Selection::whole(&trace));
}

#[test]
fn the_whole_runs_wait_states_have_the_reports_delay_costs() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let waits = shared::analyses::waits::wait_states(&cx);
    let report = shared::analyses::waits::summarize_waits(&cx, &waits);
    let w = selection::waits_in(&cx, &waits, &Selection::whole(&trace), 100);
    assert!(!report.short_term_costs.is_empty());
    assert_eq!(w.short_term_costs, report.short_term_costs);
    assert_eq!(w.long_term_costs, report.long_term_costs);
}

/// The OTF2 ping-pong sample (Score-P, two ranks): 8 messages each way of 522,240 bytes each,
/// 4,177,920 bytes in all, as the official OTF2 library counts them (16 messages).
#[test]
fn the_otf2_ping_pong_matrix_has_eight_messages_of_4177920_bytes_each_way() {
    let files = crate::importers::otf2_files("pipit-ping-pong-otf2");
    let imported = shared::formats::import_files(
        &files,
        "pipit-ping-pong-otf2",
        &shared::formats::Budget::default(),
    )
    .expect("imports");
    let cx = Context::new(&imported.trace);
    let m = selection::matrix(&cx, &Selection::whole(&imported.trace));
    let cells: Vec<(u32, u32, u64, u64)> = (0..m.count.len())
        .map(|i| (m.from[i].0, m.to[i].0, m.count[i], m.bytes[i]))
        .collect();
    assert_eq!(cells, [(0, 1, 8, 4_177_920), (1, 0, 8, 4_177_920)]);
    assert_eq!((m.messages, m.total_bytes), (16, 2 * 4_177_920));
}

/// The event filter narrows the lists (messages, wait states, event statistics), never the
/// time: B's wait states are its Late Senders 5 + 8 (T13); B's one message to A.
#[test]
fn an_event_filter_narrows_the_lists_of_a_selection() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let waits = shared::analyses::waits::wait_states(&cx);
    let whole = Selection::whole(&trace);
    let only_b = whole
        .clone()
        .with_filter(&trace, Some("process=B"))
        .expect("a filter");
    assert_eq!(selection::waits_in(&cx, &waits, &only_b, 10).time, 13.0);
    let b_to_a = whole
        .clone()
        .with_filter(&trace, Some("message=1>0"))
        .expect("a filter");
    let m = selection::matrix(&cx, &b_to_a);
    assert_eq!((m.messages, m.total_bytes), (1, 1000));
    // Time is the processes' whatever the filter: NPT stays 63 (T6′).
    assert_eq!(selection::npt(&cx, &b_to_a).total, 63.0);
    let sends = |s: &Selection| {
        selection::statistics(&cx, s)
            .into_iter()
            .find(|row| row.name == "msg_send")
            .map(|row| row.statistics.count)
    };
    assert_eq!((sends(&whole), sends(&b_to_a)), (Some(3), Some(1)));
    let empty = whole
        .clone()
        .with_filter(&trace, Some("  "))
        .expect("no filter");
    assert_eq!(empty, whole);
    let bad = whole
        .with_filter(&trace, Some("kind=sideways"))
        .expect_err("no such kind");
    assert!(bad.to_string().contains("column"), "{bad}");
}
