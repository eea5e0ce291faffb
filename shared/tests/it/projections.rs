//! Charm++ Projections: the hand-made trace against the independent reader's numbers and its
//! hand-derived facts, gzip logs, tar uploads, detection, SMP nodes, and the errors and notes of
//! bad or unusual input.

use std::collections::BTreeMap;
use std::io::Write as _;

use shared::formats::{Budget, Format, Imported, import, import_files};
use shared::model::EventKind;
use shared::{Time, Trace};

/// The files of a folder under `shared/tests/data/`, by name.
fn folder(name: &str) -> BTreeMap<String, Vec<u8>> {
    let dir = crate::data_path(name);
    std::fs::read_dir(&dir)
        .expect("the folder is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "expected.json"))
        .map(|p| {
            let name = p
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&p).expect("the file is readable"))
        })
        .collect()
}

fn hand() -> BTreeMap<String, Vec<u8>> {
    folder("projections/handmade")
}

fn read(files: &BTreeMap<String, Vec<u8>>) -> Imported {
    import_files(files, "run", &Budget::default()).expect("the trace imports")
}

/// The error diagnostics of the analyses of `trace`.
fn errors(trace: &Trace) -> Vec<String> {
    let a = shared::analyses::metrics::analyze(trace, Default::default());
    a.diagnostics
        .iter()
        .filter(|d| d.severity == shared::analyses::validate::Severity::Error)
        .map(|d| d.message.clone())
        .collect()
}

fn count(trace: &Trace, kind: EventKind) -> usize {
    trace.events.kind().iter().filter(|&&k| k == kind).count()
}

/// The numbers the corpus harness compares, from the model.
fn numbers(trace: &Trace) -> serde_json::Value {
    let mut events = serde_json::Map::new();
    for kind in EventKind::ALL {
        let n = count(trace, kind);
        if n > 0 {
            events.insert(kind.name().to_owned(), n.into());
        }
    }
    let pairing = shared::graph::pairing::pair_messages(trace);
    let bytes: u64 = pairing
        .messages
        .iter()
        .filter_map(|m| trace.events.size().get(m.send.index()))
        .sum();
    let (start, end) = trace.time_bounds().unwrap_or_default();
    let with_events = trace
        .process_ids()
        .filter(|&p| !trace.process_events(p).is_empty())
        .count();
    serde_json::json!({
        "processes_with_events": with_events,
        "events": events,
        "messages": pairing.messages.len(),
        "bytes": bytes,
        "span_ticks": end.0 - start.0,
    })
}

#[test]
fn the_hand_made_trace_matches_the_independent_reader() {
    let imported = read(&hand());
    assert_eq!(imported.format, Format::Projections);
    let expected: serde_json::Value = serde_json::from_slice(
        &std::fs::read(crate::data_path("projections/handmade/expected.json")).expect("expected"),
    )
    .expect("expected.json is JSON");
    let ours = numbers(&imported.trace);
    for field in [
        "processes_with_events",
        "events",
        "messages",
        "bytes",
        "span_ticks",
    ] {
        assert_eq!(ours[field], expected[field], "{field}");
    }
}

#[test]
fn the_hand_made_trace_has_its_regions_messages_and_clock() {
    let imported = read(&hand());
    let t = &imported.trace;
    assert_eq!(t.name, "hand");
    assert_eq!(t.clock.ticks_per_second, Some(1_000_000), "microseconds");
    assert_eq!(t.processes.len(), 2);
    assert_eq!(t.nodes.len(), 2, "each PE on its own node without SMPMODE");
    let names: Vec<&str> = t.regions.iter().map(|r| r.name.as_str()).collect();
    for name in [
        "Main::Main(CkArgMsg* impl_msg)",
        "Worker::work(int n)",
        "Main::done(void)",
        "Idle",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    // PE 0 creates `work` at 20 µs (event 1, 100 bytes); PE 1 begins it at 50; PE 1 creates
    // `done` at 60 (event 2, 40 bytes); PE 0 begins it at 100.
    let pairing = shared::graph::pairing::pair_messages(t);
    let mut messages: Vec<(u32, u64, u32, u64, u64)> = pairing
        .messages
        .iter()
        .map(|m| {
            let e = &t.events;
            (
                e.process()[m.send.index()].0,
                e.time()[m.send.index()].0,
                e.process()[m.arrival.index()].0,
                e.time()[m.arrival.index()].0,
                e.size().at(m.send.index()),
            )
        })
        .collect();
    messages.sort_unstable();
    assert_eq!(messages, vec![(0, 20, 1, 50, 100), (1, 60, 0, 100, 40)]);
    assert!(pairing.unmatched_sends.is_empty() && pairing.unmatched_arrivals.is_empty());
    // The arrival comes before the entry method it starts, at the same tick.
    let p1 = t.process_events(shared::ProcessId(1));
    let kinds: Vec<(EventKind, Time)> = p1
        .clone()
        .map(|i| (t.events.kind()[i], t.events.time()[i]))
        .collect();
    let arr = kinds
        .iter()
        .position(|k| k.0 == EventKind::MsgArr)
        .expect("an arrival");
    assert_eq!(kinds[arr + 1], (EventKind::Enter, Time(50)));
    // The user event is a note, not an error; the begin of Main names no creation.
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("1 records of type 13 (USER_EVENT)")),
        "{:?}",
        imported.notes
    );
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("1 BEGIN_PROCESSING records name no logged creation")),
        "{:?}",
        imported.notes
    );
    assert_eq!(errors(t), Vec::<String>::new());
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

