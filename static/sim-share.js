// A run shared among Web Workers, each holding its own copy of the network in its own
// WebAssembly instance (the simulator-wasm crate's `Simulation.join`): they meet once a
// round in one SharedArrayBuffer, which needs a cross-origin isolated page (the server sends
// the COOP and COEP headers). Worker 0 (sim-worker.js) keeps the host and tells the others
// (sim-part.js) what to do through a command word; a round's bytes are laid out as the crate's
// `network::parallel::share` module describes: every worker's block (64 bytes) and error
// text, then 16-byte packets, each naming its receiving worker.

const BLOCK = 64;
const PACKET = 16;
const TEXT = 1024; // the longest error text passed on
const MAX_WORKERS = 64;

// Control words (Int32 indexes), the slice's end (BigUint64 index 2, byte 16), each worker's
// instructions (Float64 from byte 64), arrival counters a cache line apart (from byte 1024).
const SEQ = 0;
const KIND = 1;
const BROKEN = 2;
const SLEEPERS = 3;
const TO = 2;
const INSTRUCTIONS = 8;
const ARRIVALS = 1024;
const SLOTS = ARRIVALS + 64 * MAX_WORKERS;

export const RUN = 1;
export const EXPORT = 2;
export const QUIT = 3;

// How long a worker spins, waiting for the others at a meeting or for the next command,
// before it sleeps: as the crate's native barrier does (`parallel.rs`, `SPIN_FOR`), ~5 ms when
// every worker has a core of its own, and a few tens of microseconds (`SPINS` loads) when
// there are more workers than cores (the one awaited may have no core, and spinning only keeps
// it from getting one). Waking a sleeping worker took 70 µs to 3 ms on a 2-core virtual
// machine: measured under Node on the 64-node mesh, the helper started its slices 0.4–24 ms
// late in all a run when it slept between them, 0.05–0.1 ms when it spun. Over eight
// alternations of ten paired runs, two workers ran 1.79–1.85× one spinning, 1.72–1.90×
// sleeping.
const SPIN_MS = 5;
const SPINS = 20000;
// How long a sleeping worker sleeps before it looks whether a worker has broken off; how long
// it waits for one worker at all.
const NAP_MS = 50;
const GIVE_UP_MS = 30000;

// The SharedArrayBuffer for `workers` workers running `nodes` nodes on a machine with `cores`
// cores, the most packets a worker may send another in one round, and how long a worker spins
// before it sleeps (milliseconds; 0: `SPINS` loads).
export function createShare(workers, nodes, cores = workers) {
  const cap = 64 * Math.ceil(nodes / workers) + 64;
  const slots = 2 * workers * (BLOCK + TEXT);
  const mail = 2 * workers * workers * (8 + cap * PACKET);
  const spinMs = workers <= cores ? SPIN_MS : 0;
  return { buffer: new SharedArrayBuffer(SLOTS + slots + mail), workers, cap, spinMs };
}

// Worker `me`'s way into the shared buffer; also what `Simulation.join` calls each round.
export class Share {
  constructor({ buffer, workers, cap, spinMs = 0 }, me) {
    this.buffer = buffer;
    this.n = workers;
    this.cap = cap;
    this.spinMs = spinMs;
    this.me = me;
    this.i32 = new Int32Array(buffer);
    this.u64 = new BigUint64Array(buffer, 0, 8);
    this.f64 = new Float64Array(buffer, 0, (ARRIVALS / 8) | 0);
    this.bytes = new Uint8Array(buffer);
    this.view = new DataView(buffer);
    this.round = 0;
    this.arrived = 0;
    this.counts = new Int32Array(workers);
    this.result = new Uint8Array(4096);
    this.resultLength = 0;
  }

  slot(worker, parity) {
    return SLOTS + (2 * worker + parity) * (BLOCK + TEXT);
  }

