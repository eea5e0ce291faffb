// Drives a Simulation (the simulator-wasm crate's wasm-bindgen class) in slices of virtual
// time sized to take about 50 ms of host time each, calling `onSlice(seconds)` after each with
// the host seconds since the start. Shared by the Simulator page's worker (sim-worker.js) and
// the WebAssembly speed benchmark (simulator-wasm/benches/wasm_speed.mjs). Returns the host
// seconds the run took.
export function runInSlices(sim, onSlice = () => {}) {
  const started = performance.now();
  let sliceNs = 100000;
  for (;;) {
    const t0 = performance.now();
    const done = sim.advance(sliceNs);
    const spent = Math.max(performance.now() - t0, 0.1);
    sliceNs = Math.min(Math.max(sliceNs * (50 / spent), 10000), 1e9);
    const seconds = (performance.now() - started) / 1000;
    onSlice(seconds);
    if (done) return seconds;
  }
}