#[test]
fn gzip_logs_read_as_their_text() {
    let text = hand();
    let packed: BTreeMap<String, Vec<u8>> = text
        .iter()
        .map(|(name, bytes)| {
            if name.ends_with(".log") {
                (format!("{name}.gz"), gzip(bytes))
            } else {
                (name.clone(), bytes.clone())
            }
        })
        .collect();
    assert!(packed.contains_key("hand.1.log.gz"));
    assert_eq!(read(&packed).trace, read(&text).trace);
}

fn tar(files: &BTreeMap<String, Vec<u8>>, prefix: &str) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{prefix}{name}"), bytes.as_slice())
            .expect("tar");
    }
    builder.into_inner().expect("tar")
}

#[test]
fn a_tar_of_the_files_is_detected_and_read_plain_and_gzipped() {
    let files = hand();
    let archive = tar(&files, "hand-run/");
    let direct = read(&files).trace;
    let from_tar = import(&archive, None, "hand-run.tar").expect("the tar imports");
    assert_eq!(from_tar.format, Format::Projections);
    assert_eq!(from_tar.trace, direct);
    let from_gz = import(&gzip(&archive), None, "hand-run.tar.gz").expect("the tar.gz imports");
    assert_eq!(from_gz.trace, direct);
    let streamed = shared::formats::import_reader(
        std::io::Cursor::new(gzip(&archive)),
        Some(Format::Projections),
        "hand-run.tar.gz",
        &shared::formats::ImportOptions::default(),
    )
    .expect("the stream imports");
    assert_eq!(streamed.trace, direct);
}

#[test]
fn a_lone_sts_or_log_is_detected_and_asks_for_the_rest() {
    let files = hand();
    for name in ["hand.sts", "hand.0.log"] {
        let bytes = &files[name];
        assert_eq!(
            shared::formats::detect(bytes),
            Some(Format::Projections),
            "{name}"
        );
        let e = import(bytes, None, name).expect_err("one file is not a trace");
        assert_eq!(e.format, "projections");
        assert!(e.message.contains(".sts with its"), "{e}");
    }
    // An older .sts starts with its VERSION line.
    let old = b"VERSION 3.0\nMACHINE net-linux\nPROCESSORS 4\nTOTAL_CHARES 32\n";
    assert_eq!(shared::formats::detect(old), Some(Format::Projections));
}

fn with(files: &BTreeMap<String, Vec<u8>>, name: &str, text: &str) -> BTreeMap<String, Vec<u8>> {
    let mut files = files.clone();
    files.insert(name.to_owned(), text.as_bytes().to_vec());
    files
}

