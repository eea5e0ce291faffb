//! Importers against real files in `../shared/traces/` (counts from independent tools, named
//! per test) and exporters by round trip.

use shared::import::{Format, import};
use shared::pairing::pair_messages;
use shared::Trace;

use crate::load;

/// A sample trace beside the repository.
fn sample(path: &str) -> Vec<u8> {
    let full = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces").join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// (processes, events, messages, span in ticks) of a trace.
fn counts(trace: &Trace) -> (usize, usize, usize, u64) {
    let (start, end) = trace.time_bounds().unwrap_or_default();
    (trace.processes.len(), trace.events.len(), pair_messages(trace).messages.len(), end.0 - start.0)
}

/// Counts by `shared/tests/tools/chrome_counts.py` (Python's json module):
/// threads=5 events=16 messages=3 span_ns=3731000.
#[test]
fn chrome_flow_simple_imports_with_its_flows_as_messages() {
    let imported = import(&sample("chrome-trace/catapult-flow_simple.json"), None, "flow_simple").expect("imports");
    assert_eq!(imported.format, Format::ChromeJson);
    assert_eq!(counts(&imported.trace), (5, 16, 3, 3_731_000));
    assert_eq!(imported.trace.clock.ticks_per_second, Some(1_000_000_000));
}

/// Counts by `chrome_counts.py`: threads=38 events=17305 messages=0 span_ns=13530487000; its
/// 118 v2 flows (bind_id) all stay on one thread, so none is a message between processes.
#[test]
fn chrome_webview_gzip_imports() {
    let imported = import(&sample("chrome-trace/catapult-webview.json.gz"), None, "webview").expect("imports");
    assert_eq!(counts(&imported.trace), (38, 17_305, 0, 13_530_487_000));
    assert!(imported.trace.processes.iter().any(|p| p.name == "ScriptStreamerThread"), "thread names from metadata");
    assert!(imported.trace.nodes.iter().any(|n| n.name == "Browser"), "process names from metadata");
    assert!(imported.notes.iter().any(|n| n.contains("skipped")), "{:?}", imported.notes);
}

#[test]
fn chrome_export_round_trips_the_model() {
    for name in ["t4-worked-example.json", "master-workers-probes.json"] {
        let trace = load(name);
        let text = shared::import::chrome::write(&trace);
        let back = import(text.as_bytes(), None, "ignored").expect("re-imports");
        assert_eq!(back.format, Format::ChromeJson);
        assert_eq!(back.trace, trace, "{name}");
    }
}

/// A consumer that knows nothing of Tracescope sees the exported arrows: without the
/// `tracescope` model events, the flows alone give the three messages.
#[test]
fn chrome_export_draws_its_arrows_for_any_consumer() {
    let text = shared::import::chrome::write(&load("t4-worked-example.json"));
    let generic: Vec<&str> = text.lines().filter(|l| !l.contains("\"cat\":\"tracescope\"")).collect();
    let generic = generic.join("\n").replace("\"tracescope.message\"", "\"ipc\"").replace("\"tracescope.state\"", "\"state\"");
    let imported = import(generic.as_bytes(), None, "generic").expect("imports");
    assert_eq!(pair_messages(&imported.trace).messages.len(), 3);
    // Arrivals bind at 33, 48 and 54 ticks (ns here).
    let mut arrivals: Vec<u64> = pair_messages(&imported.trace)
        .messages
        .iter()
        .map(|m| imported.trace.events.time()[m.arrival.index()].0)
        .collect();
    arrivals.sort();
    assert_eq!(arrivals, [33, 48, 54]);
}

#[test]
fn chrome_errors_name_the_position() {
    let err = import(b"{\"traceEvents\": [\n {\"ph\": \"X\", \"ts\": 1,}\n]}", Some(Format::ChromeJson), "x").expect_err("bad json");
    assert_eq!((err.format.as_str(), err.line), ("chrome-json", 2));
    let err = import(b"[{\"ph\": \"X\", \"pid\": 1}]", None, "x").expect_err("no ts");
    assert!(err.message.contains("expected \"ts\""), "{err}");
    assert_eq!(err.offset, 1);
    let err = import(b"[{\"ph\": \"i\", \"ts\": -5}]", None, "x").expect_err("negative");
    assert!(err.message.contains("non-negative"), "{err}");
}

/// Counts by `shared/tests/tools/paraver_counts.py`: threads=4 events=795 messages=33
/// violations=2 span=260199 (µs).
#[test]
fn paraver_qsort_imports_and_reports_its_clock_violations() {
    let prv = sample("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    let pcf = String::from_utf8(sample("paraver/paraver-kernel-qsort_beo3/qsort_beo3.pcf")).expect("utf-8");
    let labels = shared::import::paraver::Labels::parse(&pcf);
    let (trace, notes) = shared::import::paraver::parse(&prv, Some(&labels), "qsort").expect("imports");
    assert_eq!(counts(&trace), (4, 795, 33, 260_199));
    assert_eq!(trace.clock.ticks_per_second, Some(1_000_000));
    assert!(trace.regions.iter().any(|r| r.name == "MPI_Send"), "labels from the .pcf");
    assert!(notes.iter().any(|n| n.contains("global communication")), "{notes:?}");
    let analysis = shared::analysis::analyze(&trace, shared::analysis::AnalysisOptions::default());
    let violations = analysis
        .diagnostics
        .iter()
        .filter(|d| d.kind == shared::validate::DiagnosticKind::ClockViolation)
        .count();
    assert_eq!(violations, 2);
    // Without the .pcf the same events arrive, named by number.
    let plain = import(&prv, None, "qsort").expect("imports");
    assert_eq!(plain.format, Format::Paraver);
    assert_eq!(counts(&plain.trace), (4, 795, 33, 260_199));
}

#[test]
fn paraver_errors_name_the_line() {
    let err = import(b"#Paraver (01/01/01 at 00:00):100:1:1:1(1:1),0\n1:1:1:1:1:5:x:1\n", None, "x").expect_err("bad");
    assert_eq!((err.line, err.column), (2, 13));
    assert!(err.message.contains("non-negative integer"), "{err}");
    let err = import(b"#Paraver (01/01/01 at 00:00):100:1:1:1(1:1),0\n3:1:1:9:1:1:2:1:1:1:1:3:4:8:0\n", None, "x").expect_err("bad");
    assert!(err.message.contains("header declares"), "{err}");
    let err = import(b"#Paraver nonsense\n", None, "x").expect_err("bad");
    assert!(err.message.contains("header"), "{err}");
}
