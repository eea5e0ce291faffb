//! Chrome Trace Event JSON read by the format's own rules (issue 44): zero-length slices, the
//! v1 flow rule, metadata-only threads, a missing closing bracket, a byte-order mark, and
//! detection past the first bytes. Each trace here is small and hand-made.

use shared::Trace;
use shared::analyses::metrics::{AnalysisOptions, analyze};
use shared::analyses::validate::Severity;
use shared::formats::{Format, ImportOptions, import, import_reader};
use shared::graph::pairing::pair_messages;

/// The error diagnostics of a trace, as "kind: message".
fn errors(trace: &Trace) -> Vec<String> {
    analyze(trace, AnalysisOptions::default())
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{:?}: {}", d.kind, d.message))
        .collect()
}

/// A process's events as (µs, kind, region name).
fn timeline(trace: &Trace, process: usize) -> Vec<(u64, &'static str, String)> {
    let e = &trace.events;
    trace
        .process_events(
            trace
                .process_ids()
                .nth(process)
                .expect("the process exists"),
        )
        .map(|i| {
            let region = e
                .region()
                .at(i)
                .map_or(String::new(), |r| trace.regions[r.index()].name.clone());
            (e.time()[i].0 / 1000, e.kind()[i].name(), region)
        })
        .collect()
}

/// Point 1: zero-length `X` slices (dur 0, or no dur) and `B`/`E` pairs at one tick import as
/// an enter before its own leave, while a slice that ends at a tick still closes before one
/// that starts there, and inner slices close before the `E` of the `B` around them.
#[test]
fn zero_length_slices_nest_without_errors() {
    let text = br#"[
        {"ph": "X", "name": "outer", "ts": 0, "dur": 10, "pid": 1, "tid": 1},
        {"ph": "X", "name": "z", "ts": 5, "dur": 0, "pid": 1, "tid": 1},
        {"ph": "X", "name": "nodur", "ts": 5, "pid": 1, "tid": 1},
        {"ph": "X", "name": "next", "ts": 10, "dur": 5, "pid": 1, "tid": 1},
        {"ph": "B", "name": "be", "ts": 12, "pid": 1, "tid": 1},
        {"ph": "E", "ts": 12, "pid": 1, "tid": 1},
        {"ph": "B", "name": "open", "ts": 20, "pid": 1, "tid": 1},
        {"ph": "X", "name": "inner", "ts": 22, "dur": 3, "pid": 1, "tid": 1},
        {"ph": "E", "ts": 25, "pid": 1, "tid": 1},
        {"ph": "X", "name": "twin", "ts": 30, "dur": 2, "pid": 1, "tid": 1},
        {"ph": "X", "name": "twin", "ts": 30, "dur": 2, "pid": 1, "tid": 1}
    ]"#;
    let trace = import(text, None, "zero").expect("imports").trace;
    assert_eq!(errors(&trace), Vec::<String>::new());
    let s = |t: u64, k: &'static str, r: &str| (t, k, r.to_owned());
    assert_eq!(
        timeline(&trace, 0),
        [
            s(0, "enter", "outer"),
            s(5, "enter", "z"),
            s(5, "leave", "z"),
            s(5, "enter", "nodur"),
            s(5, "leave", "nodur"),
            s(10, "leave", "outer"),
            s(10, "enter", "next"),
            s(12, "enter", "be"),
            s(12, "leave", "be"),
            s(15, "leave", "next"),
            s(20, "enter", "open"),
            s(22, "enter", "inner"),
            s(25, "leave", "inner"),
            s(25, "leave", "open"),
            s(30, "enter", "twin"),
            s(30, "enter", "twin"),
            s(32, "leave", "twin"),
            s(32, "leave", "twin"),
        ]
    );
}

/// Many zero-length slices, as real tools write them, give no error at all.
#[test]
fn many_zero_length_slices_give_no_errors() {
    let mut text = String::from("[");
    for i in 0..200 {
        text.push_str(&format!(
            "{{\"ph\":\"X\",\"name\":\"z{}\",\"ts\":{},\"dur\":0,\"pid\":1,\"tid\":{}}},",
            i % 3,
            i / 2,
            i % 2
        ));
    }
    text.push_str("{\"ph\":\"X\",\"name\":\"all\",\"ts\":0,\"dur\":100,\"pid\":1,\"tid\":0}]");
    let trace = import(text.as_bytes(), None, "zeros")
        .expect("imports")
        .trace;
    assert_eq!(errors(&trace), Vec::<String>::new());
}

