// Runs every conformance vector in tests/vectors/ against the WASI component under Node
// (transpiled by jco), following tests/vectors/README.md with the JS runner beside the
// vectors (runner.mjs). The wasm-bindgen package runs the Node addon's suite instead.
//   node --test bindings-wasm/tests/vectors.test.mjs     (after `make build-wasm-component`)
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { expected, produce } from "../../tests/vectors/runner.mjs";
import { jcoCall, skipReason } from "./impls.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsDir = process.env.LRO_VECTORS_DIR ?? path.join(here, "../../tests/vectors");
const impl = await jcoCall();

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
    // The component has no BPE tokenizers: it must refuse them.
    const expect = expected(vector, false);
    const produced = await produce(vector, impl, nodeFiles, expect);
    assert.deepStrictEqual(produced, expect);
  });
}
