//! The `tracescope` command line.

use std::process::Command;

use crate::shared_data;

fn tracescope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(args)
        .output()
        .expect("tracescope runs")
}

#[test]
fn analyze_json_is_a_stable_object_with_named_counts() {
    let path = shared_data("t4-worked-example.json");
    let out = tracescope(&["analyze", path.to_str().expect("utf-8 path"), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["format"], "tracescope-json");
    assert_eq!(report["nodes"], 2);
    assert_eq!(report["processes"], 2);
    assert_eq!(report["events"], 13);
    assert_eq!(report["messages"], 3);
    assert_eq!(report["time"]["duration"], 69);
    assert_eq!(report["time"]["duration_text"], "69 ticks");
    // The analyses, as named fields (analysis.md §10, T4a and T4b).
    assert_eq!(report["execution_time"], 69);
    assert_eq!(report["total_computation"], 85.0);
    assert_eq!(report["critical_path"]["length"], 69);
    assert_eq!(
        report["critical_path"]["segments"].as_array().map(Vec::len),
        Some(7)
    );
    assert_eq!(report["wcpa"]["weight"], 101.0);
    assert_eq!(report["wcpa"]["phases"][0]["share"], 1.0);
    assert_eq!(report["granularity"]["communication"], 21);
    assert_eq!(
        report["parallelism_profile"]["time_with"],
        serde_json::json!([6, 41, 22])
    );
    assert_eq!(report["npt"]["processes"][0]["name"], "B");
    assert!(report["pop"]["load_balance"].is_number());
    assert_eq!(report["diagnostics"], serde_json::json!([]));
    let speedup = report["speedup"].as_f64().expect("speedup");
    assert!((speedup - 85.0 / 69.0).abs() < 1e-12);
}

#[test]
fn analyze_json_has_wait_states_clock_violations_and_what_if() {
    let path = shared_data("t4-worked-example.json");
    let out = tracescope(&[
        "analyze",
        path.to_str().expect("utf-8 path"),
        "--json",
        "--what-if",
        "transit=0",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    // T13: Late Sender 5 + 8 on B, 3 on A; T12: an ideal network gives 53.
    let late: f64 = report["wait_states"]["states"]
        .as_array()
        .expect("states")
        .iter()
        .map(|w| w["time"].as_f64().expect("time"))
        .sum();
    assert_eq!(late, 16.0);
    assert_eq!(report["clock_violations"]["count"], 0);
    assert_eq!(report["what_if"]["execution_time"], 53.0);
    assert_eq!(
        report["critical_path_profile"]["computation_imbalance"],
        5.5
    );

    let out = tracescope(&["analyze", path.to_str().expect("utf-8 path"), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert!(report.get("what_if").is_none());

    let out = tracescope(&[
        "analyze",
        path.to_str().expect("utf-8 path"),
        "--what-if",
        "warp=9",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown edit"));
}

#[test]
fn analyze_text_prints_the_worked_example_headline_numbers() {
    let path = shared_data("t4-worked-example.json");
    let out = tracescope(&["analyze", path.to_str().expect("utf-8 path")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "execution time      69 ticks",
        "computation         85 ticks",
        "processors          2 nodes",
        "speedup             1.232 (work / execution time)",
        "efficiency          0.616 (speedup / 2 nodes)",
        "granularity         85:21 (4.05:1, 80.2% computation)",
        "WCPA                101",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn analyze_text_names_the_unit() {
    let path = shared_data("master-workers-probes.json");
    let out = tracescope(&["analyze", path.to_str().expect("utf-8 path")]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("processes           3"), "{text}");
    assert!(
        text.contains("messages            4 (0 unmatched sends, 0 unmatched arrivals)"),
        "{text}"
    );
    assert!(text.contains("(16 ms)"), "{text}");
}

#[test]
fn analyze_of_a_bad_file_fails_with_the_position() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        "{\"format\": \"tracescope\",\n \"version\": 1, \"nodes\": [}",
    )
    .expect("write");
    let out = tracescope(&["analyze", path.to_str().expect("utf-8 path"), "--json"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tracescope-json: line 2, column"), "{err}");
}

#[test]
fn convert_writes_every_output_format_and_each_reads_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = shared_data("t4-worked-example.json");
    for (to, file) in [
        ("chrome-json", "t4.chrome.json"),
        ("native", "t4.json"),
        ("binary", "t4.tscb"),
        ("tmon", "t4.tmon"),
    ] {
        let output = dir.path().join(file);
        let out = tracescope(&[
            "convert",
            input.to_str().expect("utf-8"),
            "--to",
            to,
            output.to_str().expect("utf-8"),
        ]);
        assert!(
            out.status.success(),
            "{to}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = tracescope(&["analyze", output.to_str().expect("utf-8"), "--json"]);
        assert!(
            report.status.success(),
            "{to}: {}",
            String::from_utf8_lossy(&report.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&report.stdout).expect("json");
        assert_eq!(json["execution_time"], 69, "{to}");
        assert_eq!(json["messages"], 3, "{to}");
    }
}

#[test]
fn analyze_reads_every_sample_format_and_can_force_one() {
    let traces = crate::shared_data("traces");
    for (file, format) in [
        (
            "paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv",
            "paraver",
        ),
        ("shiviz/govector-RpcClientServer.log", "shiviz"),
        ("paje/pajeng-simgrid-ms.trace", "paje"),
        ("chrome-trace/catapult-webview.json.gz", "chrome-json"),
    ] {
        let path = traces.join(file);
        let out = tracescope(&[
            "analyze",
            path.to_str().expect("utf-8"),
            "--json",
            "--format",
            format,
        ]);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(json["format"], format, "{file}");
    }
    let out = tracescope(&["analyze", "x", "--format", "bogus"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown format"));
}

#[test]
fn import_stores_a_run_the_server_then_lists() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = crate::store::TestStore::new(dir.path(), "runs.db");
    let db = store.arg();
    let path = crate::shared_data("t4-worked-example.json");
    let out = tracescope(&[
        "import",
        path.to_str().expect("utf-8 path"),
        "--db",
        &db,
        "--name",
        "imported from the CLI",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["name"], "imported from the CLI");
    assert_eq!(report["format"], "tracescope-json");
    assert_eq!(report["events"], 13);
    assert_eq!(report["delete_token"].as_str().map(str::len), Some(43));
    assert_eq!(
        report["db"],
        store.target.to_string(),
        "the store, with no password"
    );
    let id = report["id"].as_str().expect("an id").to_owned();

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let run = runtime.block_on(async {
        let pool = store.open().await;
        server::db::get_run(&pool, &id).await.expect("query")
    });
    let run = run.expect("the imported run is stored");
    assert_eq!(run.summary.messages, 3);

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"format\": \"tracescope\", \"nodes\": [}").expect("write");
    let out = tracescope(&["import", bad.to_str().expect("utf-8"), "--db", &db]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 1, column"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn simulate_runs_a_program_prints_its_output_and_writes_a_trace_others_can_read() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let program = dir.path().join("hi.s");
    // Node 0 writes a line through the iserver and exits with status 3; node 1 sends node 0
    // a word over the pipe's link first.
    std::fs::write(
        &program,
        "    ajw -8\n    stl 1\n    ldl 1\n    cj root\n    ldc #80000008\n    ldc 7\n    outword\n    stopp\n\
         root:\n    ldc #80002000\n    ldc #80000014\n    ldc 4\n    in\n\
         \x20   ldc hi\n    ldc #80000000\n    ldc hi_end - hi\n    out\n\
         \x20   ldc #80002000\n    ldc #80000010\n    ldc 8\n    in\n\
         \x20   ldc bye\n    ldc #80000000\n    ldc 8\n    out\n    stopp\n\
         hi:\n    .byte 18, 0, 13, 1, 0, 0, 0, 11, 0, \"hi from T0\", 10\n hi_end:\n\
         bye:\n    .byte 6, 0, 35, 3, 0, 0, 0, 0\n",
    )
    .expect("writes the program");
    let trace = dir.path().join("hi.json");
    let out = tracescope(&[
        "simulate",
        program.to_str().expect("utf-8 path"),
        "--topology",
        "pipe 2",
        "--trace",
        trace.to_str().expect("utf-8 path"),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["output"], "hi from T0\n");
    assert_eq!(report["outcome"], "exited");
    assert_eq!(report["exit_status"], 3);
    assert_eq!(report["topology"], "pipe 2");
    assert_eq!(report["nodes"], 2);
    assert!(report["virtual_ns"].as_u64().is_some_and(|ns| ns > 0));
    assert!(report["instructions"].as_u64().is_some_and(|n| n > 10));
    // The word from node 1, the write request, its 8-byte reply and the exit request.
    assert_eq!(report["messages"], 4);
    let analyzed = tracescope(&["analyze", trace.to_str().expect("utf-8 path"), "--json"]);
    assert!(
        analyzed.status.success(),
        "{}",
        String::from_utf8_lossy(&analyzed.stderr)
    );
    let analysis: serde_json::Value = serde_json::from_slice(&analyzed.stdout).expect("JSON");
    assert_eq!(analysis["nodes"], 3);
    assert_eq!(analysis["messages"], 4);

    let bad = tracescope(&[
        "simulate",
        program.to_str().expect("utf-8 path"),
        "--topology",
        "mesh 3",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("WIDTHxHEIGHT"));
}

#[test]
fn analyze_shows_the_importers_notes_in_text_and_json() {
    let trace = crate::shared_data("traces/chrome-trace/catapult-webview.json.gz");
    let path = trace.to_str().expect("utf-8 path");
    let out = tracescope(&["analyze", path, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .expect("a notes array")
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes.contains(&"34 flows have a start but no end and draw no arrow"),
        "{notes:?}"
    );
    assert!(
        notes.contains(&"skipped 14 events: phase \"O\""),
        "{notes:?}"
    );
    let text = tracescope(&["analyze", path]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("importer notes      34 flows have a start but no end"),
        "{text}"
    );
    assert!(text.contains("skipped 14 events: phase \"O\""), "{text}");
}

/// An OTF2 folder given on the command line is read as the files its archive names, and those
/// only when they are regular files: a FIFO (which would block the read forever) and a symbolic
/// link to `/dev/zero` (which would never end) lying beside the archive are never opened, and a
/// location's definitions that are a symbolic link are left unread with a note.
#[cfg(unix)]
#[test]
fn an_otf2_folder_is_read_as_its_regular_files_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("ping-pong");
    let source = shared_data("traces/otf2/pipit-ping-pong-otf2");
    std::fs::create_dir_all(archive.join("traces")).expect("folders");
    for file in [
        "traces.otf2",
        "traces.def",
        "traces/0.def",
        "traces/0.evt",
        "traces/1.evt",
    ] {
        std::fs::copy(source.join(file), archive.join(file)).expect("copies");
    }
    let fifo = archive.join("traces/pipe.evt");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", archive.join("traces/zero.def")).expect("symlink");
    std::os::unix::fs::symlink("/dev/zero", archive.join("traces/1.def")).expect("symlink");

    let mut child = Command::new(env!("CARGO_BIN_EXE_tracescope"))
        .args(["analyze", archive.to_str().expect("utf-8 path"), "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("tracescope starts");
    // Reading the FIFO or /dev/zero would never return: give it 60 s, far more than it needs.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("waits").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("tracescope analyze hung on a FIFO or a device in the archive folder");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["events"], 136);
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("1.def was not read: it is a symbolic link"),
        "{notes}"
    );
    assert!(
        !notes.contains("pipe.evt") && !notes.contains("zero.def"),
        "{notes}"
    );
}

/// Issue 44, point 15: `analyze DIR/traces.otf2` reads the files the archive names, not every
/// file in the folder. A 4 MB file lying beside the archive, and another among its event files
/// (`traces/99.evt`, a location the definitions do not name), are never read: within an input
/// budget of 1 MB, which the archive's own 15 KB fit, the archive imports (it used to be refused
/// as a folder holding more than the budget, after reading every file).
#[test]
fn an_otf2_archive_is_read_without_the_files_beside_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let archive = dir.path().join("run");
    let source = shared_data("traces/otf2/pipit-ping-pong-otf2");
    std::fs::create_dir_all(archive.join("traces")).expect("folders");
    for file in [
        "traces.otf2",
        "traces.def",
        "traces/0.def",
        "traces/0.evt",
        "traces/1.def",
        "traces/1.evt",
    ] {
        std::fs::copy(source.join(file), archive.join(file)).expect("copies");
    }
    let big = vec![0xa5u8; 4 << 20];
    std::fs::write(archive.join("profile.cubex"), &big).expect("writes");
    std::fs::write(archive.join("traces/99.evt"), &big).expect("writes");
    for given in [archive.join("traces.otf2"), archive.clone()] {
        let out = tracescope(&[
            "analyze",
            given.to_str().expect("utf-8 path"),
            "--json",
            "--max-input-bytes",
            "1000000",
        ]);
        assert!(
            out.status.success(),
            "{}: {}",
            given.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["events"], 136, "{}", given.display());
        assert_eq!(report["processes"], 2, "{}", given.display());
    }
    // The archive's own files still count toward the budget.
    let out = tracescope(&[
        "analyze",
        archive.join("traces.otf2").to_str().expect("utf-8 path"),
        "--json",
        "--max-input-bytes",
        "5000",
    ]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--max-input-bytes"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The budget and the Pajé time unit on the command line: `--max-events` refuses a trace past
/// it, naming the option; `--time-unit` reads Pajé dates in the unit given; `clocks` says
/// which clocks the execution time is on.
#[test]
fn analyze_takes_the_budget_and_the_time_unit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let paje = dir.path().join("t.paje");
    std::fs::write(
        &paje,
        "%EventDef PajeDefineContainerType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 7\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajeDestroyContainer 8\n% Time date\n% Name string\n% Type string\n%EndEventDef\n\
1 CT 0 Thread\n7 0 t1 CT 0 t1\n8 250 t1 CT\n",
    )
    .expect("writes");
    let path = paje.to_str().expect("utf-8 path");
    let run = |extra: &[&str]| {
        let mut args = vec!["analyze", path, "--json"];
        args.extend_from_slice(extra);
        tracescope(&args)
    };
    let report = |out: std::process::Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let seconds = report(run(&[]));
    assert_eq!(seconds["execution_time"], 250_000_000_000u64);
    assert_eq!(seconds["clocks"], "recorded");
    assert_eq!(
        report(run(&["--time-unit", "us"]))["execution_time"],
        250_000
    );
    let refused = run(&["--max-events", "1"]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("more than 1 events") && stderr.contains("--max-events"),
        "{stderr}"
    );
    let bad = run(&["--time-unit", "fortnights"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected s, ms, us or ns"));
}

/// `tracescope hasse` prints the diagram the Hasse view draws: on the worked example, expanded,
/// one vertex per event and the engine's Hasse edges and layers; a window keeps the vertices
/// inside it; a query prints its instances, and a typo its line and column.
#[test]
fn hasse_prints_the_engines_diagram_a_window_and_queries() {
    use shared::analyses::causality::Causality;
    use shared::graph::context::Context;
    use shared::view::hasse::{Collapse, Diagram};
    let path = shared_data("t4-worked-example.json");
    let file = path.to_str().expect("utf-8 path");
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["hasse", file, "--json"];
        all.extend_from_slice(args);
        let out = tracescope(&all);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    };
    let trace = shared::formats::import(&std::fs::read(&path).expect("reads"), None, "t4")
        .expect("imports")
        .trace;
    let cx = Context::new(&trace);
    let causality = Causality::new(&trace, &cx.graph);
    let engine = Diagram::new(&trace, &cx.graph, &causality, Collapse::None);

    let expanded = json(&["--expand"]);
    assert_eq!(expanded["vertices"].as_array().map(Vec::len), Some(13));
    assert_eq!(
        expanded["edges"].as_array().map(Vec::len),
        Some(engine.edges.len())
    );
    assert_eq!(expanded["layers"], 8);
    assert_eq!(expanded["layers"], engine.layers);
    for (drawn, v) in expanded["vertices"]
        .as_array()
        .expect("vertices")
        .iter()
        .zip(&engine.vertices)
    {
        assert_eq!(drawn["event"], v.event.0);
        assert_eq!(drawn["layer"], v.layer);
        assert_eq!(drawn["lamport"], v.lamport);
    }
    // By default P1's start and its first receive call (no message touches either) are one.
    let collapsed = json(&[]);
    assert_eq!(collapsed["vertices"].as_array().map(Vec::len), Some(12));
    assert_eq!(collapsed["vertices"][6]["count"], 2);
    // The window 30..50 ticks: P0's receive call (35) and arrival (48), P1's arrival (33),
    // send (38) and receive call (43).
    let window = json(&["--window", "30..50", "--expand"]);
    let times: Vec<u64> = window["vertices"]
        .as_array()
        .expect("vertices")
        .iter()
        .map(|v| v["time"].as_u64().expect("time"))
        .collect();
    assert_eq!(times, [35, 48, 33, 38, 43]);
    assert_eq!(window["window"], serde_json::json!([30, 50]));

    let query = json(&[
        "--query",
        "DEPENDENCE first IS msg_send{1} ON PROCESS A -> msg_arr{1} ON PROCESS B END",
    ]);
    assert_eq!(query["dependences"][0]["satisfied"], true);
    assert_eq!(
        query["dependences"][0]["instances"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let typo = tracescope(&[
        "hasse",
        file,
        "--query",
        "DEPENDENCE first IS msg_send{1} ON PROCES A -> msg_arr{1} ON PROCESS B END",
    ]);
    assert!(!typo.status.success());
    let stderr = String::from_utf8_lossy(&typo.stderr);
    assert!(stderr.contains("line 1, column 36"), "{stderr}");
}

#[test]
fn simulate_hands_out_keys_and_keeps_the_output_when_the_run_fails() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let program = dir.path().join("key.s");
    // Reads a key (SP.GETKEY), writes it back with a newline (SP.WRITE), then executes fpadd,
    // which a T414 does not have.
    std::fs::write(
        &program,
        "    ajw -8\n    ldc getkey\n    ldc #80000000\n    ldc 8\n    out\n\
         \x20   ldc #80002000\n    ldc #80000010\n    ldc 8\n    in\n\
         \x20   ldc #80002003\n    lb\n    ldc slot\n    sb\n\
         \x20   ldc msg\n    ldc #80000000\n    ldc msg_end - msg\n    out\n\
         \x20   ldc #80002000\n    ldc #80000010\n    ldc 8\n    in\n\
         \x20   .byte #28, #F7\n    stopp\n\
         getkey:\n    .byte 6, 0, 30, 0, 0, 0, 0, 0\n\
         msg:\n    .byte 10, 0, 13, 1, 0, 0, 0, 2, 0\n\
         slot:\n    .byte 0, 10, 0\n\
         msg_end:\n",
    )
    .expect("writes the program");
    let path = program.to_str().expect("utf-8 path");
    let out = tracescope(&[
        "simulate", path, "--chip", "T414", "--keys", "\\x41x", "--json",
    ]);
    assert!(!out.status.success(), "the run fails at fpadd");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        report["output"], "A\n",
        "the key read, kept though the run failed"
    );
    assert_eq!(report["outcome"], "error");
    let error = report["error"].as_str().expect("an error");
    assert!(
        error.contains("0x87") || error.contains("unimplemented"),
        "{error}"
    );
    assert!(report["instructions"].as_u64().is_some_and(|n| n > 20));
    // As text: the output, the figures, then the error.
    let text = tracescope(&["simulate", path, "--chip", "T414", "--keys", "Z"]);
    assert!(!text.status.success());
    assert_eq!(String::from_utf8_lossy(&text.stdout), "Z\n");
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert!(
        stderr.contains("instructions") && stderr.contains("error"),
        "{stderr}"
    );
    // A bad escape says where.
    let bad = tracescope(&["simulate", path, "--keys", "a\\q"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("column 2"));
}

#[test]
fn simulate_gives_the_program_a_sandbox_of_files_and_writes_back_what_it_made() {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::write(dir.path().join("in.txt"), "hello!!\nmore").expect("writes the input");
    let program = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../simulator-wasm/programs/copy-file.s"
    );
    let out = tracescope(&[
        "simulate",
        program,
        "--files",
        dir.path().to_str().expect("utf-8 path"),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["outcome"], "exited");
    assert_eq!(report["files_written"], serde_json::json!(["out/copy.txt"]));
    let copy = std::fs::read_to_string(dir.path().join("out/copy.txt")).expect("written back");
    assert_eq!(copy, "hello!!\n", "the first 8 bytes of in.txt");
    // Nothing else appeared, and nothing outside the directory.
    assert!(dir.path().join("in.txt").is_file());
    assert_eq!(std::fs::read_dir(dir.path()).expect("lists").count(), 2);
}

#[test]
fn simulate_runs_the_gallerys_demos_by_name() {
    let list = tracescope(&["simulate", "demo:list"]);
    assert!(list.status.success());
    let names = String::from_utf8_lossy(&list.stdout);
    for name in [
        "demo:comstime",
        "demo:raytracer-bundles-50",
        "demo:image",
        "demo:verify",
    ] {
        assert!(names.contains(name), "{name} in {names}");
    }
    let out = tracescope(&["simulate", "demo:sieve", "--nodes", "4", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["program"], "demo:sieve");
    assert_eq!(report["kind"], "occam");
    assert_eq!(report["topology"], "pipe 4");
    assert_eq!(report["outcome"], "idle");
    assert!(report["messages"].as_u64().is_some_and(|n| n > 1000));
    // A node count the demo does not offer, and a demo that does not exist, say so.
    let five = tracescope(&["simulate", "demo:sieve", "--nodes", "5"]);
    assert!(String::from_utf8_lossy(&five.stderr).contains("runs on 8, 3, 4, 16 nodes, not 5"));
    let none = tracescope(&["simulate", "demo:nope"]);
    assert!(String::from_utf8_lossy(&none.stderr).contains("no demo named nope"));
}

#[test]
fn simulate_on_several_workers_writes_the_same_trace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |workers: &str| {
        let trace = dir.path().join(format!("sieve-{workers}.tscb"));
        let out = tracescope(&[
            "simulate",
            "demo:sieve",
            "--nodes",
            "4",
            "--workers",
            workers,
            "--trace",
            trace.to_str().expect("utf-8"),
            "--to",
            "binary",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON object");
        (std::fs::read(&trace).expect("the trace"), report)
    };
    let (one, report) = run("1");
    assert_eq!(report["workers"], 1);
    let (three, report) = run("3");
    assert_eq!(report["workers"], 3);
    assert!(one == three, "the same trace bytes on 1 and 3 workers");
    // `auto` gives a 4-node pipe one thread; nonsense is refused.
    assert_eq!(run("auto").1["workers"], 1);
    let bad = tracescope(&["simulate", "demo:sieve", "--workers", "0"]);
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("--workers takes a number of threads or auto")
    );
}

/// A Paraver `.prv` (or `.prv.gz`) given by its path brings the `.pcf` and `.row` lying beside
/// it: regions and threads are named by them (issue 44, point 4).
#[test]
fn a_paraver_trace_given_by_path_reads_its_companions() {
    use std::io::Write as _;
    let prv: &[u8] = b"#Paraver (01/01/24 at 00:00):1000_ns:1(1):1:1(1:1),0\n\
1:1:1:1:1:0:1000:1\n\
2:1:1:1:1:100:50000001:3\n\
2:1:1:1:1:150:50000001:0\n";
    let pcf: &[u8] =
        b"EVENT_TYPE\n9    50000001    MPI Point-to-point\nVALUES\n0   End\n3   MPI_Recv\n";
    let row: &[u8] = b"LEVEL THREAD SIZE 1\nTHREAD 1.1.1 of rank zero\n";
    let dir = tempfile::tempdir().expect("temp dir");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(prv).expect("compresses");
    let gz = gz.finish().expect("compresses");
    let alone = dir.path().join("alone");
    std::fs::create_dir(&alone).expect("dir");
    std::fs::write(alone.join("t.prv"), prv).expect("writes");
    for (file, bytes) in [("t.prv", prv), ("u.prv.gz", gz.as_slice())] {
        let stem = file.split('.').next().expect("stem");
        std::fs::write(dir.path().join(file), bytes).expect("writes");
        std::fs::write(dir.path().join(format!("{stem}.pcf")), pcf).expect("writes");
        std::fs::write(dir.path().join(format!("{stem}.row")), row).expect("writes");
    }
    let convert = |input: &std::path::Path| {
        let output = dir.path().join("out.json");
        let out = tracescope(&[
            "convert",
            input.to_str().expect("utf-8"),
            "--to",
            "native",
            output.to_str().expect("utf-8"),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(output).expect("written")
    };
    for file in ["t.prv", "u.prv.gz"] {
        let native = convert(&dir.path().join(file));
        assert!(native.contains("\"MPI_Recv\""), "{file}: {native}");
        assert!(
            native.contains("THREAD 1.1.1 of rank zero"),
            "{file}: {native}"
        );
    }
    // Alone, the same trace reads the same events, its MPI call named as Extrae numbers it
    // (3 is MPI_Isend; the .pcf beside it said otherwise, and labels win when present).
    let native = convert(&alone.join("t.prv"));
    assert!(!native.contains("MPI_Recv"), "{native}");
    assert!(native.contains("MPI_Isend"), "{native}");
}

/// A native trace with 60,000 leaves of a region never entered, all at one tick (so the
/// critical path stays one edge long and the report's size is its diagnostics').
fn sixty_thousand_leaves() -> std::path::PathBuf {
    let mut events = vec![r#"{"process": 0, "time": 0, "kind": "proc_init"}"#.to_owned()];
    events.extend(std::iter::repeat_n(
        r#"{"process": 0, "time": 1, "kind": "leave", "region": 0}"#.to_owned(),
        60_000,
    ));
    events.push(r#"{"process": 0, "time": 2, "kind": "proc_exit"}"#.to_owned());
    let text = format!(
        r#"{{"format": "tracescope", "version": 1, "name": "leaves",
  "nodes": [{{"name": "n"}}], "processes": [{{"name": "A", "node": 0}}],
  "regions": [{{"name": "r", "role": "activity"}}], "events": [{}]}}"#,
        events.join(",\n")
    );
    let path = std::env::temp_dir().join(format!("leaves-{}.json", std::process::id()));
    std::fs::write(&path, text).expect("a temporary file");
    path
}

#[test]
fn analyze_counts_diagnostics_by_kind_in_json_under_a_megabyte_and_in_text() {
    let path = sixty_thousand_leaves();
    let file = path.to_str().expect("utf-8 path");
    let out = tracescope(&["analyze", file, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.len() < 1_000_000, "{} bytes", out.stdout.len());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["diagnostics_total"], 60_000);
    assert_eq!(
        report["diagnostic_counts"][0]["kind"],
        "leave_without_enter"
    );
    assert_eq!(report["diagnostic_counts"][0]["severity"], "error");
    assert_eq!(report["diagnostic_counts"][0]["count"], 60_000);
    assert_eq!(report["diagnostics"].as_array().map(Vec::len), Some(5));
    let out = tracescope(&["analyze", file]);
    std::fs::remove_file(&path).expect("removed");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("diagnostics         60000 (60000 errors, 0 warnings, 0 notes)"),
        "{text}"
    );
    assert!(text.contains("60000  error leave_without_enter"), "{text}");
    // One example per kind, not sixty thousand lines.
    assert!(text.lines().count() < 200, "{} lines", text.lines().count());
}

/// A Projections trace is read from its folder, its `.sts` or one of its logs, taking only its
/// own files: another run's logs and unrelated files in the folder are left alone.
#[test]
fn a_projections_trace_is_read_from_its_folder_sts_or_log() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = shared_data("projections/handmade");
    for name in ["hand.sts", "hand.0.log", "hand.1.log"] {
        std::fs::copy(source.join(name), dir.path().join(name)).expect("copies");
    }
    // Another run's log would add a PE's events if it were read; this one is not even a log.
    std::fs::write(dir.path().join("other.0.log"), "not a record\n").expect("writes");
    std::fs::write(dir.path().join("notes.txt"), "not a trace").expect("writes");
    for path in [
        dir.path().to_path_buf(),
        dir.path().join("hand.sts"),
        dir.path().join("hand.1.log"),
    ] {
        let out = tracescope(&["analyze", path.to_str().expect("utf-8 path"), "--json"]);
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(report["format"], "projections", "{}", path.display());
        assert_eq!(report["events"], 20, "{}", path.display());
        assert_eq!(report["messages"], 2, "{}", path.display());
    }
}
