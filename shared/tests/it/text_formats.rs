//! Pajé and ShiViz as real tools write them (issue 44): comments, the root container's
//! destruction, state changes at one date, EZTrace's units, unanchored ShiViz expressions and
//! layouts, byte-order marks and CRLF line ends. Each trace here is hand-made and small.

use std::collections::BTreeMap;

use shared::analyses::validate::{Severity, ValidationOptions, validate};
use shared::formats::{Format, import};
use shared::graph::context::Context;
use shared::model::EventKind;

/// The error diagnostics validation gives a trace, as sentences.
fn errors(trace: &shared::Trace) -> Vec<String> {
    let cx = Context::new(trace);
    validate(trace, &cx.pairing, &cx.graph, ValidationOptions::default())
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message)
        .collect()
}

/// The kinds of one process's events, in the model's order.
fn kinds(trace: &shared::Trace, process: u32) -> Vec<EventKind> {
    let p = shared::model::ProcessId(process);
    trace
        .process_events(p)
        .map(|i| trace.events.kind()[i])
        .collect()
}

/// A Pajé header as PajeNG and SimGrid write it (aliases first), with every state event.
const HEADER: &str = "%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 2
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 3
% Time date
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 4
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePushState 5
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePopState 6
% Time date
% Type string
% Container string
%EndEventDef
0 CT 0 Thread
1 A CT Activity
1 B CT Phase
2 0 t1 CT 0 worker
";

/// Issue 44, point 1: a push and a pop at one date are a zero-length state, entered then left.
#[test]
fn paje_a_push_and_pop_at_one_date_enter_before_they_leave() {
    let text = format!("{HEADER}5 1.0 A t1 compute\n6 1.0 A t1\n5 2.0 A t1 send\n6 3.0 A t1\n");
    let imported = import(text.as_bytes(), None, "zero").expect("imports");
    assert_eq!(
        kinds(&imported.trace, 0),
        [
            EventKind::ProcInit,
            EventKind::Enter,
            EventKind::Leave,
            EventKind::Enter,
            EventKind::Leave
        ]
    );
    assert_eq!(errors(&imported.trace), Vec::<String>::new());
}

/// Issue 44, point 9: the two comment lines SimGrid writes at the top of every trace.
#[test]
fn paje_comment_lines_are_read_and_detected() {
    let text = format!(
        "#This file was generated using SimGrid-3.36.0\n#[./masterworkers platform.xml deployment.xml --cfg=tracing:yes]\n{HEADER}# a comment among the events\n4 1.0 A t1 compute\n3 2.0 CT t1\n"
    );
    let imported = import(text.as_bytes(), None, "sg").expect("imports");
    assert_eq!(imported.format, Format::Paje);
    assert_eq!(imported.trace.events.len(), 4);
}

/// Issue 44, point 9: destroying the root container `0`, which PajeNG accepts.
#[test]
fn paje_destroying_the_root_container_is_accepted() {
    let text = format!("{HEADER}4 1.0 A t1 compute\n3 2.0 CT t1\n3 2.0 0 0\n");
    let imported = import(text.as_bytes(), None, "root").expect("imports");
    assert_eq!(imported.trace.events.len(), 4);
    assert_eq!(errors(&imported.trace), Vec::<String>::new());
}

/// Issue 44, point 9: two state types of one container change at one date, in the order the
/// types were first set (the outer one first): the regions still nest, with no error; and types
/// that overlap across dates nest too (a state closed and reopened, said in a note).
#[test]
fn paje_two_state_types_of_one_container_nest_within_a_date() {
    let text = format!(
        "{HEADER}4 1.0 A t1 compute\n4 1.0 B t1 phase1\n4 2.0 A t1 wait\n4 2.0 B t1 phase2\n3 3.0 CT t1\n"
    );
    let imported = import(text.as_bytes(), None, "types").expect("imports");
    assert_eq!(errors(&imported.trace), Vec::<String>::new());
    let enters = kinds(&imported.trace, 0)
        .iter()
        .filter(|k| **k == EventKind::Enter)
        .count();
    assert_eq!(enters, 4);
    assert!(!imported.notes.iter().any(|n| n.contains("opened again")));
    // B's state opens inside A's and outlives it: A's end closes B's, which opens again.
    let text = format!(
        "{HEADER}5 1.0 A t1 compute\n5 2.0 B t1 phase\n6 3.0 A t1\n6 4.0 B t1\n3 5.0 CT t1\n"
    );
    let imported = import(text.as_bytes(), None, "overlap").expect("imports");
    assert_eq!(errors(&imported.trace), Vec::<String>::new());
    assert!(
        imported
            .notes
            .iter()
            .any(|n| n.starts_with("1 times a state was closed and opened again")),
        "{:?}",
        imported.notes
    );
}

