//! The native format: reading, errors with positions, and writing.

use expect_test::expect;
use proptest::prelude::*;
use shared::formats::native;
use shared::formats::{Format, import};
use shared::model::time::{Clock, Time};
use shared::model::{
    CpuSample, Direction, EventKind, EventRecord, Link, LinkEnd, LinkSample, NodeId, ProcessId,
    RegionRole, Sample, TraceBuilder,
};

use crate::load;

#[test]
fn worked_example_has_two_processes_thirteen_events() {
    let trace = load("t4-worked-example.json");
    assert_eq!(trace.nodes.len(), 2);
    assert_eq!(trace.processes.len(), 2);
    assert_eq!(trace.events.len(), 13);
    assert_eq!(trace.time_bounds(), Some((Time(0), Time(69))));
    assert_eq!(trace.clock.ticks_per_second, None);
    let a_events = trace.process_events(ProcessId(0));
    let kinds: Vec<&str> = trace.events.kind()[a_events]
        .iter()
        .map(|k| k.name())
        .collect();
    assert_eq!(
        kinds,
        [
            "proc_init",
            "msg_send",
            "recv_call",
            "msg_arr",
            "msg_send",
            "proc_exit"
        ]
    );
}

#[test]
fn probes_keep_their_text() {
    let trace = load("master-workers-probes.json");
    let texts: Vec<&str> = (0..trace.events.len())
        .filter(|&i| trace.events.kind()[i] == EventKind::Probe)
        .filter_map(|i| trace.events.text().at(i).and_then(|s| trace.string(s)))
        .collect();
    assert_eq!(
        texts,
        [
            "reading image",
            "distribute",
            "collect",
            "reconstruct",
            "reconstruct"
        ]
    );
    // The same text is interned once.
    assert_eq!(trace.strings.len(), 4);
    assert_eq!(trace.clock.ticks_per_second, Some(1_000_000));
}

/// Parses `input` and renders the error, or "ok".
fn check_error(input: &str, expected: expect_test::Expect) {
    let actual = match import(input.as_bytes(), None, "test") {
        Ok(_) => "ok".to_owned(),
        Err(e) => e.to_string(),
    };
    expected.assert_eq(&actual);
}

const HEAD: &str = r#"{"format": "tracescope", "version": 1,
"nodes": [{"name": "n"}], "processes": [{"name": "p", "node": 0}, {"name": "q", "node": 0}],
"events": ["#;

#[test]
fn syntax_errors_name_line_and_column() {
    check_error(
        &format!(
            "{HEAD}\n{{\"process\": 0, \"time\": 1, \"kind\": \"proc_init\"}},\n{{\"process\": 0 \"time\": 2}}]}}"
        ),
        expect![
            "tracescope-json: line 5, column 15 (byte 206): expected an event object: expected `,` or `}`"
        ],
    );
}

#[test]
fn bad_events_name_their_index_and_position() {
    check_error(
        &format!("{HEAD}\n{{\"process\": 0, \"time\": 1, \"kind\": \"msg_send\"}}]}}"),
        expect![[
            r#"tracescope-json: line 4, column 1 (byte 144): event 0: msg_send expects "to" (the destination process) and no "from""#
        ]],
    );
    check_error(
        &format!("{HEAD}\n{{\"process\": 7, \"time\": 1, \"kind\": \"proc_init\"}}]}}"),
        expect![[
            r#"tracescope-json: line 4, column 1 (byte 144): event 0: process 7 does not exist (the trace declares 2 processes)"#
        ]],
    );
    check_error(
        &format!("{HEAD}\n  {{\"process\": 0, \"time\": 1, \"kind\": \"explode\"}}]}}"),
        expect![
            "tracescope-json: line 4, column 45 (byte 188): expected an event object: unknown variant `explode`, expected one of `proc_init`, `proc_exit`, `msg_send`, `recv_call`, `msg_arr`, `probe`, `enter`, `leave`, `recv_post`, `wait`, `run`"
        ],
    );
    check_error(
        &format!("{HEAD}\n{{\"process\": 0, \"time\": -4, \"kind\": \"proc_init\"}}]}}"),
        expect![
            "tracescope-json: line 4, column 25 (byte 168): expected an event object: invalid value: integer `-4`, expected u64"
        ],
    );
}

#[test]
fn processes_on_missing_nodes_are_refused() {
    check_error(
        r#"{"format": "tracescope", "version": 1, "nodes": [],
           "processes": [{"name": "p", "node": 3}], "events": []}"#,
        expect![[
            r#"tracescope-json: line 2, column 26 (byte 77): node 3 does not exist (the trace declares 0 nodes)"#
        ]],
    );
}

