// A helper of the Simulator page's worker (sim-worker.js) for a run shared among Web Workers:
// it loads the emulator once (warmed up as the main worker is), then for each run builds the
// same network, joins the run as worker `me`, and follows the main worker's commands through
// the SharedArrayBuffer (sim-share.js): run to a point, hand over its nodes' record at the
// end, or quit.
import init, { Simulation, warm_up_source } from "./sim/simulator_wasm.js";
import { newSimulation, warmUp } from "./sim-slices.js";
import { EXPORT, QUIT, RUN, Share } from "./sim-share.js";

const ready = init().then(() => warmUp(Simulation, warm_up_source));

self.onmessage = async (event) => {
  const { share: layout, me, run } = event.data;
  const share = new Share(layout, me);
  let sim = null;
  try {
    await ready;
    sim = newSimulation(Simulation, run);
    sim.join(share, me, layout.workers);
    self.postMessage({ type: "joined", me });
    let seen = 0;
    for (;;) {
      const [seq, kind, toPs] = share.nextCommand(seen);
      seen = seq;
      if (kind === RUN) {
        try {
          sim.advance_to(toPs);
        } catch (error) {
          // The run's own errors reach every worker alike (worker 0 reports them); anything
          // else means this worker cannot go on.
          if (error instanceof WebAssembly.RuntimeError) throw error;
        }
        share.setInstructions(sim.own_instructions());
      } else if (kind === EXPORT) {
        const record = sim.export_part();
        self.postMessage({ type: "record", me, record }, [record.buffer]);
        break;
      } else if (kind === QUIT) {
        break;
      }
    }
  } catch (error) {
    share.breakOff();
    self.postMessage({ type: "failed", me, message: String(error && error.message ? error.message : error) });
  } finally {
    if (sim) sim.free();
  }
};