  mailbox(to, from, parity) {
    const slots = 2 * this.n * (BLOCK + TEXT);
    return SLOTS + slots + ((parity * this.n + to) * this.n + from) * (8 + this.cap * PACKET);
  }

  // One round: this worker's bytes in (a view of the WebAssembly memory), the length of what
  // comes back out (read by `receive`). Throws a string when the workers can no longer meet.
  exchange(out) {
    const parity = this.round & 1;
    this.round++;
    const sizes = new DataView(out.buffer, out.byteOffset, out.byteLength);
    const packets = sizes.getUint32(56, true);
    const textLength = sizes.getUint32(60, true);
    const packetsEnd = BLOCK + packets * PACKET;
    const kept = Math.min(textLength, TEXT);
    const slot = this.slot(this.me, parity);
    this.bytes.set(out.subarray(0, BLOCK), slot);
    if (kept > 0) this.bytes.set(out.subarray(packetsEnd, packetsEnd + kept), slot + BLOCK);
    if (kept !== textLength) this.view.setUint32(slot + 60, kept, true);
    this.counts.fill(0);
    for (let at = BLOCK; at < packetsEnd; at += PACKET) {
      const to = out[at + 7];
      const k = this.counts[to]++;
      if (k >= this.cap) throw `worker ${this.me} sent worker ${to} more than ${this.cap} packets in one round`;
      this.bytes.set(out.subarray(at, at + PACKET), this.mailbox(to, this.me, parity) + 8 + k * PACKET);
    }
    for (let to = 0; to < this.n; to++) this.i32[this.mailbox(to, this.me, parity) >> 2] = this.counts[to];
    this.barrier();
    let length = 0;
    const take = (from, count) => {
      if (length + count > this.result.length) {
        const grown = new Uint8Array(Math.max(2 * this.result.length, length + count));
        grown.set(this.result.subarray(0, length));
        this.result = grown;
      }
      this.result.set(this.bytes.subarray(from, from + count), length);
      length += count;
    };
    for (let w = 0; w < this.n; w++) {
      const at = this.slot(w, parity);
      take(at, BLOCK + this.view.getUint32(at + 60, true));
    }
    for (let from = 0; from < this.n; from++) {
      const at = this.mailbox(this.me, from, parity);
      take(at + 8, this.i32[at >> 2] * PACKET);
    }
    this.resultLength = length;
    return length;
  }

  // Copies what came back from the last round into `into` (a view of the WebAssembly memory).
  receive(into) {
    into.set(this.result.subarray(0, this.resultLength));
  }

  // Waits until every worker has arrived as often as this one: spinning first (a round is
  // a few microseconds of work), then sleeping until woken.
  barrier() {
    const round = ++this.arrived;
    Atomics.store(this.i32, (ARRIVALS >> 2) + 16 * this.me, round);
    if (Atomics.load(this.i32, SLEEPERS) > 0) Atomics.notify(this.i32, (ARRIVALS >> 2) + 16 * this.me);
    for (let w = 0; w < this.n; w++) {
      if (w === this.me) continue;
      const index = (ARRIVALS >> 2) + 16 * w;
      let spins = 0;
      let started = 0;
      for (;;) {
        const seen = Atomics.load(this.i32, index);
        if (((seen - round) | 0) >= 0) break;
        if (++spins < SPINS) continue;
        if (Atomics.load(this.i32, BROKEN) !== 0) throw "another worker of this run stopped";
        if (started === 0) started = performance.now();
        const waited = performance.now() - started;
        if (waited > GIVE_UP_MS) throw `worker ${w} did not answer for ${GIVE_UP_MS / 1000} s`;
        if (waited < this.spinMs) {
          spins = 0;
          continue;
        }
        // Counted before the last look, so an arrival after it either sees this sleeper and
        // wakes it, or changed the word Atomics.wait compares with.
        Atomics.add(this.i32, SLEEPERS, 1);
        Atomics.wait(this.i32, index, seen, NAP_MS);
        Atomics.sub(this.i32, SLEEPERS, 1);
      }
    }
  }

