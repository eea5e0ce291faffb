// The Chrome JSON peer for `cargo xtask perf-compare`: what a Node user of
// @tracerbench/trace-model does with a trace — read it, JSON.parse it, build the model.
// usage: node trace_model.mjs TRACE.json
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.cwd() + "/");
const { buildModel } = require("@tracerbench/trace-model");

const trace = JSON.parse(readFileSync(process.argv[2], "utf8"));
const model = buildModel(trace.traceEvents ?? trace);
let events = 0;
for (const p of model.processes) {
  for (const t of p.threads) {
    events += t.events.length;
  }
}
console.log(JSON.stringify({ processes: model.processes.length, events }));
