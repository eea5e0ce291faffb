// The Simulator page's Web Worker: runs an assembly or occam program on an emulated
// transputer network (target/site/sim, the simulator-wasm crate) off the page's thread, in
// slices of virtual time, posting progress after each slice and the trace at the end. It also
// answers the demo gallery ({type: "demos"}) and compiles occam without running it
// ({type: "check"}: the error, if any, and how long the compiler took).
import init, { Simulation, check_occam, demos_json, warm_up_source } from "./sim/simulator_wasm.js";
import { runInSlices, warmUp } from "./sim-slices.js";

// Loaded, then warmed up (the first run is then as fast as later ones).
const ready = init().then(() => warmUp(Simulation, warm_up_source()));

// A binary PPM (P6, maxval ≤ 255) as a PNG object URL, or null when it is not one.
async function ppmToPng(bytes) {
  let at = 0;
  const token = () => {
    while (at < bytes.length && /\s/.test(String.fromCharCode(bytes[at]))) at++;
    if (bytes[at] === 35) {
      while (at < bytes.length && bytes[at] !== 10) at++;
      return token();
    }
    let text = "";
    while (at < bytes.length && !/\s/.test(String.fromCharCode(bytes[at]))) text += String.fromCharCode(bytes[at++]);
    return text;
  };
  if (token() !== "P6") return null;
  const [width, height, max] = [Number(token()), Number(token()), Number(token())];
  at++; // the one whitespace byte after maxval
  if (!(width > 0 && height > 0 && max > 0 && max < 256) || bytes.length - at < width * height * 3) return null;
  if (typeof OffscreenCanvas === "undefined") return null;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let k = 0; k < width * height; k++) {
    for (let c = 0; c < 3; c++) rgba[4 * k + c] = Math.round((bytes[at + 3 * k + c] * 255) / max);
    rgba[4 * k + 3] = 255;
  }
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext("2d").putImageData(new ImageData(rgba, width, height), 0, 0);
  return URL.createObjectURL(await canvas.convertToBlob({ type: "image/png" }));
}

self.onmessage = async (event) => {
  const { type, language, source, topology, chip, mhz, linkMbit, untilNs, name, tracing, keys } = event.data;
  if (type === "demos") {
    await ready;
    self.postMessage({ type: "demos", demos: JSON.parse(demos_json()) });
    return;
  }
  if (type === "check") {
    await ready;
    const started = performance.now();
    const error = check_occam(source, topology);
    self.postMessage({ type: "checked", error, ms: performance.now() - started, source });
    return;
  }
  try {
    await ready;
    const sim = new Simulation(language || "assembly", source, topology, chip, mhz, linkMbit, untilNs, tracing, keys || "");
    self.postMessage({ type: "assembled", nodes: sim.nodes() });
    const hostSeconds = runInSlices(sim, (seconds) =>
      self.postMessage({
        type: "progress",
        progress: sim.progress(),
        virtualNs: sim.nanoseconds(),
        instructions: sim.instructions(),
        hostSeconds: seconds,
        workers: 1,
      }),
    );
    if (tracing) self.postMessage({ type: "writing", virtualNs: sim.nanoseconds() });
    // The files the program wrote, as object URLs the page offers as downloads; a binary
    // PPM image (the ray tracer's ray.ppm) also as a PNG the page shows.
    const files = [];
    for (const fileName of sim.written_files()) {
      const bytes = sim.file_bytes(fileName);
      files.push({
        name: fileName,
        size: bytes.length,
        url: URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" })),
        preview: fileName.toLowerCase().endsWith(".ppm") ? await ppmToPng(bytes) : null,
      });
    }
    self.postMessage({
      type: "done",
      outcome: sim.outcome(),
      output: sim.output(),
      nodes: sim.nodes(),
      virtualNs: sim.nanoseconds(),
      instructions: sim.instructions(),
      hostSeconds,
      workers: 1,
      files,
      trace: tracing ? sim.trace_json(name) : null,
    });
    sim.free();
  } catch (error) {
    self.postMessage({ type: "error", message: String(error && error.message ? error.message : error) });
  }
};
