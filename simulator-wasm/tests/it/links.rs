//! Links as packets and networks: throughput in virtual time against the reference's figures,
//! the host, boot from link, and determinism.

use shared::formats::native;
use shared::graph::pairing::pair_messages;
use shared::model::EventKind;
use simulator_wasm::asm::assemble;
use simulator_wasm::isa::{Chip, CycleTable};
use simulator_wasm::network::{Config, Network, Outcome};
use simulator_wasm::session::{Program, Session, Setup};
use simulator_wasm::topology::Topology;
use simulator_wasm::trace::to_trace;

/// Runs the link benchmark on a two-node pipe; returns each receiving node's MB/s.
fn link_bench(chip: Chip, mbit: u32, both: bool) -> Vec<f64> {
    let source = format!(
        "BOTH = {}\n{}",
        u32::from(both),
        include_str!("../data/linkbench.s")
    );
    let config = Config {
        chip,
        link_mbit: mbit,
        ..Config::default()
    };
    let program = assemble(&source, &CycleTable::new(chip, 0), chip.mem_start())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut net = Network::new(
        Topology::parse("pipe 2").unwrap_or_else(|e| panic!("{e}")),
        config,
    );
    net.load_all(&program.code)
        .unwrap_or_else(|e| panic!("{e}"));
    let outcome = net.run(1_000_000_000_000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcome, Outcome::Idle);
    let bytes = 4.0 * 4096.0;
    let mut rates = Vec::new();
    for node in 0..2 {
        let start = net.probes(1).into_iter().find(|p| p.0 == node);
        let end = net.probes(2).into_iter().find(|p| p.0 == node);
        if let (Some(s), Some(e)) = (start, end) {
            let seconds = (e.1 - s.1) as f64 * 1e-12;
            rates.push(bytes / seconds / 1e6);
        }
    }
    eprintln!("{chip:?} {mbit} Mbit/s both={both}: {rates:.3?} MB/s");
    rates
}

#[test]
fn one_way_throughput_at_20_mbit_is_the_data_packet_rate() {
    let rates = link_bench(Chip::T800, 20, false);
    assert_eq!(rates.len(), 1);
    // 20 Mbit/s ÷ 11 bits a byte = 1.818 MB/s: the overlapped acknowledge hides the
    // acknowledge entirely. The reference gives ~1.8 MB/s.
    assert!((1.75..=1.82).contains(&rates[0]), "{rates:?}");
}

#[test]
fn both_ways_throughput_at_20_mbit_matches_the_published_total() {
    let rates = link_bench(Chip::T800, 20, true);
    assert_eq!(rates.len(), 2);
    let total: f64 = rates.iter().sum();
    // Published: ~2.35–2.4 MB/s in total for a T800 link used both ways.
    assert!((2.3..=2.45).contains(&total), "{rates:?} total {total}");
    assert!((rates[0] - rates[1]).abs() < 0.01, "{rates:?}");
}

#[test]
fn slower_links_and_the_t414_are_slower() {
    let ten = link_bench(Chip::T800, 10, false)[0];
    assert!((0.88..=0.91).contains(&ten), "{ten}");
    let t414 = link_bench(Chip::T414, 20, false)[0];
    assert!(t414 < 1.3, "{t414}");
}

/// Runs the mesh workload on `topology` (WIDTH wide) and returns the network.
pub fn mesh_run(topology: &str, width: u32, tracing: bool) -> Network {
    let source = format!(
        "WIDTH = {width}\n{}",
        include_str!("../../programs/meshwork.s")
    );
    let config = Config {
        tracing,
        ..Config::default()
    };
    let program = assemble(
        &source,
        &CycleTable::new(config.chip, 0),
        config.chip.mem_start(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let topology = Topology::parse(topology).unwrap_or_else(|e| panic!("{e}"));
    let mut net = Network::new(topology, config);
    net.load_program(&program).unwrap_or_else(|e| panic!("{e}"));
    let outcome = net.run(u64::MAX).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcome, Outcome::Idle);
    net
}

/// Processes are named by the code label they start at and the node they run on: meshwork's
/// main code (`start @ T800 #k`, which goes on after its join as the same process) and the
/// child each node with an eastern neighbour starts (`sender`, two on a 2×2 mesh), not by
/// workspace addresses.
#[test]
fn processes_are_named_after_the_code_they_start_at() {
    let trace = to_trace(&mesh_run("mesh 2x2", 2, true), "mesh").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = trace.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("start @ T800 #"))
            .count(),
        4,
        "{names:?}"
    );
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("sender @ T800 #"))
            .count(),
        2,
        "{names:?}"
    );
    assert!(!names.iter().any(|n| n.starts_with("ws ")), "{names:?}");
}