/// An EZTrace 1.x trace whose header is not laid out as the recognised one: other definition
/// numbers, aliases first, but EZTrace's container types.
const EZTRACE_OTHER_IDS: &str = "%EventDef PajeDefineContainerType 10
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 11
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 12
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeSetState 13
% Time date
% Type string
% Container string
% Value string
%EndEventDef
10 CT_Program 0 \"Program\"
10 CT_Process CT_Program \"Process\"
10 CT_Thread CT_Process \"Thread\"
11 ST_Thread CT_Thread \"Thread State\"
12 0.0 C_Prog CT_Program 0 \"C_Prog\"
12 0.0 P#0 CT_Process C_Prog \"P#0\"
12 0.0 P#0_T#1 CT_Thread P#0 \"P#0_T#1\"
13 1.0 ST_Thread P#0_T#1 Working
13 3.5 ST_Thread P#0_T#1 Blocked
";

/// GTG's layout (aliases after names) under other definition numbers and type names.
const GTG_OTHER_IDS: &str = "%EventDef PajeDefineContainerType 3
% Name string
% Type string
% Alias string
%EndEventDef
%EventDef PajeDefineEntityValue 9
% Type string
% Name string
% Color color
% Alias string
%EndEventDef
%EventDef PajeCreateContainer 4
% Time date
% Name string
% Type string
% Container string
% Alias string
%EndEventDef
%EventDef PajeNewEvent 8
% Time date
% Type string
% Container string
% Value string
%EndEventDef
3 \"Worker\" 0 W
4 0.0 \"w0\" W 0 w0
8 1.0 E w0 start
8 5.0 E w0 stop
";

/// Issue 44, point 11: EZTrace is recognised by what it writes, not by definition numbers, and
/// the note says which unit was assumed and why; a trace from elsewhere is seconds, said too.
#[test]
fn paje_eztrace_is_recognised_by_its_types_and_layout_whatever_its_ids() {
    let span = |text: &str| {
        let imported = import(text.as_bytes(), None, "ez").expect("imports");
        let (a, b) = imported.trace.time_bounds().expect("events");
        (b.0 - a.0, imported.notes)
    };
    let (ns, notes) = span(EZTRACE_OTHER_IDS);
    assert_eq!(ns, 3_500_000, "3.5 ms in ns");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("milliseconds") && n.contains("CT_Program")),
        "{notes:?}"
    );
    let (ns, notes) = span(GTG_OTHER_IDS);
    assert_eq!(ns, 5_000_000, "5 ms in ns");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("milliseconds") && n.contains("GTG")),
        "{notes:?}"
    );
    let (ns, notes) = span(&format!("{HEADER}4 1.0 A t1 compute\n3 2.0 CT t1\n"));
    assert_eq!(ns, 2_000_000_000, "2 s in ns");
    assert!(
        notes.iter().any(|n| n.contains("dates read as seconds")),
        "{notes:?}"
    );
}

/// Issue 44, point 13: a Pajé trace with a byte-order mark and CRLF line ends.
#[test]
fn paje_a_byte_order_mark_and_crlf_are_read() {
    let text = format!("\u{feff}{HEADER}4 1.0 A t1 compute\n3 2.0 CT t1\n").replace('\n', "\r\n");
    let imported = import(text.as_bytes(), None, "bom").expect("imports");
    assert_eq!(imported.format, Format::Paje);
    assert_eq!(imported.trace.events.len(), 4);
    assert_eq!(imported.trace.regions[0].name, "compute");
}

/// The probe texts of a ShiViz import, in the order of the processes and their events.
fn texts(trace: &shared::Trace) -> Vec<String> {
    let mut out = Vec::new();
    for p in trace.process_ids() {
        for i in trace.process_events(p) {
            if trace.events.kind()[i] == EventKind::Probe
                && let Some(s) = trace.events.text().at(i).and_then(|s| trace.string(s))
            {
                out.push(s.to_owned());
            }
        }
    }
    out
}