#[test]
fn versions_and_formats_are_checked_first() {
    check_error(
        r#"{"format": "tracescope", "version": 9, "whatever": true}"#,
        expect![
            "tracescope-json: line 1, column 37 (byte 36): unsupported version 9 (this build reads versions 1 to 1)"
        ],
    );
    check_error(
        r#"{"format": "tracescope"}"#,
        expect![[
            r#"tracescope-json: line 1, column 25 (byte 24): expected a member "version", found none"#
        ]],
    );
    check_error(
        "P1 0 0 0 garbage",
        expect![
            "unknown: line 1, column 1 (byte 0): unrecognised trace format: expected one of tracescope-json, tracescope-binary, otf2, chrome-json, paraver, shiviz, paje, tmon, projections"
        ],
    );
    check_error(
        "",
        expect!["unknown: line 1, column 1 (byte 0): empty file: expected a trace, found no data"],
    );
}

#[test]
fn detection_skips_whitespace_and_a_byte_order_mark() {
    let doc = "\u{feff}\n  {\"format\": \"tracescope\"}";
    assert_eq!(
        shared::formats::detect(doc.as_bytes()),
        Some(Format::TracescopeJson)
    );
    assert_eq!(
        shared::formats::detect(b"{\"traceEvents\": []}"),
        Some(Format::ChromeJson)
    );
    assert_eq!(shared::formats::detect(b"hello world"), None);
}

#[test]
fn written_worked_example_reads_back_identical() {
    let trace = load("t4-worked-example.json");
    let text = native::write(&trace);
    let again = native::parse(
        &mut text.as_bytes(),
        "ignored",
        &shared::formats::Budget::default(),
    )
    .expect("written trace parses");
    assert_eq!(again, trace);
}

fn arb_trace() -> impl Strategy<Value = shared::Trace> {
    let events = prop::collection::vec(
        (
            0u32..3,
            0u64..1_000,
            0usize..8,
            0u32..3,
            0u32..4,
            0u64..5000,
            ".{0,6}",
        ),
        0..40,
    );
    let samples = prop::collection::vec((0u32..4, 0u64..500, 0u64..500, 0.0f32..=1.0), 0..4);
    (
        1u32..4,
        events,
        prop::option::of(1u64..10_000_000_000),
        samples,
    )
        .prop_map(|(n_nodes, events, tps, samples)| {
            let mut b = TraceBuilder::new(
                "prop \"trace\"",
                Clock {
                    ticks_per_second: tps,
                },
            );
            for n in 0..n_nodes {
                b.add_node(format!("node {n}"));
            }
            for p in 0..3 {
                b.add_process(format!("p{p}"), NodeId(p % n_nodes))
                    .expect("node exists");
            }
            let regions = [
                b.add_region("work", RegionRole::Activity),
                b.add_region("bcast \u{1F600}", RegionRole::OneToAll),
            ];
            let end = |node: u32| LinkEnd {
                node: NodeId(node % n_nodes),
                link: (node % 4) as u8,
            };
            let link = b
                .add_link(Link {
                    a: end(0),
                    b: end(1),
                    bits_per_second: tps,
                })
                .expect("nodes exist");
            for (node, start, len, utilization) in samples {
                let sample = Sample {
                    start: Time(start),
                    end: Time(start + len),
                    utilization,
                };
                b.add_cpu_sample(CpuSample {
                    node: NodeId(node % n_nodes),
                    sample,
                })
                .expect("valid sample");
                let direction = if node % 2 == 0 {
                    Direction::AToB
                } else {
                    Direction::BToA
                };
                b.add_link_sample(LinkSample {
                    link,
                    direction,
                    sample,
                })
                .expect("valid sample");
            }
            for (process, time, kind, peer, tag, size, text) in events {
                let kind = EventKind::ALL[kind];
                let text = (kind == EventKind::Probe).then(|| b.intern(&text));
                let peer = kind.has_peer().then_some(ProcessId(peer));
                let region = kind.has_region().then_some(regions[(tag % 2) as usize]);
                // A collective's enter may name its root.
                let peer = if kind == EventKind::Enter && tag % 2 == 1 {
                    Some(ProcessId(peer.map_or(0, |p| p.0)))
                } else {
                    peer
                };
                let request = matches!(kind, EventKind::RecvPost | EventKind::MsgArr)
                    .then(|| std::num::NonZeroU32::new(tag + 1))
                    .flatten()
                    .filter(|_| kind == EventKind::RecvPost || size % 2 == 0);
                let record = EventRecord {
                    process: ProcessId(process),
                    time: Time(time),
                    kind,
                    peer,
                    tag,
                    size,
                    text,
                    region,
                    request,
                };
                b.push(record).expect("ids are in range");
            }
            b.build()
        })
}

