//! The mesh workload the benchmarks share: `programs/meshwork.s` (compute and pass words east
//! over the links) on a `width`×`width` mesh, `rounds` words a node (the program's own 20, or
//! 200 as `cargo xtask wasm-speed` runs it).

use simulator_wasm::asm::assemble;
use simulator_wasm::isa::CycleTable;
use simulator_wasm::network::{Config, Network};
use simulator_wasm::topology::Topology;

/// A `width`×`width` mesh loaded with meshwork sending `rounds` words, ready to run.
pub fn mesh_network(width: u32, rounds: u32, tracing: bool) -> Network {
    let source = format!(
        "WIDTH = {width}\n{}",
        include_str!("../../programs/meshwork.s")
            .replace("ROUNDS = 20", &format!("ROUNDS = {rounds}"))
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
    .expect("assembles");
    let topology = Topology::parse(&format!("mesh {width}x{width}")).expect("parses");
    let mut net = Network::new(topology, config);
    net.load_all(&program.code).expect("loads");
    net
}
