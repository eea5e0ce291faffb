//! Causality, dependences, patterns, what-if, clocks and wait states against
//! `docs/analysis.md` §10 (T10–T15, T20–T25, T24b, T27).

use proptest::prelude::*;
use shared::analyses::causality::{Causality, HasseKind, hasse_edges, lamport_clocks, layers};
use shared::analyses::clocks::{ClcOptions, controlled_logical_clock, interpolate};
use shared::analyses::dependence;
use shared::analyses::patterns::{Filter, Pattern};
use shared::analyses::waits::{WaitKind, critical_path_profile, lateness, wait_states};
use shared::analyses::whatif::{Change, observed_weights, parse_scenario, slack, what_if};
use shared::graph::context::Context;
use shared::model::time::Time;
use shared::model::{EventIdx, EventKind, ProcessId, RegionRole};
use shared::{Trace, analyses::metrics::AnalysisOptions};

use crate::analysis::T;
use crate::load;

/// The event of process `p` at position `k` (0-based) of its recorded sequence.
fn ev(trace: &Trace, p: u32, k: usize) -> EventIdx {
    EventIdx((trace.process_events(ProcessId(p)).start + k) as u32)
}

/// T24's trace: P0: s1 → P2, s2 → P1; P1: r2, s3 → P2; P2: x (a probe), r3 (from s3), r1 (from s1).
fn t24() -> Trace {
    let mut t = T::new(3, &[0, 1, 2]);
    let x = t.b.intern("x");
    t.send(0, 1, 2).send(0, 2, 1);
    t.call(1, 0).arr(1, 3, 0).send(1, 4, 2);
    t.push(2, 1, EventKind::Probe, |r| r.text = Some(x));
    t.call(2, 2).arr(2, 5, 1).call(2, 6).arr(2, 7, 0);
    t.build()
}

#[test]
fn t24_vector_clocks_hasse_diagram_and_areas() {
    let trace = t24();
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    // Positions count every event, recv calls included, so read clocks at the named events.
    let s1 = ev(&trace, 0, 0);
    let s2 = ev(&trace, 0, 1);
    let r2 = ev(&trace, 1, 1);
    let s3 = ev(&trace, 1, 2);
    let x = ev(&trace, 2, 0);
    let r3 = ev(&trace, 2, 2);
    let r1 = ev(&trace, 2, 4);
    assert_eq!(c.vector_clock(s1), [1, 0, 0]);
    assert_eq!(c.vector_clock(s2), [2, 0, 0]);
    assert_eq!(c.vector_clock(r2), [2, 2, 0]);
    assert_eq!(c.vector_clock(s3), [2, 3, 0]);
    assert_eq!(c.vector_clock(x), [0, 0, 1]);
    assert_eq!(c.vector_clock(r3), [2, 3, 3]);
    assert_eq!(c.vector_clock(r1), [2, 3, 5]);
    // x is concurrent with s1, s2, r2 and s3.
    for e in [s1, s2, r2, s3] {
        assert!(c.concurrent(x, e));
    }
    // The message edge s1 → r1 is implied (s1 → s2 → r2 → s3 → r3 → r1).
    let hasse = hasse_edges(&cx.graph, &c);
    assert!(!hasse.iter().any(|h| h.from == s1 && h.to == r1));
    let messages = hasse
        .iter()
        .filter(|h| h.kind == HasseKind::Message)
        .count();
    assert_eq!(messages, 2);
    // Without the receive calls, T24's 4 program edges + 2 messages = 6; each call adds one
    // program edge here (3 calls).
    assert_eq!(hasse.len(), 6 + 3);
    let events = |ranges: Vec<shared::analyses::causality::ProcessRange>| {
        let mut v: Vec<EventIdx> = ranges
            .into_iter()
            .flat_map(|r| c.range_events(r).to_vec())
            .collect();
        v.retain(|e| trace.events.kind()[e.index()] != EventKind::RecvCall);
        v.sort();
        v
    };
    let mut pre_r3 = vec![s1, s2, r2, s3, x];
    pre_r3.sort();
    assert_eq!(events(c.pre_area(r3)), pre_r3);
    let mut post_s1 = vec![s2, r2, s3, r3, r1];
    post_s1.sort();
    assert_eq!(events(c.post_area(s1)), post_s1);
    assert_eq!(events(c.post_area(x)), [r3, r1]);
}

/// T24 as analysis.md states it: arrivals but no `recv_call` events.
fn t24_without_receive_calls() -> Trace {
    let mut t = T::new(3, &[0, 1, 2]);
    let x = t.b.intern("x");
    t.send(0, 1, 2).send(0, 2, 1);
    t.arr(1, 3, 0).send(1, 4, 2);
    t.push(2, 1, EventKind::Probe, |r| r.text = Some(x));
    t.arr(2, 5, 1).arr(2, 7, 0);
    t.build()
}

#[test]
fn t24_longest_path_layers_without_receive_calls() {
    let trace = t24_without_receive_calls();
    let cx = Context::new(&trace);
    let layer = layers(&cx.graph);
    let at = |p, k| layer[ev(&trace, p, k).index()];
    // s1 0, s2 1, r2 2, s3 3, x 0, r3 4, r1 5.
    assert_eq!(
        [
            at(0, 0),
            at(0, 1),
            at(1, 0),
            at(1, 1),
            at(2, 0),
            at(2, 1),
            at(2, 2)
        ],
        [0, 1, 2, 3, 0, 4, 5]
    );
    assert_eq!(layer.iter().max(), Some(&5));
    let c = Causality::new(&trace, &cx.graph);
    assert_eq!(hasse_edges(&cx.graph, &c).len(), 6);
    assert_eq!(lamport_clocks(&cx.graph)[ev(&trace, 2, 2).index()], 6);
}

#[test]
fn t24b_dependence_queries() {
    let trace = t24();
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let deps = dependence::parse(
        "DEPENDENCE s1 to r1 IS msg_send{1} ON ALL PROCESS P0 -> msg_arr{2} ON PROCESS P2 END\n\
         # x is concurrent with s3\n\
         DEPENDENCE x before s3 IS x ON PROCESS P2 → msg_send{1} ON PROCESS P1 END",
    )
    .expect("parses");
    assert_eq!(deps.len(), 2);
    let first = dependence::evaluate(&trace, &c, &deps[0]);
    assert!(first.satisfied);
    assert_eq!(first.instances[0].effects, [ev(&trace, 2, 4)]);
    let second = dependence::evaluate(&trace, &c, &deps[1]);
    assert!(!second.satisfied);
    assert!(!second.instances[0].satisfied);
}

