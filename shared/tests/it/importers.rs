//! Importers against real files in `tests/data/traces/` (counts from independent tools, named
//! per test) and exporters by round trip.

use shared::Trace;
use shared::formats::{Format, import};
use shared::graph::pairing::pair_messages;

use crate::load;

/// A sample trace vendored in `tests/data/traces/`.
fn sample(path: &str) -> Vec<u8> {
    let full = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/traces")
        .join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// (processes, events, messages, span in ticks) of a trace.
fn counts(trace: &Trace) -> (usize, usize, usize, u64) {
    let (start, end) = trace.time_bounds().unwrap_or_default();
    (
        trace.processes.len(),
        trace.events.len(),
        pair_messages(trace).messages.len(),
        end.0 - start.0,
    )
}

/// Counts by `shared/tests/tools/chrome_counts.py` (Python's json module):
/// threads=5 events=16 messages=3 span_ns=3731000.
#[test]
fn chrome_flow_simple_imports_with_its_flows_as_messages() {
    let imported = import(
        &sample("chrome-trace/catapult-flow_simple.json"),
        None,
        "flow_simple",
    )
    .expect("imports");
    assert_eq!(imported.format, Format::ChromeJson);
    assert_eq!(counts(&imported.trace), (5, 16, 3, 3_731_000));
    assert_eq!(imported.trace.clock.ticks_per_second, Some(1_000_000_000));
}

/// Counts by `chrome_counts.py`: threads=38 events=17305 messages=0 span_ns=13530487000; its
/// 118 v2 flows (bind_id) all stay on one thread, so none is a message between processes.
#[test]
fn chrome_webview_gzip_imports() {
    let imported = import(
        &sample("chrome-trace/catapult-webview.json.gz"),
        None,
        "webview",
    )
    .expect("imports");
    assert_eq!(counts(&imported.trace), (38, 17_305, 0, 13_530_487_000));
    assert!(
        imported
            .trace
            .processes
            .iter()
            .any(|p| p.name == "ScriptStreamerThread"),
        "thread names from metadata"
    );
    assert!(
        imported.trace.nodes.iter().any(|n| n.name == "Browser"),
        "process names from metadata"
    );
    assert!(
        imported.notes.iter().any(|n| n.contains("skipped")),
        "{:?}",
        imported.notes
    );
}

/// Counter events as the Trace Event Format documents them (`"ph": "C"`, one series per arg).
#[test]
fn chrome_counter_events_become_counters_and_round_trip() {
    let text = r#"[
        {"name": "ctr", "ph": "C", "ts": 0, "pid": 1, "args": {"cats": 0, "dogs": 7}},
        {"name": "heap", "ph": "C", "ts": 5, "pid": 1, "args": {"value": "12.5"}},
        {"name": "ctr", "ph": "C", "ts": 10, "pid": 1, "args": {"cats": 10, "dogs": 4}},
        {"name": "work", "ph": "X", "ts": 0, "dur": 20, "pid": 1, "tid": 1},
        {"name": "bad", "ph": "C", "ts": 12, "pid": 1, "args": {"x": "many"}}
    ]"#;
    let imported = import(text.as_bytes(), None, "counters").expect("imports");
    let trace = imported.trace;
    let series: Vec<(&str, Vec<u64>, Vec<f64>)> = trace
        .counters
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.times.iter().map(|t| t.0).collect(),
                c.values.clone(),
            )
        })
        .collect();
    assert_eq!(
        series,
        [
            ("ctr cats", vec![0, 10_000], vec![0.0, 10.0]),
            ("ctr dogs", vec![0, 10_000], vec![7.0, 4.0]),
            ("heap", vec![5_000], vec![12.5]),
        ]
    );
    assert!(
        imported.notes.iter().any(|n| n.contains("not numbers")),
        "{:?}",
        imported.notes
    );
    let back =
        import(shared::formats::chrome::write(&trace).as_bytes(), None, "x").expect("re-imports");
    assert_eq!(back.trace.counters, trace.counters);
}

/// Values read other than written are said so: a negative `dur` becomes an instant with a note.
#[test]
fn chrome_negative_durations_are_read_as_instants_with_a_note() {
    let text = br#"[{"name": "w", "ph": "X", "ts": 10, "dur": -5, "pid": 1, "tid": 1},
                    {"name": "v", "ph": "X", "ts": 20, "dur": 5, "pid": 1, "tid": 1}]"#;
    let imported = import(text, None, "neg").expect("imports");
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n
                == "1 X slices with a negative dur, read as instants (the first at line 1, column 2 (byte 1))"),
        "{:?}",
        imported.notes
    );
    // Both slices are there, the first as a zero-length one (an enter and a leave at 10 µs).
    let times: Vec<u64> = imported.trace.events.time().iter().map(|t| t.0).collect();
    assert_eq!(times, [10_000, 10_000, 20_000, 25_000]);
}

/// Threads are told apart by pid and tid together, whatever their text: pid 1 tid 23 is not
/// pid 12 tid 3, nor pid "1" tid "23" with string ids; a missing tid is the pid's main thread.
#[test]
fn chrome_threads_are_told_apart_by_pid_and_tid() {
    let text = br#"[{"name": "a", "ph": "i", "ts": 1, "pid": 1, "tid": 23},
                    {"name": "b", "ph": "i", "ts": 2, "pid": 12, "tid": 3},
                    {"name": "c", "ph": "i", "ts": 3, "pid": "1", "tid": "23"},
                    {"name": "d", "ph": "i", "ts": 4, "pid": 7},
                    {"name": "e", "ph": "i", "ts": 5, "pid": 7, "tid": 7},
                    {"name": "f", "ph": "i", "ts": 6, "pid": 1, "tid": 23}]"#;
    let trace = import(text, None, "ids").expect("imports").trace;
    let names: Vec<&str> = trace.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["pid 1 tid 23", "pid 12 tid 3", "pid 7 tid 7"]);
    let per_process: Vec<usize> = trace
        .process_ids()
        .map(|p| trace.process_events(p).len())
        .collect();
    assert_eq!(per_process, [3, 1, 2]);
}

