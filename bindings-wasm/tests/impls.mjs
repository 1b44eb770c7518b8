// The two WebAssembly implementations under Node, behind one shape for the vector runner:
// `call(vector, config, dir)` -> { outcome, file } or throws an error whose `code` is the
// core's code. `LRO_WASM_IMPL` picks one: "bindgen" (the wasm-bindgen package) or "jco"
// (the WASI P2 component transpiled by jco).
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { bindgenCall, extractPath, fileOf } from "./vector-runner.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

async function bindgen() {
  const pkg = process.env.LRO_WASM_PKG ?? path.join(here, "../js");
  const { nodeHost } = require(path.join(pkg, "node-host.cjs"));
  return bindgenCall(require(pkg), nodeHost);
}

async function jco() {
  const dir = process.env.LRO_JCO_DIR ?? path.join(here, "../component/dist/jco");
  // The preview2 shim preopens nothing by default, and the component's wasip1 adapter reads
  // the preopens once, on its first call: so the one directory every vector's output goes
  // under (the system temp dir, where the runner makes them) is preopened, at its own path,
  // before anything runs.
  const { _setPreopens } = await import("@bytecodealliance/preview2-shim/filesystem");
  const tmp = fs.realpathSync(os.tmpdir());
  _setPreopens({ [tmp]: tmp });
  const { offloader } = await import(pathToFileURL(path.join(dir, "lro.js")).href);
  // A WIT `lro-error` arrives as a thrown ComponentError whose payload is the variant; its
  // case name is the core's code with `-` for `_`.
  const wit = (f) => {
    try {
      return JSON.parse(f());
    } catch (err) {
      if (err?.payload?.tag) {
        const e = new Error(err.payload.val);
        e.code = err.payload.tag.replaceAll("-", "_");
        throw e;
      }
      throw err;
    }
  };
  const json = (v) => (v === undefined || v === null ? "" : JSON.stringify(v));
  return async function call(vector, config, dir) {
    const { input, request } = vector;
    const cfg = JSON.stringify(config);
    switch (vector.call) {
      case "config_toml":
        return { outcome: wit(() => offloader.configFromToml(input)) };
      case "config_env":
        return { outcome: wit(() => offloader.configFromEnv(Object.entries(input))) };
      case "offload":
      case "offload_json": {
        const records = vector.call === "offload" ? JSON.stringify(input) : input;
        const outcome = wit(() => offloader.offload(cfg, records, json(request)));
        return { outcome, file: fileOf(outcome) };
      }
      case "offload_inject": {
        const outcome = wit(() =>
          offloader.offloadInject(cfg, input.formatted, JSON.stringify(input.pre_budget), json(request)),
        );
        return { outcome, file: fileOf(outcome) };
      }
      case "intercept": {
        const outcome = wit(() => offloader.interceptToolResult(cfg, JSON.stringify(input.result), json(input.context)));
        return { outcome, file: fileOf(outcome) };
      }
      case "cleanup":
        return { outcome: wit(() => offloader.cleanup(cfg)) };
      case "extract": {
        const offloaded = wit(() => offloader.offload(cfg, JSON.stringify(input), json(request)));
        const file = extractPath(vector, offloaded, dir);
        return { outcome: wit(() => offloader.extract(cfg, file, JSON.stringify(vector.extract))) };
      }
      default:
        throw new Error(`unknown call ${vector.call}`);
    }
  };
}

export async function loadImpl(name = process.env.LRO_WASM_IMPL ?? "bindgen") {
  if (name === "bindgen") return bindgen();
  if (name === "jco") return jco();
  throw new Error(`LRO_WASM_IMPL must be "bindgen" or "jco", got ${name}`);
}
