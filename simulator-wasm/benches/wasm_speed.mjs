// Emulated instructions per host second in WebAssembly under Node (V8), the emulator as the
// Simulator page's worker loads it (target/site/sim, built by `cargo xtask build-site`), warmed
// up and driven the way the worker does (`static/sim-slices.js`: `warmUp` until the engine runs
// the optimised code, then slices of about 50 ms). The meshes also run shared among 2 workers
// and one a core (worker threads running the page's helper script, `wasm_speed_part.mjs`), as
// the page shares a run among Web Workers, after a warm-up shared among as many workers (as
// the page warms its helpers up when the user picks their number).
//
// `cargo xtask wasm-speed` (or `node simulator-wasm/benches/wasm_speed.mjs target/site/sim
// [--cold]`; `--cold` skips the warm-up, as the page did before it had one). Each workload runs
// three times in one process: the first run shows what a user's first run gets; the later ones
// the steady state. Last, warmed up, the 64-node mesh on one worker and on two in `PAIRS` (30)
// pairs, and the median of the ratio within each pair.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const site = process.argv[2] ?? 'target/site/sim';
const { newSimulation, runInSlices, warmUp, warmUpWidth } = await import(resolve(site, '..', 'sim-slices.js'));
const { shareRun } = await import(resolve(site, '..', 'sim-share.js'));
const loading = performance.now();
const wasm = await import(resolve(site, 'simulator_wasm.js'));
const { Simulation } = wasm;
wasm.initSync({ module: readFileSync(resolve(site, 'simulator_wasm_bg.wasm')) });
const cold = process.argv.includes('--cold');
const warm = cold ? { ms: 0, baseline: 0, optimised: 0 } : await warmUp(Simulation, wasm.warm_up_source);
const loadMs = performance.now() - loading;
console.log(
  cold
    ? 'cold: no warm-up'
    : `warm-up ${warm.ms.toFixed(0)} ms (loading and warm-up ${loadMs.toFixed(0)} ms): ` +
        `${(warm.baseline / 1000).toFixed(1)} M instructions/s before the optimised code, ${(warm.optimised / 1000).toFixed(1)} after`,
);

const data = new URL('../programs/', import.meta.url);
const comstime = readFileSync(new URL('comstime.s', data), 'utf8').replace(/N = \d+/, 'N = 100000');
const meshwork = readFileSync(new URL('meshwork.s', data), 'utf8').replace(/ROUNDS = \d+/, 'ROUNDS = 200');
const mesh = 'WIDTH = 4\n' + meshwork;
const mesh64 = 'WIDTH = 8\n' + meshwork;

// Helper threads, kept between runs as the page keeps its helper workers.
const helpers = [];
function helper(me) {
  while (helpers.length < me) {
    const worker = new Worker(new URL('wasm_speed_part.mjs', import.meta.url), {
      workerData: { part: pathToFileURL(resolve(site, '..', 'sim-part.js')).href },
    });
    worker.unref();
    helpers.push(worker);
  }
  const worker = helpers[me - 1];
  return {
    post: (message) => worker.postMessage(message),
    listen(onMessage, onError) {
      worker.removeAllListeners('message');
      worker.removeAllListeners('error');
      worker.on('message', onMessage);
      worker.on('error', (e) => onError(String(e)));
    },
  };
}

async function measure(source, topology, tracing, workers = 1) {
  const run = { language: 'assembly', source, topology, chip: 'T800', mhz: 20, linkMbit: 20, untilNs: 100e9, tracing, keys: '' };
  const sim = newSimulation(Simulation, run);
  const shared = workers > 1 ? await shareRun(sim, workers, run, helper, cores) : null;
  const seconds = runInSlices(shared ? shared.step : (ns) => sim.advance(ns));
  if (shared) await shared.collect();
  const result = { instructions: sim.instructions(), seconds, outcome: sim.outcome() };
  sim.free();
  return result;
}

// Warms up a run shared among `workers` workers, as the page does when the user picks them
// (sim-worker.js's warmHelpers): once for each larger number of workers.
let warmedFor = 1;
async function warmShared(workers) {
  if (cold || workers <= warmedFor) return;
  warmedFor = workers;
  const shared = await warmUp(Simulation, wasm.warm_up_source, {
    most: 300, // as sim-worker.js's SHARED_WARM_UP_MS
    width: warmUpWidth(workers),
    share: (sim, run) => shareRun(sim, workers, run, helper, cores),
  });
  console.log(
    `shared warm-up on ${workers} workers ${shared.ms.toFixed(0)} ms: ` +
      `${(shared.baseline / 1000).toFixed(1)} M instructions/s a worker before the optimised code, ${(shared.optimised / 1000).toFixed(1)} after`,
  );
}

const cores = availableParallelism();
const results = [];
for (const [workload, source, topology, shares] of [
  ['COMSTIME, one node', comstime, 'single', [1]],
  ['mesh 4x4', mesh, 'mesh 4x4', [1, 2, cores]],
  ['mesh 8x8', mesh64, 'mesh 8x8', [1, 2, cores]],
]) {
  for (const workers of [...new Set(shares)]) {
    await warmShared(workers);
    for (const tracing of workers === 1 ? [false, true] : [true]) {
      const runs = [];
      for (let k = 0; k < 3; k++) runs.push(await measure(source, topology, tracing, workers));
      const rates = runs.map((r) => r.instructions / r.seconds / 1e6);
      results.push({
        workload,
        workers,
        tracing,
        instructions: runs[0].instructions,
        outcome: runs[0].outcome,
        m_instructions_per_second: rates.map((r) => Number(r.toFixed(1))),
      });
      console.log(
        `${workload}, ${workers} worker${workers === 1 ? '' : 's'}, tracing ${tracing ? 'on' : 'off'}: ` +
          `${rates.map((r) => r.toFixed(1)).join(' / ')} M instructions/s (${runs[0].instructions} instructions, ${runs[0].outcome})`,
      );
    }
  }
}
// One worker against two on the 64-node mesh, in pairs run back to back: this machine's speed
// drifts by more than the difference between two workers' 1.8× and 1.7× from one minute to
// the next, and a ratio within a pair does not. (Warmed up only: a pair's runs are then alike.)
let paired = null;
if (!cold) {
  const pairs = Number(process.env.PAIRS ?? 30);
  const ratios = [];
  for (let k = 0; k < pairs; k++) {
    const one = await measure(mesh64, 'mesh 8x8', true, 1);
    const two = await measure(mesh64, 'mesh 8x8', true, 2);
    ratios.push(one.seconds / two.seconds);
  }
  ratios.sort((a, b) => a - b);
  const at = (f) => Number(ratios[Math.min(ratios.length - 1, Math.floor(f * ratios.length))].toFixed(3));
  paired = { workload: 'mesh 8x8', tracing: true, pairs, median_ratio: at(0.5), quartiles: [at(0.25), at(0.75)] };
  console.log(
    `mesh 8x8, 2 workers against 1, ${pairs} pairs: median ${paired.median_ratio}× (quartiles ${paired.quartiles.join('–')})`,
  );
}
console.log(
  JSON.stringify({
    node: process.version,
    cold,
    cores,
    warm_up_ms: Math.round(warm.ms),
    warm_up_m_instructions_per_second: [warm.baseline, warm.optimised].map((r) => Number((r / 1000).toFixed(1))),
    results,
    paired,
  }),
);
// The helper threads wait for the next run, as the page's helper workers do: end here.
process.exit(0);
