//! Paraver as its own tools read it (issue 44): states are a track per thread, each event type
//! is its own timeline, sampled types are samples, a send comes before the receive of the same
//! `MPI_Sendrecv`, the `.pcf` and `.row` only name things, a byte-order mark or CRLF line ends
//! change nothing, and a zero-length value is entered before it is left.

use shared::analyses::validate::{DiagnosticKind, Severity};
use shared::formats::{Format, ImportOptions, import, import_paraver};
use shared::model::{EventKind, Trace};

/// The error diagnostics of a trace, as `kind: message`.
fn errors(trace: &Trace) -> Vec<String> {
    shared::analyses::metrics::analyze(trace, shared::analyses::metrics::AnalysisOptions::default())
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{:?}: {}", d.kind, d.message))
        .collect()
}

/// How many events of a kind the trace has.
fn count(trace: &Trace, kind: EventKind) -> usize {
    trace.events.kind().iter().filter(|&&k| k == kind).count()
}

/// The regions entered, by name, in order.
fn entered(trace: &Trace) -> Vec<String> {
    (0..trace.events.len())
        .filter(|&i| trace.events.kind()[i] == EventKind::Enter)
        .filter_map(|i| trace.events.region().at(i))
        .map(|r| trace.regions[r.index()].name.clone())
        .collect()
}

/// A tar of named files, as the page packs files chosen together.
fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, path, *bytes)
            .expect("appends");
    }
    builder.into_inner().expect("finishes")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compresses");
    encoder.finish().expect("compresses")
}

/// One thread as Extrae writes it: states that change while an MPI call and a user function
/// are open (Running, then Waiting a message inside the call), an OpenMP task type (60000023)
/// that begins inside the user function and ends after it (two types overlapping without
/// nesting, as Paraver allows: each type is its own timeline), hardware counters and a
/// sampled function at the call's end.
const EXTRAE_LIKE: &[u8] = b"#Paraver (01/01/24 at 00:00):1000_ns:1(1):1:1(1:1),0\n\
1:1:1:1:1:0:100:1\n\
1:1:1:1:1:100:150:3\n\
1:1:1:1:1:150:1000:1\n\
2:1:1:1:1:10:60000019:7\n\
2:1:1:1:1:50:60000023:1\n\
2:1:1:1:1:100:50000001:3:42000050:1200:42000059:2400\n\
2:1:1:1:1:150:50000001:0:42000050:300:42000059:900:30000000:7\n\
2:1:1:1:1:200:60000019:0\n\
2:1:1:1:1:300:60000023:0\n";

const EXTRAE_LIKE_PCF: &[u8] = b"STATES\n0    Idle\n1    Running\n3    Waiting a message\n\n\
EVENT_TYPE\n9    50000001    MPI Point-to-point\nVALUES\n0   End\n3   MPI_Recv\n\n\
EVENT_TYPE\n0    60000019    User function\nVALUES\n0   End\n7   solve\n\n\
EVENT_TYPE\n0    60000023    Executed OpenMP task function\nVALUES\n0   End\n1   Begin\n\n\
EVENT_TYPE\n7  42000050 PAPI_TOT_INS ([Instr completed])\n7  42000059 PAPI_TOT_CYC ([Total cycles])\n";

/// Point 2: the states, the overlapping type and the counters of a correct Extrae thread give
/// no error; states are a `state` counter, the type that cannot nest is a gauge track named in
/// a note, the MPI call and the user function are regions, counters and samples are samples.
#[test]
fn extrae_states_and_overlapping_types_give_no_error() {
    let imported = import(
        &tar_of(&[("t.prv", EXTRAE_LIKE), ("t.pcf", EXTRAE_LIKE_PCF)]),
        None,
        "t",
    )
    .expect("imports");
    let trace = &imported.trace;
    assert_eq!(errors(trace), Vec::<String>::new());
    // The user function holds the MPI call; the task type (60000023) begins inside the
    // function and ends after it, so it is not a region.
    assert_eq!(entered(trace), ["solve", "MPI_Recv"]);
    assert_eq!(count(trace, EventKind::Leave), 2);
    let series = |name: &str| {
        trace
            .counters
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "no counter {name}: {:?}",
                    trace.counters.iter().map(|c| &c.name).collect::<Vec<_>>()
                )
            })
    };
    assert_eq!(series("state").values, [1.0, 3.0, 1.0]);
    assert_eq!(series("Executed OpenMP task function").values, [1.0, 0.0]);
    assert_eq!(
        series("PAPI_TOT_INS ([Instr completed])").values,
        [1200.0, 300.0]
    );
    assert_eq!(series("type 30000000").values, [7.0]);
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.contains("60000023") && n.contains("without nesting")),
        "{:?}",
        imported.notes
    );
}