#[test]
fn the_same_program_on_the_same_network_gives_identical_trace_bytes() {
    let first = to_trace(&mesh_run("mesh 4x4", 4, true), "mesh").unwrap_or_else(|e| panic!("{e}"));
    let second = to_trace(&mesh_run("mesh 4x4", 4, true), "mesh").unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (native::write(&first), native::write(&second));
    assert_eq!(a, b);
    // 12 eastward wires, 20 words each, every one paired with its arrival.
    let pairing = pair_messages(&first);
    assert_eq!(pairing.messages.len(), 12 * 20);
    assert!(pairing.unmatched_sends.is_empty() && pairing.unmatched_arrivals.is_empty());
    assert_eq!(first.nodes.len(), 16);
    assert_eq!(first.links.len(), 24);
    assert!(!first.cpu_samples.is_empty() && !first.link_samples.is_empty());
    let done = first
        .events
        .kind()
        .iter()
        .filter(|k| **k == EventKind::Probe)
        .count();
    assert_eq!(done, 16);
}

#[test]
fn a_boot_file_boots_the_root_which_boots_the_next_node_and_the_host_prints_its_output() {
    let code = assemble(
        include_str!("../data/hello.s"),
        &CycleTable::new(Chip::T800, 0),
        Chip::T800.mem_start(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .code;
    assert!(code.len() <= 255, "{} bytes", code.len());
    let mut boot = vec![code.len() as u8];
    boot.extend_from_slice(&code);
    let setup = Setup {
        topology: "pipe 2".to_owned(),
        ..Setup::default()
    };
    let mut session =
        Session::new(&Program::BootFile(boot), &setup).unwrap_or_else(|e| panic!("{e}"));
    let outcome = session.finish().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcome, Outcome::Exited(0));
    assert_eq!(session.output(), "hello, world\nnode 1 booted\n");
    assert!(!session.network.nodes[1].is_booting());
    let trace = to_trace(&session.network, "hello").unwrap_or_else(|e| panic!("{e}"));
    // Two boots (host to root, root to node 1), three requests to the host, two replies of
    // two reads each (the host ends at the exit request, leaving the last reply unsent), and
    // node 1's word.
    let pairing = pair_messages(&trace);
    assert_eq!(pairing.messages.len(), 2 + 3 + 4 + 1, "{pairing:?}");
    assert!(pairing.unmatched_sends.is_empty() && pairing.unmatched_arrivals.is_empty());
    assert_eq!(trace.nodes.len(), 3);
    assert_eq!(trace.nodes[2].name, "host");
}

#[test]
fn bad_boot_files_and_networks_are_errors_not_panics() {
    let setup = Setup::default();
    let error = |program: Program, setup: &Setup| match Session::new(&program, setup) {
        Err(e) => e.to_string(),
        Ok(_) => "accepted".to_owned(),
    };
    assert!(error(Program::BootFile(vec![]), &setup).contains("length"));
    assert!(error(Program::Assembly("ldc".to_owned()), &setup).contains("line 1"));
    let bad = Setup {
        topology: "mesh 20x20".to_owned(),
        ..Setup::default()
    };
    assert!(error(Program::Assembly("stopp".to_owned()), &bad).contains("1 to 256"));
    let slow = Setup {
        link_mbit: 7,
        ..Setup::default()
    };
    assert!(error(Program::Assembly("stopp".to_owned()), &slow).contains("5, 10 or 20"));
}

#[test]
fn the_pages_hello_example_prints_both_lines_and_exits() {
    let setup = Setup {
        topology: "pipe 2".to_owned(),
        ..Setup::default()
    };
    let program = Program::Assembly(include_str!("../../programs/hello-loaded.s").to_owned());
    let mut session = Session::new(&program, &setup).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        session.finish().unwrap_or_else(|e| panic!("{e}")),
        Outcome::Exited(0)
    );
    assert_eq!(session.output(), "hello from T800 #0\nnode 1 sent a word\n");
    // Slices give the same run as one go.
    let mut sliced = Session::new(&program, &setup).unwrap_or_else(|e| panic!("{e}"));
    while sliced
        .advance(1_000)
        .unwrap_or_else(|e| panic!("{e}"))
        .is_none()
    {}
    assert_eq!(sliced.network.time_ps, session.network.time_ps);
    assert_eq!(sliced.output(), session.output());
    let trace = |s: &Session| {
        native::write(&to_trace(&s.network, "hello").unwrap_or_else(|e| panic!("{e}")))
    };
    assert_eq!(trace(&sliced), trace(&session));
}