#[test]
fn dependence_qualifiers_ranges_and_errors() {
    let trace = t24();
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let eval =
        |text: &str| dependence::evaluate(&trace, &c, &dependence::parse(text).expect("parses")[0]);
    // s1 reaches P2 only; SOME of {P1, P2} holds, ALL does not, 2 does not.
    assert!(
        eval("DEPENDENCE d IS msg_send{1} ON PROCESS P0 -> msg_arr ON SOME PROCESSES {P1, P2} END")
            .satisfied
    );
    assert!(
        !eval("DEPENDENCE d IS msg_send{1} ON PROCESS P0 -> x ON ALL PROCESSES {P1, P2} END")
            .satisfied
    );
    // Both sends of P0 reach an arrival on P2: ranges {1,2} and {1,} agree.
    assert!(
        eval("DEPENDENCE d IS msg_send{1,2} ON PROCESS P0 -> msg_arr ON PROCESS P2 END").satisfied
    );
    assert_eq!(
        eval("DEPENDENCE d IS msg_send{1,} ON PROCESS P0 -> msg_arr ON PROCESS P2 END")
            .instances
            .len(),
        2
    );
    let unknown = eval("DEPENDENCE d IS msg_send ON PROCESS Q9 -> msg_arr ON PROCESS P2 END");
    assert_eq!(
        (unknown.satisfied, unknown.unknown_processes.as_slice()),
        (false, &["Q9".to_owned()][..])
    );
    let err =
        dependence::parse("DEPENDENCE d IS\n  msg_send ON PROCESS P0 msg_arr ON PROCESS P2 END")
            .expect_err("no arrow");
    assert_eq!((err.line, err.column), (2, 26));
    assert!(err.message.contains("expected ->"), "{err}");
    let err = dependence::parse("DEPENDENCE d IS send{3,1} ON PROCESS A -> b ON PROCESS B END")
        .expect_err("bad range");
    assert!(err.message.contains("range"), "{err}");
}

#[test]
fn t27_pattern_search() {
    let mut t = T::new(1, &[0]);
    t.init(0, 0)
        .send(0, 1, 0)
        .call(0, 2)
        .send(0, 3, 0)
        .call(0, 4)
        .exit(0, 5);
    let trace = t.build();
    let matches = Pattern::new("(send recv)+").expect("compiles").find(&trace);
    assert_eq!(matches.len(), 1);
    assert_eq!((matches[0].start, matches[0].len), (1, 4));
    let err = Pattern::new("send bogus").expect_err("unknown word");
    assert!(err.message.contains("bogus") && err.column == 6, "{err}");
}

#[test]
fn a_message_filter_keeps_one_directions_sends_and_arrivals() {
    let trace = load("t4-worked-example.json");
    let kept = |text: &str| -> Vec<(EventKind, u64)> {
        Filter::parse(text, &trace)
            .expect("parses")
            .apply(&trace)
            .iter()
            .map(|&i| {
                (
                    trace.events.kind()[i.index()],
                    trace.events.time()[i.index()].0,
                )
            })
            .collect()
    };
    // B sends one message to A (sent at 38, arrived at 48).
    assert_eq!(
        kept("message=B>A"),
        [(EventKind::MsgArr, 48), (EventKind::MsgSend, 38)]
    );
    assert_eq!(kept("message=A>B").len(), 4, "two messages from A to B");
    let e = Filter::parse("message=A-B", &trace).expect_err("no >");
    assert!(e.message.contains("SENDER>RECEIVER"), "{e:?}");
}

#[test]
fn filters_select_by_kind_node_process_and_time() {
    let trace = load("t4-worked-example.json");
    let f = Filter::parse("kind=send,msg_arr process=B time=30..60", &trace).expect("parses");
    let kept: Vec<(EventKind, u64)> = f
        .apply(&trace)
        .iter()
        .map(|&i| {
            (
                trace.events.kind()[i.index()],
                trace.events.time()[i.index()].0,
            )
        })
        .collect();
    assert_eq!(
        kept,
        [
            (EventKind::MsgArr, 33),
            (EventKind::MsgSend, 38),
            (EventKind::MsgArr, 54)
        ]
    );
    assert_eq!(
        Filter::parse("node=1", &trace)
            .expect("parses")
            .apply(&trace)
            .len(),
        7
    );
    let err = Filter::parse("kind=send colour=red", &trace).expect_err("unknown key");
    assert_eq!(err.column, 11);
}

fn replay(changes: &[Change]) -> f64 {
    let trace = load("t4-worked-example.json");
    what_if(&Context::new(&trace), changes).execution_time
}

/// Events of the worked example: A's m2 arrival is A's 4th event, m1's B's 3rd, m3's B's 6th.
fn t4_event(p: u32, k: usize) -> EventIdx {
    ev(&load("t4-worked-example.json"), p, k)
}

#[test]
fn t10_to_t12_what_if_tier_one() {
    // T10: m2 transit 0 → 59; m1 transit 0 → 61.
    assert_eq!(
        replay(&[Change::Transit {
            arrival: t4_event(0, 3),
            transit: 0.0
        }]),
        59.0
    );
    assert_eq!(
        replay(&[Change::Transit {
            arrival: t4_event(1, 2),
            transit: 0.0
        }]),
        61.0
    );
    // T11: A's first computation 25 → 5 gives 56, not 49; reductions of 5, 10, 13, 20.
    let a_send = t4_event(0, 1);
    for (duration, expected) in [(5.0, 56.0), (20.0, 64.0), (15.0, 59.0), (12.0, 56.0)] {
        assert_eq!(
            replay(&[Change::Computation {
                to: a_send,
                duration
            }]),
            expected,
            "{duration}"
        );
    }
    // T11b: B's last computation 15 → 0 gives 54.
    assert_eq!(
        replay(&[Change::Computation {
            to: t4_event(1, 6),
            duration: 0.0
        }]),
        54.0
    );
    // T12: an ideal network gives 53.
    assert_eq!(replay(&[Change::AllTransits { transit: 0.0 }]), 53.0);
    // With A's first computation at 5, the new critical path is the B-init chain of 56.
    let trace = load("t4-worked-example.json");
    let result = what_if(
        &Context::new(&trace),
        &[Change::Computation {
            to: a_send,
            duration: 5.0,
        }],
    );
    let weights: Vec<f64> = result.critical_path.iter().map(|s| s.weight).collect();
    assert_eq!(weights, [20.0, 5.0, 10.0, 3.0, 3.0, 15.0]);
    assert_eq!(result.critical_path[0].to_event, ev(&trace, 1, 1));
}

#[test]
fn t11_slack_bounds_the_benefit() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let s = slack(&cx, &observed_weights(&cx));
    assert_eq!(s.length, 69.0);
    // A's computation [25,35] is off the critical path with slack 13 (69 − 56).
    assert_eq!(s.program[ev(&trace, 0, 2).index()], Some(13.0));
    // Edges on the critical path have slack 0.
    assert_eq!(s.program[ev(&trace, 0, 1).index()], Some(0.0));
    assert_eq!(s.message[ev(&trace, 1, 2).index()], Some(0.0));
}

#[test]
fn t20_tier_three_network_models() {
    assert_eq!(replay(&[Change::ScaleTransits { factor: 0.5 }]), 58.5);
    assert_eq!(
        replay(&[Change::Network {
            latency: 1.0,
            bandwidth: 200.0
        }]),
        61.5
    );
}

#[test]
fn what_if_scenarios_parse() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let changes = parse_scenario("transit=0", &cx).expect("parses");
    assert_eq!(what_if(&cx, &changes).execution_time, 53.0);
    let changes = parse_scenario("latency=1,bandwidth=200", &cx).expect("parses");
    assert_eq!(what_if(&cx, &changes).execution_time, 61.5);
    let arrival = t4_event(0, 3).0;
    let changes = parse_scenario(&format!("message={arrival}:transit=0"), &cx).expect("parses");
    assert_eq!(what_if(&cx, &changes).benefit, 10.0);
    let err = parse_scenario("message=0:transit=0", &cx).expect_err("event 0 is no arrival");
    assert!(err.message.contains("not a message arrival"), "{err}");
    assert!(parse_scenario("warp=9", &cx).is_err());
}

#[test]
fn t21_offset_interpolation() {
    let offsets = [(0.0, 5.0), (100.0, 7.0)];
    assert_eq!(interpolate(50.0, &offsets), 56.0);
    assert_eq!(interpolate(100.0, &offsets), 107.0);
    assert_eq!(interpolate(0.0, &offsets), 5.0);
}

