//! The import budget: every importer refuses input past a limit, naming the limit, before it
//! builds what would grow past it.

use std::io::Write as _;

use shared::formats::{Budget, Format, Limit, import_within};

/// A Chrome trace of `n_threads` threads each with `per_thread` complete slices.
fn chrome(n_threads: usize, per_thread: usize) -> String {
    let mut out = String::from("[");
    for t in 0..n_threads {
        for k in 0..per_thread {
            out.push_str(&format!(
                r#"{{"ph":"X","name":"w","pid":1,"tid":{t},"ts":{k},"dur":1}},"#
            ));
        }
    }
    out.pop();
    out.push(']');
    out
}

/// A Paraver trace of `n_tasks` tasks each with `per_task` state records.
fn paraver(n_tasks: usize, per_task: usize) -> String {
    let list = vec!["1:1"; n_tasks].join(",");
    let mut out =
        format!("#Paraver (01/01/01 at 00:00):1000_ns:1({n_tasks}):1:{n_tasks}({list}),0\n");
    for t in 1..=n_tasks {
        for k in 0..per_task {
            out.push_str(&format!("1:{t}:1:{t}:1:{}:{}:5\n", 2 * k, 2 * k + 1));
        }
    }
    out
}

/// A Pajé trace of `n` containers each with `per` push/pop pairs, or one container with `n`
/// nested pushes when `nested`.
fn paje(n: usize, per: usize) -> String {
    let mut out = String::from(
        "%EventDef PajeDefineContainerType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeDefineStateType 3\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n\
%EventDef PajeCreateContainer 7\n% Time date\n% Alias string\n% Type string\n% Container string\n% Name string\n%EndEventDef\n\
%EventDef PajePushState 11\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n\
%EventDef PajePopState 12\n% Time date\n% Type string\n% Container string\n%EndEventDef\n\
1 CT 0 Thread\n3 ST CT State\n",
    );
    for c in 0..n {
        out.push_str(&format!("7 0.0 c{c} CT 0 c{c}\n"));
        for k in 0..per {
            out.push_str(&format!("11 {k}.0 ST c{c} w\n12 {k}.5 ST c{c}\n"));
        }
    }
    out
}

fn budget(limit: Limit, max: u64) -> Budget {
    let mut b = Budget::default();
    match limit {
        Limit::InputBytes => b.max_input_bytes = max,
        Limit::Events => b.max_events = max,
        Limit::Processes => b.max_processes = max,
        Limit::Depth => b.max_depth = max,
    }
    b
}

