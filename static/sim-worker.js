// The Simulator page's Web Worker: runs an assembly or occam program on an emulated
// transputer network (target/site/sim, the simulator-wasm crate) off the page's thread, in
// slices of virtual time, posting progress after each slice and the trace at the end. It also
// answers the demo gallery ({type: "demos"}), compiles occam without running it
// ({type: "check"}: the error, if any, and how long the compiler took), and starts the helpers
// a run on `workers` workers will need and warms up a run shared among them ({type: "helpers"}:
// the page sends it when the user picks a number of workers, so they have loaded and warmed up
// by the time the run starts).
//
// A run on several workers (`workers` in the run message: a number, or "auto") is shared with
// helper workers (sim-part.js), each running its part of the nodes in its own copy of the
// network, meeting this one in a SharedArrayBuffer (sim-share.js) — which the browser gives
// only to a cross-origin isolated page; elsewhere the run takes one worker. This worker keeps
// the host, decides each slice's end, and takes in the helpers' records at the end: the run,
// byte for byte, is the one a single worker makes.
import init, { Simulation, check_occam, demos_json, warm_up_source } from "./sim/simulator_wasm.js";
import { newSimulation, runInSlices, warmUp, warmUpWidth } from "./sim-slices.js";
import { shareRun } from "./sim-share.js";

// Loaded, then warmed up (the first run is then as fast as later ones); the gallery and the
// occam check need only the loading.
const loaded = init();
const ready = loaded.then(() => warmUp(Simulation, warm_up_source));

// Nodes a worker needs to pay for meeting the others every window. Natively 32 do (the
// crate's `session::NODES_PER_WORKER`); in the page a round costs far more (measured on a
// 2-core machine: ~7 µs against ~0.5 µs between native threads), so "auto" shares only very
// large networks. Where packets seldom cross between the workers, stretches of windows make
// the rounds rare: the 64-node mesh, which sends none across, runs 1.5–1.7× faster on two
// workers in the page (1.8× under Node); a farm busy with packets meets every window.
const NODES_PER_WORKER = 256;

// How many workers a run of `nodes` nodes takes when asked for `wanted` ("auto" or a number):
// at most one a node and one a core, and one where the page cannot share memory.
function workersFor(wanted, nodes) {
  if (!self.crossOriginIsolated || typeof SharedArrayBuffer === "undefined") return 1;
  if (wanted === undefined || wanted === "auto") {
    const cores = Math.max(1, navigator.hardwareConcurrency || 1);
    return Math.max(1, Math.min(Math.floor(nodes / NODES_PER_WORKER), cores));
  }
  return Math.max(1, Math.min(Number(wanted) || 1, nodes, 64));
}

// Helper workers, kept between runs (each loads and warms up the emulator once).
const helpers = [];

function helper(k) {
  while (helpers.length < k) helpers.push(new Worker(new URL("./sim-part.js", import.meta.url), { type: "module" }));
  return helpers[k - 1];
}

// How long a shared warm-up runs at most: its rates seldom show the switch to optimised code
// (see warmUp), and the helpers take ~0.2–0.6 s to load and warm up their own before it starts.
const SHARED_WARM_UP_MS = 300;

// The most workers a warm-up has been shared among, and that warm-up (or the chain of them).
let warmedFor = 1;
let warming = Promise.resolve();

// Warms up the code a run shared among `workers` workers goes through, in this worker and its
// helpers (see warmUp): once for each larger number of workers, after the worker's own
// warm-up. Resolves when done; a warm-up that fails leaves the run to find out why.
function warmHelpers(workers) {
  if (workers > warmedFor) {
    warmedFor = workers;
    helper(workers - 1); // they load and warm up on their own meanwhile
    warming = warming
      .then(() => ready)
      .then(() =>
        warmUp(Simulation, warm_up_source, {
          most: SHARED_WARM_UP_MS,
          width: warmUpWidth(workers),
          share: (sim, run) => shareRun(sim, workers, run, pooled),
        }),
      )
      .catch(() => {});
  }
  return warming;
}

// A helper worker as shareRun (sim-share.js) uses it.
function pooled(me) {
  const worker = helper(me);
  return {
    post: (message) => worker.postMessage(message),
    listen(onMessage, onError) {
      worker.onmessage = (event) => onMessage(event.data);
      worker.onerror = (event) => onError(event.message || "failed to start");
    },
  };
}

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
    await loaded;
    self.postMessage({ type: "demos", demos: JSON.parse(demos_json()) });
    return;
  }
  if (type === "helpers") {
    // The user picked a number of workers: the helpers start loading and warming up now.
    if (self.crossOriginIsolated && typeof SharedArrayBuffer !== "undefined") {
      const wanted = Math.min(Math.max(Number(event.data.workers) || 1, 1), 64);
      if (wanted > 1) warmHelpers(wanted);
    }
    return;
  }
  if (type === "check") {
    await loaded;
    const started = performance.now();
    const error = check_occam(source, topology);
    self.postMessage({ type: "checked", error, ms: performance.now() - started, source });
    return;
  }
  let shared = null;
  try {
    await ready;
    const run = { language: language || "assembly", source, topology, chip, mhz, linkMbit, untilNs, tracing, keys: keys || "" };
    const sim = newSimulation(Simulation, run);
    const workers = workersFor(event.data.workers, sim.nodes());
    self.postMessage({ type: "assembled", nodes: sim.nodes(), workers });
    if (workers > 1) {
      await warmHelpers(workers);
      shared = await shareRun(sim, workers, run, pooled);
    }
    const instructions = () => (shared ? shared.instructions() : sim.instructions());
    const hostSeconds = runInSlices(
      shared ? shared.step : (sliceNs) => sim.advance(sliceNs),
      (seconds) =>
        self.postMessage({
          type: "progress",
          progress: sim.progress(),
          virtualNs: sim.nanoseconds(),
          instructions: instructions(),
          hostSeconds: seconds,
          workers,
        }),
    );
    if (shared) {
      await shared.collect();
      shared = null;
    }
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
    // The trace in the binary format, its buffer moved to the page rather than copied.
    const trace = tracing ? sim.trace_binary(name) : null;
    self.postMessage({
      type: "done",
      outcome: sim.outcome(),
      output: sim.output(),
      nodes: sim.nodes(),
      virtualNs: sim.nanoseconds(),
      instructions: sim.instructions(),
      hostSeconds,
      workers: sim.workers(),
      files,
      trace,
    }, trace ? [trace.buffer] : []);
    sim.free();
  } catch (error) {
    if (shared) shared.quit();
    self.postMessage({ type: "error", message: String(error && error.message ? error.message : error) });
  }
};