#[test]
fn chrome_export_round_trips_the_model() {
    for name in ["t4-worked-example.json", "master-workers-probes.json"] {
        let trace = load(name);
        let text = shared::formats::chrome::write(&trace);
        let back = import(text.as_bytes(), None, "ignored").expect("re-imports");
        assert_eq!(back.format, Format::ChromeJson);
        assert_eq!(back.trace, trace, "{name}");
    }
}

/// A consumer that knows nothing of Tracescope sees the exported arrows: without the
/// `tracescope` model events, the flows alone give the three messages.
#[test]
fn chrome_export_draws_its_arrows_for_any_consumer() {
    let text = shared::formats::chrome::write(&load("t4-worked-example.json"));
    let generic: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"cat\":\"tracescope\""))
        .collect();
    let generic = generic
        .join("\n")
        .replace("\"tracescope.message\"", "\"ipc\"")
        .replace("\"tracescope.state\"", "\"state\"");
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
    let err = import(
        b"{\"traceEvents\": [\n {\"ph\": \"X\", \"ts\": 1,}\n]}",
        Some(Format::ChromeJson),
        "x",
    )
    .expect_err("bad json");
    assert_eq!((err.format.as_str(), err.line), ("chrome-json", 2));
    let err = import(b"[{\"ph\": \"X\", \"pid\": 1}]", None, "x").expect_err("no ts");
    assert!(err.message.contains("expected \"ts\""), "{err}");
    assert_eq!(err.offset, 1);
    let err = import(b"[{\"ph\": \"i\", \"ts\": -5}]", None, "x").expect_err("negative");
    assert!(err.message.contains("non-negative"), "{err}");
}

