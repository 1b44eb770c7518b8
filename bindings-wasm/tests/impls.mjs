// The WASI P2 component under Node (transpiled by jco), behind the shape of the vector
// runner's `call` (tests/vectors/runner.mjs): `call(vector, config, dir)` -> { outcome, file }
// or throws an error whose `code` is the core's code. (The wasm-bindgen package has the Node
// addon's API and runs the addon's whole suite: bindings-node/__test__, LRO_TEST_WASM=1.)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { extractPath, fileOf } from "../../tests/vectors/runner.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Why the component skips `vector`, or false: the WIT interface serves no MCP resources
 * and resolves no result handles (both are MCP, which the component does not speak). */
export function skipReason(vector) {
  if (vector.call === "handles") return "the component exports no MCP functions (result handles)";
  return vector.call === "resources" && "the component exports no MCP resource functions";
}

/** The component's `call`. */
export async function jcoCall() {
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

