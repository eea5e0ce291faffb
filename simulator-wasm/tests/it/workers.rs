//! The network on several threads gives the same run as on one: the same trace bytes, the
//! same output and the same end, for 1, 2, 3 and 4 workers, in one go or in slices — with
//! the workers running stretches of windows alone, and going back to their checkpoints when
//! a packet crossed between them.

use shared::formats::native;
use simulator_wasm::demos::find;
use simulator_wasm::network::Stretches;
use simulator_wasm::session::{Program, Session, Setup};
use simulator_wasm::trace::to_trace;

/// A run's trace (in the native format), its output and how it ended; and its workers'
/// stretches.
fn run(
    program: &Program,
    setup: &Setup,
    workers: usize,
    slice_ns: u64,
) -> ((String, String, String), Stretches) {
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
    (
        (native::write(&trace), session.output(), outcome),
        session.network.stretches,
    )
}

/// Every worker count and slicing gives the one-thread, one-go run: how it ended, and the
/// stretches of all the runs on several workers.
fn check(program: &Program, setup: &Setup, slices_ns: &[u64]) -> (String, Stretches) {
    let (reference, none) = run(program, setup, 1, u64::MAX);
    assert_eq!(none, Stretches::default(), "one worker runs no stretches");
    let mut stretches = Stretches::default();
    assert!(
        reference.0.len() > 1_000,
        "a real trace: {}",
        reference.0.len()
    );
    for workers in [2, 3, 4] {
        for &slice in slices_ns {
            let (other, theirs) = run(program, setup, workers, slice);
            stretches.stretches += theirs.stretches;
            stretches.windows += theirs.windows;
            stretches.rollbacks += theirs.rollbacks;
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
    (reference.2, stretches)
}

#[test]
fn a_mesh_gives_identical_trace_bytes_on_any_number_of_workers() {
    let setup = Setup {
        topology: "mesh 4x4".to_owned(),
        sample_ns: 20_000,
        ..Setup::default()
    };
    let source = format!("WIDTH = 4\n{}", include_str!("../../programs/meshwork.s"));
    let (outcome, stretches) = check(&Program::Assembly(source), &setup, &[u64::MAX, 7_777]);
    assert_eq!(outcome, "Idle");
    // Most windows ran in stretches: no packet crosses between the rows' parts.
    assert!(
        stretches.windows > 10 * stretches.stretches,
        "{stretches:?}"
    );
}

#[test]
fn a_program_talking_to_the_host_gives_identical_runs_on_any_number_of_workers() {
    let setup = Setup {
        topology: "pipe 2".to_owned(),
        ..Setup::default()
    };
    let program = Program::Assembly(include_str!("../../programs/hello-loaded.s").to_owned());
    let (outcome, stretches) = check(&program, &setup, &[u64::MAX, 1_000]);
    assert_eq!(outcome, "Exited(0)");
    assert!(stretches.stretches > 0, "{stretches:?}");
}

#[test]
fn the_gallerys_farms_give_identical_runs_on_any_number_of_workers() {
    for (name, nodes) in [("raytracer", 4), ("sieve", 4), ("matmul", 4), ("image", 4)] {
        let demo = find(name).unwrap_or_else(|| panic!("no demo {name}"));
        let (program, setup) = demo.setup(Some(nodes)).unwrap_or_else(|e| panic!("{e}"));
        let (outcome, stretches) = check(&program, &setup, &[u64::MAX, 50_000]);
        assert_eq!(outcome, "Idle", "{name}");
        // The farms' workers pass work across the parts: some stretch was run past a packet
        // and taken back.
        assert!(stretches.rollbacks > 0, "{name}: {stretches:?}");
    }
}

#[test]
fn a_run_sliced_finely_gives_the_bytes_of_one_go() {
    // The sieve's pipeline idles between numbers: the clock jumps over the quiet windows, and
    // sliced runs jump from elsewhere. A jump that landed on a node's pending link action let
    // a sample be taken before the action, which one go applies at the end of a window:
    // 5-µs slices once moved a packet's 550 ns of link time into the next sampling period.
    let sieve = find("sieve").unwrap_or_else(|| panic!("no demo sieve"));
    let (program, setup) = sieve.setup(Some(4)).unwrap_or_else(|e| panic!("{e}"));
    let (reference, _) = run(&program, &setup, 1, u64::MAX);
    for slice in [5_000, 1_234] {
        let (sliced, _) = run(&program, &setup, 1, slice);
        assert!(
            sliced == reference,
            "slices of {slice} ns: {} vs {} trace bytes",
            sliced.0.len(),
            reference.0.len()
        );
    }
}

/// A ring of four nodes that each jump far out of their memory at once.
fn out_of_memory() -> (Program, Setup) {
    let setup = Setup {
        topology: "ring 4".to_owned(),
        strict_memory: true,
        ..Setup::default()
    };
    (Program::Assembly("ldc 0\n    gcall\n".to_owned()), setup)
}

#[test]
fn an_error_on_a_node_is_the_same_error_on_any_number_of_workers() {
    // Every node jumps far out of its memory at once: the lowest node's error is reported.
    let (program, setup) = out_of_memory();
    let (reference, _) = run(&program, &setup, 1, u64::MAX);
    assert!(
        reference.2.contains("node 0: memory access"),
        "{}",
        reference.2
    );
    for workers in [2, 3, 4] {
        assert_eq!(run(&program, &setup, workers, u64::MAX).0.2, reference.2);
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

/// The rounds of workers that each hold their own copy of the network, moved between threads
/// as the page's Web Workers move them through a `SharedArrayBuffer` (`static/sim-share.js`):
/// blocks and error texts in worker order, then the packets addressed to the reader.
mod loopback {
    use std::sync::{Arc, Barrier, Mutex};

    use simulator_wasm::network::parallel::share::Transport;

    /// One round's sending, by worker: its block and error text, and its packets.
    type Sent = Vec<(Vec<u8>, Vec<u8>)>;

    pub struct Loopback {
        me: usize,
        round: usize,
        barrier: Arc<Barrier>,
        sent: Arc<[Mutex<Sent>; 2]>,
    }

    /// `workers` ends of one loopback.
    pub fn loopback(workers: usize) -> Vec<Loopback> {
        let barrier = Arc::new(Barrier::new(workers));
        let empty = || Mutex::new(vec![(Vec::new(), Vec::new()); workers]);
        let sent = Arc::new([empty(), empty()]);
        (0..workers)
            .map(|me| Loopback {
                me,
                round: 0,
                barrier: Arc::clone(&barrier),
                sent: Arc::clone(&sent),
            })
            .collect()
    }

    impl Transport for Loopback {
        fn exchange(&mut self, out: &[u8], into: &mut Vec<u8>) -> Result<(), String> {
            let sizes = u64::from_le_bytes(out[56..64].try_into().map_err(|_| "short")?);
            let packets = 64 + (sizes & 0xFFFF_FFFF) as usize * 16;
            let mut block = out[..64].to_vec();
            block.extend_from_slice(&out[packets..]);
            let parity = self.round & 1;
            self.round += 1;
            self.sent[parity].lock().map_err(|e| e.to_string())?[self.me] =
                (block, out[64..packets].to_vec());
            self.barrier.wait();
            let sent = self.sent[parity].lock().map_err(|e| e.to_string())?;
            into.clear();
            for (block, _) in sent.iter() {
                into.extend_from_slice(block);
            }
            for (_, packets) in sent.iter() {
                for p in packets
                    .chunks_exact(16)
                    .filter(|p| usize::from(p[7]) == self.me)
                {
                    into.extend_from_slice(p);
                }
            }
            Ok(())
        }
    }
}

/// A run shared among `workers` copies of the session on as many threads, each running its
/// part through a [`loopback::Loopback`], worker 0 taking in the others' records at the end:
/// its trace, output and end, as [`run`] gives them, and the stretches (the rollbacks of all
/// the copies).
fn shared_run(
    program: &Program,
    setup: &Setup,
    workers: usize,
    slice_ns: u64,
) -> ((String, String, String), Stretches) {
    use simulator_wasm::network::parallel::share::BytesFabric;
    let session = Session::new(program, setup).unwrap_or_else(|e| panic!("{e}"));
    let nodes = session.network.nodes.len();
    // As the page does: no more workers than nodes.
    let workers = workers.min(nodes);
    let results: Vec<(Session, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = loopback::loopback(workers)
            .into_iter()
            .enumerate()
            .map(|(me, end)| {
                let mut session = session.clone();
                scope.spawn(move || {
                    let mut fabric = BytesFabric::new(end, me, workers, nodes);
                    let outcome = loop {
                        let to = session.slice_end(slice_ns);
                        match session.advance_to(to, |net, to| net.run_share(to, &mut fabric)) {
                            Ok(Some(outcome)) => break format!("{outcome:?}"),
                            Ok(None) => {}
                            Err(e) => break format!("error: {e}"),
                        }
                    };
                    (session, outcome)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker"))
            .collect()
    });
    let mut results = results.into_iter();
    let (mut first, outcome) = results.next().expect("worker 0");
    let mut stretches = first.network.stretches;
    for (me, (other, other_outcome)) in results.enumerate() {
        assert_eq!(other.network.stretches.windows, stretches.windows);
        stretches.rollbacks += other.network.stretches.rollbacks;
        assert_eq!(other_outcome, outcome, "worker {} ends as worker 0", me + 1);
        let range = simulator_wasm::network::parallel::share::part_nodes(me + 1, workers, nodes);
        let record = other.network.export_part(range);
        first
            .network
            .import_part(&record)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let trace = to_trace(&first.network, "run").unwrap_or_else(|e| panic!("{e}"));
    ((native::write(&trace), first.output(), outcome), stretches)
}

#[test]
fn copies_of_a_network_sharing_a_run_give_the_one_thread_runs_bytes() {
    let mesh = (
        Program::Assembly(format!(
            "WIDTH = 4\n{}",
            include_str!("../../programs/meshwork.s")
        )),
        Setup {
            topology: "mesh 4x4".to_owned(),
            sample_ns: 20_000,
            ..Setup::default()
        },
    );
    let hello = (
        Program::Assembly(include_str!("../../programs/hello-loaded.s").to_owned()),
        Setup {
            topology: "pipe 2".to_owned(),
            ..Setup::default()
        },
    );
    let mut cases = vec![("mesh", mesh), ("hello", hello)];
    let sieve = find("sieve").unwrap_or_else(|| panic!("no demo sieve"));
    cases.push((
        "sieve",
        sieve.setup(Some(4)).unwrap_or_else(|e| panic!("{e}")),
    ));
    for (name, (program, setup)) in cases {
        let (reference, _) = run(&program, &setup, 1, u64::MAX);
        assert!(reference.0.len() > 1_000, "{name}: a real trace");
        // The sieve has the most rounds (its workers pass numbers along the pipeline all the
        // time): two and three copies are enough there.
        let runs: &[(usize, u64)] = match name {
            "sieve" => &[(2, u64::MAX), (3, 50_000)],
            _ => &[(2, u64::MAX), (4, u64::MAX), (3, 5_000)],
        };
        let mut rollbacks = 0;
        for &(workers, slice) in runs {
            let (other, stretches) = shared_run(&program, &setup, workers, slice);
            assert!(stretches.windows > 0, "{name}: stretches were run");
            rollbacks += stretches.rollbacks;
            assert!(
                other == reference,
                "{name}, {workers} copies, slices of {slice} ns: {} vs {} trace bytes, \
                 output {:?} vs {:?}, outcome {} vs {}",
                other.0.len(),
                reference.0.len(),
                other.1,
                reference.1,
                other.2,
                reference.2
            );
        }
        if name == "sieve" {
            assert!(rollbacks > 0, "the sieve's copies went back to checkpoints");
        }
    }
}

#[test]
fn an_error_in_one_copy_is_every_copys_error() {
    let (program, setup) = out_of_memory();
    let (reference, _) = run(&program, &setup, 1, u64::MAX);
    for workers in [2, 4] {
        assert_eq!(
            shared_run(&program, &setup, workers, u64::MAX).0.2,
            reference.2
        );
    }
}