/// Counts by `tools/independent/paraver.py` (Paraver's rules and the documented mapping): threads=4
/// events=433 (4 init, 4 exit, 163 enter, 163 leave, 33 send, 33 receive call, 33 arrival)
/// messages=33 span=260199 (µs); violations=2 (records whose physical receive precedes the send).
#[test]
fn paraver_qsort_imports_and_reports_its_clock_violations() {
    let prv = sample("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    let pcf = String::from_utf8(sample("paraver/paraver-kernel-qsort_beo3/qsort_beo3.pcf"))
        .expect("utf-8");
    let labels = shared::formats::paraver::Labels::parse(&pcf);
    let (trace, notes) = shared::formats::paraver::parse(
        &mut prv.as_slice(),
        Some(&labels),
        "qsort",
        &shared::formats::Budget::default(),
    )
    .expect("imports");
    assert_eq!(counts(&trace), (4, 433, 33, 260_199));
    assert_eq!(trace.clock.ticks_per_second, Some(1_000_000));
    assert!(
        trace.regions.iter().any(|r| r.name == "MPI_Send"),
        "labels from the .pcf"
    );
    assert!(
        notes.iter().any(|n| n.contains("global communication")),
        "{notes:?}"
    );
    let analysis = shared::analyses::metrics::analyze(
        &trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    let violations = analysis
        .diagnostics
        .iter()
        .filter(|d| d.kind == shared::analyses::validate::DiagnosticKind::ClockViolation)
        .count();
    assert_eq!(violations, 2);
    // The two violations would make the recorded critical path 260,241 µs, longer than the
    // recorded run of 260,199: both are taken on the repaired clocks instead, and agree.
    assert_eq!(analysis.clocks, shared::analyses::metrics::Clocks::Repaired);
    assert!(
        analysis.critical_path.length <= analysis.execution_time,
        "{} > {}",
        analysis.critical_path.length,
        analysis.execution_time
    );
    // Every one of the 33 messages is matched: none of its receive calls is reported as never
    // completed (the waiting state's leave used to come between the call and its arrival).
    let never = |a: &shared::analyses::metrics::Analysis| {
        a.diagnostics
            .iter()
            .filter(|d| d.kind == shared::analyses::validate::DiagnosticKind::ReceiveNeverCompleted)
            .count()
    };
    assert_eq!(never(&analysis), 0);
    // Nor does any event come after its process's exit: the last record, not the last state,
    // ends a task. The two clock violations are all there is to say.
    let other: Vec<&str> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.kind != shared::analyses::validate::DiagnosticKind::ClockViolation)
        .map(|d| d.message.as_str())
        .collect();
    assert!(other.is_empty(), "{other:?}");
    // Without the .pcf the same events arrive, named by number.
    let plain = import(&prv, None, "qsort").expect("imports");
    assert_eq!(plain.format, Format::Paraver);
    assert_eq!(counts(&plain.trace), (4, 433, 33, 260_199));
}

/// Two tasks, one message each way, written as MPItrace writes them: a waiting state that ends
/// when the message arrives (the same tick as the physical receive), and a message whose data
/// arrived before its receive was called. No receive is reported as never completed, and the
/// early message is taken when its receive is called.
#[test]
fn paraver_receives_complete_at_their_arrival() {
    let prv = b"#Paraver (01/01/01 at 00:00):100_us:1(2):1:2(1:1,1:1),0\n\
1:1:1:1:1:0:10:1\n\
1:2:1:2:1:0:10:1\n\
1:2:1:2:1:10:40:3\n\
1:1:1:1:1:10:100:1\n\
1:2:1:2:1:40:100:1\n\
3:1:1:1:1:5:5:2:1:2:1:10:40:8:1\n\
3:2:1:2:1:50:50:1:1:1:1:70:60:8:2\n";
    let imported = import(prv, None, "two").expect("imports");
    let trace = &imported.trace;
    assert_eq!(counts(trace).2, 2, "two messages");
    let analysis = shared::analyses::metrics::analyze(
        trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    let never: Vec<&str> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.kind == shared::analyses::validate::DiagnosticKind::ReceiveNeverCompleted)
        .map(|d| d.message.as_str())
        .collect();
    assert!(never.is_empty(), "{never:?}");
    // The second message's data came at 60, its receive was called at 70: taken at 70.
    let mut arrivals: Vec<u64> = (0..trace.events.len())
        .filter(|&i| trace.events.kind()[i] == shared::model::EventKind::MsgArr)
        .map(|i| trace.events.time()[i].0)
        .collect();
    arrivals.sort_unstable();
    assert_eq!(arrivals, [40, 70]);
}

/// A header whose task count disagrees with its task list is refused, not read as the list.
#[test]
fn paraver_header_counts_must_match_their_lists() {
    let err = import(
        b"#Paraver (01/01/01 at 00:00):100_us:1(2):1:4000000000(1:1,1:1),0\n1:1:1:1:1:0:10:1\n",
        None,
        "x",
    )
    .expect_err("refused");
    assert!(
        err.message
            .contains("declares 4000000000 tasks but lists 2"),
        "{err}"
    );
}

#[test]
fn paraver_errors_name_the_line() {
    let err = import(
        b"#Paraver (01/01/01 at 00:00):100:1:1:1(1:1),0\n1:1:1:1:1:5:x:1\n",
        None,
        "x",
    )
    .expect_err("bad");
    assert_eq!((err.line, err.column), (2, 13));
    assert!(err.message.contains("non-negative integer"), "{err}");
    let err = import(
        b"#Paraver (01/01/01 at 00:00):100:1:1:1(1:1),0\n3:1:1:9:1:1:2:1:1:1:1:3:4:8:0\n",
        None,
        "x",
    )
    .expect_err("bad");
    assert!(err.message.contains("header declares"), "{err}");
    let err = import(b"#Paraver nonsense\n", None, "x").expect_err("bad");
    assert!(err.message.contains("header"), "{err}");
    // cargo-fuzz found a header declaring 12,222,222,222 threads: refused, not allocated.
    let bytes = std::fs::read(crate::data_path(
        "fuzz/paraver-header-huge-thread-count.prv",
    ))
    .expect("fixture");
    let err = import(&bytes, Some(Format::Paraver), "fuzz").expect_err("refused");
    assert!(err.message.contains("more than the 1048576"), "{err}");
    assert_eq!(err.line, 1);
}

/// Counts by `shared/tests/tools/shiviz_counts.py` with the Akka expression:
/// hosts=3 events=71 messages=16 skipped=0 span=16 (Lamport clocks).
#[test]
fn shiviz_akka_broadcast_imports_with_messages_from_vector_clocks() {
    let imported = import(
        &sample("shiviz/simple-reliable-broadcast.log"),
        None,
        "broadcast",
    )
    .expect("imports");
    assert_eq!(imported.format, Format::Shiviz);
    assert_eq!(counts(&imported.trace), (3, 71, 16, 16));
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    // The log's clocks are consistent: no causality or clock problem.
    let analysis = shared::analyses::metrics::analyze(
        &imported.trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert!(
        analysis.diagnostics.is_empty(),
        "{:?}",
        analysis.diagnostics
    );
}

/// Counts by `shiviz_counts.py` with the file's own first-line expression:
/// hosts=2 events=18 messages=4 skipped=0 span=8.
#[test]
fn shiviz_govector_log_uses_its_own_expression() {
    let imported =
        import(&sample("shiviz/govector-RpcClientServer.log"), None, "rpc").expect("imports");
    assert_eq!(counts(&imported.trace), (2, 18, 4, 8));
    let names: Vec<&str> = imported
        .trace
        .processes
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["client", "server"]);
}

/// The happened-before of the imported model is the log's: event e precedes f exactly when e's
/// clock is ≤ f's componentwise.
#[test]
fn shiviz_causality_matches_the_logged_vector_clocks() {
    let imported =
        import(&sample("shiviz/govector-RpcClientServer.log"), None, "rpc").expect("imports");
    let trace = &imported.trace;
    let cx = shared::graph::context::Context::new(trace);
    let c = shared::analyses::causality::Causality::new(trace, &cx.graph);
    // Probes are the logged events, in per-host order: reconstruct each one's clock.
    let probes: Vec<shared::EventIdx> = (0..trace.events.len() as u32)
        .map(shared::EventIdx)
        .filter(|&i| trace.events.kind()[i.index()] == shared::EventKind::Probe)
        .collect();
    let clock = |e: shared::EventIdx| -> Vec<u32> {
        let mut vc = vec![0u32; 2];
        for &p in &probes {
            if p == e || c.happened_before(p, e) {
                vc[trace.events.process()[p.index()].index()] += 1;
            }
        }
        vc
    };
    let logged = [
        ("client", [1, 0]),
        ("client", [2, 0]),
        ("client", [3, 3]),
        ("client", [4, 3]),
        ("client", [5, 5]),
        ("server", [0, 1]),
        ("server", [2, 2]),
        ("server", [2, 3]),
        ("server", [4, 4]),
        ("server", [4, 5]),
    ];
    let got: Vec<(&str, Vec<u32>)> = probes
        .iter()
        .map(|&p| {
            (
                trace.processes[trace.events.process()[p.index()].index()]
                    .name
                    .as_str(),
                clock(p),
            )
        })
        .collect();
    let expected: Vec<(&str, Vec<u32>)> = logged.iter().map(|(h, vc)| (*h, vc.to_vec())).collect();
    assert_eq!(got, expected);
}

#[test]
fn shiviz_errors_name_the_line() {
    let log = "a {\"a\":1}\nstart\na {\"a\":3}\nskipped a counter\n";
    let err = shared::formats::shiviz::parse(
        log.as_bytes(),
        Some(shared::formats::shiviz::GOVECTOR_REGEX),
        "x",
        &shared::formats::Budget::default(),
    )
    .expect_err("gap");
    assert_eq!(err.line, 3);
    assert!(err.message.contains("own counter 2"), "{err}");
    let err = shared::formats::shiviz::parse(
        b"a {\"a\":1}\nx\n",
        Some("(?<host>\\S*) (?<event>.*)"),
        "x",
        &shared::formats::Budget::default(),
    )
    .expect_err("no clock group");
    assert!(err.message.contains("clock"), "{err}");
    let err = shared::formats::shiviz::parse(
        b"a {\"a\":x}\ne\n",
        Some(shared::formats::shiviz::GOVECTOR_REGEX),
        "x",
        &shared::formats::Budget::default(),
    )
    .expect_err("bad clock");
    assert_eq!((err.line, err.column), (1, 3));
}

/// Counts by `shared/tests/tools/paje_counts.py`: containers=15 events=66 messages=17
/// span_ns=4485137000. Its links are SimGrid's zero-length topology edges, imported as
/// messages as the format defines them; `power_used`/`power` become CPU samples.
#[test]
fn paje_simgrid_imports_links_and_utilization() {
    let imported = import(&sample("paje/pajeng-simgrid-ms.trace"), None, "ms").expect("imports");
    assert_eq!(imported.format, Format::Paje);
    assert_eq!(counts(&imported.trace), (15, 66, 17, 4_485_137_000));
    assert!(!imported.trace.cpu_samples.is_empty());
    assert!(
        imported
            .trace
            .cpu_samples
            .iter()
            .all(|s| (0.0..=1.0).contains(&s.sample.utilization))
    );
    assert!(
        imported
            .trace
            .nodes
            .iter()
            .any(|n| n.name == "Tremblay (HOST)"),
        "{:?}",
        imported.trace.nodes
    );
    // Every variable is a counter of its container too: the hosts' power in use among them.
    let trace = &imported.trace;
    let power_used: Vec<&shared::model::Counter> = trace
        .counters
        .iter()
        .filter(|c| c.name == "power_used")
        .collect();
    assert!(
        !power_used.is_empty(),
        "{:?}",
        trace.counters.iter().map(|c| &c.name).collect::<Vec<_>>()
    );
    let node_of = |c: &shared::model::Counter| {
        let p = &trace.processes[c.process.index()];
        trace.nodes[p.node.index()].name.clone()
    };
    let tremblay = power_used
        .iter()
        .find(|c| node_of(c) == "Tremblay (HOST)")
        .unwrap_or_else(|| {
            panic!(
                "{:?}",
                power_used.iter().map(|c| node_of(c)).collect::<Vec<_>>()
            )
        });
    assert!(tremblay.values.iter().any(|&v| v > 0.0));
    // Variables name their container by alias: a host's power goes to the host, not to the
    // link whose name is the same number.
    assert!(
        trace
            .cpu_samples
            .iter()
            .any(|s| trace.nodes[s.node.index()].name == "Tremblay (HOST)"),
        "Tremblay's power in use"
    );
    assert_eq!(tremblay.times.last().map(|t| t.0), Some(4_485_137_000));
}

/// A container destroyed while its states are open closes them (EZTrace ends its threads so):
/// no region is reported unclosed, and the states end with the container.
#[test]
fn paje_a_destroyed_container_closes_its_states() {
    let text = "%EventDef PajeDefineContainerType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 3
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 7
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 8
% Time date
% Name string
% Type string
%EndEventDef
%EventDef PajePushState 11
% Time date
% Type string
% Container string
% Value string
%EndEventDef
1 CT 0 Thread
3 ST CT State
7 0.0 t1 CT 0 \"thread 1\"
11 1.0 ST t1 compute
11 2.0 ST t1 inner
8 5.0 t1 CT
";
    let imported = import(text.as_bytes(), None, "destroyed").expect("imports");
    let trace = &imported.trace;
    let analysis = shared::analyses::metrics::analyze(
        trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    let unclosed: Vec<&str> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.kind == shared::analyses::validate::DiagnosticKind::UnclosedRegion)
        .map(|d| d.message.as_str())
        .collect();
    assert!(unclosed.is_empty(), "{unclosed:?}");
    let kinds: Vec<(u64, shared::model::EventKind)> = (0..trace.events.len())
        .map(|i| (trace.events.time()[i].0, trace.events.kind()[i]))
        .collect();
    use shared::model::EventKind::{Enter, Leave, ProcExit, ProcInit};
    assert_eq!(
        kinds,
        [
            (0, ProcInit),
            (1_000_000_000, Enter),
            (2_000_000_000, Enter),
            (5_000_000_000, Leave),
            (5_000_000_000, Leave),
            (5_000_000_000, ProcExit)
        ]
    );
}

/// Counts by `paje_counts.py`: containers=13 events=6643 messages=0 span_ns=40704498590000.
#[test]
fn paje_starpu_imports_with_two_set_state_layouts() {
    let imported = import(
        &sample("paje/pajeng-starpu-native_sample.trace"),
        None,
        "starpu",
    )
    .expect("imports");
    assert_eq!(counts(&imported.trace), (13, 6_643, 0, 40_704_498_590_000));
    assert!(
        imported
            .trace
            .regions
            .iter()
            .any(|r| r.name == "Initializing"),
        "entity values name the states"
    );
}

#[test]
fn paje_errors_name_the_line() {
    let header = "%EventDef PajeNewEvent 1\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n";
    let err = import(format!("{header}1 0.5 T\n").as_bytes(), None, "x").expect_err("short");
    assert_eq!(err.line, 7);
    assert!(err.message.contains("expected 4 fields"), "{err}");
    let err =
        import(format!("{header}9 0.5 T C V\n").as_bytes(), None, "x").expect_err("undeclared");
    assert!(err.message.contains("declared by %EventDef"), "{err}");
    let err =
        import(format!("{header}1 soon T C V\n").as_bytes(), None, "x").expect_err("bad date");
    assert!(err.message.contains("date"), "{err}");
}

#[test]
fn tmon_round_trips_the_worked_example_and_its_analysis() {
    let trace = load("t4-worked-example.json");
    let (bytes, notes) = shared::formats::tmon::write(&trace).expect("writes");
    assert!(notes.is_empty(), "{notes:?}");
    // 13 events of 21 bytes plus headers.
    assert!(bytes.len() > 13 * 21 && bytes.starts_with(b"TMON"));
    let back = import(&bytes, None, "t4.tmon").expect("reads");
    assert_eq!(back.format, Format::Tmon);
    assert_eq!(counts(&back.trace), counts(&trace));
    let a = shared::analyses::metrics::analyze(
        &back.trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert_eq!(
        (a.execution_time, a.total_computation, a.wcpa.weight),
        (69, 85.0, 101.0)
    );
    assert_eq!(back.trace.processes[0].name, "A");
    // Writing what was read gives the same bytes.
    assert_eq!(
        shared::formats::tmon::write(&back.trace).expect("writes").0,
        bytes
    );
}

#[test]
fn tmon_keeps_probes_samples_and_links() {
    use shared::model::{CpuSample, Link, LinkEnd, Sample};
    let mut trace = load("master-workers-probes.json");
    let end = |n, l| LinkEnd {
        node: shared::NodeId(n),
        link: l,
    };
    trace.links.push(Link {
        a: end(0, 1),
        b: end(1, 3),
        bits_per_second: Some(20_000_000),
    });
    trace.cpu_samples.push(CpuSample {
        node: shared::NodeId(1),
        sample: Sample {
            start: shared::Time(0),
            end: shared::Time(1000),
            utilization: 0.25,
        },
    });
    let (bytes, notes) = shared::formats::tmon::write(&trace).expect("writes");
    assert!(notes.iter().any(|n| n.contains("renumbered")), "{notes:?}");
    let back = import(&bytes, None, "mw.tmon").expect("reads").trace;
    assert_eq!(counts(&back), counts(&trace));
    assert_eq!(back.links, trace.links);
    assert_eq!(back.cpu_samples, trace.cpu_samples);
    let texts: Vec<&str> = back
        .events
        .text()
        .iter()
        .flatten()
        .filter_map(|s| back.string(s))
        .collect();
    assert!(texts.contains(&"reading image"), "{texts:?}");
}

#[test]
fn tmon_errors_name_the_offset() {
    let (mut bytes, _) =
        shared::formats::tmon::write(&load("t4-worked-example.json")).expect("writes");
    let err = import(&bytes[..bytes.len() - 5], Some(Format::Tmon), "x").expect_err("truncated");
    assert!(
        err.message.contains("too short") || err.message.contains("end of the file"),
        "{err}"
    );
    bytes[4] = 9;
    let err = import(&bytes, None, "x").expect_err("version");
    assert_eq!(
        (err.offset, err.message.as_str()),
        (4, "unsupported version 9 (this build reads version 1)")
    );
}

#[test]
fn native_binary_round_trips_and_is_compact() {
    let trace = shared::model::synthetic::ring(16, 40_000);
    let bytes = shared::formats::binary::write(&trace);
    let back = import(&bytes, None, "x").expect("reads");
    assert_eq!(back.format, Format::TracescopeBinary);
    assert_eq!(back.trace, trace);
    let json = shared::formats::native::write(&trace);
    assert!(
        bytes.len() * 4 < json.len(),
        "binary {} bytes vs JSON {}",
        bytes.len(),
        json.len()
    );
    let err = import(&bytes[..bytes.len() / 2], None, "x").expect_err("truncated");
    assert_eq!((err.format.as_str(), err.offset), ("tracescope-binary", 6));
}

/// A clock of 0 ticks a second is refused where it is written (it used to print "NaN s"), and
/// a model that somehow holds one prints durations in ticks.
#[test]
fn a_zero_tick_rate_is_an_error_not_nan() {
    let text = br#"{"format": "tracescope", "version": 1, "ticks_per_second": 0,
        "nodes": [{"name": "n"}], "processes": [{"name": "p", "node": 0}], "events": []}"#;
    let err = import(text, None, "zero").expect_err("refused");
    assert!(err.message.contains("ticks_per_second"), "{err}");
    let value = text
        .windows(21)
        .position(|w| w == b"\"ticks_per_second\": 0")
        .expect("the field")
        + 20;
    assert_eq!(err.offset, value, "the value's own offset");
    let clock = shared::model::time::Clock {
        ticks_per_second: Some(0),
    };
    assert_eq!(
        clock.format_duration(shared::model::time::Duration(5)),
        "5 ticks"
    );
}

#[test]
fn binary_version_1_reads_as_a_model_without_counters() {
    use shared::model::{Counter, CounterKind, ProcessId, time::Time};
    let mut trace = shared::model::synthetic::ring(4, 400);
    let v2 = shared::formats::binary::write(&trace);
    // Version 1 is version 2 without the counters' (empty) list at the end.
    assert_eq!(v2.last(), Some(&0));
    let mut v1 = v2[..v2.len() - 1].to_vec();
    v1[4..6].copy_from_slice(&1u16.to_le_bytes());
    assert_eq!(import(&v1, None, "x").expect("reads v1").trace, trace);
    let mut extra = v1.clone();
    extra.extend_from_slice(&[0, 0]);
    let err = import(&extra, None, "x").expect_err("trailing bytes");
    assert!(
        err.message.contains("found 1 more bytes"),
        "{}",
        err.message
    );
    // Counters survive a round trip.
    let mut counter = Counter::new("PAPI_TOT_CYC", "#", ProcessId(1), CounterKind::Accumulated);
    counter.times = vec![Time(5), Time(9)];
    counter.values = vec![10.0, 250.5];
    trace.counters.push(counter);
    let back = import(&shared::formats::binary::write(&trace), None, "x").expect("reads");
    assert_eq!(back.trace, trace);
    // A counter that names a process the trace does not have is refused.
    trace.counters[0].process = ProcessId(99);
    let err = import(&shared::formats::binary::write(&trace), None, "x").expect_err("bad");
    assert_eq!((err.format.as_str(), err.offset), ("tracescope-binary", 6));
    let json = serde_json::to_string(&trace).expect("serializes");
    let err = serde_json::from_str::<shared::Trace>(&json).expect_err("bad");
    assert!(err.to_string().contains("process 99"), "{err}");
}

/// Every file of a vendored OTF2 archive directory, by relative path.
pub fn otf2_files(archive: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/traces/otf2")
        .join(archive);
    let mut files = std::collections::BTreeMap::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let key = path
                    .strip_prefix(&root)
                    .expect("inside")
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(key, std::fs::read(&path).expect("readable"));
            }
        }
    }
    files
}