/// The (sender, receiver, send µs, arrival µs) of every message, by process index.
fn arrows(trace: &Trace) -> Vec<(u32, u32, u64, u64)> {
    let e = &trace.events;
    let mut out: Vec<(u32, u32, u64, u64)> = pair_messages(trace)
        .messages
        .iter()
        .map(|m| {
            (
                e.process()[m.send.index()].0,
                e.process()[m.arrival.index()].0,
                e.time()[m.send.index()].0 / 1000,
                e.time()[m.arrival.index()].0 / 1000,
            )
        })
        .collect();
    out.sort();
    out
}

/// Point 6: a v1 flow is `s`, then `t` steps, then `f`, keyed by (cat, name, id); an id used
/// again after its `f` starts a new flow (no arrow from the old `f` to the new `s`); `s` and
/// `t` bind to the enclosing slice and draw nothing outside one; `f` binds to the enclosing
/// slice with `"bp": "e"`, otherwise to the next slice that begins on its thread.
#[test]
fn v1_flows_open_step_and_close() {
    let text = br#"[
        {"ph": "X", "name": "a", "ts": 0, "dur": 100, "pid": 1, "tid": 1},
        {"ph": "X", "name": "b", "ts": 0, "dur": 100, "pid": 1, "tid": 2},
        {"ph": "X", "name": "c", "ts": 0, "dur": 100, "pid": 1, "tid": 3},
        {"ph": "X", "name": "late", "ts": 150, "dur": 10, "pid": 1, "tid": 3},
        {"ph": "s", "cat": "x", "name": "m", "id": 7, "ts": 1, "pid": 1, "tid": 1},
        {"ph": "f", "cat": "x", "name": "m", "id": 7, "ts": 2, "pid": 1, "tid": 2, "bp": "e"},
        {"ph": "s", "cat": "x", "name": "m", "id": 7, "ts": 3, "pid": 1, "tid": 3},
        {"ph": "f", "cat": "x", "name": "m", "id": 7, "ts": 4, "pid": 1, "tid": 1, "bp": "e"},
        {"ph": "s", "cat": "y", "name": "m", "id": 7, "ts": 10, "pid": 1, "tid": 1},
        {"ph": "t", "cat": "y", "name": "m", "id": 7, "ts": 11, "pid": 1, "tid": 2},
        {"ph": "f", "cat": "y", "name": "m", "id": 7, "ts": 120, "pid": 1, "tid": 3},
        {"ph": "s", "cat": "z", "name": "m", "id": 8, "ts": 200, "pid": 1, "tid": 1},
        {"ph": "f", "cat": "z", "name": "m", "id": 8, "ts": 201, "pid": 1, "tid": 2, "bp": "e"}
    ]"#;
    let imported = import(text, None, "flows").expect("imports");
    let trace = &imported.trace;
    assert_eq!(
        arrows(trace),
        [(0, 1, 1, 2), (0, 1, 10, 11), (1, 2, 11, 150), (2, 0, 3, 4)]
    );
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("outside any slice")),
        "{:?}",
        imported.notes
    );
    assert_eq!(errors(trace), Vec::<String>::new());
}

/// Point 7: threads and pids named only by `M` metadata are not processes or nodes; the names
/// still apply to the threads and pids that have events.
#[test]
fn metadata_only_threads_are_not_processes() {
    let text = br#"{"traceEvents": [
        {"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "idle process"}},
        {"ph": "M", "name": "thread_name", "pid": 9, "tid": 1, "args": {"name": "idle"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "quiet"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "app"}},
        {"ph": "X", "name": "work", "ts": 0, "dur": 5, "pid": 1, "tid": 1},
        {"ph": "X", "name": "work", "ts": 0, "dur": 5, "pid": 3, "tid": 4}
    ]}"#;
    let trace = import(text, None, "meta").expect("imports").trace;
    let processes: Vec<(&str, &str)> = trace
        .processes
        .iter()
        .map(|p| (p.name.as_str(), trace.nodes[p.node.index()].name.as_str()))
        .collect();
    assert_eq!(processes, [("main", "app"), ("pid 3 tid 4", "pid 3")]);
    assert_eq!(trace.nodes.len(), 2);
}