/// T22's trace: P0 sends at 10; P1 has events at 5, a receive at 9, then 12 and 20.
fn t22(extra_p1_event_at_7: bool) -> Trace {
    let mut t = T::new(2, &[0, 1]);
    t.send(0, 10, 1);
    t.init(1, 5);
    if extra_p1_event_at_7 {
        t.push(1, 7, EventKind::Probe, |_| {});
    }
    t.arr(1, 9, 0)
        .push(1, 12, EventKind::Probe, |_| {})
        .exit(1, 20);
    t.build()
}

fn repaired(trace: &Trace, options: ClcOptions) -> Vec<f64> {
    let pairing = shared::graph::pairing::pair_messages(trace);
    controlled_logical_clock(trace, &pairing, options).times
}

#[test]
fn t22_controlled_logical_clock_forward() {
    let trace = t22(false);
    let forward = |gamma| ClcOptions {
        gamma,
        min_latency: 1.0,
        min_spacing: 0.0,
        backward_slope: None,
    };
    let times = repaired(&trace, forward(1.0));
    let p1 = |k| times[ev(&trace, 1, k).index()];
    assert_eq!([p1(0), p1(1), p1(2), p1(3)], [5.0, 11.0, 14.0, 22.0]);
    // T22b: with γ = 0.5 the shift is absorbed.
    let times = repaired(&trace, forward(0.5));
    let p1 = |k| times[ev(&trace, 1, k).index()];
    assert_eq!([p1(1), p1(2), p1(3)], [11.0, 12.5, 20.0]);
    let repair = controlled_logical_clock(
        &trace,
        &shared::graph::pairing::pair_messages(&trace),
        forward(0.5),
    );
    assert_eq!((repair.violations_before, repair.violations_after), (1, 0));
    assert_eq!(repair.moves.len(), 2);
    assert_eq!(repair.max_shift, 2.0);
}

#[test]
fn t22c_a_consistent_trace_is_unchanged() {
    let trace = load("t4-worked-example.json");
    for gamma in [1.0, 0.5, 0.0] {
        let options = ClcOptions {
            gamma,
            min_latency: 1.0,
            ..ClcOptions::default()
        };
        let repair = controlled_logical_clock(
            &trace,
            &shared::graph::pairing::pair_messages(&trace),
            options,
        );
        assert!(repair.moves.is_empty(), "{gamma}: {:?}", repair.moves);
    }
}

#[test]
fn t23_controlled_logical_clock_backward_ramp() {
    let trace = t22(true);
    let options = ClcOptions {
        gamma: 1.0,
        min_latency: 1.0,
        min_spacing: 0.0,
        backward_slope: Some(0.01),
    };
    let times = repaired(&trace, options);
    let p1 = |k| times[ev(&trace, 1, k).index()];
    // t_l = 9 − 2/0.01 < 5, so t_l = 5 and m = 2/4 = 0.5: 7 → 8, 5 stays.
    assert_eq!([p1(0), p1(1), p1(2)], [5.0, 8.0, 11.0]);
}

#[test]
fn t13_late_sender_on_the_worked_example() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let waits = wait_states(&cx);
    let late: Vec<(u32, f64)> = waits
        .iter()
        .filter(|w| w.kind == WaitKind::LateSender)
        .map(|w| (w.process.0, w.time))
        .collect();
    assert_eq!(late, [(1, 5.0), (1, 8.0), (0, 3.0)]);
    let total: f64 = late.iter().map(|l| l.1).sum();
    assert_eq!(total, 16.0);
    // Blocked − Late Sender = total transit.
    let a = shared::analyses::metrics::analyze(&trace, AnalysisOptions::default());
    let blocked: u64 = a.process_times.iter().map(|p| p.blocked).sum();
    assert_eq!(blocked as f64 - total, 21.0);
}

#[test]
fn t13b_late_receiver() {
    let mut t = T::new(2, &[0, 1]);
    let ssend = t.b.add_region("MPI_Ssend", RegionRole::Communication);
    t.enter(0, 2, ssend).send(0, 2, 1).leave(0, 10, ssend);
    t.call(1, 9).arr(1, 10, 0);
    let trace = t.build();
    let waits = wait_states(&Context::new(&trace));
    let lr: Vec<(u32, f64)> = waits
        .iter()
        .filter(|w| w.kind == WaitKind::LateReceiver)
        .map(|w| (w.process.0, w.time))
        .collect();
    assert_eq!(lr, [(0, 7.0)]);
}

#[test]
fn t14_critical_path_profile_in_scalasca_terms() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let a = shared::analyses::metrics::analyze(&trace, AnalysisOptions::default());
    let waits = wait_states(&cx);
    let p = critical_path_profile(&cx, &a, &waits);
    assert_eq!((p.computation, p.communication), (48.0, 21.0));
    assert_eq!(
        (p.computation_imbalance, p.communication_imbalance),
        (5.5, 10.5)
    );
}

/// T15: P0 computes 10 and sends to P1; P1 computes 4, waits 6, sends to P2; P2 computes 4 and
/// waits 6; transits are 0.
#[test]
fn t15_delay_costs() {
    let mut t = T::new(3, &[0, 1, 2]);
    let comp = t.b.add_region("comp", RegionRole::Activity);
    t.init(0, 0)
        .enter(0, 0, comp)
        .leave(0, 10, comp)
        .send(0, 10, 1)
        .exit(0, 10);
    t.init(1, 0)
        .enter(1, 0, comp)
        .leave(1, 4, comp)
        .call(1, 4)
        .arr(1, 10, 0)
        .send(1, 10, 2)
        .exit(1, 10);
    t.init(2, 0)
        .enter(2, 0, comp)
        .leave(2, 4, comp)
        .call(2, 4)
        .arr(2, 10, 1)
        .exit(2, 10);
    let trace = t.build();
    let cx = Context::new(&trace);
    let s = shared::analyses::waits::summarize_waits(&cx, &wait_states(&cx));
    let late: f64 = s.states.iter().map(|w| w.time).sum();
    assert_eq!(late, 12.0);
    assert_eq!(
        s.short_term_costs,
        [("P0".to_owned(), "comp".to_owned(), 6.0, ProcessId(0))]
    );
    assert_eq!(
        s.long_term_costs,
        [("P0".to_owned(), "comp".to_owned(), 6.0, ProcessId(0))]
    );
    let a = shared::analyses::metrics::analyze(&trace, AnalysisOptions::default());
    assert_eq!(a.critical_path.length, 10);
    assert!((a.pop.load_balance - 0.6).abs() < 1e-12);
}

/// T25: a ring of 3: sends leave at 10, 10, 16 (step 0); receives complete at P0 18, P1 12,
/// P2 18 (step 1; P0 receives from P2, P1 from P0, P2 from P1).
#[test]
fn t25_lateness() {
    let mut t = T::new(3, &[0, 1, 2]);
    t.send(0, 10, 1).arr(0, 18, 2);
    t.send(1, 10, 2).arr(1, 12, 0);
    t.send(2, 16, 0).arr(2, 18, 1);
    let trace = t.build();
    let l = lateness(&Context::new(&trace));
    let of = |p, k| {
        l.iter()
            .find(|x| x.event == ev(&trace, p, k))
            .copied()
            .expect("a communication event")
    };
    assert_eq!(
        [of(0, 0).lateness, of(1, 0).lateness, of(2, 0).lateness],
        [0.0, 0.0, 6.0]
    );
    assert_eq!(
        [of(0, 1).lateness, of(1, 1).lateness, of(2, 1).lateness],
        [6.0, 0.0, 6.0]
    );
    assert_eq!([of(0, 1).step, of(2, 0).step], [1, 0]);
    let differential: Vec<f64> = l.iter().map(|x| x.differential).collect();
    assert_eq!(differential.iter().filter(|&&d| d > 0.0).count(), 1);
    assert_eq!(of(2, 0).differential, 6.0);
}