/// A tar of the files, each under `prefix`.
fn tar_of(files: &std::collections::BTreeMap<String, Vec<u8>>, prefix: &str) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{prefix}{path}"), bytes.as_slice())
            .expect("appends");
    }
    builder.into_inner().expect("finishes")
}

/// Counts by `shared/tests/tools/otf2_counts.py`, run with the official `otf2` 3.2 Python
/// bindings (the OTF2 C library): processes=2 events=136 messages=16 span=418210708 and, for
/// the PAPI archive, span=451610534; timer resolutions as the bindings report them. The event times also match the library's, clock-offset
/// correction included, to the tick.
#[test]
fn otf2_archives_import_as_the_official_library_reads_them() {
    for (archive, span, resolution) in [
        ("pipit-ping-pong-otf2", 418_210_708, 2_095_197_216),
        ("pipit-ping-pong-otf2-papi", 451_610_534, 2_095_191_439),
    ] {
        let files = otf2_files(archive);
        let imported =
            shared::formats::import_files(&files, archive, &shared::formats::Budget::default())
                .expect("imports");
        assert_eq!(counts(&imported.trace), (2, 136, 16, span), "{archive}");
        assert_eq!(imported.trace.clock.ticks_per_second, Some(resolution));
        assert!(
            imported.trace.nodes[0].name.contains("quartz10"),
            "{:?}",
            imported.trace.nodes
        );
        assert!(imported.trace.regions.iter().any(|r| r.name == "MPI_Send" && r.role == shared::model::RegionRole::Communication));
        let analysis = shared::analyses::metrics::analyze(
            &imported.trace,
            shared::analyses::metrics::AnalysisOptions::default(),
        );
        assert!(
            analysis.diagnostics.is_empty(),
            "{archive}: {:?}",
            analysis.diagnostics
        );
        // As a tar upload, and gzip-compressed, the same.
        let tar = tar_of(&files, "ping-pong/");
        let from_tar = import(&tar, None, "upload.tar").expect("imports a tar");
        assert_eq!(from_tar.format, Format::Otf2);
        assert_eq!(from_tar.trace.events, imported.trace.events);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).expect("compresses");
        let from_tgz =
            import(&gz.finish().expect("finishes"), None, "upload.tgz").expect("imports a tar.gz");
        assert_eq!(from_tgz.trace.events, imported.trace.events);
    }
}

