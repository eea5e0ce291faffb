//! COMSTIME in assembly (`programs/comstime.s`): per-iteration virtual time against the
//! 15,049 ns a real T800-20 takes (`pahihu/t4:examples/comstime`).

use simulator_wasm::cpu::EventKind;

use super::{boot, run};

const SOURCE: &str = include_str!("../../programs/comstime.s");

/// The virtual nanoseconds per COMSTIME iteration, and the instructions run.
pub fn comstime_ns_per_iteration() -> (f64, u64) {
    let (mut node, program) = boot(SOURCE);
    run(&mut node, 10_000_000);
    let n = program.symbol("N").expect("N") as f64;
    let probes = crate::probe_cycles(&node);
    assert_eq!(probes.len(), 2, "{}", node.dump());
    let cycles = (probes[1] - probes[0]) as f64;
    (cycles * 50.0 / n, node.instructions)
}

#[test]
fn comstime_runs_within_ten_percent_of_a_real_t800() {
    let (ns, instructions) = comstime_ns_per_iteration();
    eprintln!("COMSTIME: {ns:.0} ns per iteration ({instructions} instructions)");
    let real = 15_049.0;
    assert!(
        (ns - real).abs() / real < 0.10,
        "{ns:.0} ns per iteration against {real} ns"
    );
}

#[test]
fn comstime_passes_every_value_through_the_ring_in_order() {
    let (mut node, _) = boot(SOURCE);
    run(&mut node, 10_000_000);
    // The consumer's inputs complete with 0, 1, 2, …: each arrival at the consumer is one
    // more than the one before, since the successor adds one per turn of the ring.
    let arrivals = node
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Arrival && e.channel == 0x8000_800C)
        .count();
    assert_eq!(arrivals, 1000);
    let value = node.read_word(super::WORKSPACE + 4).expect("W[1]");
    assert_eq!(value, 999, "the last value taken");
}

#[test]
fn comstimes_steady_pattern_of_events_is_logged_in_under_a_byte_an_event() {
    let (mut node, _) = boot(SOURCE);
    run(&mut node, 10_000_000);
    let (events, bytes) = (node.events.len(), node.events.size());
    // 1,000 turns of the ring, 15 events each: once seen, each turn is predicted.
    assert!(events > 15_000, "{events} events");
    assert!(bytes < events / 4, "{bytes} bytes for {events} events");
}