/// Point 3: in an `MPI_Sendrecv` at one tick, Paraver's record of the receive can come before
/// the send's: the send is still placed first, so the receive call is followed by its
/// arrival and is not "never completed".
#[test]
fn a_sendrecv_sends_before_it_waits() {
    // Both tasks call MPI_Sendrecv at 10; the data arrives at 30. The first record is the
    // message task 2 sends to task 1, so task 1's receive is read before its own send.
    let prv = b"#Paraver (01/01/24 at 00:00):100_ns:1(2):1:2(1:1,1:1),0\n\
1:1:1:1:1:0:100:1\n\
1:2:1:2:1:0:100:1\n\
2:1:1:1:1:10:50000001:41\n\
2:2:1:2:1:10:50000001:41\n\
3:2:1:2:1:10:10:1:1:1:1:10:30:64:7\n\
3:1:1:1:1:10:10:2:1:2:1:10:30:64:7\n\
2:1:1:1:1:40:50000001:0\n\
2:2:1:2:1:40:50000001:0\n";
    let trace = import(prv, None, "sendrecv").expect("imports").trace;
    let never: Vec<String> = errors(&trace)
        .into_iter()
        .filter(|e| e.starts_with(&format!("{:?}", DiagnosticKind::ReceiveNeverCompleted)))
        .collect();
    assert_eq!(never, Vec::<String>::new());
    assert_eq!(errors(&trace), Vec::<String>::new());
    assert_eq!(count(&trace, EventKind::RecvCall), 2);
    // Task 1: enter, send, receive call, arrival, leave.
    let kinds: Vec<EventKind> = trace
        .process_events(shared::model::ProcessId(0))
        .map(|i| trace.events.kind()[i])
        .filter(|k| !matches!(k, EventKind::ProcInit | EventKind::ProcExit))
        .collect();
    assert_eq!(
        kinds,
        [
            EventKind::Enter,
            EventKind::MsgSend,
            EventKind::RecvCall,
            EventKind::MsgArr,
            EventKind::Leave
        ]
    );
}

/// Point 4: the `.pcf` and `.row` given with a `.prv`, or a `.prv.gz`, name regions, counters
/// and threads; the events are the same with and without them.
#[test]
fn labels_name_things_and_change_no_event() {
    let row: &[u8] = b"LEVEL NODE SIZE 1\nn1\n\nLEVEL THREAD SIZE 1\nTHREAD 1.1.1\n";
    let bare = import(EXTRAE_LIKE, None, "t").expect("imports").trace;
    let options = ImportOptions::default();
    let labelled = import_paraver(EXTRAE_LIKE, Some(EXTRAE_LIKE_PCF), Some(row), "t", &options)
        .expect("imports")
        .trace;
    assert_eq!(bare.events.len(), labelled.events.len());
    assert_eq!(bare.events.kind(), labelled.events.kind());
    assert_eq!(bare.counters.len(), labelled.counters.len());
    // Without labels a user function is named by its type and value, and an MPI call by the
    // name Extrae numbers it with (3 is MPI_Isend); the labels, when given, win.
    assert_eq!(entered(&bare), ["type 60000019 7", "MPI_Isend"]);
    assert_eq!(entered(&labelled), ["solve", "MPI_Recv"]);
    assert_eq!(labelled.processes[0].name, "THREAD 1.1.1");
    // A .prv.gz read with its companions, from a stream and packed in a tar.
    let gz = gzip(EXTRAE_LIKE);
    let streamed = import_paraver(
        gz.as_slice(),
        Some(EXTRAE_LIKE_PCF),
        Some(row),
        "t",
        &options,
    )
    .expect("imports")
    .trace;
    assert_eq!(entered(&streamed), ["solve", "MPI_Recv"]);
    let packed = import(
        &tar_of(&[
            ("t.prv.gz", &gz),
            ("t.pcf", EXTRAE_LIKE_PCF),
            ("t.row", row),
        ]),
        None,
        "t.tar",
    )
    .expect("a tar holding a .prv.gz imports");
    assert_eq!(packed.format, Format::Paraver);
    assert_eq!(entered(&packed.trace), ["solve", "MPI_Recv"]);
    assert_eq!(packed.trace.processes[0].name, "THREAD 1.1.1");
    assert_eq!(packed.trace.events.len(), bare.events.len());
}