/// Random traces, with arbitrary clocks (violations included).
pub(crate) fn arb_trace() -> impl Strategy<Value = Trace> {
    let steps = prop::collection::vec((0u32..4, 0u32..4, 0u64..30, 0u64..30), 0..30);
    (2u32..5, steps).prop_map(|(n, steps)| {
        let processes: Vec<u32> = (0..n).collect();
        let mut t = T::new(n, &processes);
        let barrier = t.b.add_region("barrier", RegionRole::Barrier);
        let bcast = t.b.add_region("bcast", RegionRole::OneToAll);
        for (from, to, sent, arrived) in steps {
            let (from, to) = (from % n, to % n);
            if from != to {
                t.send(from, sent, to);
                t.arr(to, arrived, from);
            } else if sent % 3 == 0 {
                // Every process joins a collective (each at its own time).
                let region = if sent % 2 == 0 { barrier } else { bcast };
                for p in 0..n {
                    let at = (sent + u64::from(p) * arrived) % 40;
                    t.push(p, at, EventKind::Enter, |r| {
                        r.region = Some(region);
                        r.peer = Some(ProcessId(from));
                    });
                    t.leave(p, at + 1, region);
                }
            }
        }
        t.build()
    })
}

/// Plain reachability in the execution graph, for checking the vector clocks.
fn reachable(
    cx: &Context<'_>,
    from: EventIdx,
    to: EventIdx,
    skip: Option<(EventIdx, EventIdx)>,
) -> bool {
    let n = cx.graph.len();
    let mut arrival_of = vec![None; n];
    for v in (0..n as u32).map(EventIdx) {
        if let Some(s) = cx.graph.message_from(v) {
            arrival_of[s.index()] = Some(v);
        }
    }
    let mut seen = vec![false; n];
    let mut stack = vec![from];
    while let Some(v) = stack.pop() {
        let through_hub: Vec<EventIdx> = cx
            .graph
            .hub_from(v)
            .map(|h| cx.graph.hub_targets(h).collect())
            .unwrap_or_default();
        for w in [cx.graph.next(v), arrival_of[v.index()]]
            .into_iter()
            .flatten()
            .chain(through_hub)
        {
            if skip == Some((v, w)) || seen[w.index()] {
                continue;
            }
            if w == to {
                return true;
            }
            seen[w.index()] = true;
            stack.push(w);
        }
    }
    false
}

proptest! {
    #[test]
    fn happened_before_is_reachability_and_hasse_is_the_reduction(trace in arb_trace()) {
        let cx = Context::new(&trace);
        let c = Causality::new(&trace, &cx.graph);
        let n = cx.graph.len() as u32;
        for e in (0..n).map(EventIdx) {
            for f in (0..n).map(EventIdx) {
                prop_assert_eq!(c.happened_before(e, f), e != f && reachable(&cx, e, f, None), "{:?} {:?}", e, f);
            }
        }
        for h in hasse_edges(&cx.graph, &c) {
            // A graph edge…
            let is_edge = match h.kind {
                HasseKind::Message => cx.graph.message_from(h.to) == Some(h.from),
                HasseKind::Program => cx.graph.prev(h.to) == Some(h.from),
                HasseKind::Collective => cx.graph.hub_into(h.to).is_some_and(|hub| cx.graph.hub_sources(hub).any(|s| s == h.from)),
            };
            prop_assert!(is_edge);
            // …that no other path implies.
            prop_assert!(!reachable(&cx, h.from, h.to, Some((h.from, h.to))), "{:?}", h);
        }
    }

    #[test]
    fn clc_leaves_no_violation_and_keeps_consistent_traces(trace in arb_trace(), gamma in 0.0f64..=1.0, latency in 0u64..3) {
        let pairing = shared::graph::pairing::pair_messages(&trace);
        let options = ClcOptions { gamma, min_latency: latency as f64, ..ClcOptions::default() };
        let repair = controlled_logical_clock(&trace, &pairing, options);
        let cx = Context::new(&trace);
        // Only a causality cycle (dropped from the graph) can leave a violation behind.
        if cx.graph.dropped_messages().is_empty() {
            prop_assert_eq!(repair.violations_after, 0);
        }
        // A trace without violations (and with each process's times in order) is unchanged.
        let in_order = trace.process_ids().all(|p| {
            let times = &trace.events.time()[trace.process_events(p)];
            times.windows(2).all(|w| w[0] <= w[1])
        });
        if repair.violations_before == 0 && in_order {
            prop_assert!(repair.moves.is_empty());
        }
        // Repair never moves an event earlier, and keeps each process's order.
        for p in trace.process_ids() {
            let range = trace.process_events(p);
            for i in range.clone() {
                prop_assert!(repair.times[i] >= trace.events.time()[i].0 as f64 - 1e-9);
                if i > range.start && trace.events.time()[i] >= trace.events.time()[i - 1] {
                    prop_assert!(repair.times[i] >= repair.times[i - 1] - 1e-9);
                }
            }
        }
    }
}

#[test]
fn t24_time_order_agrees_with_layers() {
    let trace = t24();
    let cx = Context::new(&trace);
    let lamport = lamport_clocks(&cx.graph);
    for v in (0..cx.graph.len() as u32).map(EventIdx) {
        if let Some(p) = cx.graph.prev(v) {
            assert!(lamport[v.index()] > lamport[p.index()]);
        }
        if let Some(s) = cx.graph.message_from(v) {
            assert!(lamport[v.index()] > lamport[s.index()]);
        }
    }
    assert_eq!(trace.events.time()[ev(&trace, 2, 4).index()], Time(7));
}

/// T16: 3 ranks enter an Allreduce at 3, 7 and 10; all leave at 12.
#[test]
fn t16_wait_at_nxn_and_the_critical_path_through_the_collective() {
    let mut t = T::new(3, &[0, 1, 2]);
    let allreduce = t.b.add_region("MPI_Allreduce", RegionRole::AllToAll);
    for (p, enter) in [(0, 3), (1, 7), (2, 10)] {
        t.init(p, 0)
            .enter(p, enter, allreduce)
            .leave(p, 12, allreduce)
            .exit(p, 12);
    }
    let trace = t.build();
    let cx = Context::new(&trace);
    let waits: Vec<(u32, f64)> = wait_states(&cx)
        .iter()
        .map(|w| (w.process.0, w.time))
        .collect();
    assert_eq!(waits, [(0, 7.0), (1, 3.0)]);
    let a = shared::analyses::metrics::analyze(&trace, AnalysisOptions::default());
    assert_eq!(a.critical_path.length, 12);
    // The path runs on rank 2, the last to enter: computation 10, then the collective 2.
    let route: Vec<(u32, f64)> = a
        .critical_path
        .segments
        .iter()
        .map(|s| (s.process.0, s.weight))
        .collect();
    assert_eq!(route[0], (2, 10.0));
    assert_eq!(route.iter().map(|r| r.1).sum::<f64>(), 12.0);
    assert_eq!(
        a.critical_path.segments.last().map(|s| s.kind),
        Some(shared::graph::critical_path::SegmentKind::Collective)
    );
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    // Blocked time inside the collective: 9, 5 and 2.
    let blocked: Vec<u64> = a.process_times.iter().map(|p| p.blocked).collect();
    assert_eq!(blocked, [9, 5, 2]);
    // A later entry by rank 0 would move the path there.
    let faster = what_if(
        &cx,
        &[Change::Computation {
            to: ev(&trace, 2, 1),
            duration: 4.0,
        }],
    );
    assert_eq!(faster.execution_time, 9.0);
}