#[test]
fn a_line_that_is_not_a_record_is_an_error_naming_the_file_and_line() {
    let log = "PROJECTIONS-RECORD 3\n6 0\n14 5 1\nhello there\n15 50 1\n";
    let e = import_files(&with(&hand(), "hand.1.log", log), "run", &Budget::default())
        .expect_err("a line that is no record");
    assert_eq!((e.format.as_str(), e.line, e.column), ("projections", 4, 1));
    assert!(
        e.message.starts_with("hand.1.log: expected a record"),
        "{e}"
    );
    // Too few fields, and a field that is no number.
    let short = "PROJECTIONS-RECORD\n6 0\n2 0 1 50 1\n";
    let e = import_files(
        &with(&hand(), "hand.1.log", short),
        "run",
        &Budget::default(),
    )
    .expect_err("too few fields");
    assert_eq!(e.line, 3);
    assert!(e.message.contains("6 fields after its type"), "{e}");
    let word = "PROJECTIONS-RECORD\n6 0\n2 0 1 fifty 1 0 100\n";
    let e = import_files(
        &with(&hand(), "hand.1.log", word),
        "run",
        &Budget::default(),
    )
    .expect_err("a time that is no number");
    assert!(e.message.contains("the time of a type 2 record"), "{e}");
    let wide = "PROJECTIONS-RECORD\n6 0\n2 0 1 50 99999999999 0 100\n";
    let e = import_files(
        &with(&hand(), "hand.1.log", wide),
        "run",
        &Budget::default(),
    )
    .expect_err("an event number wider than Charm++'s int");
    assert!(
        e.message
            .contains("the event of a type 2 record to be a 32-bit integer"),
        "{e}"
    );
}

#[test]
fn a_missing_sts_or_missing_logs_are_errors() {
    let mut files = hand();
    files.remove("hand.sts");
    let e = import_files(&files, "run", &Budget::default()).expect_err("no .sts");
    assert!(e.message.contains("expected a NAME.sts"), "{e}");
    let e = import(&tar(&files, ""), Some(Format::Projections), "run.tar")
        .expect_err("a tar of logs alone");
    assert!(e.message.contains("expected a NAME.sts"), "{e}");
    let only_sts: BTreeMap<String, Vec<u8>> = hand()
        .into_iter()
        .filter(|(n, _)| n.ends_with(".sts"))
        .collect();
    let e = import_files(&only_sts, "run", &Budget::default()).expect_err("no logs");
    assert!(e.message.contains("hand.sts describes 2 PEs"), "{e}");
    // One log of two: the other PE's row is empty, and a note says so.
    let mut one = hand();
    one.remove("hand.1.log");
    let imported = read(&one);
    assert_eq!(imported.trace.processes.len(), 2);
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("PE 1, hand.1.log")),
        "{:?}",
        imported.notes
    );
    // A .sts without PROCESSORS.
    let sts = "PROJECTIONS_ID\nVERSION 11.0\nTOTAL_CHARES 0\nEND\n";
    let e = import_files(&with(&hand(), "hand.sts", sts), "run", &Budget::default())
        .expect_err("no PE count");
    assert!(
        e.message.contains("hand.sts: expected a PROCESSORS line"),
        "{e}"
    );
}

#[test]
fn an_end_with_no_open_begin_is_skipped_with_a_note_not_an_error() {
    // A version-3 log of Charm++'s hello example ends `Main::done` twice after one begin.
    let log = "PROJECTIONS-RECORD\n6 0\n2 0 1 50 1 0 100\n3 0 1 70 1 0 0\n3 0 1 75 1 0 0\n7 80\n";
    let imported = read(&with(&hand(), "hand.1.log", log));
    let t = &imported.trace;
    assert_eq!(count(t, EventKind::Enter), count(t, EventKind::Leave));
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.starts_with("skipped 1 END_PROCESSING records with no open begin")),
        "{:?}",
        imported.notes
    );
    assert_eq!(errors(t), Vec::<String>::new());
}

#[test]
fn a_broadcast_is_one_message_per_pe_that_processes_it() {
    let sts = "PROJECTIONS_ID\nVERSION 11.0\nPROCESSORS 3\nCHARE 0 \"G\" -1\nENTRY CHARE 0 \"go()\" 0 0\nEND\n";
    let mut files = BTreeMap::new();
    files.insert("b.sts".to_owned(), sts.as_bytes().to_vec());
    files.insert(
        "b.0.log".to_owned(),
        b"PROJECTIONS-RECORD\n20 0 0 10 7 0 64 0 3\n2 0 0 12 7 0 64\n3 0 0 13 7 0 64\n".to_vec(),
    );
    for pe in 1..3 {
        files.insert(
            format!("b.{pe}.log"),
            format!("PROJECTIONS-RECORD\n2 0 0 2{pe} 7 0 64\n3 0 0 3{pe} 7 0 64\n").into_bytes(),
        );
    }
    let t = read(&files).trace;
    let pairing = shared::graph::pairing::pair_messages(&t);
    assert_eq!(pairing.messages.len(), 3, "to PE 0 itself, 1 and 2");
    assert_eq!(count(&t, EventKind::MsgSend), 3);
}