/// Each format's input in two sizes: within a budget, and twice past it, for events and
/// processes.
fn inputs(limit: Limit) -> Vec<(Format, Vec<u8>, Vec<u8>, u64)> {
    use shared::formats::{native, tmon};
    use shared::model::synthetic::{govector_token_ring, ring};
    let tmon_of = |t| tmon::write(&t).expect("tmon writes").0;
    match limit {
        Limit::Events => vec![
            (
                Format::ChromeJson,
                chrome(2, 15).into(),
                chrome(2, 200).into(),
                100,
            ),
            (
                Format::Paraver,
                paraver(2, 15).into(),
                paraver(2, 200).into(),
                100,
            ),
            (Format::Paje, paje(2, 15).into(), paje(2, 200).into(), 100),
            (
                Format::Shiviz,
                govector_token_ring(4, 5).into(),
                govector_token_ring(4, 100).into(),
                100,
            ),
            (
                Format::TracescopeJson,
                native::write(&ring(4, 60)).into(),
                native::write(&ring(4, 400)).into(),
                100,
            ),
            (
                Format::Tmon,
                tmon_of(ring(4, 60)),
                tmon_of(ring(4, 400)),
                100,
            ),
        ],
        Limit::Processes => vec![
            (
                Format::ChromeJson,
                chrome(8, 2).into(),
                chrome(40, 2).into(),
                10,
            ),
            (
                Format::Paraver,
                paraver(8, 2).into(),
                paraver(40, 2).into(),
                10,
            ),
            (Format::Paje, paje(8, 2).into(), paje(40, 2).into(), 10),
            (
                Format::Shiviz,
                govector_token_ring(8, 2).into(),
                govector_token_ring(40, 2).into(),
                10,
            ),
            (
                Format::TracescopeJson,
                native::write(&ring(8, 100)).into(),
                native::write(&ring(40, 100)).into(),
                10,
            ),
            (
                Format::Tmon,
                tmon_of(ring(8, 100)),
                tmon_of(ring(40, 100)),
                10,
            ),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn every_importer_refuses_more_events_or_processes_than_the_budget_names() {
    for limit in [Limit::Events, Limit::Processes] {
        for (format, within, past, max) in inputs(limit) {
            let b = budget(limit, max);
            let ok = import_within(&within, Some(format), "t", &b);
            assert!(ok.is_ok(), "{format:?} {limit:?} within: {:?}", ok.err());
            let err = import_within(&past, Some(format), "t", &b)
                .expect_err(&format!("{format:?} past the {limit:?} budget"));
            assert_eq!(err.exceeded, Some(limit), "{format:?}: {err}");
            assert!(err.message.contains(limit.option()), "{format:?}: {err}");
            // The importer stopped where it was reading, not after building the whole model
            // (Paraver declares its processes in the header, on the first line).
            let in_header = format == Format::Paraver && limit == Limit::Processes;
            assert!(err.offset > 0 || in_header, "{format:?} {limit:?}: {err}");
        }
    }
}

#[test]
fn an_otf2_archive_past_the_event_budget_is_refused() {
    let files = crate::importers::otf2_files("pipit-ping-pong-otf2");
    let all = shared::formats::import_files(&files, "x", &Budget::default()).expect("imports");
    let n = all.trace.events.len() as u64;
    let b = budget(Limit::Events, n / 2);
    let err = shared::formats::import_files(&files, "x", &b).expect_err("past the budget");
    assert_eq!(err.exceeded, Some(Limit::Events), "{err}");
    let b = budget(Limit::Processes, all.trace.processes.len() as u64 - 1);
    let err = shared::formats::import_files(&files, "x", &b).expect_err("past the budget");
    assert_eq!(err.exceeded, Some(Limit::Processes), "{err}");
}

#[test]
fn gzip_is_inflated_only_up_to_the_input_budget() {
    // 8 MiB of valid records in a gzip stream of a few KiB.
    let record = br#"{"ph":"X","name":"w","pid":1,"tid":1,"ts":1,"dur":1},"#;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(b"[").expect("gz");
    for _ in 0..(8 << 20) / record.len() {
        gz.write_all(record).expect("gz");
    }
    let bomb = gz.finish().expect("gz");
    assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
    let b = budget(Limit::InputBytes, 1 << 20);
    let err = import_within(&bomb, None, "bomb", &b).expect_err("refused");
    assert_eq!(err.exceeded, Some(Limit::InputBytes), "{err}");
    assert!(err.message.contains("1048576 bytes"), "{err}");
    // A plain input past the budget is refused the same way.
    let plain = chrome(1, 40_000);
    let err = import_within(plain.as_bytes(), None, "plain", &b).expect_err("refused");
    assert_eq!(err.exceeded, Some(Limit::InputBytes), "{err}");
}

#[test]
fn nesting_deeper_than_the_budget_is_refused() {
    let mut text = String::from("[");
    for k in 0..100 {
        text.push_str(&format!(
            r#"{{"ph":"B","name":"r","pid":1,"tid":1,"ts":{k}}},"#
        ));
    }
    for k in 0..100 {
        text.push_str(&format!(
            r#"{{"ph":"E","pid":1,"tid":1,"ts":{}}},"#,
            200 + k
        ));
    }
    text.pop();
    text.push(']');
    assert!(import_within(text.as_bytes(), None, "deep", &budget(Limit::Depth, 100)).is_ok());
    let err = import_within(text.as_bytes(), None, "deep", &budget(Limit::Depth, 99))
        .expect_err("too deep");
    assert_eq!(err.exceeded, Some(Limit::Depth), "{err}");
}

#[test]
fn a_gzipped_tar_streams_into_its_files_within_the_input_budget() {
    // A tar holding one 3 MiB file, gzip-compressed to a few KiB.
    let mut tar = tar::Builder::new(Vec::new());
    let data = vec![0u8; 3 << 20];
    let mut header = tar::Header::new_gnu();
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "big.evt", data.as_slice())
        .expect("appends");
    let tar = tar.into_inner().expect("tar");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&tar).expect("gz");
    let gz = gz.finish().expect("gz");
    let err = import_within(&gz, None, "big", &budget(Limit::InputBytes, 1 << 20))
        .expect_err("past the budget");
    assert_eq!(err.exceeded, Some(Limit::InputBytes), "{err}");
    // Within the budget the same archive is read (and refused for what it is: no anchor).
    let err = import_within(&gz, None, "big", &budget(Limit::InputBytes, 8 << 20))
        .expect_err("not an OTF2 archive");
    assert_eq!(err.exceeded, None, "{err}");
    assert!(err.message.contains("anchor"), "{err}");
}

/// Issue 46 point 9: a depth error points at the event or line where the nesting goes past the
/// budget, not at byte 0 — for slices begun and ended (`B`/`E`), for complete slices (`X`,
/// which nest by their times once read: the thread and slice are named), and for Pajé states.
#[test]
fn depth_errors_point_where_the_nesting_goes_too_deep() {
    let too_deep = budget(Limit::Depth, 99);
    // B/E: the 100th B.
    let mut text = String::from("[");
    for k in 0..100 {
        text.push_str(&format!(
            r#"{{"ph":"B","name":"r","pid":1,"tid":1,"ts":{k}}},"#
        ));
    }
    for k in 0..100 {
        text.push_str(&format!(
            r#"{{"ph":"E","pid":1,"tid":1,"ts":{}}},"#,
            200 + k
        ));
    }
    text.pop();
    text.push(']');
    let hundredth = text
        .match_indices(r#"{"ph":"B""#)
        .nth(99)
        .map(|(i, _)| i)
        .expect("100 B events");
    let err = import_within(text.as_bytes(), None, "deep", &too_deep).expect_err("too deep");
    assert_eq!(err.exceeded, Some(Limit::Depth), "{err}");
    assert_eq!(err.offset, hundredth, "{err}");

    // X: slices nested by their times; known once the whole array is read.
    let mut text = String::from("[");
    for k in 0..100 {
        text.push_str(&format!(
            r#"{{"ph":"X","name":"r","pid":1,"tid":7,"ts":{k},"dur":{}}},"#,
            1000 - 2 * k
        ));
    }
    text.pop();
    text.push(']');
    let err = import_within(text.as_bytes(), None, "deep", &too_deep).expect_err("too deep");
    assert_eq!(err.exceeded, Some(Limit::Depth), "{err}");
    assert!(err.offset > 0, "{err}");
    assert!(
        err.message.contains("tid 7") && err.message.contains("level 100"),
        "{err}"
    );

    // Pajé: 100 states pushed at 100 dates, then popped; the first pop's line writes out the
    // date that opened the 100th.
    let mut text = paje(1, 0);
    for k in 0..100 {
        text.push_str(&format!("11 {k}.0 ST c0 w\n"));
    }
    let first_pop = text.lines().count() + 1;
    for k in 0..100 {
        text.push_str(&format!("12 {}.0 ST c0\n", 100 + k));
    }
    assert!(import_within(text.as_bytes(), None, "deep", &budget(Limit::Depth, 100)).is_ok());
    let err = import_within(text.as_bytes(), None, "deep", &too_deep).expect_err("too deep");
    assert_eq!(err.exceeded, Some(Limit::Depth), "{err}");
    assert_eq!(err.line, first_pop, "{err}");
}

/// A tar of a Paraver trace: `trace.prv` (a few KiB) and `trace.pcf`.
fn paraver_tar() -> Vec<u8> {
    let prv = paraver(4, 100);
    let pcf = "EVENT_TYPE\n0 50000001 MPI call\n";
    let mut tar = tar::Builder::new(Vec::new());
    for (name, data) in [("trace.prv", prv.as_bytes()), ("trace.pcf", pcf.as_bytes())] {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, name, data).expect("appends");
    }
    tar.into_inner().expect("tar")
}

/// Issue 46 point 9: a tar cut short is refused naming the entry it cuts and where, in the
/// archive and in the entry — read whole or as a stream.
#[test]
fn a_cut_tar_names_the_entry_and_the_offset() {
    let tar = paraver_tar();
    let whole = import_within(&tar, None, "t", &Budget::default()).expect("the whole tar reads");
    assert_eq!(whole.format, Format::Paraver);
    let prv_len = paraver(4, 100).len();
    assert!(prv_len > 5_000, "the .prv is {prv_len} bytes");
    // Cut inside the .prv's data (its header is the archive's first 512 bytes).
    let cut = &tar[..5_000];
    let read = |bytes: &[u8]| {
        let whole = import_within(bytes, None, "t", &Budget::default()).expect_err("cut");
        let streamed = shared::formats::import_reader(
            bytes,
            None,
            "t",
            &shared::formats::ImportOptions::default(),
        )
        .expect_err("cut");
        (whole, streamed)
    };
    for err in <[_; 2]>::from(read(cut)) {
        assert_eq!(err.format, "tar", "{err}");
        assert_eq!(err.offset, 5_000, "{err}");
        assert!(
            err.message.contains("\"trace.prv\"")
                && err
                    .message
                    .contains(&format!("byte {} of its {prv_len}", 5_000 - 512)),
            "{err}"
        );
    }
    // Cut inside the second entry's header.
    let second = 512 + prv_len.div_ceil(512) * 512;
    for err in <[_; 2]>::from(read(&tar[..second + 100])) {
        assert_eq!(err.offset, second, "{err}");
        assert!(
            err.message.contains("header") && err.message.contains("after the entry \"trace.prv\""),
            "{err}"
        );
    }
}
