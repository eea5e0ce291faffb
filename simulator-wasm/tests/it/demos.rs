//! The demo gallery: every demo compiles on every node count it offers and runs to its end;
//! the case studies' figures (the ray-tracer farm's speedups and servant utilization, the
//! image reconstruction before and after batching) are produced and printed, their values
//! asserted only as sanity bounds.

use simulator_wasm::cpu::EventKind;
use simulator_wasm::demos::{DEMOS, Demo, find};
use simulator_wasm::network::Outcome;
use simulator_wasm::session::Session;

/// A finished run of `demo` on `nodes`.
fn run(demo: &Demo, nodes: u32) -> Session {
    let (program, setup) = demo.setup(Some(nodes)).unwrap_or_else(|e| panic!("{e}"));
    let mut session =
        Session::new(&program, &setup).unwrap_or_else(|e| panic!("{} on {nodes}: {e}", demo.name));
    let outcome = session.finish();
    assert_eq!(outcome, Ok(Outcome::Idle), "{} on {nodes} nodes", demo.name);
    for (k, node) in session.network.nodes.iter().enumerate() {
        assert!(
            !node.error,
            "{} on {nodes}: node {k}'s error flag",
            demo.name
        );
    }
    session
}

/// Probes with `text` in the run: (node, tag).
fn probes(session: &Session, text: &str) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    for (k, node) in session.network.nodes.iter().enumerate() {
        for e in node.events.iter().filter(|e| e.kind == EventKind::Probe) {
            if node.probe_texts.get(e.channel as usize).map(String::as_str) == Some(text) {
                out.push((k, e.other));
            }
        }
    }
    out
}

fn demo(name: &str) -> &'static Demo {
    find(name).unwrap_or_else(|| panic!("no demo {name}"))
}

/// The servants' utilization: the wall time the processes named `servant` computed over the
/// time they had (the run's length, once per servant), from the trace's analysis.
fn servant_utilization(session: &Session) -> f64 {
    let trace =
        simulator_wasm::trace::to_trace(&session.network, "farm").unwrap_or_else(|e| panic!("{e}"));
    let analysis = shared::analyses::metrics::analyze(&trace, Default::default());
    let servants: Vec<f64> = analysis
        .process_times
        .iter()
        .filter(|p| p.name.starts_with("servant @ "))
        .map(|p| p.wall_computation as f64)
        .collect();
    assert!(!servants.is_empty(), "no servants in the trace");
    servants.iter().sum::<f64>() / (servants.len() as f64 * analysis.execution_time.max(1) as f64)
}

#[test]
fn every_demo_compiles_on_every_node_count_and_the_small_ones_run() {
    for d in DEMOS {
        assert!(!d.about.is_empty() && !d.title.is_empty());
        for &n in d.nodes {
            let (program, setup) = d.setup(Some(n)).unwrap_or_else(|e| panic!("{e}"));
            let simulator_wasm::session::Program::Occam(source) = &program else {
                panic!("{} is not occam", d.name);
            };
            let topology = simulator_wasm::topology::Topology::parse(&setup.topology)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(topology.nodes, n, "{}: {}", d.name, setup.topology);
            if let Err(e) = simulator_wasm::occam::compile_for(source, &topology) {
                panic!("{} on {n} nodes: {e}", d.name);
            }
        }
        // Every constant a demo sets is in its program.
        assert_ne!(d.source(), "", "{}", d.name);
    }
    for (name, nodes) in [("comstime", 1), ("sieve", 4), ("matmul", 9)] {
        run(demo(name), nodes);
    }
    assert!(
        demo("sieve").setup(Some(5)).is_err(),
        "5 is not a sieve count"
    );
}

#[test]
fn a_demos_constants_are_set_in_the_source_it_shows() {
    let source = demo("raytracer-bundles-50").source();
    assert!(source.contains("\nVAL INT BUNDLE IS 50:\n"), "{source}");
    assert!(source.contains("\nVAL BOOL MAILBOX IS TRUE:\n"));
    assert!(
        demo("raytracer")
            .source()
            .contains("\nVAL INT BUNDLE IS 1:\n")
    );
    assert!(
        demo("image-batched")
            .source()
            .contains("\nVAL BOOL BATCHED IS TRUE:\n")
    );
}