#[test]
fn a_mesh_run_in_slices_gives_the_same_trace_as_one_run() {
    let setup = Setup {
        topology: "mesh 4x4".to_owned(),
        sample_ns: 50_000,
        ..Setup::default()
    };
    let source = format!("WIDTH = 4\n{}", include_str!("../../programs/meshwork.s"));
    let program = Program::Assembly(source);
    let mut whole = Session::new(&program, &setup).unwrap_or_else(|e| panic!("{e}"));
    whole.finish().unwrap_or_else(|e| panic!("{e}"));
    let mut sliced = Session::new(&program, &setup).unwrap_or_else(|e| panic!("{e}"));
    let mut slices = 0;
    while sliced
        .advance(7_777)
        .unwrap_or_else(|e| panic!("{e}"))
        .is_none()
    {
        slices += 1;
    }
    assert!(slices > 100, "{slices}");
    let trace = |s: &Session| {
        native::write(&to_trace(&s.network, "mesh").unwrap_or_else(|e| panic!("{e}")))
    };
    assert_eq!(trace(&sliced), trace(&whole));
}

/// Boot code that writes a line through the host twenty times, reading each reply (the host
/// sends it byte by byte, each acknowledged), then exits.
const HOST_TALK: &str = "
BUF = #80002000
LINK0_OUT = #80000000
LINK0_IN = #80000010
    ajw 64
    ldc 20
    stl 1
again:
    ldc line
    ldc LINK0_OUT
    ldc line_end - line
    out
    ldc BUF
    ldc LINK0_IN
    ldc 2
    in
    ldc BUF
    ldc LINK0_IN
    ldc 6
    in
    ldl 1
    adc -1
    stl 1
    ldl 1
    cj done
    j again
done:
    ldc bye
    ldc LINK0_OUT
    ldc bye_end - bye
    out
    stopp
line:
    .byte 10, 0, 13, 1, 0, 0, 0, 3, 0, \"ab\", 10
line_end:
bye:
    .byte 6, 0, 35, 0, 0, 0, 0, 0
bye_end:
";