/// The PAPI archive's `Metric` records (Score-P with `SCOREP_METRIC_PAPI=PAPI_TOT_CYC,
/// PAPI_L2_TCM,PAPI_BR_MSP`): one accumulating series per counter and location. The first values
/// of location 0 are decoded by hand from `traces/0.evt` (record 31 at byte 46: metric 0, three
/// UINT64 values 0x018222, 0x088f, 0x01a5).
#[test]
fn otf2_papi_metrics_become_counters() {
    use shared::model::CounterKind;
    let files = otf2_files("pipit-ping-pong-otf2-papi");
    let trace = shared::formats::import_files(&files, "papi", &shared::formats::Budget::default())
        .expect("imports")
        .trace;
    let names: Vec<(&str, u32)> = trace
        .counters
        .iter()
        .map(|c| (c.name.as_str(), c.process.0))
        .collect();
    assert_eq!(
        names,
        [
            ("PAPI_TOT_CYC", 0),
            ("PAPI_L2_TCM", 0),
            ("PAPI_BR_MSP", 0),
            ("PAPI_TOT_CYC", 1),
            ("PAPI_L2_TCM", 1),
            ("PAPI_BR_MSP", 1)
        ]
    );
    let first: Vec<f64> = trace.counters[..3].iter().map(|c| c.values[0]).collect();
    assert_eq!(first, [98_850.0, 2_191.0, 421.0]);
    assert_eq!(trace.counters[0].values[1], 122_765.0);
    for c in &trace.counters {
        assert_eq!(c.kind, CounterKind::Accumulated);
        assert_eq!(c.times.len(), c.values.len());
        assert!(
            c.values.windows(2).all(|w| w[0] <= w[1]),
            "{} accumulates",
            c.name
        );
    }
    // 42 metric records in traces/0.evt.
    assert_eq!(trace.counters[0].times.len(), 42);
    // The archive without metrics has no counters.
    let plain = shared::formats::import_files(
        &otf2_files("pipit-ping-pong-otf2"),
        "x",
        &shared::formats::Budget::default(),
    )
    .expect("imports");
    assert!(plain.trace.counters.is_empty());
}