#[test]
fn the_classics_compute_the_right_answers() {
    // 430 primes below 3,000: the filters keep some, the last processor counts the rest.
    let sieve = run(demo("sieve"), 4);
    let kept: u32 = probes(&sieve, "kept").iter().map(|p| p.1).sum();
    let found: u32 = probes(&sieve, "primes found").iter().map(|p| p.1).sum();
    assert_eq!(kept + found, 430, "kept {kept}, found {found}");
    // The Hopfield net settles: no neuron flips in the last round, on any processor.
    let hopfield = run(demo("hopfield"), 4);
    let flips = probes(&hopfield, "flips");
    assert_eq!(flips.len(), 4 * 6, "six rounds on four processors");
    for k in 0..4 {
        let mine: Vec<u32> = flips.iter().filter(|f| f.0 == k).map(|f| f.1).collect();
        assert!(mine[0] > 0 && mine[5] == 0, "processor {k}: {mine:?}");
    }
    // Each cell's C = Σ_k A[y][k]·B[k][x] with the program's A and B.
    let matmul = run(demo("matmul"), 9);
    let mut cells = probes(&matmul, "done");
    cells.sort_unstable();
    assert_eq!(cells.len(), 9);
    for (node, c) in cells {
        let (x, y) = (node as i64 % 3, node as i64 / 3);
        let expected: i64 = (0..32)
            .map(|k| ((y + k) % 7 + 1) * ((k * (x + 1)) % 5 + 1))
            .sum();
        assert_eq!(i64::from(c), expected, "cell ({x}, {y})");
    }
}

#[test]
fn the_ray_tracer_farm_scales_and_its_versions_keep_the_servants_busier() {
    // The same picture whatever the version and the node count.
    let checksum = |s: &Session| probes(s, "picture done").first().map(|p| p.1);
    let base = demo("raytracer-bundles-50");
    let one = run(base, 1);
    let t1 = one.network.nanoseconds() as f64;
    let picture = checksum(&one);
    assert!(picture.is_some());
    eprintln!("ray tracer farm, bundles of 50: nodes, virtual ms, speedup, efficiency");
    let mut last = 1.0;
    for n in [1, 2, 4, 8, 16] {
        let s = if n == 1 { one.clone() } else { run(base, n) };
        assert_eq!(checksum(&s), picture, "{n} nodes");
        let t = s.network.nanoseconds() as f64;
        let speedup = t1 / t;
        eprintln!(
            "  {n:>2}  {:>8.1}  {speedup:>5.2}  {:>4.0} %",
            t / 1e6,
            100.0 * speedup / f64::from(n)
        );
        assert!(
            speedup >= last * 0.95,
            "{n} nodes: speedup {speedup:.2} after {last:.2}"
        );
        assert!(
            speedup <= f64::from(n) * 1.01,
            "{n} nodes: speedup {speedup:.2}"
        );
        last = speedup;
    }
    assert!(last > 4.0, "16 nodes: speedup {last:.2}");
    // The servants' useful work is the one-node run's; on 8 nodes each version's servant
    // utilization is that work over 8 × its time (what the Gantt chart shows as the servants'
    // share of busy time), beside their wall time computing (preempted time included).
    eprintln!(
        "ray tracer versions on 8 nodes: virtual ms, servant utilization, servants' wall time \
         computing, events"
    );
    let mut times = Vec::new();
    for name in [
        "raytracer",
        "raytracer-mailbox",
        "raytracer-agents",
        "raytracer-bundles-50",
        "raytracer-bundles-100",
    ] {
        let s = run(demo(name), 8);
        assert_eq!(checksum(&s), picture, "{name}");
        let t = s.network.nanoseconds() as f64;
        let u = servant_utilization(&s);
        let events: usize = s.network.nodes.iter().map(|n| n.events.len()).sum();
        eprintln!(
            "  {name:<22} {:>7.1}  {:>4.0} %  {:>4.0} %  {events} events",
            t / 1e6,
            100.0 * t1 / (8.0 * t),
            100.0 * u
        );
        assert!((0.0..=1.0).contains(&u));
        times.push(t);
    }
    assert!(
        times[3] < times[0] && times[1] < times[0],
        "mailboxes and bundles beat the plain farm: {times:?}"
    );
}

