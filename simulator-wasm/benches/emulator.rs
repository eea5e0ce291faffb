//! Emulated instructions per host second: COMSTIME (four processes over internal channels,
//! a PAR per iteration) on one T800 node, with tracing on and off.
//!
//! `cargo bench -p simulator-wasm --bench emulator`; each iteration runs 1,000 COMSTIME loops
//! (60,327 instructions), so instructions per second = 60,327 / the reported time.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use simulator_wasm::asm::assemble;
use simulator_wasm::cpu::Node;
use simulator_wasm::isa::Chip;

const SOURCE: &str = include_str!("../tests/data/comstime.s");
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

fn bench(c: &mut Criterion) {
    let instructions = comstime(false);
    let mut group = c.benchmark_group("comstime");
    group.throughput(Throughput::Elements(instructions));
    group.bench_function("tracing off", |b| b.iter(|| comstime(false)));
    group.bench_function("tracing on", |b| b.iter(|| comstime(true)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
