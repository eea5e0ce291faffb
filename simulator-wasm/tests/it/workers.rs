//! The network on several threads gives the same run as on one: the same trace bytes, the
//! same output and the same end, for 1, 2, 3 and 4 workers, in one go or in slices.

use shared::formats::native;
use simulator_wasm::demos::find;
use simulator_wasm::session::{Program, Session, Setup};
use simulator_wasm::trace::to_trace;

/// A run's trace (in the native format), its output and how it ended.
fn run(
    program: &Program,
    setup: &Setup,
    workers: usize,
    slice_ns: u64,
) -> (String, String, String) {
    let setup = Setup {
        workers,
        ..setup.clone()
    };
    let mut session = Session::new(program, &setup).unwrap_or_else(|e| panic!("{e}"));
    let outcome = loop {
        match session.advance(slice_ns) {
            Ok(Some(outcome)) => break format!("{outcome:?}"),
            Ok(None) => {}
            Err(e) => break format!("error: {e}"),
        }
    };
    let trace = to_trace(&session.network, "run").unwrap_or_else(|e| panic!("{e}"));
    (native::write(&trace), session.output(), outcome)
}

/// Every worker count and slicing gives the one-thread, one-go run.
fn check(program: &Program, setup: &Setup, slices_ns: &[u64]) -> String {
    let reference = run(program, setup, 1, u64::MAX);
    assert!(
        reference.0.len() > 1_000,
        "a real trace: {}",
        reference.0.len()
    );
    for workers in [2, 3, 4] {
        for &slice in slices_ns {
            let other = run(program, setup, workers, slice);
            assert!(
                other == reference,
                "{workers} workers, slices of {slice} ns: {} vs {} trace bytes, outcome {} vs {}",
                other.0.len(),
                reference.0.len(),
                other.2,
                reference.2
            );
        }
    }
    reference.2
}

#[test]
fn a_mesh_gives_identical_trace_bytes_on_any_number_of_workers() {
    let setup = Setup {
        topology: "mesh 4x4".to_owned(),
        sample_ns: 20_000,
        ..Setup::default()
    };
    let source = format!("WIDTH = 4\n{}", include_str!("../../programs/meshwork.s"));
    let outcome = check(&Program::Assembly(source), &setup, &[u64::MAX, 7_777]);
    assert_eq!(outcome, "Idle");
}

#[test]
fn a_program_talking_to_the_host_gives_identical_runs_on_any_number_of_workers() {
    let setup = Setup {
        topology: "pipe 2".to_owned(),
        ..Setup::default()
    };
    let program = Program::Assembly(include_str!("../../programs/hello-loaded.s").to_owned());
    let outcome = check(&program, &setup, &[u64::MAX, 1_000]);
    assert_eq!(outcome, "Exited(0)");
}

#[test]
fn the_gallerys_farms_give_identical_runs_on_any_number_of_workers() {
    for (name, nodes) in [("raytracer", 4), ("sieve", 4), ("matmul", 4), ("image", 4)] {
        let demo = find(name).unwrap_or_else(|| panic!("no demo {name}"));
        let (program, setup) = demo.setup(Some(nodes)).unwrap_or_else(|e| panic!("{e}"));
        let outcome = check(&program, &setup, &[u64::MAX, 50_000]);
        assert_eq!(outcome, "Idle", "{name}");
    }
}

#[test]
fn an_error_on_a_node_is_the_same_error_on_any_number_of_workers() {
    // Every node jumps far out of its memory at once: the lowest node's error is reported.
    let setup = Setup {
        topology: "ring 4".to_owned(),
        strict_memory: true,
        ..Setup::default()
    };
    let program = Program::Assembly("ldc 0\n    gcall\n".to_owned());
    let reference = run(&program, &setup, 1, u64::MAX);
    assert!(
        reference.2.contains("node 0: memory access"),
        "{}",
        reference.2
    );
    for workers in [2, 3, 4] {
        assert_eq!(run(&program, &setup, workers, u64::MAX).2, reference.2);
    }
}

/// A 4×4 mesh running `meshwork`, on `parts` parts and `threads` threads.
fn mesh(parts: usize, threads: usize) -> Vec<u8> {
    use simulator_wasm::asm::assemble;
    use simulator_wasm::isa::CycleTable;
    use simulator_wasm::network::{Config, Network, Outcome};
    use simulator_wasm::topology::Topology;
    let source = format!("WIDTH = 4\n{}", include_str!("../../programs/meshwork.s"));
    let config = Config {
        sample_ps: 10_000_000,
        ..Config::default()
    };
    let program = assemble(
        &source,
        &CycleTable::new(config.chip, 0),
        config.chip.mem_start(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let topology = Topology::parse("mesh 4x4").unwrap_or_else(|e| panic!("{e}"));
    let mut net = Network::new(topology, config);
    net.load_program(&program).unwrap_or_else(|e| panic!("{e}"));
    let outcome = net
        .run_parts(u64::MAX, parts, threads)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outcome, Outcome::Idle);
    native::write(&to_trace(&net, "mesh").unwrap_or_else(|e| panic!("{e}"))).into_bytes()
}

#[test]
fn more_threads_than_cores_still_give_the_same_bytes() {
    // As many threads as parts, whatever the machine has: they sleep at the barrier instead
    // of spinning while the one they wait for has no core.
    let reference = mesh(1, 1);
    for (parts, threads) in [(2, 2), (4, 4), (4, 2), (16, 4)] {
        assert!(
            mesh(parts, threads) == reference,
            "{parts} parts on {threads} threads"
        );
    }
}