#[test]
fn batching_the_image_reconstructions_messages_makes_it_faster() {
    let mut times = Vec::new();
    for name in ["image", "image-batched"] {
        let s = run(demo(name), 16);
        let written = probes(&s, "written");
        assert_eq!(written.len(), 1, "{name}: the master wrote the image");
        times.push((s.network.nanoseconds() as f64, written[0].1));
    }
    let [(before, picture), (after, batched)] = [times[0], times[1]];
    assert_eq!(picture, batched, "the same image either way");
    eprintln!(
        "image reconstruction on a 4x4 cylinder: {:.1} ms a message per column, {:.1} ms a \
         message per subimage: {:.0} % less time",
        before / 1e6,
        after / 1e6,
        100.0 * (1.0 - after / before)
    );
    assert!(after < before * 0.8, "{before} → {after}");
}

#[test]
fn npt_points_at_verifys_serial_logging() {
    // create_cone's NPT share against its share of the CPU time, with and without logging.
    let mut shares = Vec::new();
    for name in ["verify", "verify-no-logging"] {
        let s = run(demo(name), 8);
        let trace =
            simulator_wasm::trace::to_trace(&s.network, name).unwrap_or_else(|e| panic!("{e}"));
        let analysis = shared::analyses::metrics::analyze(&trace, Default::default());
        let npt = |phase: &str| {
            analysis
                .npt
                .phases
                .iter()
                .find(|p| p.name == phase)
                .map_or(0.0, |p| p.share)
        };
        eprintln!(
            "{name} on 8 nodes: {:.1} ms; NPT create_cone {:.0} %, work {:.0} %, input {:.0} %",
            s.network.nanoseconds() as f64 / 1e6,
            100.0 * npt("create_cone"),
            100.0 * npt("work"),
            100.0 * npt("input")
        );
        shares.push((s.network.nanoseconds(), npt("create_cone"), npt("work")));
    }
    let [(with, cone, _), (without, cone_after, work_after)] = [shares[0], shares[1]];
    assert!(
        cone > 0.25,
        "create_cone weighs {cone:.2} of the run with logging"
    );
    assert!(cone_after < cone / 2.0 && work_after > 0.5, "{shares:?}");
    assert!(without < with, "no logging, less time: {with} → {without}");
}

/// The analysis of a finished demo run's trace.
fn analysed(session: &Session) -> (shared::model::Trace, shared::analyses::metrics::Analysis) {
    let trace =
        simulator_wasm::trace::to_trace(&session.network, "demo").unwrap_or_else(|e| panic!("{e}"));
    let analysis = shared::analyses::metrics::analyze(&trace, Default::default());
    (trace, analysis)
}

/// How many error diagnostics an analysis counted.
fn errors(analysis: &shared::analyses::metrics::Analysis) -> usize {
    analysis
        .diagnostic_counts
        .iter()
        .filter(|c| c.severity == shared::analyses::validate::Severity::Error)
        .map(|c| c.count)
        .sum()
}

/// Issue 45: COMSTIME's rows are its occam processes, named as the program names them, and
/// each is blocked (in a channel, or waiting for the processor it shares) most of the run;
/// before, the work landed on rows named by workspace (`ws 0x801fffc0 lo`), `prefix`,
/// `delta`, `successor` had no activity and `consumer` computed the whole run.
#[test]
fn comstimes_rows_are_its_processes_each_mostly_blocked() {
    let session = run(demo("comstime"), 1);
    let (trace, analysis) = analysed(&session);
    let names: Vec<&str> = trace.processes.iter().map(|p| p.name.as_str()).collect();
    assert!(
        names.iter().all(|n| !n.contains("ws 0x")),
        "a row named by its workspace: {names:?}"
    );
    let t = analysis.execution_time as f64;
    for name in ["prefix", "delta", "successor", "consumer"] {
        let row = analysis
            .process_times
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no row {name} in {names:?}"));
        let blocked = row.blocked as f64 / t;
        println!("{name}: blocked {:.1} % of the run", 100.0 * blocked);
        assert!(
            blocked > 0.75,
            "{name} blocked only {blocked:.3} of the run"
        );
        assert!(row.computation > 0.0, "{name} never computed");
    }
    // The PAR's parent waits for its branches: it never computes while they run.
    let main = analysis.process_times.iter().find(|p| p.name == "main");
    assert!(
        main.is_some_and(|m| (m.wall_computation as f64) < 0.01 * t),
        "{main:?}"
    );
    assert_eq!(errors(&analysis), 0, "{:?}", analysis.diagnostic_counts);
}

