//! The emulator's integration tests: opcodes, programs, the scheduler, ALT, timers, the
//! assembler and the COMSTIME benchmark.

mod comstime;
mod demos;
mod fpu;
mod links;
mod occam;
mod opcodes;
mod programs;
mod topology_view;
mod workers;

use simulator_wasm::asm::{Program, assemble};
use simulator_wasm::cpu::Node;
use simulator_wasm::isa::Chip;

/// Where test programs are loaded.
pub const ORIGIN: u32 = 0x8000_1000;
/// The first process's workspace.
pub const WORKSPACE: u32 = 0x8000_7F00;

/// A T800 at 20 MHz with 64 KB, running `source` from [`ORIGIN`].
pub fn boot(source: &str) -> (Node, Program) {
    boot_on(Chip::T800, source)
}

/// A node of `chip` at 20 MHz with 64 KB, running `source` from [`ORIGIN`].
pub fn boot_on(chip: Chip, source: &str) -> (Node, Program) {
    let mut node = Node::new(chip, 20_000_000, 64 * 1024);
    let program = assemble(source, &node.table, ORIGIN).unwrap_or_else(|e| panic!("{e}"));
    node.boot(ORIGIN, &program.code, WORKSPACE)
        .unwrap_or_else(|e| panic!("{e}"));
    (node, program)
}

/// Runs `node` until it idles, within `budget` instructions; on failure the message holds the
/// registers.
pub fn run(node: &mut Node, budget: u64) {
    if let Err(e) = node.run(budget) {
        panic!("{e}\n{}", node.dump());
    }
}

/// The cycles at which `node` ran its probes, in order.
pub fn probe_cycles(node: &Node) -> Vec<u64> {
    node.events
        .iter()
        .filter(|e| e.kind == simulator_wasm::cpu::EventKind::Probe)
        .map(|e| e.cycle)
        .collect()
}
