// Drives a run in slices of virtual time sized to take about 50 ms of host time each:
// `advance(sliceNs)` runs one (a Simulation's `advance`, the simulator-wasm crate's
// wasm-bindgen class, or a shared run's step) and answers whether the run has ended;
// `onSlice(seconds)` is called after each with the host seconds since the start. Shared by
// the Simulator page's worker (sim-worker.js) and the WebAssembly speed benchmark
// (simulator-wasm/benches/wasm_speed.mjs). Returns the host seconds the run took.
export function runInSlices(advance, onSlice = () => {}) {
  const started = performance.now();
  let sliceNs = 100000;
  for (;;) {
    const t0 = performance.now();
    const done = advance(sliceNs);
    const spent = Math.max(performance.now() - t0, 0.1);
    sliceNs = Math.min(Math.max(sliceNs * (50 / spent), 10000), 1e9);
    const seconds = (performance.now() - started) / 1000;
    onSlice(seconds);
    if (done) return seconds;
  }
}

// Warms the emulator up: runs `warm_up_source()` (the simulator-wasm crate's) for about `ms`
// milliseconds and throws the run away. A browser first runs WebAssembly with its baseline
// compiler and optimises a function only once it has run a while, so without this the user's
// first run is the slow one. Returns the milliseconds it took.
export function warmUp(Simulation, source, ms = 60) {
  const started = performance.now();
  const sim = new Simulation("assembly", source, "mesh 2x2", "T800", 20, 20, 1e12, true, "");
  let sliceNs = 20000;
  while (performance.now() - started < ms) {
    const t0 = performance.now();
    if (sim.advance(sliceNs)) break;
    // Short slices at first, as the real runs make them: each call may enter optimised code.
    sliceNs = Math.min(sliceNs * 2, Math.max(20000, sliceNs * (5 / Math.max(performance.now() - t0, 0.1))));
  }
  sim.free();
  return performance.now() - started;
}