/// Issue 45: the ray tracer's eight servants are eight rows named with their node; the
/// critical path runs through their computation and no segment holds half of it (before,
/// one 80 ms segment of `par (high priority)` was the whole path); the plain farm's
/// servants idle at least 30 % of the run, the bundled ones less.
#[test]
fn the_farms_servants_are_named_rows_and_the_critical_path_passes_through_their_work() {
    let plain = run(demo("raytracer"), 8);
    let (trace, analysis) = analysed(&plain);
    let servants: Vec<String> = (0..8).map(|k| format!("servant @ T800 #{k}")).collect();
    for s in &servants {
        assert!(
            trace.processes.iter().filter(|p| &p.name == s).count() == 1,
            "no single row {s}"
        );
    }
    let path = &analysis.critical_path;
    let longest = path
        .segments
        .iter()
        .map(|s| s.end - s.start)
        .max()
        .unwrap_or(0);
    assert!(
        (longest as f64) < 0.5 * path.length as f64,
        "a segment of {longest} in a path of {}",
        path.length
    );
    assert!(
        path.segments.iter().any(|s| {
            s.kind == shared::graph::critical_path::SegmentKind::Computation
                && trace.processes[s.process.index()]
                    .name
                    .starts_with("servant")
        }),
        "no servant computation on the critical path"
    );
    let idle = |analysis: &shared::analyses::metrics::Analysis| -> Vec<f64> {
        let t = analysis.execution_time as f64;
        analysis
            .process_times
            .iter()
            .filter(|p| p.name.starts_with("servant @ "))
            .map(|p| 1.0 - p.wall_computation as f64 / t)
            .collect()
    };
    let plain_idle = idle(&analysis);
    assert!(plain_idle.iter().all(|&i| i >= 0.3), "{plain_idle:?}");
    let (_, bundled) = analysed(&run(demo("raytracer-bundles-50"), 8));
    let bundled_idle = idle(&bundled);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!("servants idle: plain {plain_idle:.3?}, bundles of 50 {bundled_idle:.3?}");
    assert!(mean(&bundled_idle) < mean(&plain_idle));
}

/// Issue 45: every gallery demo, on its default network, is a consistent trace (no error
/// diagnostic), its critical path is the whole run (waits reach their causes through
/// messages, releases and hand-overs of the processor, so no time is lost on the way), no
/// segment of a process waiting holds half the path, and its starting view names rows the
/// run has.
#[test]
fn every_demo_is_consistent_its_path_is_the_run_and_its_start_view_has_rows() {
    for d in DEMOS {
        let session = run(d, d.nodes[0]);
        let (trace, analysis) = analysed(&session);
        assert_eq!(
            errors(&analysis),
            0,
            "{}: {:?}",
            d.name,
            analysis.diagnostic_counts
        );
        let path = &analysis.critical_path;
        assert_eq!(path.length, analysis.execution_time, "{}", d.name);
        for s in &path.segments {
            let waiting = !matches!(
                s.kind,
                shared::graph::critical_path::SegmentKind::Computation
                    | shared::graph::critical_path::SegmentKind::Transit
            );
            assert!(
                !waiting || 2.0 * s.weight < path.length as f64,
                "{}: a {:?} segment of {} in a path of {}",
                d.name,
                s.kind,
                s.weight,
                path.length
            );
        }
        let names: Vec<&str> = trace.processes.iter().map(|p| p.name.as_str()).collect();
        let start = d.start.view();
        let view = start.view_state("run", &names, None);
        assert!(
            start.rows.is_empty() || view.processes.is_some(),
            "{}: its start view's rows {:?} are none of {names:?}",
            d.name,
            start.rows
        );
        assert!(
            names.iter().all(|n| !n.contains("ws 0x")),
            "{}: {names:?}",
            d.name
        );
    }
}