proptest! {
    #[test]
    fn any_trace_round_trips_through_the_native_format(trace in arb_trace()) {
        let text = native::write(&trace);
        let again = native::parse(&mut text.as_bytes(), "ignored", &shared::formats::Budget::default()).expect("written trace parses");
        prop_assert_eq!(again, trace);
    }

    /// The builder takes events grouped by process straight into its columns and sorts the
    /// rest: both ways build the same events.
    #[test]
    fn events_in_process_order_or_not_build_the_same_trace(trace in arb_trace()) {
        let records: Vec<shared::model::EventRecord> = (0..trace.events.len() as u32)
            .filter_map(|i| trace.events.get(shared::EventIdx(i)))
            .collect();
        let rebuild = |records: &[shared::model::EventRecord]| {
            let mut b = TraceBuilder::new("again", trace.clock);
            for n in &trace.nodes {
                b.add_node(n.name.clone());
            }
            for p in &trace.processes {
                b.add_process(p.name.clone(), p.node).expect("node exists");
            }
            for r in &trace.regions {
                b.add_region(r.name.clone(), r.role);
            }
            for s in &trace.strings {
                b.intern(s);
            }
            for &r in records {
                b.push(r).expect("ids are in range");
            }
            b.build()
        };
        // Grouped by process as stored, and the last process first (out of order whenever two
        // processes have events), each process's own events in their order.
        let mut reversed = records.clone();
        reversed.sort_by_key(|r| std::cmp::Reverse(r.process));
        prop_assert_eq!(&rebuild(&records).events, &trace.events);
        prop_assert_eq!(&rebuild(&reversed).events, &trace.events);
    }

    #[test]
    fn the_model_round_trips_through_serde(trace in arb_trace()) {
        let json = serde_json::to_string(&trace).expect("serializes");
        let again: shared::Trace = serde_json::from_str(&json).expect("deserializes");
        prop_assert_eq!(again, trace);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_importer(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = import(&bytes, None, "fuzz");
        let mut doc = HEAD.as_bytes().to_vec();
        doc.extend_from_slice(&bytes);
        let _ = import(&doc, None, "fuzz");
    }
}

#[test]
fn a_model_with_broken_invariants_is_refused_by_serde() {
    let trace = load("t4-worked-example.json");
    let mut json: serde_json::Value = serde_json::to_value(&trace).expect("serializes");
    json["events"]["peer"][1] = serde_json::json!(9);
    let err = serde_json::from_value::<shared::Trace>(json).expect_err("bad peer is refused");
    assert!(
        err.to_string().contains("peer process that does not exist"),
        "{err}"
    );
}
