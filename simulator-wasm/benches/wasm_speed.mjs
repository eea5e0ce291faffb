// Emulated instructions per host second in WebAssembly under Node (V8), the emulator as the
// Simulator page's worker loads it (target/site/sim, built by `cargo xtask build-site`), warmed
// up and driven the way the worker does (`static/sim-slices.js`: `warmUp`, then slices of about
// 50 ms). One thread: the page runs the network in one worker.
//
// `cargo xtask wasm-speed` (or `node simulator-wasm/benches/wasm_speed.mjs target/site/sim
// [--cold]`; `--cold` skips the warm-up, as the page did before it had one). Each workload runs
// three times in one process: the first run shows what a user's first run gets; the later ones
// the steady state.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const site = process.argv[2] ?? 'target/site/sim';
const { runInSlices, warmUp } = await import(resolve(site, '..', 'sim-slices.js'));
const loading = performance.now();
const wasm = await import(resolve(site, 'simulator_wasm.js'));
const { Simulation } = wasm;
wasm.initSync({ module: readFileSync(resolve(site, 'simulator_wasm_bg.wasm')) });
const cold = process.argv.includes('--cold');
const warmUpMs = cold ? 0 : warmUp(Simulation, wasm.warm_up_source());
const loadMs = performance.now() - loading;
console.log(cold ? 'cold: no warm-up' : `warm-up ${warmUpMs.toFixed(0)} ms (loading and warm-up ${loadMs.toFixed(0)} ms)`);

const data = new URL('../programs/', import.meta.url);
const comstime = readFileSync(new URL('comstime.s', data), 'utf8').replace(/N = \d+/, 'N = 100000');
const meshwork = readFileSync(new URL('meshwork.s', data), 'utf8').replace(/ROUNDS = \d+/, 'ROUNDS = 200');
const mesh = 'WIDTH = 4\n' + meshwork;
const mesh64 = 'WIDTH = 8\n' + meshwork;

function measure(source, topology, tracing) {
  const sim = new Simulation('assembly', source, topology, 'T800', 20, 20, 100e9, tracing, '');
  const seconds = runInSlices((ns) => sim.advance(ns));
  const result = { instructions: sim.instructions(), seconds, outcome: sim.outcome() };
  sim.free();
  return result;
}

const results = [];
for (const [workload, source, topology] of [
  ['COMSTIME, one node', comstime, 'single'],
  ['mesh 4x4', mesh, 'mesh 4x4'],
  ['mesh 8x8', mesh64, 'mesh 8x8'],
]) {
  for (const tracing of [false, true]) {
    const runs = [0, 1, 2].map(() => measure(source, topology, tracing));
    const rates = runs.map((r) => r.instructions / r.seconds / 1e6);
    results.push({
      workload,
      tracing,
      instructions: runs[0].instructions,
      outcome: runs[0].outcome,
      m_instructions_per_second: rates.map((r) => Number(r.toFixed(1))),
    });
    console.log(
      `${workload}, tracing ${tracing ? 'on' : 'off'}: ${rates.map((r) => r.toFixed(1)).join(' / ')} ` +
        `M instructions/s (${runs[0].instructions} instructions, ${runs[0].outcome})`,
    );
  }
}
console.log(JSON.stringify({ node: process.version, cold, warm_up_ms: Math.round(warmUpMs), results }));