/// T16b: P1 posts two receives, enters Waitall at 1; P0 sends at 4, P2 at 7.
#[test]
fn t16b_waitall_is_charged_the_latest_sender_once() {
    let mut t = T::new(3, &[0, 1, 2]);
    let waitall = t.b.add_region("MPI_Waitall", RegionRole::Communication);
    let request = |n| std::num::NonZeroU32::new(n);
    t.send(0, 4, 1);
    t.send(2, 7, 1);
    t.push(1, 0, EventKind::RecvPost, |r| r.request = request(1));
    t.push(1, 0, EventKind::RecvPost, |r| r.request = request(2));
    t.enter(1, 1, waitall);
    t.push(1, 4, EventKind::MsgArr, |r| {
        r.peer = Some(ProcessId(0));
        r.request = request(1);
    });
    t.push(1, 7, EventKind::MsgArr, |r| {
        r.peer = Some(ProcessId(2));
        r.request = request(2);
    });
    t.leave(1, 7, waitall);
    let trace = t.build();
    let cx = Context::new(&trace);
    let late: Vec<f64> = wait_states(&cx)
        .iter()
        .filter(|w| w.kind == WaitKind::LateSender)
        .map(|w| w.time)
        .collect();
    assert_eq!(late, [6.0]);
    let a = shared::analyses::metrics::analyze(&trace, AnalysisOptions::default());
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    assert_eq!(a.process_times[1].blocked, 6);
}

/// T18: P1 posts q1 then q2 on one channel, waits for q2 first; P0 sends s1 then s2.
#[test]
fn t18_non_blocking_receives_pair_in_posting_order() {
    let mut t = T::new(2, &[0, 1]);
    let request = |n| std::num::NonZeroU32::new(n);
    t.send(0, 1, 1).send(0, 2, 1);
    t.push(1, 0, EventKind::RecvPost, |r| r.request = request(1));
    t.push(1, 0, EventKind::RecvPost, |r| r.request = request(2));
    t.push(1, 5, EventKind::MsgArr, |r| {
        r.peer = Some(ProcessId(0));
        r.request = request(2);
    });
    t.push(1, 6, EventKind::MsgArr, |r| {
        r.peer = Some(ProcessId(0));
        r.request = request(1);
    });
    let trace = t.build();
    let pairing = shared::graph::pairing::pair_messages(&trace);
    let pairs: Vec<(EventIdx, EventIdx)> = pairing
        .messages
        .iter()
        .map(|m| (m.send, m.arrival))
        .collect();
    // s1 ↔ q1's completion (recorded second), s2 ↔ q2's (recorded first).
    assert_eq!(
        pairs,
        [
            (ev(&trace, 0, 0), ev(&trace, 1, 3)),
            (ev(&trace, 0, 1), ev(&trace, 1, 2))
        ]
    );
    let a = shared::analyses::metrics::analyze(&trace, AnalysisOptions::default());
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
}

#[test]
fn unmatched_requests_and_incomplete_collectives_are_diagnosed() {
    let mut t = T::new(2, &[0, 1]);
    let barrier = t.b.add_region("barrier", RegionRole::Barrier);
    t.push(0, 0, EventKind::RecvPost, |r| {
        r.request = std::num::NonZeroU32::new(9)
    });
    t.enter(0, 1, barrier)
        .leave(0, 2, barrier)
        .enter(0, 3, barrier)
        .leave(0, 4, barrier);
    t.enter(1, 1, barrier).leave(1, 2, barrier);
    let a = shared::analyses::metrics::analyze(&t.build(), AnalysisOptions::default());
    let kinds: Vec<_> = a.diagnostics.iter().map(|d| d.kind).collect();
    use shared::analyses::validate::DiagnosticKind::{IncompleteCollective, UnmatchedRequest};
    assert_eq!(kinds, [IncompleteCollective, UnmatchedRequest]);
}

/// On T22's trace (first event at 5) the receive at 9 is 1 tick before its send at 10: on the
/// recorded clocks the path through the message (5 to the send at 10, then P1 from 9 to 20)
/// would weigh 5 + 11 = 16 against a run of 15. The execution time and the critical path are
/// both taken on the repaired clocks (γ = 0.99999, backward slope 0.01, l_min = 0): the receive
/// → 10, 12 → ⌈12.99997⌉ = 13, 20 → ⌈20.99989⌉ = 21, 5 stays; so both are 21 − 5 = 16.
#[test]
fn t22_the_critical_path_and_the_execution_time_share_the_repaired_clocks() {
    use shared::analyses::metrics::{AnalysisOptions, Clocks, analyze};
    let trace = t22(false);
    let a = analyze(&trace, AnalysisOptions::default());
    assert_eq!(a.clocks, Clocks::Repaired);
    let origin = trace.time_bounds().expect("events").0.0;
    assert_eq!(origin, 5, "P1 starts at 5");
    assert_eq!(a.execution_time, 16);
    assert_eq!(a.critical_path.length, 16);
    // A consistent trace keeps its recorded clocks.
    let consistent = load("t4-worked-example.json");
    let a = analyze(&consistent, AnalysisOptions::default());
    assert_eq!(a.clocks, Clocks::Recorded);
    assert!(a.critical_path.length <= a.execution_time);
}

/// T24 as the Hasse view draws it: every event a vertex, every engine Hasse edge a drawn edge,
/// layers s1 0, s2 1, r2 2, s3 3, x 0, r3 4, r1 5 (6 layers) and Lamport times one more.
#[test]
fn t24_the_drawn_diagram_is_the_engines_with_the_hand_computed_layers() {
    use shared::view::hasse::{Axis, Collapse, Diagram};
    let trace = t24_without_receive_calls();
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let d = Diagram::new(&trace, &cx.graph, &c, Collapse::Runs { expanded: &[] });
    // x is a local run of one event: nothing collapses.
    assert_eq!(d.vertices.len(), trace.events.len());
    let mut drawn: Vec<(EventIdx, EventIdx, HasseKind)> = d
        .edges
        .iter()
        .map(|e| {
            (
                d.vertices[e.from as usize].event,
                d.vertices[e.to as usize].event,
                e.kind,
            )
        })
        .collect();
    let mut engine: Vec<(EventIdx, EventIdx, HasseKind)> = hasse_edges(&cx.graph, &c)
        .iter()
        .map(|h| (h.from, h.to, h.kind))
        .collect();
    drawn.sort_by_key(|e| (e.0, e.1));
    engine.sort_by_key(|e| (e.0, e.1));
    assert_eq!(drawn, engine);
    assert_eq!(drawn.len(), 6);
    let layer = |p, k| d.vertices[d.vertex_of[ev(&trace, p, k).index()] as usize].layer;
    assert_eq!(
        [
            layer(0, 0),
            layer(0, 1),
            layer(1, 0),
            layer(1, 1),
            layer(2, 0),
            layer(2, 1),
            layer(2, 2)
        ],
        [0, 1, 2, 3, 0, 4, 5]
    );
    assert_eq!(d.layers, 6);
    let r1 = d.vertices[d.vertex_of[ev(&trace, 2, 2).index()] as usize];
    assert_eq!(r1.lamport, 6);
    assert_eq!(d.x(&r1, Axis::Lamport), 6);
    assert_eq!(d.x(&r1, Axis::Physical), 7);
    assert!(d.edges.iter().all(|e| !e.backwards), "a consistent trace");
}

