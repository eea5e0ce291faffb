// A helper of a shared run in the WebAssembly speed benchmark (wasm_speed.mjs): the page's own
// helper script (target/site/sim-part.js, with sim-share.js) in a Node worker thread, given
// the Web Worker globals it uses (`self.onmessage`, `self.postMessage`) and a `fetch` that
// reads the emulator's WebAssembly from the site directory.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

globalThis.fetch = async (url) =>
  new Response(readFileSync(fileURLToPath(url)), { headers: { 'content-type': 'application/wasm' } });
globalThis.self = globalThis;
self.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
// Messages that come while the script loads wait for its handler.
const early = [];
parentPort.on('message', (data) => (self.onmessage ? self.onmessage({ data }) : early.push(data)));
await import(workerData.part);
for (const data of early.splice(0)) self.onmessage({ data });