#[test]
fn smp_mode_puts_worker_pes_and_comm_threads_on_their_nodes() {
    // Two nodes of two workers, then one communication thread per node: PEs 4 and 5.
    let sts = "PROJECTIONS_ID\nVERSION 11.0\nPROCESSORS 6\nSMPMODE 2 2\nEND\n";
    let mut files = BTreeMap::new();
    files.insert("s.sts".to_owned(), sts.as_bytes().to_vec());
    files.insert(
        "s.0.log".to_owned(),
        b"PROJECTIONS-RECORD\n14 1 0\n15 2 0\n".to_vec(),
    );
    let t = read(&files).trace;
    assert_eq!(t.nodes.len(), 2);
    let nodes: Vec<u32> = t.processes.iter().map(|p| p.node.0).collect();
    assert_eq!(nodes, vec![0, 0, 1, 1, 0, 1]);
}

#[test]
fn the_budget_bounds_events_and_processes() {
    let tight = Budget {
        max_events: 4,
        ..Budget::default()
    };
    let e = import_files(&hand(), "run", &tight).expect_err("too many events");
    assert_eq!(e.exceeded, Some(shared::formats::Limit::Events));
    let few = Budget {
        max_processes: 1,
        ..Budget::default()
    };
    let e = import_files(&hand(), "run", &few).expect_err("too many PEs");
    assert_eq!(e.exceeded, Some(shared::formats::Limit::Processes));
    assert!(e.message.contains("processes"), "{e}");
}

#[test]
fn every_one_byte_change_of_the_files_imports_or_fails_cleanly() {
    let files = hand();
    for name in ["hand.sts", "hand.0.log", "hand.1.log"] {
        let original = &files[name];
        for i in 0..original.len() {
            for byte in [b'-', b'9', b' ', b'\n', b'"', 0xff] {
                let mut changed = files.clone();
                let bytes = changed.get_mut(name).expect("the file");
                bytes[i] = byte;
                if let Ok(imported) = import_files(&changed, "run", &Budget::default()) {
                    // Whatever imports, the analyses must digest.
                    let _ = shared::analyses::metrics::analyze(&imported.trace, Default::default());
                }
                let mut cut = files.clone();
                cut.get_mut(name).expect("the file").truncate(i);
                let _ = import_files(&cut, "run", &Budget::default());
            }
        }
    }
}

#[test]
fn older_sts_files_name_entries_with_bare_words_and_spaces() {
    // Version 3 wrote no PROJECTIONS_ID, bare chare names with no dimensions, and bare entry
    // names with spaces between their id and their chare and message ids; its records have
    // fewer fields (no receive time, no CPU time).
    let sts = "VERSION 3.0\nMACHINE net-linux\nPROCESSORS 1\nTOTAL_CHARES 2\nTOTAL_EPS 2\n\
               CHARE 0 Main\nCHARE 1 CkLocMgr\n\
               ENTRY CHARE 0 Main(CkArgMsg* impl_msg) 0 0\n\
               ENTRY CHARE 1 CkLocMgr(const CkGroupID &map, int numInitial) 1 6\nEND\n";
    let log =
        "PROJECTIONS-RECORD\n6 100\n1 3 1 105 0 0 112\n2 4 1 110 0 0 104\n3 0 1 120 0 0 0\n7 130\n";
    let mut files = BTreeMap::new();
    files.insert("old.sts".to_owned(), sts.as_bytes().to_vec());
    files.insert("old.0.log".to_owned(), log.as_bytes().to_vec());
    assert_eq!(
        shared::formats::detect(sts.as_bytes()),
        Some(Format::Projections)
    );
    let t = read(&files).trace;
    let names: Vec<&str> = t.regions.iter().map(|r| r.name.as_str()).collect();
    assert!(
        names.contains(&"CkLocMgr::CkLocMgr(const CkGroupID &map, int numInitial)"),
        "{names:?}"
    );
    // The creation at 105 is processed on the same PE at 110: a message to itself.
    let pairing = shared::graph::pairing::pair_messages(&t);
    assert_eq!(pairing.messages.len(), 1);
    assert_eq!(t.time_bounds(), Some((Time(100), Time(130))));
}