/// A local run of three probes collapses into one vertex with a count, which takes one layer;
/// expanded, it is three vertices on three layers.
#[test]
fn a_local_run_collapses_into_one_vertex_unless_expanded() {
    use shared::view::hasse::{Collapse, Diagram};
    let mut t = T::new(2, &[0, 1]);
    t.push(0, 1, EventKind::Probe, |_| {})
        .push(0, 2, EventKind::Probe, |_| {})
        .push(0, 3, EventKind::Probe, |_| {})
        .send(0, 4, 1);
    t.arr(1, 6, 0);
    let trace = t.build();
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let collapsed = Diagram::new(&trace, &cx.graph, &c, Collapse::Runs { expanded: &[] });
    assert_eq!(collapsed.vertices.len(), 3);
    assert_eq!(collapsed.vertices[0].count, 3);
    assert_eq!(collapsed.vertices[0].last_time, Time(3));
    // run 0, send 1, arrival 2.
    let layers: Vec<u32> = collapsed.vertices.iter().map(|v| v.layer).collect();
    assert_eq!(layers, [0, 1, 2]);
    assert_eq!(collapsed.layers, 3);
    let first = ev(&trace, 0, 0);
    let expanded = Diagram::new(&trace, &cx.graph, &c, Collapse::Runs { expanded: &[first] });
    assert_eq!(expanded.vertices.len(), 5);
    assert_eq!(expanded.layers, 5);
    assert_eq!(
        Diagram::new(&trace, &cx.graph, &c, Collapse::None),
        expanded
    );
}

/// On the Paraver sample (two messages arrive before they are sent) the drawn diagram marks
/// exactly those two message edges as going back in physical time.
#[test]
fn the_clock_violations_are_the_backward_edges() {
    use shared::view::hasse::{Collapse, Diagram};
    let trace = crate::load("traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let d = Diagram::new(&trace, &cx.graph, &c, Collapse::Runs { expanded: &[] });
    let backwards: Vec<_> = d.edges.iter().filter(|e| e.backwards).collect();
    assert_eq!(backwards.len(), 2, "{backwards:?}");
    assert!(backwards.iter().all(|e| e.kind == HasseKind::Message));
    assert!(d.vertices.len() < trace.events.len(), "local runs collapse");
}

/// The vector clocks of the vendored ShiViz logs come back: for every logged event e on host h
/// and every host g, e's logged counter for g is the number of g's events that happened
/// before e (or are e), as the engine's happened-before computes it on the imported trace.
#[test]
fn the_shiviz_samples_reproduce_every_logged_clock() {
    use std::collections::{BTreeMap, HashMap};
    for (file, pattern) in [
        (
            "traces/shiviz/govector-RpcClientServer.log",
            shared::formats::shiviz::GOVECTOR_REGEX,
        ),
        (
            "traces/shiviz/simple-reliable-broadcast.log",
            shared::formats::shiviz::AKKA_REGEX,
        ),
    ] {
        let text = std::fs::read_to_string(crate::data_path(file)).expect("sample");
        let trace = shared::formats::import(text.as_bytes(), None, file)
            .expect("imports")
            .trace;
        let cx = Context::new(&trace);
        let c = Causality::new(&trace, &cx.graph);
        // Each host's ShiViz events are its probes, in order.
        let mut probes: HashMap<String, Vec<EventIdx>> = HashMap::new();
        for p in trace.process_ids() {
            let name = trace.processes[p.index()].name.clone();
            let list = trace
                .process_events(p)
                .filter(|&i| trace.events.kind()[i] == EventKind::Probe)
                .map(|i| EventIdx(i as u32))
                .collect();
            probes.insert(name, list);
        }
        // JavaScript reads a bare `{` as a literal; Rust's regex wants it escaped.
        let pattern = pattern.replace("{.*}", r"\{.*\}");
        let re = regex::Regex::new(&format!("(?m)^{pattern}$")).expect("regex");
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut checked = 0;
        for caps in re.captures_iter(&text) {
            let host = caps["host"].to_owned();
            let clock: BTreeMap<String, u64> =
                serde_json::from_str(&caps["clock"]).expect("a JSON clock");
            let k = seen.entry(host.clone()).or_default();
            let e = probes[&host][*k];
            *k += 1;
            for (g, events) in &probes {
                let logged = clock.get(g).copied().unwrap_or(0) as usize;
                let before = events
                    .iter()
                    .filter(|&&f| f == e || c.happened_before(f, e))
                    .count();
                assert_eq!(before, logged, "{file}: event {k} of {host}, host {g}");
                checked += 1;
            }
        }
        assert!(checked >= 20, "{file}: {checked} clock entries checked");
    }
}

/// Motifs on a hand-made run: P0 asks P1 (m1), P1 answers (m2), P0 asks again (m3) and tells P2
/// (m4) without waiting, P1 passes m3 on to P2 (m5).
#[test]
fn motifs_request_response_broadcast_and_chain() {
    use shared::analyses::motifs::{Motif, find};
    let mut t = T::new(3, &[0, 1, 2]);
    t.send(0, 1, 1)
        .arr(0, 4, 1)
        .send(0, 5, 1)
        .send(0, 6, 2)
        .exit(0, 10);
    t.arr(1, 2, 0)
        .send(1, 3, 0)
        .arr(1, 7, 0)
        .send(1, 8, 2)
        .exit(1, 10);
    t.arr(2, 7, 0).arr(2, 9, 1).exit(2, 10);
    let trace = t.build();
    let pairing = shared::graph::pairing::pair_messages(&trace);
    assert_eq!(pairing.messages.len(), 5);
    let e = |p, k| ev(&trace, p, k);
    // m1 is answered by m2, m2 by m3; m3, m4 and m5 get no answer.
    let rr = find(&trace, &pairing, Motif::RequestResponse);
    assert_eq!(rr.len(), 2);
    assert_eq!(rr[0].events, [e(0, 0), e(1, 0), e(1, 1), e(0, 1)]);
    // P0's m3 and m4 go to two processes with no arrival between them.
    let b = find(&trace, &pairing, Motif::Broadcast(2));
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].events, [e(0, 2), e(0, 3)]);
    assert!(find(&trace, &pairing, Motif::Broadcast(3)).is_empty());
    // m1 → m2 → m3 → m5: one chain of four messages.
    let c = find(&trace, &pairing, Motif::Chain(3));
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].events.len(), 8);
    assert_eq!(c[0].events[0], e(0, 0));
    assert_eq!(c[0].events[7], e(2, 1));
    assert!(find(&trace, &pairing, Motif::Chain(5)).is_empty());
    assert_eq!(Motif::parse("chain 3"), Ok(Motif::Chain(3)));
    assert_eq!(Motif::parse("request-response"), Ok(Motif::RequestResponse));
    assert!(Motif::parse("broadcast 1").is_err());
    assert!(Motif::parse("star").is_err());
}

