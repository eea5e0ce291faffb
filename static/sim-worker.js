// The Simulator page's Web Worker: runs an assembly program on an emulated transputer
// network (target/site/sim, the simulator-wasm crate) off the page's thread, in slices of
// virtual time, posting progress after each slice and the trace at the end.
import init, { Simulation } from "./sim/simulator_wasm.js";
import { runInSlices } from "./sim-slices.js";

const ready = init();

self.onmessage = async (event) => {
  const { source, topology, chip, mhz, linkMbit, untilNs, name, tracing, keys } = event.data;
  try {
    await ready;
    const sim = new Simulation(source, topology, chip, mhz, linkMbit, untilNs, tracing, keys || "");
    self.postMessage({ type: "assembled", nodes: sim.nodes() });
    const hostSeconds = runInSlices(sim, (seconds) =>
      self.postMessage({
        type: "progress",
        progress: sim.progress(),
        virtualNs: sim.nanoseconds(),
        instructions: sim.instructions(),
        hostSeconds: seconds,
      }),
    );
    if (tracing) self.postMessage({ type: "writing", virtualNs: sim.nanoseconds() });
    // The files the program wrote, as object URLs the page offers as downloads.
    const files = sim.written_files().map((fileName) => {
      const bytes = sim.file_bytes(fileName);
      return {
        name: fileName,
        size: bytes.length,
        url: URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" })),
      };
    });
    self.postMessage({
      type: "done",
      outcome: sim.outcome(),
      output: sim.output(),
      nodes: sim.nodes(),
      virtualNs: sim.nanoseconds(),
      instructions: sim.instructions(),
      hostSeconds,
      files,
      trace: tracing ? sim.trace_json(name) : null,
    });
    sim.free();
  } catch (error) {
    self.postMessage({ type: "error", message: String(error && error.message ? error.message : error) });
  }
};
