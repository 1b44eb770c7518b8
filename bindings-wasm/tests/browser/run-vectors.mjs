// Runs conformance vectors on the wasm-bindgen package's web build, in whatever browser
// context imports it: the page (vectors.html) or a Web Worker (vectors-worker.mjs). The files
// are in memory (memory-files.mjs) behind a JS `LroHost`; the runner is the Node one
// (tests/vectors/runner.mjs, served as /vectors/runner.mjs). What each vector produced goes back to the Node test, which
// compares it with the vector's `expect` exactly as the Node runner does. The calls are the
// package's API, each given the in-memory files as its `config.host`.
import init, * as lro from "../../js/pkg/web/lro_wasm.js";
import { apiCall, expected, produce } from "../../vectors/runner.mjs";
import { MemoryFiles } from "./memory-files.mjs";

let ready;

/**
 * `{ scope, results }`: the global scope's class (`Window`, `DedicatedWorkerGlobalScope`),
 * and per vector of `names` (files under `vectorsUrl`) `{ name, produced }`, or
 * `{ name, thrown }` when its run threw something other than an LroError.
 */
export async function runVectors(names, vectorsUrl) {
  ready ??= init();
  await ready;
  const files = new MemoryFiles();
  const call = apiCall(lro, { host: files.host() });
  const results = [];
  for (const name of names) {
    const response = await fetch(new URL(name, vectorsUrl));
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
    const vector = await response.json();
    try {
      // The web build has no BPE tokenizers: it must refuse them.
      results.push({ name, produced: await produce(vector, call, files, expected(vector, false)) });
    } catch (err) {
      results.push({ name, thrown: String(err?.stack ?? err) });
    }
  }
  return { scope: globalThis.constructor.name, results };
}
