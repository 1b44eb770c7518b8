// What the WebAssembly package does beyond the Node addon's suite (which `make test-wasm`
// runs against it): the web build where there is no Node platform (the module's in-memory
// store, no environment, `init`), and JS hosts of every kind, down to broken ones. The web
// build runs here under Node, given its module's bytes as a browser would fetch them.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import init, * as web from "../js/pkg/web/lro_wasm.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
await init({ module_or_path: fs.readFileSync(path.join(here, "../js/pkg/web/lro_wasm_bg.wasm")) });

const memories = Array.from({ length: 200 }, (_, i) => ({
  id: `m${i}`,
  memory_type: "semantic",
  namespace: i % 2 ? "_semantic/decisions" : "_procedural/runbooks",
  title: `Decision number ${i} about caching and storage layout`,
}));

test("the web build keeps its files in the module's memory: read back, listed, cleaned up", () => {
  const outcome = web.offload(memories, { operation: "recall" });
  assert.equal(outcome.offloaded, true);
  assert.match(outcome.file_path, /^\/tmp\/atlatl-recall-[0-9A-HJKMNP-TV-Z]{26}\.jsonl$/);
  const text = web.readResource(web.resourceLink(outcome.file_path).uri).contents[0].text;
  const lines = text.trimEnd().split("\n");
  assert.equal(lines.length, 201);
  // The real clock, not the core's fixed test clock.
  assert.ok(Math.abs(Date.parse(JSON.parse(lines[0]).timestamp) - Date.now()) < 60_000);
  assert.deepEqual(web.extract(outcome.file_path, { groupBy: "namespace" }).results[0], [
    { namespace: "_procedural/runbooks", count: 100 },
    { namespace: "_semantic/decisions", count: 100 },
  ]);
  assert.ok(web.listResources().resources.some((r) => r.name === path.basename(outcome.file_path)));
  // Two offloads in the same millisecond get distinct, ordered names.
  const [a, b] = [web.offload(memories).file_path, web.offload(memories).file_path];
  assert.ok(a < b, `${a} < ${b}`);
  assert.ok(web.cleanup({ ttlSeconds: 0 }).removed.length >= 3);
  assert.deepEqual(web.listResources().resources, []);
});

test("without a platform there is no environment: the defaults, unless variables are given", () => {
  process.env.ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS = "5";
  try {
    assert.equal(web.offload(memories.slice(0, 2)).offloaded, false);
    assert.equal(web.configFromEnv().thresholdTokens, 1600);
    assert.equal(web.configFromEnv(process.env).thresholdTokens, 5);
    // The Node entry reads process.env, as the native addon does.
    assert.equal(require("../js/lro.js").offload(memories.slice(0, 2)).offloaded, true);
  } finally {
    delete process.env.ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS;
  }
});

test("init: the web build's default export; under Node it resolves at once", async () => {
  const node = await import("../js/lro.mjs");
  assert.equal(typeof node.default, "function");
  assert.equal(node.default, node.init);
  assert.equal(await node.default(), undefined);
  assert.equal(typeof web.default, "function");
});

/** An `LroHost` over a Map, with `broken` methods replaced. */
function mapHost(files, broken = {}) {
  const missing = (file) => Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
  return {
    writeAtomic(file, bytes) {
      files.set(file, Uint8Array.from(bytes));
    },
    createDirAll() {},
    readFile(file) {
      if (!files.has(file)) throw missing(file);
      return files.get(file);
    },
    listDir: () => [...files.keys()].map((file) => ({ name: path.basename(file), kind: "file" })),
    removeFile: (file) => files.delete(file),
    canonicalize: (file) => file,
    entryKind(file) {
      if (file === "/data") return "dir";
      if (!files.has(file)) throw missing(file);
      return "file";
    },
    nowMillis: () => Date.now(),
    tempDir: () => "/data",
    ...broken,
  };
}

test("a host without randomness or sizes still works; a failing write falls back inline", () => {
  const files = new Map();
  const outcome = web.offload(memories, null, { host: mapHost(files) });
  assert.equal(outcome.offloaded, true);
  assert.ok(files.has(outcome.file_path));
  const [listed] = web.listResources(null, { host: mapHost(files) }).resources;
  assert.equal(listed.size, files.get(outcome.file_path).length, "the size of the bytes read");
  const denied = mapHost(files, {
    writeAtomic() {
      throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
    },
  });
  const events = [];
  const fallback = web.offload(memories, null, { host: denied, onEvent: (e) => events.push(e.event) });
  assert.equal(fallback.offloaded, false);
  assert.equal(fallback.truncated, true);
  assert.match(fallback.warning, /permission denied/);
  assert.deepEqual(events, ["OffloadWriteFailed"]);
});

test("a host that is not one is invalid_config; a host's errno codes are the core's codes", () => {
  for (const host of [42, "files"]) {
    assert.throws(() => web.offload(memories, null, { host }), (err) => err.code === "invalid_config" && err.name === "LroError");
  }
  const files = new Map();
  const config = { host: mapHost(files), outputDir: "/data" };
  const missing = "/data/atlatl-recall-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl";
  assert.throws(() => web.readResource(web.resourceLink(missing).uri, config), (err) => err.code === "not_found");
});

test("regex filters: Unicode \\w, \\d, \\s and case folding as native; property classes refused", () => {
  const words = [{ id: "m1", title: "Éclair à Ökonom ٣" }];
  const outcome = web.offload(words, { operation: "recall" }, { thresholdTokens: 0 });
  assert.equal(outcome.offloaded, true);
  const query = (q) => web.extract(outcome.file_path, { query: q }).results;
  assert.deepEqual(query('.title | [test("^\\\\w+"), (match("é"; "i") | .string), gsub("\\\\w+"; "w"), test("\\\\d")]'), [
    [true, "É", "w w w w", true],
  ]);
  // `\p{...}` needs tables the module leaves out: a typed error, not a wrong answer.
  assert.throws(() => query('.title | test("\\\\p{Greek}")'), (e) => {
    assert.equal(e.name, "LroError");
    assert.ok(["query_failed", "invalid_query"].includes(e.code), e.code);
    assert.match(e.message, /invalid regex/);
    return true;
  });
  web.cleanup({ ttlSeconds: 0 });
});
