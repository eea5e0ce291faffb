// The Simulator page's Web Worker: runs an assembly program on an emulated transputer
// network (target/site/sim, the simulator-wasm crate) off the page's thread, in slices of
// virtual time, posting progress after each slice and the trace at the end.
import init, { Simulation } from "./sim/simulator_wasm.js";

const ready = init();

self.onmessage = async (event) => {
  const { source, topology, chip, mhz, linkMbit, untilNs, name, tracing } = event.data;
  try {
    await ready;
    const sim = new Simulation(source, topology, chip, mhz, linkMbit, untilNs, tracing);
    const started = performance.now();
    // Slices of host time: about 50 ms each, sized from the last slice's pace.
    let sliceNs = 100000;
    for (;;) {
      const t0 = performance.now();
      const done = sim.advance(sliceNs);
      const spent = Math.max(performance.now() - t0, 0.1);
      sliceNs = Math.min(Math.max(sliceNs * (50 / spent), 10000), 1e9);
      const seconds = (performance.now() - started) / 1000;
      self.postMessage({
        type: "progress",
        progress: sim.progress(),
        virtualNs: sim.nanoseconds(),
        instructions: sim.instructions(),
        hostSeconds: seconds,
      });
      if (done) break;
    }
    const hostSeconds = (performance.now() - started) / 1000;
    self.postMessage({
      type: "done",
      outcome: sim.outcome(),
      output: sim.output(),
      nodes: sim.nodes(),
      virtualNs: sim.nanoseconds(),
      instructions: sim.instructions(),
      hostSeconds,
      trace: tracing ? sim.trace_json(name) : null,
    });
    sim.free();
  } catch (error) {
    self.postMessage({ type: "error", message: String(error && error.message ? error.message : error) });
  }
};