/// A record whose length byte is damaged misaligns the reader, which used to take a stray byte
/// for the end-of-file or end-of-chunk marker and stop there without a word (69 or 71 of 136
/// events). An end marker anywhere but at the file's end is now an error naming the file.
#[test]
fn otf2_a_damaged_record_length_is_an_error_not_a_short_trace() {
    let clean = otf2_files("pipit-ping-pong-otf2");
    // Byte 38 and byte 64 of traces/0.evt are record lengths (of its 2nd and 4th records).
    for (at, delta) in [(38usize, -1i16), (64, 1), (64, -1)] {
        let mut files = clean.clone();
        let evt = files.get_mut("traces/0.evt").expect("event file");
        evt[at] = (i16::from(evt[at]) + delta).rem_euclid(256) as u8;
        match shared::formats::import_files(&files, "x", &shared::formats::Budget::default()) {
            Err(err) => assert!(err.message.starts_with("traces/0.evt"), "{err}"),
            Ok(imported) => panic!(
                "byte {at} {delta:+}: read as {} events without an error",
                imported.trace.events.len()
            ),
        }
    }
}

/// A timestamp before the clock's global offset is read as the trace's start, and said so.
#[test]
fn otf2_timestamps_before_the_global_offset_are_noted() {
    let mut files = otf2_files("pipit-ping-pong-otf2");
    // traces.def: the ClockProperties record's global offset ends at byte 32 (its top byte,
    // 0x1a); one more there puts it after every timestamp.
    let def = files.get_mut("traces.def").expect("definitions");
    assert_eq!(def[32], 0x1a);
    def[32] = 0x1b;
    let imported = shared::formats::import_files(&files, "x", &shared::formats::Budget::default())
        .expect("imports");
    assert!(
        imported.notes.iter().any(|n| n.contains(
            "timestamps before the clock's global offset, read as its start (tick 0) (the first at traces/"
        ) && n.contains(".evt, byte ")),
        "{:?}",
        imported.notes
    );
}