  // Worker 0: tells every other worker to do `kind` (RUN to `toPs`, EXPORT, QUIT).
  command(kind, toPs = 0n) {
    this.u64[TO] = BigInt(toPs);
    Atomics.store(this.i32, KIND, kind);
    Atomics.add(this.i32, SEQ, 1);
    Atomics.notify(this.i32, SEQ);
  }

  // The other workers: waits for the command after the `seen`-th; returns [seq, kind, toPs].
  // Spins first, as at a meeting: worker 0 sends the next slice's command a fraction of a
  // millisecond after the last one ended.
  nextCommand(seen) {
    let started = 0;
    for (let spins = 1; ; spins++) {
      const seq = Atomics.load(this.i32, SEQ);
      if (seq !== seen) return [seq, Atomics.load(this.i32, KIND), this.u64[TO]];
      if (spins % SPINS !== 0) continue;
      if (started === 0) started = performance.now();
      if (performance.now() - started >= this.spinMs) Atomics.wait(this.i32, SEQ, seen, 1000);
    }
  }

  // Marks the run broken (a worker failed): the others stop at their next barrier.
  breakOff() {
    Atomics.store(this.i32, BROKEN, 1);
    for (let w = 0; w < this.n; w++) Atomics.notify(this.i32, (ARRIVALS >> 2) + 16 * w);
  }

  // Each worker's instructions so far, as it last wrote them.
  setInstructions(count) {
    this.f64[INSTRUCTIONS + this.me] = count;
  }

  instructions() {
    let sum = 0;
    for (let w = 0; w < this.n; w++) sum += this.f64[INSTRUCTIONS + w];
    return sum;
  }
}

// Shares `sim`'s run (a Simulation, worker 0, which keeps the host) with `workers - 1` helpers
// running sim-part.js: `helper(me)` gives helper `me` as `{ post(message), listen(onMessage,
// onError) }` (a Web Worker in the page, a worker thread in the speed benchmark). Resolves, once
// every helper has joined, to the step function for runInSlices, the total instruction count
// so far, and how to end (collect the helpers' records, or quit). It waits for the helpers
// before any barrier: a browser starts a nested worker only while its parent's thread is free.
// `cores` (the browser's count unless given) decides how long the workers spin (createShare).
export async function shareRun(sim, workers, run, helper, cores = globalThis.navigator?.hardwareConcurrency) {
  const layout = createShare(workers, sim.nodes(), cores ?? workers);
  const share = new Share(layout, 0);
  const joined = [];
  const records = [];
  for (let me = 1; me < workers; me++) {
    const worker = helper(me);
    let onJoined;
    joined.push(new Promise((resolve) => (onJoined = resolve)));
    const record = new Promise((resolve, reject) => {
      const fail = (message) => {
        const error = new Error(`worker ${me}: ${message}`);
        onJoined(error);
        reject(error);
      };
      worker.listen(
        (data) => {
          if (data.type === "joined") onJoined(null);
          else if (data.type === "record") resolve(data.record);
          else fail(data.message);
        },
        fail,
      );
    });
    // Looked at when the run ends; a helper that fails sooner stops the run at its barrier.
    record.catch(() => {});
    records.push(record);
    worker.post({ share: layout, me, run });
  }
  for (const error of await Promise.all(joined)) {
    if (error) {
      share.breakOff();
      throw error;
    }
  }
  sim.join(share, 0, workers);
  return {
    step(sliceNs) {
      const to = sim.slice_end(sliceNs);
      share.command(RUN, to);
      return sim.advance_to(to);
    },
    instructions() {
      share.setInstructions(sim.own_instructions());
      return share.instructions();
    },
    async collect() {
      share.command(EXPORT);
      for (const record of await Promise.all(records)) sim.import_part(record);
    },
    quit() {
      share.command(QUIT);
      share.breakOff();
    },
  };
}
