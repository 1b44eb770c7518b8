// Runs every conformance vector in tests/vectors/ against a WebAssembly build under Node,
// following tests/vectors/README.md (same normalisation as core/tests/vectors.rs).
//   LRO_WASM_IMPL=bindgen node --test bindings-wasm/tests/   (the wasm-bindgen package)
//   LRO_WASM_IMPL=jco     node --test bindings-wasm/tests/   (the component, via jco transpile)
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { loadImpl } from "./impls.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsDir = process.env.LRO_VECTORS_DIR ?? path.join(here, "../../tests/vectors");
const impl = await loadImpl();

// 26 Crockford base32 characters (no I, L, O, U) not preceded by a letter or digit.
const ULID = /(?<![A-Za-z0-9])[0-9A-HJKMNP-TV-Z]{26}/g;

function normalise(value, dir) {
  if (typeof value === "string") return value.replaceAll(dir, "{dir}").replace(ULID, "{ulid}");
  if (Array.isArray(value)) return value.map((v) => normalise(v, dir));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === "warning" && typeof v === "string") return [k, "{warning}"];
        if (k === "age_seconds" && typeof v === "number") return [k, 0];
        return [k, normalise(v, dir)];
      }),
    );
  }
  return value;
}

const normaliseHeader = (line) => line.replace(/("timestamp":")[^"]*"/, '$1{timestamp}"');

async function produce(vector) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lro-wasm-vec-")));
  try {
    for (const [name, content] of Object.entries(vector.setup?.files ?? {})) {
      fs.writeFileSync(path.join(dir, name), content);
    }
    const config = { ...(vector.config ?? {}) };
    config.output_dir = typeof config.output_dir === "string" ? config.output_dir.replaceAll("{dir}", dir) : dir;
    const produced = {};
    let run;
    try {
      run = await impl(vector, config, dir);
    } catch (err) {
      if (typeof err?.code !== "string") throw err;
      return { error: err.code };
    }
    produced.outcome = normalise(run.outcome, dir);
    if (run.file) {
      // Byte for byte: split the raw text exactly as the native runner's `lines()` does.
      const body = fs.readFileSync(run.file, "utf8");
      const lines = body.split("\n");
      if (lines.at(-1) === "") lines.pop();
      produced.jsonl = lines.map((l, i) => (i === 0 ? normaliseHeader(l) : l));
    }
    if (vector.call === "cleanup") produced.remaining = fs.readdirSync(dir).sort();
    return produced;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const files = fs.readdirSync(vectorsDir).filter((f) => f.endsWith(".json")).sort();
assert.ok(files.length >= 30, `expected at least 30 vectors in ${vectorsDir}, found ${files.length}`);

// `resources` vectors pin the MCP resources of the native builds (the proxy and the Python
// and Node MCP helpers); the WebAssembly builds export no resource functions.
const NOT_EXPORTED = new Set(["resources"]);

for (const file of files) {
  const vector = JSON.parse(fs.readFileSync(path.join(vectorsDir, file), "utf8"));
  const skip = NOT_EXPORTED.has(vector.call) && "MCP resources are served by the native builds";
  test(vector.name ?? file, { skip }, async () => {
    const produced = await produce(vector);
    assert.deepStrictEqual(produced, vector.expect);
  });
}