/// A window's marks are exactly the vertices of each row grouped by pixel: checked against a
/// plain grouping on the Paraver sample, on every axis, at several widths and windows.
#[test]
fn hasse_window_marks_group_every_vertex_by_row_and_pixel() {
    use shared::view::hasse::{Axis, Collapse, Diagram, in_window};
    let trace = crate::load("traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let d = Diagram::new(&trace, &cx.graph, &c, Collapse::None);
    let (start, end) = trace
        .time_bounds()
        .map(|(a, b)| (a.0, b.0))
        .expect("events");
    let rows = [2u32, 0, 3];
    for axis in [Axis::Layer, Axis::Lamport, Axis::Physical] {
        for width in [3.0, 40.0, 333.0, 2000.0] {
            for window in [
                (start, end),
                (start + (end - start) / 3, start + (end - start) / 2),
            ] {
                let w = d.window(&rows, window, axis, width);
                // The plain grouping: (row, pixel) → (first vertex, events).
                let per_px = (w.extent.1 - w.extent.0) as f64 / width;
                let mut expected: Vec<(u32, i64, u32, u64)> = Vec::new();
                for (row, &p) in rows.iter().enumerate() {
                    for (i, v) in d.vertices.iter().enumerate() {
                        if v.process.0 != p || !in_window(v, window) {
                            continue;
                        }
                        let px = (d.x(v, axis).saturating_sub(w.extent.0)) as f64 / per_px;
                        let key = (row as u32, px.round() as i64);
                        match expected.last_mut() {
                            Some(last) if (last.0, last.1) == key => last.3 += u64::from(v.count),
                            _ => expected.push((key.0, key.1, i as u32, u64::from(v.count))),
                        }
                    }
                }
                let got: Vec<(u32, i64, u32, u64)> = w
                    .marks
                    .iter()
                    .map(|m| (m.row, m.px.round() as i64, m.vertex, m.events))
                    .collect();
                let got_keys: Vec<(u32, u32, u64)> = got.iter().map(|g| (g.0, g.2, g.3)).collect();
                let expected_keys: Vec<(u32, u32, u64)> =
                    expected.iter().map(|e| (e.0, e.2, e.3)).collect();
                assert_eq!(got_keys, expected_keys, "{axis:?} {width} {window:?}");
                // Every diagram edge between two different marks is drawn, bundled by pair.
                let mut mark_of = vec![None; d.vertices.len()];
                for (k, m) in w.marks.iter().enumerate() {
                    let last = w.marks.get(k + 1).filter(|n| n.row == m.row).map_or_else(
                        || {
                            let p = rows[m.row as usize];
                            d.vertices
                                .iter()
                                .rposition(|v| v.process.0 == p && in_window(v, window))
                                .map_or(m.vertex as usize, |i| i + 1)
                        },
                        |n| n.vertex as usize,
                    );
                    for slot in &mut mark_of[m.vertex as usize..last] {
                        *slot = Some(k as u32);
                    }
                }
                let mut expected_edges: Vec<(u32, u32, HasseKind)> = d
                    .edges
                    .iter()
                    .filter_map(|e| {
                        let (a, b) = (mark_of[e.from as usize]?, mark_of[e.to as usize]?);
                        (a != b).then_some((a, b, e.kind))
                    })
                    .collect();
                expected_edges.sort_by_key(|e| (e.0, e.1, e.2 == HasseKind::Message));
                let before = expected_edges.len();
                expected_edges.dedup();
                let mut got_edges: Vec<(u32, u32, HasseKind)> =
                    w.edges.iter().map(|e| (e.from, e.to, e.kind)).collect();
                got_edges.sort_by_key(|e| (e.0, e.1, e.2 == HasseKind::Message));
                assert_eq!(got_edges, expected_edges, "{axis:?} {width} {window:?}");
                let bundled: u32 = w.edges.iter().map(|e| e.count).sum();
                // Program edges are one per pair of consecutive marks; the rest are counted.
                assert!(bundled as usize <= before, "{axis:?} {width} {window:?}");
            }
        }
    }
}

/// The causal areas of an event on the drawn diagram are what happened-before says of every
/// vertex: its past those whose last event happened before it, its future those whose first
/// event it happened before (the Paraver sample, local runs collapsed, every 7th event).
#[test]
fn causal_areas_on_the_diagram_agree_with_happened_before() {
    use shared::view::hasse::{Collapse, Diagram};
    let trace = crate::load("traces/paraver/paraver-kernel-qsort_beo3/qsort_beo3.prv");
    let cx = Context::new(&trace);
    let c = Causality::new(&trace, &cx.graph);
    let d = Diagram::new(&trace, &cx.graph, &c, Collapse::Runs { expanded: &[] });
    for e in (0..trace.events.len())
        .step_by(7)
        .map(|i| EventIdx(i as u32))
    {
        let a = d.areas(&trace, &c, e).expect("an event");
        let (mut pre, mut post) = (0u64, 0u64);
        for (i, v) in d.vertices.iter().enumerate() {
            let last = EventIdx(v.event.0 + v.count - 1);
            let p = v.process.index();
            let in_pre = (i as u32) < a.pre_end[p];
            let in_post = (i as u32) >= a.post_start[p];
            if i as u32 == a.vertex {
                assert!(!in_pre && !in_post, "event {e:?}: its own vertex");
                continue;
            }
            assert_eq!(
                in_pre,
                c.happened_before(last, e),
                "event {e:?}, vertex {i} (past)"
            );
            assert_eq!(
                in_post,
                c.happened_before(e, v.event),
                "event {e:?}, vertex {i} (future)"
            );
            pre += u64::from(v.count) * u64::from(in_pre);
            post += u64::from(v.count) * u64::from(in_post);
        }
        assert_eq!((a.pre_events, a.post_events), (pre, post), "event {e:?}");
    }
}

#[test]
fn what_if_draws_the_measured_and_predicted_runs() {
    let trace = load("t4-worked-example.json");
    let cx = Context::new(&trace);
    let changes = parse_scenario("transit=0", &cx).expect("parses");
    let w = what_if(&cx, &changes);
    // The runs end where the two longest paths end: 69 measured, 53 predicted (T10).
    let last = |f: fn(&shared::analyses::whatif::WhatIfProcess) -> f64| {
        w.processes.iter().map(f).fold(0.0, f64::max)
    };
    assert_eq!(
        (last(|p| p.measured_end), last(|p| p.predicted_end)),
        (69.0, 53.0)
    );
    assert_eq!(w.processes.len(), 2);
    // Messages cost nothing, computations stay as they were: 85 ticks of computing either way,
    // each process's computations in order and never overlapping.
    let total = |f: fn(&shared::analyses::whatif::WhatIfSpan) -> (f64, f64)| {
        w.spans.iter().map(|s| f(s).1 - f(s).0).sum::<f64>()
    };
    assert_eq!(
        (total(|s| s.measured), total(|s| s.predicted)),
        (85.0, 85.0)
    );
    for pair in w.spans.windows(2).filter(|p| p[0].process == p[1].process) {
        assert!(pair[0].predicted.1 <= pair[1].predicted.0, "{pair:?}");
    }
}

#[test]
fn filters_keep_the_events_of_pattern_matches_and_motifs() {
    let trace = load("t4-worked-example.json");
    let kept = |text: &str| Filter::parse(text, &trace).expect("parses").apply(&trace);
    // A receive call then its arrival: once on A (35, 48), twice on B (20, 33; 43, 54).
    let times = |events: Vec<EventIdx>| -> Vec<u64> {
        let mut t: Vec<u64> = events
            .iter()
            .map(|&i| trace.events.time()[i.index()].0)
            .collect();
        t.sort_unstable();
        t
    };
    assert_eq!(times(kept("pattern=recv,arr")), [20, 33, 35, 43, 48, 54]);
    assert_eq!(times(kept("pattern=recv,arr process=B")), [20, 33, 43, 54]);
    // A motif keeps exactly the events of its instances.
    let pairing = shared::graph::pairing::pair_messages(&trace);
    for (term, motif) in [
        ("motif=request-response", "request-response"),
        ("motif=chain:3", "chain 3"),
    ] {
        let mut want: Vec<EventIdx> = shared::analyses::motifs::find(
            &trace,
            &pairing,
            shared::analyses::motifs::Motif::parse(motif).expect("a motif"),
        )
        .into_iter()
        .flat_map(|m| m.events)
        .collect();
        want.sort_unstable();
        want.dedup();
        assert!(!want.is_empty(), "{motif}");
        assert_eq!(kept(term), want, "{term}");
    }
    let e = Filter::parse("kind=send motif=chain:1", &trace).expect_err("too short a chain");
    assert!(e.column == 11 && e.message.contains("2 or more"), "{e}");
    let e = Filter::parse("pattern=send,bogus", &trace).expect_err("an unknown word");
    assert!(e.message.contains("bogus"), "{e}");
}

/// A nanosecond-clocked trace with names as real tools write them (issue 47 point 4): processes
/// `task 1`, `task 2`, `servant[3]` on nodes `node a` and `n1`; `task 1` sends to `servant[3]`
/// at 100 ms inside a region `compute loop`.
fn named_trace() -> shared::Trace {
    use shared::model::time::{Clock, Time};
    use shared::model::{EventRecord, ProcessId, TraceBuilder};
    let mut b = TraceBuilder::new("names", Clock::NANOSECONDS);
    let (na, n1) = (b.add_node("node a"), b.add_node("n1"));
    for (name, node) in [("task 1", na), ("task 2", na), ("servant[3]", n1)] {
        b.add_process(name, node).expect("node exists");
    }
    let region = b.add_region("compute loop", RegionRole::Activity);
    let ms = 1_000_000;
    let mut push = |p: u32, t: u64, kind: EventKind, f: &dyn Fn(&mut EventRecord)| {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        f(&mut r);
        b.push(r).expect("valid event");
    };
    push(0, 50 * ms, EventKind::Enter, &|r| r.region = Some(region));
    push(0, 100 * ms, EventKind::MsgSend, &|r| {
        r.peer = Some(ProcessId(2))
    });
    push(0, 150 * ms, EventKind::Leave, &|r| r.region = Some(region));
    push(0, 1_600 * ms, EventKind::MsgSend, &|r| {
        r.peer = Some(ProcessId(1))
    });
    push(1, 1_700 * ms, EventKind::MsgArr, &|r| {
        r.peer = Some(ProcessId(0))
    });
    push(2, 110 * ms, EventKind::MsgArr, &|r| {
        r.peer = Some(ProcessId(0))
    });
    b.build()
}

/// The times (in ms) of the events a filter keeps.
fn kept_ms(trace: &shared::Trace, text: &str) -> Vec<u64> {
    Filter::parse(text, trace)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .apply(trace)
        .iter()
        .map(|&i| trace.events.time()[i.index()].0 / 1_000_000)
        .collect()
}

#[test]
fn filter_names_with_spaces_are_quoted_or_written_as_shown() {
    let trace = named_trace();
    assert_eq!(kept_ms(&trace, r#"process="task 1""#), [50, 100, 150, 1600]);
    assert_eq!(kept_ms(&trace, "process=task 1"), [50, 100, 150, 1600]);
    assert_eq!(kept_ms(&trace, "process=task 1 kind=send"), [100, 1600]);
    assert_eq!(
        kept_ms(&trace, r#"process="task 2",servant[3]"#),
        [1700, 110]
    );
    assert_eq!(kept_ms(&trace, "process=servant[3]"), [110]);
    assert_eq!(
        kept_ms(&trace, r#"message="task 1">servant[3]"#),
        [100, 110]
    );
    assert_eq!(kept_ms(&trace, "message=task 1>task 2"), [1600, 1700]);
    assert_eq!(kept_ms(&trace, "node=node a kind=arr"), [1700]);
    assert_eq!(kept_ms(&trace, r#"node="n1""#), [110]);
    // The old syntax still works: numbers, and names without spaces.
    assert_eq!(kept_ms(&trace, "process=2"), [110]);
    assert_eq!(kept_ms(&trace, "node=1"), [110]);
    // A name that is not there: the error names the ones that are near, and says to quote.
    let e = Filter::parse("process=task", &trace).expect_err("no such process");
    assert!(
        e.message
            .contains(r#"no process "task" — did you mean "task 1""#)
            && e.message.contains("Quote names with spaces"),
        "{e}"
    );
    let e = Filter::parse("process=worker", &trace).expect_err("no such process");
    assert!(
        e.message.contains(r#""task 1", "task 2" and "servant[3]""#)
            && e.message.contains("0 to 2"),
        "{e}"
    );
    let e = Filter::parse(r#"process="task 1"#, &trace).expect_err("an open quote");
    assert_eq!(e.column, 9, "{e}");
}

#[test]
fn filter_times_take_units_and_plain_numbers_stay_ticks() {
    let trace = named_trace();
    assert_eq!(kept_ms(&trace, "time=80ms..120ms"), [100, 110]);
    assert_eq!(kept_ms(&trace, "time=1.5s..2s"), [1600, 1700]);
    assert_eq!(kept_ms(&trace, "time=100000us..110000µs"), [100, 110]);
    assert_eq!(kept_ms(&trace, "time=149999999ns..150000000ns"), [150]);
    assert_eq!(kept_ms(&trace, "time=100000000..110000000"), [100, 110]);
    assert_eq!(kept_ms(&trace, "time=1.6s.."), [1600, 1700]);
    let e = Filter::parse("time=80parsec..1s", &trace).expect_err("no such unit");
    assert!(
        e.message.contains("ms") && e.message.contains("ticks"),
        "{e}"
    );
    // A trace without a clock has no seconds: the error says to write ticks.
    let worked = load("t4-worked-example.json");
    let e = Filter::parse("time=10ms..20ms", &worked).expect_err("no clock");
    assert!(e.message.contains("plain ticks"), "{e}");
}

#[test]
fn a_region_filter_keeps_the_events_inside_its_instances() {
    let trace = named_trace();
    assert_eq!(kept_ms(&trace, "region=compute loop"), [50, 100, 150]);
    assert_eq!(kept_ms(&trace, r#"region="compute loop" kind=send"#), [100]);
    let e = Filter::parse("region=compute", &trace).expect_err("no such region");
    assert!(e.message.contains(r#"did you mean "compute loop""#), "{e}");
}

#[test]
fn the_filter_box_completes_keys_and_names_quoting_names_with_spaces() {
    use shared::analyses::patterns::completions;
    let trace = named_trace();
    assert_eq!(completions("pro", &trace, 10), ["process="]);
    assert_eq!(
        completions("kind=send pro", &trace, 10),
        ["kind=send process="]
    );
    assert_eq!(
        completions("process=ta", &trace, 10),
        [r#"process="task 1""#, r#"process="task 2""#]
    );
    assert_eq!(
        completions(r#"process="task 1",SER"#, &trace, 10),
        [r#"process="task 1",servant[3]"#]
    );
    assert_eq!(
        completions("region=comp", &trace, 10),
        [r#"region="compute loop""#]
    );
    assert_eq!(completions("kind=ar", &trace, 10), ["kind=arr"]);
    // Every completion parses.
    for text in completions("process=", &trace, 10) {
        Filter::parse(&text, &trace).unwrap_or_else(|e| panic!("{text}: {e}"));
    }
}