#[test]
fn otf2_problems_name_the_file_and_offset() {
    let mut files = otf2_files("pipit-ping-pong-otf2");
    // The anchor alone is refused with a hint.
    let err = import(&files["traces.otf2"], None, "traces.otf2").expect_err("anchor only");
    assert!(err.message.contains(".tar"), "{err}");
    // A truncated event file names itself and where it ends.
    let evt = files.get_mut("traces/0.evt").expect("event file");
    evt.truncate(200);
    let err = shared::formats::import_files(&files, "x", &shared::formats::Budget::default())
        .expect_err("truncated");
    assert!(err.message.starts_with("traces/0.evt"), "{err}");
    // A missing definitions file.
    files.remove("traces.def");
    let err = shared::formats::import_files(&files, "x", &shared::formats::Budget::default())
        .expect_err("no definitions");
    assert!(err.message.contains("traces.def"), "{err}");
}

/// Counts by `otf2_counts.py` with the official bindings: processes=2 events=90000
/// messages=10000 span=499960. Its event files span three chunks each.
#[test]
fn otf2_reading_crosses_chunk_boundaries() {
    let bytes =
        std::fs::read(crate::data_path("otf2-two-ranks-multichunk.tar.gz")).expect("fixture");
    let imported = import(&bytes, None, "two-ranks").expect("imports");
    assert_eq!(counts(&imported.trace), (2, 90_000, 10_000, 499_960));
    let analysis = shared::analyses::metrics::analyze(
        &imported.trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert!(
        analysis.diagnostics.is_empty(),
        "{:?}",
        analysis.diagnostics.first()
    );
}

/// A Paraver upload as a tar of the .prv, .pcf and .row files: labels and names come along.
#[test]
fn paraver_tar_brings_its_labels_and_row_names() {
    let mut files = std::collections::BTreeMap::new();
    files.insert(
        "qsort.prv".to_owned(),
        sample("paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv"),
    );
    files.insert(
        "qsort.pcf".to_owned(),
        sample("paraver/paraver-kernel-qsort_beo3/qsort_beo3.pcf"),
    );
    files.insert(
        "qsort.row".to_owned(),
        b"LEVEL CPU SIZE 4\nc1\nc2\nc3\nc4\nLEVEL THREAD SIZE 4\nmaster\nw1\nw2\nw3\n".to_vec(),
    );
    let imported = import(&tar_of(&files, ""), None, "qsort.tar").expect("imports");
    assert_eq!(imported.format, Format::Paraver);
    assert_eq!(counts(&imported.trace), (4, 433, 33, 260_199));
    let names: Vec<&str> = imported
        .trace
        .processes
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["master", "w1", "w2", "w3"]);
    assert!(imported.trace.regions.iter().any(|r| r.name == "MPI_Recv"));
}

