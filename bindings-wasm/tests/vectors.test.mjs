// Runs every conformance vector in tests/vectors/ against a WebAssembly build under Node,
// following tests/vectors/README.md (vector-runner.mjs, shared with the browser runner).
//   LRO_WASM_IMPL=bindgen node --test bindings-wasm/tests/   (the wasm-bindgen package)
//   LRO_WASM_IMPL=jco     node --test bindings-wasm/tests/   (the component, via jco transpile)
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { loadImpl } from "./impls.mjs";
import { produce, skipReason } from "./vector-runner.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsDir = process.env.LRO_VECTORS_DIR ?? path.join(here, "../../tests/vectors");
const impl = await loadImpl();

// The runner's files: real ones, each vector in a fresh directory under the system temp dir.
const nodeFiles = {
  makeDir: () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lro-wasm-vec-"))),
  writeFile: (file, text) => fs.writeFileSync(file, text),
  readText: (file) => fs.readFileSync(file, "utf8"),
  list: (dir) => fs.readdirSync(dir),
  removeDir: (dir) => fs.rmSync(dir, { recursive: true, force: true }),
};

const files = fs.readdirSync(vectorsDir).filter((f) => f.endsWith(".json")).sort();
assert.ok(files.length >= 30, `expected at least 30 vectors in ${vectorsDir}, found ${files.length}`);

for (const file of files) {
  const vector = JSON.parse(fs.readFileSync(path.join(vectorsDir, file), "utf8"));
  test(vector.name ?? file, { skip: skipReason(vector) }, async () => {
    const produced = await produce(vector, impl, nodeFiles);
    assert.deepStrictEqual(produced, vector.expect);
  });
}
