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

// Warms the emulator up: runs `warm_up_source(width)` (the simulator-wasm crate's) on a
// width×width mesh in slices of about 2 ms until the browser runs it optimised, and throws the
// run away. A browser first runs WebAssembly with its baseline compiler, compiles a function
// that has run a while with its optimising compiler in the background, and enters the
// optimised code at the function's next call. Measured under Node (V8) on a 2-core machine: the
// baseline ran the mesh at 24–28 M instructions/s for the first ~155 ms, the optimised code at
// ~100 from then on; a fixed 60-ms warm-up ended before the switch and left COMSTIME's first
// run at 53 M/s against 86–89 for later runs. So the warm-up watches the rate ([`switched`])
// and ends once it has jumped and levelled off, or after `most` milliseconds (a browser that
// starts with optimised code, or a machine too slow to tell).
//
// `share(sim, run)`, when given, shares the warm-up run among workers (sim-share.js's
// `shareRun`, on a mesh `width` ≥ √workers wide): a shared run goes through code of its own
// (the crate's `run_share`, the workers' meeting), which a one-worker warm-up leaves to the
// baseline compiler. Measured under Node, the 16-node mesh's first run on 2 workers went from
// 104–128 M instructions/s to 199–209 with this warm-up (later runs: 183–204). A shared
// warm-up's rates are low and uneven (the workers meet every few microseconds), so it often
// runs its whole `most` milliseconds. Returns (a promise of) `{ ms, baseline, optimised }`: the
// milliseconds it took and the two rates, in instructions (of this worker's nodes) per
// millisecond (`optimised` is 0 when it never saw the switch). It lets the worker's other
// messages through every `YIELD_MS` (the demo gallery need not wait for it).
export async function warmUp(Simulation, warmUpSource, { most = 600, width = 2, share = null } = {}) {
  const started = performance.now();
  const run = warmUpRun(warmUpSource(width), width);
  const sim = newSimulation(Simulation, run);
  let shared = null;
  let sliceNs = 20000;
  const rates = [];
  let optimised = 0;
  try {
    if (share) shared = await share(sim, run);
    const advance = shared ? shared.step : (ns) => sim.advance(ns);
    // From here: the helpers of a shared run may take a while to load and warm up their own.
    const running = performance.now();
    let yielded = running;
    while (performance.now() - running < most) {
      if (performance.now() - yielded > YIELD_MS) {
        await nextTask();
        yielded = performance.now();
      }
      const before = sim.own_instructions();
      const t0 = performance.now();
      if (advance(sliceNs)) break;
      const spent = performance.now() - t0;
      // Slices too short for the clock to time tell nothing (and come first, as sizes settle).
      if (spent >= 0.5) rates.push((sim.own_instructions() - before) / spent);
      optimised = switched(rates);
      if (optimised > 0) break;
      // Short slices, as the real runs make them at first: each call may enter optimised code.
      sliceNs = Math.min(sliceNs * 2, Math.max(20000, sliceNs * (2 / Math.max(spent, 0.1))));
    }
  } finally {
    if (shared) shared.quit();
    sim.free();
  }
  const earlier = rates.slice(0, optimised > 0 ? -2 * STEADY : undefined);
  const baseline = earlier.length > 0 ? median(earlier) : 0;
  return { ms: performance.now() - started, baseline, optimised };
}

// A Simulation (the crate's wasm-bindgen class) of a run's settings, as the worker sends them
// to its helpers: { language, source, topology, chip, mhz, linkMbit, untilNs, tracing, keys }.
export function newSimulation(Simulation, run) {
  const { language, source, topology, chip, mhz, linkMbit, untilNs, tracing, keys } = run;
  return new Simulation(language, source, topology, chip, mhz, linkMbit, untilNs, tracing, keys);
}

// The settings of a warm-up run on a width×width mesh (what a shared run sends its helpers).
function warmUpRun(source, width) {
  return {
    language: "assembly",
    source,
    topology: `mesh ${width}x${width}`,
    chip: "T800",
    mhz: 20,
    linkMbit: 20,
    untilNs: 1e12,
    tracing: true,
    keys: "",
  };
}

// The mesh width a warm-up shared among `workers` workers needs (a node for each).
export function warmUpWidth(workers) {
  return Math.max(2, Math.ceil(Math.sqrt(workers)));
}

// How long the warm-up runs before it lets other messages through.
const YIELD_MS = 20;

// Resolves in a task of its own, after the messages already waiting (a zero timeout can wait
// 4 ms once nested).
function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(0);
  });
}

// Rates before the fast ones that make the baseline's: their median (the first slices, which
// compile, are a small share of them).
const BASELINE = 8;
// How much faster than the baseline the optimised code runs, at least (measured: ~4×; a
// machine's own speed can swing by 2× under a busy host).
const FASTER = 3;
// Slices in a row that must run that fast, twice over: the second run of them no more than
// `RISING` times faster than the first (the functions the hot ones call get optimised soon
// after them: the warm-up waits for the rate to level off).
const STEADY = 3;
const RISING = 1.1;

// The optimised rate once the last `2 * STEADY` rates are all `FASTER` times the median of the
// earlier ones and have levelled off, or 0.
export function switched(rates) {
  if (rates.length < BASELINE + 2 * STEADY) return 0;
  const baseline = median(rates.slice(0, -2 * STEADY));
  const [before, last] = [rates.slice(-2 * STEADY, -STEADY), rates.slice(-STEADY)];
  const fast = [...before, ...last].every((r) => r >= FASTER * baseline);
  return fast && median(last) <= RISING * median(before) ? median(last) : 0;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