/// Thread create → begin and end → wait become messages between the two threads.
#[test]
fn otf2_thread_records_become_messages() {
    let bytes = std::fs::read(crate::data_path("otf2-pthreads.tar.gz")).expect("fixture");
    let trace = import(&bytes, None, "pthreads").expect("imports").trace;
    let pairs: Vec<(u64, u64)> = pair_messages(&trace)
        .messages
        .iter()
        .map(|m| {
            (
                trace.events.time()[m.send.index()].0,
                trace.events.time()[m.arrival.index()].0,
            )
        })
        .collect();
    assert_eq!(pairs, [(10, 12), (41, 45)]);
    assert_eq!(counts(&trace), (2, 8, 2, 50));
    let a = shared::analyses::metrics::analyze(
        &trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
}

/// A Pajé trace as GTG (the library EZTrace 1.x writes Pajé with) lays out its header, with
/// dates in `date_scale` units: one container with a 2.5-unit state.
fn gtg_paje() -> String {
    let defs: [(&str, u32, &[&str]); 6] = [
        ("PajeDefineContainerType", 0, &["Name", "Type", "Alias"]),
        ("PajeDefineStateType", 1, &["Name", "Type", "Alias"]),
        (
            "PajeDefineEntityValue",
            5,
            &["Type", "Name", "Color", "Alias"],
        ),
        (
            "PajeCreateContainer",
            7,
            &["Time", "Name", "Type", "Container", "Alias"],
        ),
        ("PajeDestroyContainer", 8, &["Time", "Name", "Type"]),
        ("PajeSetState", 10, &["Time", "Type", "Container", "Value"]),
    ];
    let mut out = String::new();
    for (name, id, fields) in defs {
        out.push_str(&format!("%EventDef {name} {id}\n"));
        for f in fields {
            let kind = if *f == "Time" { "date" } else { "string" };
            out.push_str(&format!("% {f} {kind}\n"));
        }
        out.push_str("%EndEventDef\n");
    }
    out.push_str(
        "0 \"Thread\" \"0\" \"CT_T\"\n1 \"State\" \"CT_T\" \"ST_T\"\n\
7 0.0000000000000e+00 \"P#0_T#1\" \"CT_T\" \"0\" \"T1\"\n\
10 1.0000000000000e+00 \"ST_T\" \"T1\" \"compute\"\n\
10 3.5000000000000e+00 \"ST_T\" \"T1\" \"idle\"\n\
8 4.0000000000000e+00 \"T1\" \"CT_T\"\n",
    );
    out
}

/// EZTrace's dates are milliseconds: its GTG header is recognised (and said so in a note),
/// and `--time-unit` (here the import option) overrides it.
#[test]
fn paje_eztrace_dates_are_milliseconds_unless_told_otherwise() {
    use shared::formats::paje::TimeUnit;
    use shared::formats::{ImportOptions, import_with};
    let text = gtg_paje();
    let read = |unit| {
        let options = ImportOptions {
            time_unit: unit,
            ..ImportOptions::default()
        };
        import_with(text.as_bytes(), None, "ez", &options).expect("imports")
    };
    let span = |i: &shared::formats::Imported| {
        let (a, b) = i.trace.time_bounds().expect("events");
        b.0 - a.0
    };
    let detected = read(None);
    assert_eq!(detected.format, Format::Paje);
    assert_eq!(span(&detected), 4_000_000, "4 ms in ns");
    assert!(
        detected.notes.iter().any(|n| n.contains("milliseconds")),
        "{:?}",
        detected.notes
    );
    assert_eq!(span(&read(Some(TimeUnit::Seconds))), 4_000_000_000);
    assert_eq!(span(&read(Some(TimeUnit::Microseconds))), 4_000);
    let told = read(Some(TimeUnit::Nanoseconds));
    assert_eq!(span(&told), 4);
    assert!(!told.notes.iter().any(|n| n.contains("milliseconds")));
    // The destroyed container closes its state: no unclosed region.
    let analysis = shared::analyses::metrics::analyze(
        &detected.trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    );
    assert!(
        !analysis
            .diagnostics
            .iter()
            .any(|d| d.kind == shared::analyses::validate::DiagnosticKind::UnclosedRegion),
        "{:?}",
        analysis.diagnostics
    );
}

/// A ShiViz log cut off mid-event keeps what it read, and the note says where the unread text
/// starts.
#[test]
fn shiviz_a_truncated_log_is_noted_with_the_position_of_the_cut() {
    let whole = shared::model::synthetic::govector_token_ring(3, 2);
    let lines = whole.lines().count();
    let cut = format!("{whole}host0 {{\"host0\":");
    let imported = import(cut.as_bytes(), None, "cut").expect("imports");
    let full = import(whole.as_bytes(), None, "whole").expect("imports");
    assert_eq!(imported.trace.events.len(), full.trace.events.len());
    let expected = format!(
        "skipped 1 lines without a vector clock (the first at line {}, column 1 (byte {}))",
        lines + 1,
        whole.len()
    );
    assert!(imported.notes.contains(&expected), "{:?}", imported.notes);
}
