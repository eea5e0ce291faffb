//! How much faster a network runs on more workers, measured in pairs: the 64-node mesh
//! (`programs/meshwork.s`, tracing on) runs on one worker, then on `WORKERS` (default 2), and
//! again, `PAIRS` times (default 30). This machine's speed drifts by up to 1.5× over minutes,
//! and criterion times each worker count minutes apart, so its two means can meet different
//! machines; a ratio taken within each pair does not. Only the runs are timed (building a
//! network zeroes 2 MiB a node).
//!
//! `cargo bench -p simulator-wasm --bench workers_paired` (`WIDTH=16` for the 256-node mesh;
//! `ROUNDS=200` for the run `cargo xtask wasm-speed` times, ten times as long as the program's
//! own 20 rounds). Prints each count's median time and the pairs' ratios (median and
//! quartiles).

#[path = "common/mesh.rs"]
mod mesh;

use mesh::mesh_network;

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let width = setting("WIDTH", 8) as u32;
    let workers = setting("WORKERS", 2);
    let pairs = setting("PAIRS", 30).max(1);
    let rounds = setting("ROUNDS", 20) as u32;
    let run = |parts: usize| {
        let mut net = mesh_network(width, rounds, true);
        let started = std::time::Instant::now();
        net.run_parallel(u64::MAX, parts).expect("runs");
        let ms = started.elapsed().as_secs_f64() * 1e3;
        (ms, net.instructions())
    };
    let (mut one, mut many, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut instructions = 0;
    for _ in 0..pairs {
        let (a, _) = run(1);
        let (b, count) = run(workers);
        instructions = count;
        one.push(a);
        many.push(b);
        ratios.push(a / b);
    }
    for v in [&mut one, &mut many, &mut ratios] {
        v.sort_by(f64::total_cmp);
    }
    let at = |v: &[f64], q: usize| v[(v.len() - 1) * q / 4];
    println!(
        "mesh {width}x{width}, {rounds} rounds, {instructions} instructions, {pairs} pairs: 1 worker {:.2} ms, \
         {workers} workers {:.2} ms (medians); ratio median {:.3}, quartiles {:.3}-{:.3}",
        at(&one, 2),
        at(&many, 2),
        at(&ratios, 2),
        at(&ratios, 1),
        at(&ratios, 3),
    );
}
