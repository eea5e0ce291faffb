//! Emulated instructions per host second: first the gallery's demos as the page runs them (the
//! ray tracer on 1 and 16 nodes, the sieve, image reconstruction and Hopfield on 16: nodes that
//! wait, idle and run long FPU instructions); then COMSTIME (four processes over internal channels,
//! a PAR per iteration) on one T800 node, with tracing on and off; and a 16-node mesh
//! (`programs/meshwork.s`: compute and pass words east over the links), whose throughput
//! criterion reports in instructions of all nodes a second.
//!
//! Then the 4×4, 8×8 and 16×16 meshes on 1, 2, 4 and 8 workers (`Network::run_parallel`: threads
//! up to the machine's cores, the rest of the parts shared among them), timing only the run.
//!
//! `cargo bench -p simulator-wasm --bench emulator`; each iteration runs 1,000 COMSTIME loops
//! (60,327 instructions), so instructions per second = 60,327 / the reported time.

#[path = "common/mesh.rs"]
mod mesh;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use mesh::mesh_network;
use simulator_wasm::asm::assemble;
use simulator_wasm::cpu::Node;
use simulator_wasm::isa::Chip;
use simulator_wasm::network::Network;
use simulator_wasm::session::{Program, Session, Setup};
use simulator_wasm::topology::Topology;

const SOURCE: &str = include_str!("../programs/comstime.s");
const ORIGIN: u32 = 0x8000_1000;

fn comstime(tracing: bool) -> u64 {
    let mut node = Node::new(Chip::T800, 20_000_000, 64 * 1024);
    node.tracing = tracing;
    let program = assemble(SOURCE, &node.table, ORIGIN).expect("assembles");
    node.boot(ORIGIN, &program.code, 0x8000_7F00)
        .expect("boots");
    node.run(10_000_000).expect("runs");
    node.instructions
}

fn mesh(tracing: bool) -> u64 {
    mesh_of(4, tracing, 1)
}

/// A `width`×`width` mesh running meshwork on `workers` parts (threads: at most the cores).
fn mesh_of(width: u32, tracing: bool, workers: usize) -> u64 {
    run_mesh(mesh_network(width, 20, tracing), workers).instructions()
}

/// Runs `net` to its end on `workers` parts (and hands it back, to be dropped untimed).
fn run_mesh(mut net: Network, workers: usize) -> Network {
    net.run_parallel(u64::MAX, workers).expect("runs");
    net
}

/// A gallery demo on `nodes` nodes as the page runs it (tracing on, one worker), from its
/// compiled program: the instructions of all nodes.
fn demo(program: &Program, setup: &Setup) -> u64 {
    let mut session = Session::new(program, setup).expect("builds");
    session.finish().expect("runs");
    session.network.instructions()
}

fn bench(c: &mut Criterion) {
    // The demos: most of a network's time goes to its windows, not its instructions; the ray
    // tracer on one node measures compiled occam alone (half its instructions are prefixes).
    let mut group = c.benchmark_group("demos");
    group.sample_size(10);
    for (name, nodes) in [
        ("raytracer", 1),
        ("raytracer", 16),
        ("sieve", 16),
        ("image", 16),
        ("hopfield", 16),
    ] {
        let (source, setup) = simulator_wasm::demos::find(name)
            .expect("a demo")
            .setup(Some(nodes))
            .expect("a node count it lists");
        // Compiled once: each iteration assembles and loads what the compiler wrote, as a
        // session does after compiling.
        let Program::Occam(occam) = &source else {
            unreachable!("the demos are occam")
        };
        let topology = Topology::parse(&setup.topology).expect("parses");
        let program = Program::Assembly(
            simulator_wasm::occam::compile_for(occam, &topology).expect("compiles"),
        );
        let instructions = demo(&program, &setup);
        group.throughput(Throughput::Elements(instructions));
        group.bench_function(format!("{name} {nodes} nodes"), |b| {
            b.iter(|| demo(&program, &setup))
        });
    }
    group.finish();
    let instructions = comstime(false);
    let mut group = c.benchmark_group("comstime");
    group.throughput(Throughput::Elements(instructions));
    group.bench_function("tracing off", |b| b.iter(|| comstime(false)));
    group.bench_function("tracing on", |b| b.iter(|| comstime(true)));
    group.finish();
    let instructions = mesh(false);
    let mut group = c.benchmark_group("mesh 4x4");
    group.throughput(Throughput::Elements(instructions));
    group.bench_function("tracing off", |b| b.iter(|| mesh(false)));
    group.bench_function("tracing on", |b| b.iter(|| mesh(true)));
    group.finish();
    // The network on several threads (the same run whatever the number): 16, 64 and 256 nodes.
    // Only the run is timed: building a network zeroes 2 MiB of memory a node.
    for width in [4u32, 8, 16] {
        let instructions = mesh_of(width, true, 1);
        let mut group = c.benchmark_group(format!("mesh {width}x{width} workers"));
        group.throughput(Throughput::Elements(instructions));
        group.sample_size(20);
        for workers in [1usize, 2, 4, 8] {
            group.bench_function(format!("{workers}"), |b| {
                b.iter_batched(
                    || mesh_network(width, 20, true),
                    |net| run_mesh(net, workers),
                    BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