/// Point 10: an array without its closing bracket (a trace cut off by a crash), or ending in a
/// comma, is read as Catapult and Perfetto read it, with a note.
#[test]
fn an_array_without_its_closing_bracket_is_read_with_a_note() {
    let events = r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 5, "pid": 1, "tid": 1},
        {"ph": "X", "name": "b", "ts": 5, "dur": 5, "pid": 1, "tid": 1}"#;
    for (text, note) in [
        (format!("{events}\n"), "closing"),
        (format!("{events},\n"), "closing"),
        (format!("{events},]"), "trailing comma"),
        (format!("{events} , \n ]"), "trailing comma"),
    ] {
        for imported in [
            import(text.as_bytes(), None, "cut"),
            import_reader(text.as_bytes(), None, "cut", &ImportOptions::default()),
        ] {
            let imported = imported.unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(imported.trace.events.len(), 4, "{text:?}");
            assert!(
                imported.notes.iter().any(|n| n.contains(note)),
                "{text:?}: {:?}",
                imported.notes
            );
        }
    }
    // A cut inside an event is still an error, at the end of the input.
    let cut = format!("{events},\n{{\"ph\": \"X\", \"ts\"");
    let err = import(cut.as_bytes(), None, "cut").expect_err("cut inside an event");
    assert_eq!(err.offset, cut.len(), "{err}");
}

/// Point 13: a UTF-8 byte-order mark before the document changes nothing, whole or streamed,
/// plain or gzipped.
#[test]
fn a_byte_order_mark_is_skipped() {
    let array = r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 5, "pid": 1, "tid": 1}]"#;
    let object = format!("{{\"traceEvents\": {array}}}");
    // Past the first 4 KiB of blanks too: the mark must not stop detection looking further.
    let far = format!("{}{array}", " ".repeat(5000));
    for doc in [array.to_owned(), object, format!("\n  {array}"), far] {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(doc.as_bytes());
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &bytes).expect("compresses");
        let gz = gz.finish().expect("compresses");
        for input in [&bytes, &gz] {
            for imported in [
                import(input, None, "bom"),
                import_reader(input.as_slice(), None, "bom", &ImportOptions::default()),
            ] {
                let imported = imported.unwrap_or_else(|e| panic!("{doc}: {e}"));
                assert_eq!(imported.format, Format::ChromeJson);
                assert_eq!(imported.trace.events.len(), 2);
            }
        }
    }
}

/// Point 14: detection looks past the first bytes (leading whitespace, a long metadata member
/// before `traceEvents`), and says what an input is when it is not a trace.
#[test]
fn detection_looks_past_whitespace_and_long_headers() {
    let array = r#"[{"ph": "X", "name": "a", "ts": 0, "dur": 5, "pid": 1, "tid": 1}]"#;
    let spaced = format!("{}{array}", " \n".repeat(5000));
    let long_header = format!(
        "{{\"metadata\": {{\"command\": \"{}\", \"list\": [1, {{\"x\": \"]}}\"}}]}}, \"traceEvents\": {array}}}",
        "x".repeat(20_000)
    );
    let marked = format!("\u{feff}{spaced}");
    for text in [&spaced, &long_header, &marked] {
        for imported in [
            import(text.as_bytes(), None, "far"),
            import_reader(text.as_bytes(), None, "far", &ImportOptions::default()),
        ] {
            let imported = imported.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(imported.format, Format::ChromeJson);
            assert_eq!(imported.trace.events.len(), 2);
        }
    }
    for (text, expected) in [
        (&b"{\"foo\": 1}"[..], "JSON but not a trace"),
        (&b"[1, 2]"[..], "JSON but not a trace"),
        (&b""[..], "empty file"),
        (&b" \n\t"[..], "empty file"),
        (&b"\xEF\xBB\xBF"[..], "empty file"),
    ] {
        for result in [
            import(text, None, "x"),
            import_reader(text, None, "x", &ImportOptions::default()),
        ] {
            let err = result.expect_err("not a trace");
            assert!(err.message.contains(expected), "{text:?}: {err}");
        }
    }
}

/// Timestamps quoted as strings (as Hermes writes them) are read as the numbers they spell, as
/// Catapult and Perfetto read them; a string that is not a number is an error naming it.
#[test]
fn quoted_timestamps_are_numbers() {
    let text = br#"[{"ph": "X", "name": "a", "ts": "10.5", "dur": "2", "pid": 1, "tid": "1"},
                    {"ph": "i", "name": "b", "ts": " 20 ", "pid": 1, "tid": "1"}]"#;
    let trace = import(text, None, "quoted").expect("imports").trace;
    let times: Vec<u64> = trace.events.time().iter().map(|t| t.0).collect();
    assert_eq!(times, [10_500, 12_500, 20_000]);
    let err = import(
        br#"[{"ph": "i", "name": "b", "ts": "soon", "pid": 1}]"#,
        None,
        "x",
    )
    .expect_err("not a number");
    assert!(err.message.contains("\"soon\""), "{err}");
}