/// Point 13: a UTF-8 byte-order mark and CRLF line ends in the `.prv`, `.pcf` and `.row` are
/// read as the same trace.
#[test]
fn a_byte_order_mark_and_crlf_change_nothing() {
    let crlf = |bytes: &[u8]| {
        let mut out = b"\xEF\xBB\xBF".to_vec();
        for &b in bytes {
            if b == b'\n' {
                out.push(b'\r');
            }
            out.push(b);
        }
        out
    };
    let row: &[u8] = b"LEVEL THREAD SIZE 1\nmain\n";
    let plain = import(EXTRAE_LIKE, None, "t").expect("imports").trace;
    let marked = import(&crlf(EXTRAE_LIKE), None, "t").expect("a BOM and CRLF import");
    assert_eq!(marked.format, Format::Paraver);
    assert_eq!(marked.trace.events, plain.events);
    let packed = import(
        &tar_of(&[
            ("t.prv", &crlf(EXTRAE_LIKE)),
            ("t.pcf", &crlf(EXTRAE_LIKE_PCF)),
            ("t.row", &crlf(row)),
        ]),
        None,
        "t.tar",
    )
    .expect("imports");
    assert_eq!(entered(&packed.trace), ["solve", "MPI_Recv"]);
    assert_eq!(packed.trace.processes[0].name, "main");
    assert!(
        packed
            .trace
            .counters
            .iter()
            .any(|c| c.name == "PAPI_TOT_CYC ([Total cycles])")
    );
}

/// Point 1 (Paraver's share): a value and its end at one tick are a zero-length region, entered
/// before it is left, inside the region around it: no leave without enter, nothing unclosed.
#[test]
fn a_zero_length_value_is_entered_before_it_is_left() {
    let prv = b"#Paraver (01/01/24 at 00:00):100_ns:1(1):1:1(1:1),0\n\
1:1:1:1:1:0:100:1\n\
2:1:1:1:1:10:60000019:4\n\
2:1:1:1:1:20:60000023:9\n\
2:1:1:1:1:20:60000023:0\n\
2:1:1:1:1:30:60000019:0:60000023:2\n\
2:1:1:1:1:30:60000023:0\n";
    let trace = import(prv, None, "zero").expect("imports").trace;
    let diagnostics: Vec<String> = shared::analyses::metrics::analyze(
        &trace,
        shared::analyses::metrics::AnalysisOptions::default(),
    )
    .diagnostics
    .iter()
    .map(|d| format!("{:?}: {}", d.kind, d.message))
    .collect();
    assert_eq!(diagnostics, Vec::<String>::new());
    let kinds: Vec<(u64, EventKind)> = (0..trace.events.len())
        .filter(|&i| trace.events.kind()[i].has_region())
        .map(|i| (trace.events.time()[i].0, trace.events.kind()[i]))
        .collect();
    assert_eq!(
        kinds,
        [
            (10, EventKind::Enter),
            (20, EventKind::Enter),
            (20, EventKind::Leave),
            (30, EventKind::Leave),
            (30, EventKind::Enter),
            (30, EventKind::Leave),
        ]
    );
}

/// Applications in the header may be separated by ',' as well as ':' (Paraver's own reader
/// skips the one character after an application's list): the cutter writes them so.
#[test]
fn applications_separated_by_a_comma_are_read() {
    let prv = b"#Paraver (21/01/22 at 16:37):100_ns:1(3):2:2(1:1,1:1),1(1:1),3\n\
c:1:1:2:1:2\n\
1:1:1:1:1:0:100:1\n\
1:3:2:1:1:0:100:1\n";
    let trace = import(prv, None, "apps").expect("imports").trace;
    assert_eq!(trace.processes.len(), 3);
}

/// Without its `.pcf`, an Extrae trace's MPI calls are named as Extrae numbers them (one
/// numbering for every MPI type), and values Extrae does not number keep their number.
#[test]
fn extrae_mpi_calls_are_named_without_labels() {
    let prv: &[u8] = b"#Paraver (01/01/26 at 00:00):1000_ns:1(1):1:1(1:1)\n\
2:1:1:1:1:100:50000002:10\n\
2:1:1:1:1:200:50000002:0\n\
2:1:1:1:1:300:50000001:1\n\
2:1:1:1:1:400:50000001:0\n\
2:1:1:1:1:500:50000003:31\n\
2:1:1:1:1:600:50000003:0\n\
2:1:1:1:1:700:50000001:9999\n\
2:1:1:1:1:800:50000001:0\n";
    let trace = import(prv, None, "mpi").expect("imports").trace;
    assert_eq!(
        entered(&trace),
        [
            "MPI_Allreduce",
            "MPI_Send",
            "MPI_Init",
            "type 50000001 9999"
        ]
    );
}