/// Issue 44, point 8: a clock line ending in spaces, with the expression on the log's first
/// line, reads as ShiViz reads it (the expression is not anchored).
#[test]
fn shiviz_clock_lines_ending_in_spaces_are_read() {
    let log = "(?<event>.*)\\n(?<host>\\S*) (?<clock>{.*})\n\nstart\na {\"a\":1}  \nsend\na {\"a\":2}  \nreceive\nb {\"a\":2, \"b\":1}  \n";
    let imported = import(log.as_bytes(), None, "spaces").expect("imports");
    assert_eq!(imported.format, Format::Shiviz);
    assert_eq!(texts(&imported.trace), ["start", "send", "receive"]);
    let sends = kinds(&imported.trace, 0)
        .iter()
        .filter(|k| **k == EventKind::MsgSend)
        .count();
    assert_eq!(sends, 1);
}

/// Issue 44, point 8: a log whose event line comes before its clock line, read without an
/// expression, keeps each event's own text (the layout under which the clocks are consistent).
#[test]
fn shiviz_event_before_clock_without_an_expression_keeps_each_text() {
    let log = "init\na {\"a\":1}\nsend to b\na {\"a\":2}\nreceived from a\nb {\"a\":2, \"b\":1}\nreply\nb {\"a\":2, \"b\":2}\ngot reply\na {\"a\":3, \"b\":2}\n";
    let imported = import(log.as_bytes(), None, "event-first").expect("imports");
    assert_eq!(
        texts(&imported.trace),
        ["init", "send to b", "got reply", "received from a", "reply"]
    );
    assert_eq!(errors(&imported.trace), Vec::<String>::new());
    // The clock line first (GoVector's own layout) is still read as such.
    let log = "a {\"a\":1}\ninit\na {\"a\":2}\nsend to b\nb {\"a\":2, \"b\":1}\nreceived from a\n";
    let imported = import(log.as_bytes(), None, "clock-first").expect("imports");
    assert_eq!(
        texts(&imported.trace),
        ["init", "send to b", "received from a"]
    );
}

/// A GoVector log as GoVector writes it, with its expression on the first line.
const GOVECTOR_LOG: &str = "(?<host>\\S*) (?<clock>{.*})\\n(?<event>.*)\n\nclient {\"client\":1}\nInitialization Complete\nclient {\"client\":2}\nMaking RPC call\nserver {\"server\":1}\nInitialization Complete\nserver {\"client\":2, \"server\":2}\nReceived RPC request\n";

/// Issue 44, point 13: a GoVector log with CRLF line ends, and one with a byte-order mark.
#[test]
fn shiviz_crlf_and_a_byte_order_mark_are_read() {
    let plain = import(GOVECTOR_LOG.as_bytes(), None, "lf").expect("imports");
    let crlf = GOVECTOR_LOG.replace('\n', "\r\n");
    let imported = import(crlf.as_bytes(), None, "crlf").expect("imports");
    assert_eq!(imported.format, Format::Shiviz);
    assert_eq!(imported.trace.events, plain.trace.events);
    assert_eq!(
        texts(&imported.trace),
        [
            "Initialization Complete",
            "Making RPC call",
            "Initialization Complete",
            "Received RPC request"
        ]
    );
    let bom = format!("\u{feff}{GOVECTOR_LOG}");
    let imported = import(bom.as_bytes(), None, "bom").expect("imports");
    assert_eq!(imported.format, Format::Shiviz);
    assert_eq!(imported.trace.events, plain.trace.events);
    // An error in a CRLF log names the byte of the file, not of the text read.
    let bad = "a {\"a\":1}\r\nstart\r\na {\"a\":3}\r\nnext\r\n";
    let e = import(bad.as_bytes(), None, "bad").expect_err("a counter skipped");
    assert_eq!((e.line, e.offset), (3, 18), "{e}");
}

/// A log that does not carry its expression is given it by an `expression.txt` beside it.
#[test]
fn shiviz_an_expression_file_beside_a_log_gives_its_expression() {
    let mut files = BTreeMap::new();
    files.insert(
        "expression.txt".to_owned(),
        b"\\[(?<date>[^\\]]*)\\] (?<event>.*)\\n(?<host>\\S*) (?<clock>{.*})\n".to_vec(),
    );
    files.insert(
        "run.log".to_owned(),
        b"[12:00] start\na {\"a\":1}  \n[12:01] stop\na {\"a\":2}  \n".to_vec(),
    );
    let imported =
        shared::formats::import_files(&files, "run", &shared::formats::Budget::default())
            .expect("imports");
    assert_eq!(imported.format, Format::Shiviz);
    assert_eq!(texts(&imported.trace), ["start", "stop"]);
}