#[test]
fn sampling_never_changes_the_machines_behaviour() {
    // Programs that talk to the host byte by byte (a long boot stream, requests and replies):
    // the utilization sampling period must not change when anything happens.
    let code = assemble(
        HOST_TALK,
        &CycleTable::new(Chip::T800, 0),
        Chip::T800.mem_start(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .code;
    let mut talk = vec![code.len() as u8];
    talk.extend_from_slice(&code);
    for (boot, topology) in [(talk, "single"), (two_stage_boot_file(), "pipe 16")] {
        let run = |sample_ns: u64| {
            let setup = Setup {
                topology: topology.to_owned(),
                sample_ns,
                keys: b"Q".to_vec(),
                ..Setup::default()
            };
            let mut session = Session::new(&Program::BootFile(boot.clone()), &setup)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(session.finish(), Ok(Outcome::Exited(0)));
            let events: Vec<_> = session
                .network
                .nodes
                .iter()
                .map(|n| n.events.iter().collect::<Vec<_>>())
                .collect();
            (session.network.nanoseconds(), session.output(), events)
        };
        let fine = run(1_000);
        assert!(fine.0 > 0);
        for sample_ns in [100_000, 1_000_000] {
            let other = run(sample_ns);
            assert_eq!(
                other.0, fine.0,
                "{topology}: virtual time at a {sample_ns} ns period"
            );
            assert_eq!(other.1, fine.1);
            assert!(
                other.2 == fine.2,
                "{topology}: events differ at {sample_ns} ns"
            );
        }
    }
}

/// The standard two-stage boot, built with this assembler: a primary bootstrap (one boot
/// block) that loads a secondary loader, which runs `fptesterr` as INMOS's does and loads the
/// program; the program boots 15 more nodes down a pipe, reads a key and writes a file.
fn two_stage_boot_file() -> Vec<u8> {
    two_stage_boot_of(include_str!("../../programs/two-stage/program.s"))
}

/// The two-stage boot with `program` (assembled at #80020000) as its last stage.
fn two_stage_boot_of(program_source: &str) -> Vec<u8> {
    let table = CycleTable::new(Chip::T800, 0);
    let part = |source: &str, origin: u32| {
        assemble(source, &table, origin)
            .unwrap_or_else(|e| panic!("{e}"))
            .code
    };
    let primary = part(
        include_str!("../../programs/two-stage/primary.s"),
        Chip::T800.mem_start(),
    );
    let secondary = part(
        include_str!("../../programs/two-stage/secondary.s"),
        0x8001_0000,
    );
    let program = part(program_source, 0x8002_0000);
    assert!(primary.len() <= 255);
    let mut boot = vec![primary.len() as u8];
    boot.extend_from_slice(&primary);
    for stage in [secondary, program] {
        boot.extend_from_slice(&(stage.len() as u32).to_le_bytes());
        boot.extend_from_slice(&stage);
    }
    boot
}

#[test]
fn a_two_stage_boot_file_boots_sixteen_nodes_reads_a_key_and_writes_a_file() {
    let setup = Setup {
        topology: "pipe 16".to_owned(),
        keys: b"Q".to_vec(),
        ..Setup::default()
    };
    let mut session = Session::new(&Program::BootFile(two_stage_boot_file()), &setup)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(session.finish(), Ok(Outcome::Exited(0)));
    assert_eq!(session.output(), "key Q, 15 nodes\n");
    let (files, written) = session.files().expect("a host");
    assert_eq!(written, ["result.txt"]);
    assert_eq!(files["result.txt"], b"key Q, 15 nodes\n");
    // The secondary loader's fptesterr answered "no error".
    assert_eq!(session.network.nodes[0].read_word(0x8000_4FF8), Ok(1));
    assert!(session.network.nodes.iter().all(|n| !n.is_booting()));
    let trace = to_trace(&session.network, "two-stage").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(trace.nodes.len(), 17, "16 transputers and the host");
}

#[test]
fn comstime_from_a_two_stage_boot_file_times_as_comstime_loaded_directly() {
    // COMSTIME as the program of the two-stage boot, on one node: the time per iteration
    // between its probes is the directly loaded run's, within 10 % of a real T800-20's.
    let boot = two_stage_boot_of(include_str!("../../programs/comstime.s"));
    let mut session =
        Session::new(&Program::BootFile(boot), &Setup::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(session.finish(), Ok(Outcome::Idle));
    let probes: Vec<u64> = session.network.nodes[0]
        .events
        .iter()
        .filter(|e| e.kind == simulator_wasm::cpu::EventKind::Probe)
        .map(|e| e.cycle)
        .collect();
    assert_eq!(probes.len(), 2);
    let booted = (probes[1] - probes[0]) as f64 * 50.0 / 1000.0;
    let (loaded, _) = crate::comstime::comstime_ns_per_iteration();
    eprintln!("COMSTIME from a boot file: {booted:.0} ns per iteration (loaded: {loaded:.0})");
    assert_eq!(booted, loaded);
    assert!((booted - 15_049.0).abs() / 15_049.0 < 0.10);
}
