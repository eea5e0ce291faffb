//! The analyses against the hand-computed values of `docs/analysis.md` §10.
//!
//! Each test builds a tiny trace and checks named results of `analyze` (JSON pointers into the
//! `tracescope analyze --json` object) against the reference's exact values.

use proptest::prelude::*;
use shared::Trace;
use shared::analyses::metrics::{AnalysisOptions, ProcessorKind, analyze};
use shared::analyses::stats::{Subject, statistics, summarize};
use shared::analyses::validate::{DiagnosticKind, ValidationOptions};
use shared::model::time::{Clock, Time};
use shared::model::{
    EventKind, EventRecord, NodeId, ProcessId, RegionId, RegionRole, TraceBuilder,
};

use crate::load;

/// A test trace written event by event.
pub struct T {
    pub b: TraceBuilder,
}

impl T {
    /// `processes[i]` runs on node `processes[i]`.
    pub fn new(n_nodes: u32, processes: &[u32]) -> T {
        let mut b = TraceBuilder::new("test", Clock::default());
        for n in 0..n_nodes {
            b.add_node(format!("n{n}"));
        }
        for (i, &node) in processes.iter().enumerate() {
            b.add_process(format!("P{i}"), NodeId(node))
                .expect("node exists");
        }
        T { b }
    }

    pub fn push(
        &mut self,
        p: u32,
        t: u64,
        kind: EventKind,
        f: impl FnOnce(&mut EventRecord),
    ) -> &mut T {
        let mut r = EventRecord::plain(ProcessId(p), Time(t), kind);
        f(&mut r);
        self.b.push(r).expect("valid event");
        self
    }
    pub fn init(&mut self, p: u32, t: u64) -> &mut T {
        self.push(p, t, EventKind::ProcInit, |_| {})
    }
    pub fn exit(&mut self, p: u32, t: u64) -> &mut T {
        self.push(p, t, EventKind::ProcExit, |_| {})
    }
    pub fn send(&mut self, p: u32, t: u64, to: u32) -> &mut T {
        self.push(p, t, EventKind::MsgSend, |r| r.peer = Some(ProcessId(to)))
    }
    pub fn call(&mut self, p: u32, t: u64) -> &mut T {
        self.push(p, t, EventKind::RecvCall, |_| {})
    }
    pub fn arr(&mut self, p: u32, t: u64, from: u32) -> &mut T {
        self.push(p, t, EventKind::MsgArr, |r| r.peer = Some(ProcessId(from)))
    }
    pub fn enter(&mut self, p: u32, t: u64, region: RegionId) -> &mut T {
        self.push(p, t, EventKind::Enter, |r| r.region = Some(region))
    }
    pub fn leave(&mut self, p: u32, t: u64, region: RegionId) -> &mut T {
        self.push(p, t, EventKind::Leave, |r| r.region = Some(region))
    }
    pub fn build(&mut self) -> Trace {
        std::mem::take(&mut self.b).build()
    }
}

