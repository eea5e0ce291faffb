// Emulated instructions per host second in WebAssembly under Node (V8), the emulator as the
// Simulator page's worker loads it (target/site/sim, built by `cargo xtask build-site`), driven
// the way the worker drives it (`static/sim-slices.js`: slices of about 50 ms).
//
// `cargo xtask wasm-speed` (or `node simulator-wasm/benches/wasm_speed.mjs target/site/sim`).
// Each workload runs three times in one process: the first run includes compiling the module's
// hot functions with the optimising compiler; the later ones show the steady state.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const site = process.argv[2] ?? 'target/site/sim';
const { initSync, Simulation } = await import(resolve(site, 'simulator_wasm.js'));
const { runInSlices } = await import(resolve(site, '..', 'sim-slices.js'));
initSync({ module: readFileSync(resolve(site, 'simulator_wasm_bg.wasm')) });

const data = new URL('../programs/', import.meta.url);
const comstime = readFileSync(new URL('comstime.s', data), 'utf8').replace(/N = \d+/, 'N = 100000');
const mesh =
  'WIDTH = 4\n' + readFileSync(new URL('meshwork.s', data), 'utf8').replace(/ROUNDS = \d+/, 'ROUNDS = 200');

function measure(source, topology, tracing) {
  const sim = new Simulation('assembly', source, topology, 'T800', 20, 20, 100e9, tracing, '');
  const seconds = runInSlices(sim);
  const result = { instructions: sim.instructions(), seconds, outcome: sim.outcome() };
  sim.free();
  return result;
}

const results = [];
for (const [workload, source, topology] of [
  ['COMSTIME, one node', comstime, 'single'],
  ['mesh 4x4', mesh, 'mesh 4x4'],
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
console.log(JSON.stringify({ node: process.version, results }));