/// Checks named results: each pair is a JSON pointer into the analysis and its expected value
/// (to 1e-3, since the reference rounds to three decimals).
fn check(trace: &Trace, expected: &[(&str, f64)]) {
    let analysis = analyze(trace, AnalysisOptions::default());
    let json = serde_json::to_value(&analysis).expect("serializes");
    let mut failures = Vec::new();
    for &(pointer, want) in expected {
        match json.pointer(pointer).and_then(serde_json::Value::as_f64) {
            Some(got) if (got - want).abs() <= 1e-3 => {}
            got => failures.push(format!("{pointer}: expected {want}, got {got:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The share of a named item in a ranked list.
fn share_of(list: &[shared::analyses::metrics::Share], name: &str) -> f64 {
    list.iter()
        .find(|s| s.name == name)
        .map_or(f64::NAN, |s| s.weight)
}

#[test]
fn t1_one_process_computing_ten() {
    let trace = T::new(1, &[0]).init(0, 0).exit(0, 10).build();
    check(
        &trace,
        &[
            ("/critical_path/length", 10.0),
            ("/speedup", 1.0),
            ("/efficiency", 1.0),
            ("/npt/total", 10.0),
            ("/parallelism_profile/time_with/1", 10.0),
            ("/wcpa/weight", 10.0),
        ],
    );
}

#[test]
fn t2_two_processes_without_messages() {
    let trace = T::new(2, &[0, 1])
        .init(0, 0)
        .exit(0, 10)
        .init(1, 0)
        .exit(1, 6)
        .build();
    check(
        &trace,
        &[
            ("/critical_path/length", 10.0),
            ("/speedup", 1.6),
            ("/efficiency", 0.8),
            ("/pop/load_balance", 0.8),
            ("/pop/serialisation", 1.0),
            ("/pop/transfer", 1.0),
            ("/wcpa/weight", 14.0),
            ("/wcpa/segments/0/weight", 14.0),
        ],
    );
    let a = analyze(&trace, AnalysisOptions::default());
    assert_eq!(share_of(&a.npt.processes, "P0"), 7.0);
    assert_eq!(share_of(&a.npt.processes, "P1"), 3.0);
    assert_eq!(a.critical_path.segments[0].process, ProcessId(0));
}

/// T3: ping-pong. P0 computes 5, sends (transit 2), calls receive at 5; P1 called at 0, gets
/// the message at 7, computes 4, sends back at 11 (transit 2); P0 completes at 13.
#[test]
fn t3_ping_pong() {
    let trace = T::new(2, &[0, 1])
        .init(0, 0)
        .send(0, 5, 1)
        .call(0, 5)
        .arr(0, 13, 1)
        .exit(0, 13)
        .init(1, 0)
        .call(1, 0)
        .arr(1, 7, 0)
        .send(1, 11, 0)
        .exit(1, 11)
        .build();
    check(
        &trace,
        &[
            ("/critical_path/length", 13.0),
            ("/process_times/0/blocked", 8.0),
            ("/process_times/1/blocked", 7.0),
        ],
    );
}

#[test]
fn t4a_worked_example_execution_graph_metrics() {
    let trace = load("t4-worked-example.json");
    check(
        &trace,
        &[
            ("/execution_time", 69.0),
            ("/critical_path/length", 69.0),
            ("/total_computation", 85.0),
            ("/speedup", 1.2319),
            ("/efficiency", 0.616),
            ("/granularity/communication", 21.0),
            ("/granularity/ratio", 4.048),
            ("/granularity/computation_share", 0.802),
            ("/process_times/0/blocked", 13.0),
            ("/process_times/1/blocked", 24.0),
        ],
    );
    let a = analyze(&trace, AnalysisOptions::default());
    // A comp 25 → m1 8 → B comp 5 → m2 10 → A comp 3 → m3 3 → B comp 15.
    let route: Vec<(&str, u32, f64)> = a
        .critical_path
        .segments
        .iter()
        .map(|s| {
            (
                if s.kind == shared::graph::critical_path::SegmentKind::Transit {
                    "msg"
                } else {
                    "comp"
                },
                s.process.0,
                s.weight,
            )
        })
        .collect();
    assert_eq!(
        route,
        [
            ("comp", 0, 25.0),
            ("msg", 1, 8.0),
            ("comp", 1, 5.0),
            ("msg", 0, 10.0),
            ("comp", 0, 3.0),
            ("msg", 1, 3.0),
            ("comp", 1, 15.0)
        ]
    );
    // Blocked 37 and post-exit idle 16: 85 + 37 + 16 = 138 = 2 × 69.
    let blocked: u64 = a.process_times.iter().map(|p| p.blocked).sum();
    assert_eq!(blocked, 37);
    assert_eq!(a.total_computation + blocked as f64 + 16.0, 2.0 * 69.0);
}

#[test]
fn t4b_worked_example_wcpa() {
    let trace = load("t4-worked-example.json");
    let a = analyze(&trace, AnalysisOptions::default());
    let weights: Vec<f64> = a.wcpa.segments.iter().map(|s| s.weight).collect();
    assert_eq!(weights, [30.0, 8.0, 8.0, 15.0, 6.0, 4.0, 30.0]);
    assert_eq!(a.wcpa.weight, 101.0);
    // The heaviest path keeps the critical path's route.
    let route = |segments: &[shared::analyses::metrics::Segment]| {
        segments
            .iter()
            .map(|s| (s.from_event, s.to_event))
            .collect::<Vec<_>>()
    };
    assert_eq!(route(&a.wcpa.segments), route(&a.critical_path.segments));
    // The alternative route ending at A's exit weighs 71.
    let cx = shared::graph::context::Context::new(&trace);
    let lp = shared::graph::critical_path::longest_path(&cx.graph, &cx.wcpa_weights());
    let a_exit = cx.graph.program(ProcessId(0)).last().expect("A has events");
    assert_eq!(lp.dist[a_exit.index()], 71.0);
}

/// T5: the founding thesis's Fig. 3.3 with n = 100: an edge of 100 with all others idle weighs
/// 10 000 (not the misprinted 10 100); an edge of 500 with all others busy weighs 500.
#[test]
fn t5_wcpa_with_a_hundred_processors() {
    let nodes: Vec<u32> = (0..100).collect();
    let mut t = T::new(100, &nodes);
    t.init(0, 0).send(0, 100, 1).exit(0, 600);
    t.init(1, 0).call(1, 0).arr(1, 100, 0).exit(1, 600);
    for p in 2..100 {
        t.init(p, 100).exit(p, 600);
    }
    let a = analyze(&t.build(), AnalysisOptions::default());
    // P1 is blocked on [0,100] (weight 0); P0's first edge [0,100] has 99 others idle.
    let weights: Vec<f64> = a.wcpa.segments.iter().map(|s| s.weight).collect();
    assert_eq!(weights, [10_000.0, 500.0]);
    assert_eq!(a.wcpa.weight, 10_500.0);
}

/// T6: Quartz on 4 CPUs: X runs alone for 10; Y runs on all 4 for 10 (40 CPU).
#[test]
fn t6_quartz_npt_of_regions() {
    let mut t = T::new(4, &[0, 1, 2, 3]);
    let x = t.b.add_region("X", RegionRole::Activity);
    let y = t.b.add_region("Y", RegionRole::Activity);
    t.init(0, 0)
        .enter(0, 0, x)
        .leave(0, 10, x)
        .enter(0, 10, y)
        .leave(0, 20, y)
        .exit(0, 20);
    for p in 1..4 {
        t.init(p, 10).enter(p, 10, y).leave(p, 20, y).exit(p, 20);
    }
    let a = analyze(&t.build(), AnalysisOptions::default());
    assert_eq!(share_of(&a.npt.regions_inclusive, "X"), 10.0);
    assert_eq!(share_of(&a.npt.regions_inclusive, "Y"), 10.0);
    assert_eq!(a.npt.total, 20.0);
}

#[test]
fn t6_prime_npt_on_the_worked_example() {
    let a = analyze(&load("t4-worked-example.json"), AnalysisOptions::default());
    assert_eq!(share_of(&a.npt.processes, "A"), 29.0);
    assert_eq!(share_of(&a.npt.processes, "B"), 34.0);
    assert_eq!(a.npt.total, 63.0);
    assert_eq!(a.npt.processes[0].name, "B", "ranked heaviest first");
}

/// T7: P0 needs 6 CPU, P1 needs 4, timeslicing one CPU: in wall time they compute [0,10] and
/// [0,8] (18, a wrong "speedup" of 1.8); relabelled by CPU time, 6 + 4 = 10.
#[test]
fn t7_cpu_time_relabelling() {
    let trace = T::new(1, &[0, 0])
        .init(0, 0)
        .exit(0, 10)
        .init(1, 0)
        .exit(1, 8)
        .build();
    check(
        &trace,
        &[
            ("/wall_computation", 18.0),
            ("/total_computation", 10.0),
            ("/speedup", 1.0),
            ("/process_times/0/computation", 6.0),
            ("/process_times/1/computation", 4.0),
            ("/cpu_time_critical_path", 6.0),
        ],
    );
}

#[test]
fn t8_parallelism_profile_and_t8b_bounds() {
    check(
        &load("t4-worked-example.json"),
        &[
            ("/parallelism_profile/time_with/0", 6.0),
            ("/parallelism_profile/time_with/1", 41.0),
            ("/parallelism_profile/time_with/2", 22.0),
            ("/parallelism_profile/mean", 1.232),
            ("/parallelism_profile/mean_while_busy", 1.349),
            ("/bounds/average_parallelism", 1.232),
            ("/bounds/speedup_lower", 1.104),
            ("/bounds/speedup_upper", 1.232),
        ],
    );
}

#[test]
fn t9_pop_factors() {
    check(
        &load("t4-worked-example.json"),
        &[
            ("/pop/load_balance", 0.944),
            ("/pop/serialisation", 0.849),
            ("/pop/transfer", 0.768),
            ("/pop/parallel_efficiency", 0.616),
            ("/pop/ideal_time", 53.0),
        ],
    );
}

/// T19: an arrival at 9 of a send at 10 with l_min = 1; an unmatched send; a leave without enter.
#[test]
fn t19_validation() {
    let mut t = T::new(2, &[0, 1]);
    let r = t.b.add_region("r", RegionRole::Activity);
    t.init(0, 0).send(0, 10, 1).send(0, 11, 1).exit(0, 12);
    t.init(1, 0)
        .call(1, 1)
        .arr(1, 9, 0)
        .leave(1, 10, r)
        .exit(1, 12);
    let options = AnalysisOptions {
        validation: ValidationOptions { min_latency: 1 },
        ..AnalysisOptions::default()
    };
    let a = analyze(&t.build(), options);
    let count = |kind| a.diagnostics.iter().filter(|d| d.kind == kind).count();
    assert_eq!(count(DiagnosticKind::ClockViolation), 1);
    assert_eq!(count(DiagnosticKind::UnmatchedSend), 1);
    assert_eq!(count(DiagnosticKind::LeaveWithoutEnter), 1);
    assert_eq!(a.diagnostics.len(), 3, "{:#?}", a.diagnostics);
    let unmatched = a
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagnosticKind::UnmatchedSend)
        .expect("reported");
    assert_eq!(
        unmatched.severity,
        shared::analyses::validate::Severity::Error
    );
    assert!(unmatched.affects.iter().any(|r| r == "critical_path"));
}

/// T26: durations [5, 1, 3, 9, 7]; occurrences at [2, 5, 11, 12] (type-7 quartiles).
#[test]
fn t26_statistics() {
    let s = summarize(&mut [5.0, 1.0, 3.0, 9.0, 7.0]).expect("values");
    assert_eq!(
        (s.min, s.max, s.mean, s.median, s.q1, s.q3),
        (1.0, 9.0, 5.0, 5.0, 3.0, 7.0)
    );

    let mut t = T::new(1, &[0, 0]);
    let x = t.b.add_region("X", RegionRole::Activity);
    t.enter(0, 2, x)
        .leave(0, 7, x)
        .enter(0, 11, x)
        .leave(0, 12, x);
    t.enter(1, 5, x)
        .leave(1, 8, x)
        .enter(1, 12, x)
        .leave(1, 21, x);
    let stats = statistics(&t.build(), Subject::Region(x), None);
    assert_eq!(stats.count, 4);
    let gaps = stats.distance.expect("gaps");
    assert_eq!((gaps.count, gaps.median), (3, 3.0));
    assert!((gaps.mean - 10.0 / 3.0).abs() < 1e-12);
    let durations = stats.duration.expect("durations");
    assert_eq!(
        (durations.min, durations.max, durations.median),
        (1.0, 9.0, 4.0)
    );
}

#[test]
fn statistics_respect_the_window() {
    let trace = load("t4-worked-example.json");
    let all = statistics(&trace, Subject::Events(EventKind::MsgSend), None);
    assert_eq!(all.count, 3);
    let early = statistics(
        &trace,
        Subject::Events(EventKind::MsgSend),
        Some((Time(0), Time(40))),
    );
    assert_eq!(early.count, 2);
    let blocked = statistics(
        &trace,
        Subject::State(shared::graph::states::State::Blocked),
        None,
    );
    assert_eq!(blocked.duration.expect("durations").mean, 37.0 / 3.0);
}

#[test]
fn probes_name_the_phases_of_the_wcpa_table() {
    let a = analyze(
        &load("master-workers-probes.json"),
        AnalysisOptions::default(),
    );
    let names: Vec<&str> = a.wcpa.phases.iter().map(|p| p.name.as_str()).collect();
    for phase in ["reading image", "reconstruct"] {
        assert!(names.contains(&phase), "{names:?}");
    }
    let total: f64 = a.wcpa.phases.iter().map(|p| p.share).sum();
    assert!((total - 1.0).abs() < 1e-9);
}

/// A random trace of up to 5 processes on up to 3 nodes, consistent by construction: each
/// process alternates computation with sends and blocking receives, channels are FIFO, and every
/// process's events are recorded in time order (an early arrival before its receive call).
fn arb_consistent_trace() -> impl Strategy<Value = Trace> {
    let steps = prop::collection::vec((0u32..5, 0u32..5, 1u64..20, 0u64..10), 0..25);
    (1u32..5, 1u32..4, steps, prop::collection::vec(0u64..5, 5)).prop_map(
        |(n, n_nodes, steps, starts)| {
            let processes: Vec<u32> = (0..n).map(|p| p % n_nodes).collect();
            let mut clock: Vec<u64> = (0..n as usize).map(|p| starts[p]).collect();
            // (process, time, sequence, kind, peer)
            let mut events: Vec<(u32, u64, usize, EventKind, Option<u32>)> = Vec::new();
            let mut record = |p: u32, t: u64, kind, peer| {
                let seq = events.len();
                events.push((p, t, seq, kind, peer));
            };
            for p in 0..n {
                record(p, clock[p as usize], EventKind::ProcInit, None);
            }
            let mut last_arrival = std::collections::HashMap::new();
            for (from, to, compute, transit) in steps {
                let (from, to) = (from % n, to % n);
                clock[from as usize] += compute;
                if from == to {
                    continue;
                }
                let sent = clock[from as usize];
                record(from, sent, EventKind::MsgSend, Some(to));
                let channel = last_arrival.entry((from, to)).or_insert(0);
                let arrival = (sent + transit).max(*channel).max(starts[to as usize]);
                *channel = arrival;
                let call = clock[to as usize];
                record(to, call, EventKind::RecvCall, None);
                record(to, arrival, EventKind::MsgArr, Some(from));
                clock[to as usize] = call.max(arrival);
            }
            for p in 0..n {
                record(p, clock[p as usize] + 1, EventKind::ProcExit, None);
            }
            events.sort_by_key(|&(p, t, seq, _, _)| (p, t, seq));
            let mut t = T::new(n_nodes, &processes);
            for (p, time, _, kind, peer) in events {
                t.push(p, time, kind, |r| r.peer = peer.map(ProcessId));
            }
            t.build()
        },
    )
}

proptest! {
    #[test]
    fn analyses_hold_their_invariants(trace in arb_consistent_trace()) {
        let a = analyze(&trace, AnalysisOptions::default());
        prop_assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
        // The critical path's length is the execution time.
        prop_assert_eq!(a.critical_path.length, a.execution_time);
        // Σ NPT is the wall time with at least one processor busy.
        let busy: u64 = a.parallelism_profile.time_with.iter().skip(1).sum();
        prop_assert!((a.npt.total - busy as f64).abs() < 1e-6, "{} vs {}", a.npt.total, busy);
        // Speedup is at most the number of processors.
        prop_assert!(a.speedup <= a.processors as f64 + 1e-9);
        // The headline figures, on nodes and on threads: speedup at most the processors, every
        // factor in [0, 1], and POP's product the efficiency per processor.
        for kind in [ProcessorKind::Nodes, ProcessorKind::Threads] {
            let f = analyze(&trace, AnalysisOptions { processors: kind, ..AnalysisOptions::default() }).figures;
            prop_assert!(f.speedup <= f.processors as f64 + 1e-9, "{:?}", f);
            for factor in [f.efficiency, f.load_balance, f.serialisation, f.transfer] {
                prop_assert!((0.0..=1.0 + 1e-9).contains(&factor), "{:?}", f);
            }
            prop_assert!((f.parallel_efficiency - f.efficiency).abs() < 1e-9, "{:?}", f);
        }
        // Every WCPA weight lies in [dt, n·dt]; blocked edges weigh 0 (decision D-c).
        let n = a.processors as f64;
        for s in &a.wcpa.segments {
            let dt = (s.end - s.start) as f64;
            if s.kind == shared::graph::critical_path::SegmentKind::Blocked {
                prop_assert_eq!(s.weight, 0.0);
                continue;
            }
            prop_assert!(s.weight >= dt - 1e-9 && s.weight <= n * dt + 1e-9, "{:?}", s);
        }
        let cx = shared::graph::context::Context::new(&trace);
        let w = cx.wcpa_weights();
        for v in (0..cx.graph.len() as u32).map(shared::EventIdx) {
            if let (Some(prev), shared::graph::execution::ProgramEdge::Computation) = (cx.graph.prev(v), cx.graph.in_edge(v)) {
                let dt = (cx.graph.time(v).0 - cx.graph.time(prev).0) as f64;
                let weight = w.program[v.index()];
                prop_assert!(weight >= dt - 1e-9 && weight <= n * dt + 1e-9);
            }
        }
    }
}

#[test]
fn the_model_holds_at_most_64_bytes_per_event() {
    let trace = shared::model::synthetic::ring(64, 100_000);
    let per_event = trace.heap_bytes() as f64 / trace.events.len() as f64;
    assert!(per_event <= 64.0, "{per_event} bytes per event");
}

#[test]
fn the_synthetic_ring_is_consistent_and_one_message_per_four_events() {
    let trace = shared::model::synthetic::ring(8, 3_200);
    let a = analyze(&trace, AnalysisOptions::default());
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let messages = shared::graph::pairing::pair_messages(&trace).messages.len();
    assert_eq!(messages, 800);
    assert_eq!(trace.events.len(), 3_200 + 16);
    assert_eq!(a.critical_path.length, a.execution_time);
}

#[test]
fn the_ring_on_nodes_groups_processes_and_nests_its_regions() {
    let trace = shared::model::synthetic::ring_on_nodes(12, 4, 1_200);
    assert_eq!(trace.nodes.len(), 3);
    let nodes: Vec<usize> = trace.processes.iter().map(|p| p.node.index()).collect();
    assert_eq!(nodes, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    let a = analyze(&trace, AnalysisOptions::default());
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    assert_eq!(trace.events.len(), 1_200 + 24);
    assert_eq!(
        shared::graph::pairing::pair_messages(&trace).messages.len(),
        120
    );
    assert_eq!(a.critical_path.length, a.execution_time);
}

#[test]
fn cpu_utilization_over_windows() {
    let trace = load("t4-worked-example.json");
    let cx = shared::graph::context::Context::new(&trace);
    let u = |node, a, b| {
        shared::analyses::utilization::cpu_utilization(&cx, NodeId(node), (Time(a), Time(b))).value
    };
    // A busy [0,35] and [48,53] = 40 of 69; B 45 of 69.
    assert!((u(0, 0, 69) - 40.0 / 69.0).abs() < 1e-12);
    assert!((u(1, 0, 69) - 45.0 / 69.0).abs() < 1e-12);
    assert_eq!(u(0, 0, 20), 1.0);
    assert_eq!(u(1, 20, 33), 0.0);
    assert_eq!(u(1, 30, 40), 0.7);
    let a = analyze(&trace, AnalysisOptions::default());
    assert_eq!(
        a.node_utilization[1].cpu.source,
        shared::analyses::utilization::Source::Events
    );
}

#[test]
fn link_utilization_from_transits_and_from_samples() {
    use shared::model::{Direction, Link, LinkEnd, LinkSample, Sample};
    let mut t = T::new(2, &[0, 1]);
    let end = |node, link| LinkEnd {
        node: NodeId(node),
        link,
    };
    let link =
        t.b.add_link(Link {
            a: end(0, 2),
            b: end(1, 3),
            bits_per_second: Some(20_000_000),
        })
        .expect("nodes");
    // Two messages 0 → 1 in transit over [10,20] and [15,30]: busy [10,30].
    t.init(0, 0).send(0, 10, 1).send(0, 15, 1).exit(0, 40);
    t.init(1, 0)
        .call(1, 0)
        .arr(1, 20, 0)
        .call(1, 20)
        .arr(1, 30, 0)
        .exit(1, 40);
    let trace = t.build();
    let cx = shared::graph::context::Context::new(&trace);
    let u = |dir, a, b| {
        shared::analyses::utilization::link_utilization(&cx, link, dir, (Time(a), Time(b)))
    };
    assert_eq!(u(Direction::AToB, 0, 40).value, 0.5);
    assert_eq!(u(Direction::AToB, 10, 30).value, 1.0);
    assert_eq!(u(Direction::BToA, 0, 40).value, 0.0);

    let mut t = T::new(2, &[0, 1]);
    let link =
        t.b.add_link(Link {
            a: end(0, 2),
            b: end(1, 3),
            bits_per_second: None,
        })
        .expect("nodes");
    let sample = |start, stop, utilization| Sample {
        start: Time(start),
        end: Time(stop),
        utilization,
    };
    t.b.add_link_sample(LinkSample {
        link,
        direction: Direction::BToA,
        sample: sample(0, 10, 0.5),
    })
    .expect("valid");
    t.b.add_link_sample(LinkSample {
        link,
        direction: Direction::BToA,
        sample: sample(10, 20, 0.25),
    })
    .expect("valid");
    t.init(0, 0).exit(0, 20).init(1, 0).exit(1, 20);
    let trace = t.build();
    let cx = shared::graph::context::Context::new(&trace);
    let sampled = shared::analyses::utilization::link_utilization(
        &cx,
        link,
        Direction::BToA,
        (Time(0), Time(20)),
    );
    assert_eq!(sampled.value, 0.375);
    assert_eq!(
        sampled.source,
        shared::analyses::utilization::Source::Samples
    );
}

#[test]
fn cpu_samples_replace_busy_intervals() {
    use shared::model::{CpuSample, Sample};
    let mut t = T::new(1, &[0]);
    t.b.add_cpu_sample(CpuSample {
        node: NodeId(0),
        sample: Sample {
            start: Time(0),
            end: Time(10),
            utilization: 0.25,
        },
    })
    .expect("valid");
    t.init(0, 0).exit(0, 10);
    let trace = t.build();
    let cx = shared::graph::context::Context::new(&trace);
    let u = shared::analyses::utilization::cpu_utilization(&cx, NodeId(0), (Time(0), Time(10)));
    assert_eq!(
        (u.value, u.source),
        (0.25, shared::analyses::utilization::Source::Samples)
    );
}

/// The fast WCPA and CPU-time weights (busy integrals searched from the last query, shared by a
/// vertex's start and program edges) equal, to the bit, the weights computed edge by edge from
/// their definition with a binary search of the whole timeline: on processes alone on their
/// nodes and timeslicing, with and without CPU samples, and on the worked example.
#[test]
fn fast_edge_weights_equal_their_definition_to_the_bit() {
    use shared::graph::context::Context;
    use shared::graph::critical_path::elapsed_into;
    use shared::graph::execution::ProgramEdge;
    let mut sampled = shared::model::synthetic::ring_on_nodes(9, 3, 3_000);
    let end = sampled.time_bounds().map_or(0, |(_, e)| e.0);
    for node in 0..sampled.nodes.len() as u32 {
        for k in 0..10u64 {
            sampled.cpu_samples.push(shared::model::CpuSample {
                node: shared::NodeId(node),
                sample: shared::model::Sample {
                    start: Time(end * k / 10),
                    end: Time(end * (k + 1) / 10),
                    utilization: ((node as u64 + k) % 7) as f32 / 7.0,
                },
            });
        }
    }
    let traces = [
        shared::model::synthetic::ring(16, 4_000),
        shared::model::synthetic::ring_on_nodes(12, 4, 4_000),
        sampled,
        load("t4-worked-example.json"),
    ];
    for trace in &traces {
        let cx = Context::new(trace);
        let g = &cx.graph;
        let n_proc = cx.timeline.n_processors.max(1) as f64;
        let times = trace.events.time();
        let node =
            |v: shared::EventIdx| trace.processes[trace.events.process()[v.index()].index()].node;
        let weight = |node, a: u64, b: u64| {
            if b <= a {
                0.0
            } else {
                n_proc * (b - a) as f64 - cx.timeline.others_busy_time(node, a, b)
            }
        };
        let wcpa = cx.wcpa_weights();
        let cpu = cx.cpu_time_weights(|t| t as f64);
        for v in (0..g.len() as u32).map(shared::EventIdx) {
            let i = v.index();
            let (t, k) = (g.time(v).0, node(v));
            let computation = matches!(g.in_edge(v), ProgramEdge::Computation);
            let prev = g.prev(v).filter(|_| computation);
            // A first vertex's start edge and any other's program edge share one array.
            let expected_program = match (g.prev(v), prev) {
                (None, _) => weight(k, g.origin().0, t),
                (Some(_), Some(p)) => weight(k, g.time(p).0, t),
                (Some(_), None) => 0.0,
            };
            assert_eq!(
                wcpa.program[i].to_bits(),
                expected_program.to_bits(),
                "program of {i}"
            );
            if let Some(send) = g.message_from(v) {
                let expected = weight(k, times[send.index()].0, times[i].0);
                assert_eq!(
                    wcpa.message[i].to_bits(),
                    expected.to_bits(),
                    "message into {i}"
                );
            }
            let e = elapsed_into(trace, g, v);
            let cpu_program = match (g.prev(v), prev) {
                (None, _) => e.seed as f64,
                (Some(_), Some(p)) => cx.timeline.cpu_time(k, g.time(p).0, t),
                (Some(_), None) => 0.0,
            };
            assert_eq!(
                cpu.program[i].to_bits(),
                cpu_program.to_bits(),
                "CPU time of {i}"
            );
            assert_eq!(cpu.message[i].to_bits(), (e.message as f64).to_bits());
        }
    }
}
