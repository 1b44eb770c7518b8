// The wasm-bindgen package's own API: the built-in in-memory host, typed errors, events,
// and a JS host object. (Parity with the native build is vectors.test.mjs's job.)
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pkg = process.env.LRO_WASM_PKG ?? path.join(here, "../js");
const { Lro, configFromToml, errorCodes, estimateTokens } = require(pkg);
const { nodeHost } = require(path.join(pkg, "node-host.cjs"));

const memories = Array.from({ length: 200 }, (_, i) => ({
  id: `m${i}`,
  memory_type: "semantic",
  namespace: i % 2 ? "_semantic/decisions" : "_procedural/runbooks",
  title: `Decision number ${i} about caching and storage layout`,
}));

test("the in-memory host keeps the file and the descriptor points at it", () => {
  const lro = new Lro();
  const outcome = lro.offload(memories, { operation: "recall" });
  assert.equal(outcome.offloaded, true);
  assert.equal(outcome.summary.count, 200);
  assert.equal(outcome.jq_recipes.length, 10);
  assert.match(outcome.file_path, /^\/tmp\/atlatl-recall-[0-9A-HJKMNP-TV-Z]{26}\.jsonl$/);
  assert.deepEqual(lro.files(), [outcome.file_path]);
  const lines = new TextDecoder().decode(lro.readFile(outcome.file_path)).trimEnd().split("\n");
  assert.equal(lines.length, 201);
  assert.equal(JSON.parse(lines[0]).type, "lro_header");
  // The real clock, not MemoryHost's fixed test clock.
  assert.ok(Math.abs(Date.parse(JSON.parse(lines[0]).timestamp) - Date.now()) < 60_000);
});

test("two offloads in the same millisecond get distinct, ordered names", () => {
  const lro = new Lro();
  const a = lro.offload(memories, {}).file_path;
  const b = lro.offload(memories, {}).file_path;
  assert.ok(a < b, `${a} < ${b}`);
});

test("below the threshold the records come back inline", () => {
  const outcome = new Lro().offload(memories.slice(0, 2), { operation: "recall" });
  assert.equal(outcome.offloaded, false);
  assert.equal(outcome.count, 2);
});

test("errors are Error objects named LroError with the core's code", () => {
  const codeOf = (f) => {
    try {
      f();
    } catch (err) {
      assert.ok(err instanceof Error);
      assert.equal(err.name, "LroError");
      return err.code;
    }
    assert.fail("did not throw");
  };
  assert.equal(codeOf(() => new Lro({ threshold_tokens: "many" })), "invalid_config");
  assert.equal(codeOf(() => new Lro({ nope: 1 })), "invalid_config");
  assert.equal(codeOf(() => new Lro().offload(memories, { detail: "huge" })), "invalid_detail");
  assert.equal(codeOf(() => new Lro().offload(memories, { operation: "../x" })), "invalid_operation");
  assert.equal(codeOf(() => new Lro().offloadJson("[1,", {})), "invalid_input");
  assert.equal(codeOf(() => configFromToml("[prompt.offload]\nenabled = 3")), "invalid_config");
  assert.ok(errorCodes().includes("path_denied"));
});

test("estimateTokens counts as the core does: characters / 4, wide scripts one per character", () => {
  assert.equal(estimateTokens("abcdefgh"), 2);
  assert.equal(estimateTokens("abcdefghi"), 3);
  assert.equal(estimateTokens("東京タワー"), 5);
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("é".repeat(8)), 2);
});

test("events reach the callback; a throwing callback does not break the offload", () => {
  const seen = [];
  const lro = new Lro({}, undefined, (e) => seen.push(e));
  lro.offload(memories, { operation: "search" });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].event, "OffloadCreated");
  assert.equal(seen[0].operation, "search");
  const noisy = new Lro({}, undefined, () => {
    throw new Error("listener bug");
  });
  assert.equal(noisy.offload(memories, {}).offloaded, true);
});

test("a JS host: node:fs files, and a host without randomness still works", () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "lro-wasm-api-")));
  try {
    const host = { ...nodeHost(), fillRandom: undefined };
    const lro = new Lro({ output_dir: dir }, host);
    const outcome = lro.offload(memories, { operation: "list" });
    assert.equal(path.dirname(outcome.file_path), dir);
    assert.equal((fs.statSync(outcome.file_path).mode & 0o777).toString(8), "600");
    assert.equal(fs.readFileSync(outcome.file_path, "utf8").split("\n").length, 202);
    const report = new Lro({ output_dir: dir, ttl_seconds: 0 }, nodeHost()).cleanup();
    assert.equal(report.removed.length, 1);
    assert.deepEqual(fs.readdirSync(dir), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a failing host write falls back to the truncated inline result", () => {
  const host = {
    ...nodeHost(),
    writeAtomic() {
      const err = new Error("EACCES: permission denied");
      err.code = "EACCES";
      throw err;
    },
  };
  const outcome = new Lro({ output_dir: "/nowhere" }, host).offload(memories, {});
  assert.equal(outcome.offloaded, false);
  assert.equal(outcome.truncated, true);
  assert.match(outcome.warning, /permission denied/);
});

test("structured queries run in the module: a MongoDB filter, shaped, and an aggregate", () => {
  const lro = new Lro();
  const outcome = lro.offload(memories, { operation: "recall" });
  const found = lro.extract(outcome.file_path, {
    where: { namespace: "_semantic/decisions", title: { $regex: "number 1[0-9]?\\b" } },
    fields: ["id"],
    sort: { id: -1 },
    limit: 3,
  });
  assert.deepEqual(found.results, [{ id: "m19" }, { id: "m17" }, { id: "m15" }]);
  assert.match(found.jq, /^tail -n \+2 .* \| jq -sc '/);
  const groups = lro.extract(outcome.file_path, { group_by: "namespace" }).results[0];
  assert.deepEqual(groups, [
    { namespace: "_procedural/runbooks", count: 100 },
    { namespace: "_semantic/decisions", count: 100 },
  ]);
  const warned = lro.extract(outcome.file_path, { where: { namepsace: "x" } });
  assert.deepEqual(warned.warnings, ['no record has the field "namepsace"; closest field names: "namespace"']);
  assert.throws(() => lro.extract(outcome.file_path, { where: { id: { $has: 1 } } }), (err) => err.code === "invalid_query");
});

test("a per-call pointer descriptor, describe: true for the full one, and the adaptive threshold", () => {
  const lro = new Lro({ adaptive_ratio: 0.5 });
  const pointer = lro.offload(memories, { operation: "recall", descriptor: "pointer" });
  assert.deepEqual(Object.keys(pointer).sort(), ["count", "file_path", "guidance", "offloaded"]);
  assert.equal(pointer.count, 200);
  const described = lro.extract(pointer.file_path, { describe: true });
  assert.equal(described.count, 1);
  const full = described.results[0];
  assert.equal(full.file_path, pointer.file_path);
  assert.equal(full.jq_recipes.length, 10);
  // The full profile at offload time gives the same descriptor, but for the file's name.
  const direct = lro.offload(memories, { operation: "recall", descriptor: "full" });
  assert.deepEqual(JSON.parse(JSON.stringify(direct).replaceAll(direct.file_path, pointer.file_path)), full);
  const compact = lro.offloadJson(JSON.stringify(memories), { descriptor: "compact" });
  assert.equal(compact.recipes.length, 10);
  assert.equal(compact.jq_recipes, undefined);
  // Half of 400 tokens left: a threshold of 200, reported; 20 memories exceed it.
  const adapted = lro.offload(memories.slice(0, 20), { context_remaining_tokens: 400 });
  assert.equal(adapted.offloaded, true);
  assert.equal(adapted.threshold_tokens, 200);
  assert.equal(lro.config.descriptor, "full");
  assert.equal(lro.config.adaptive_ratio, 0.5);
  assert.throws(() => lro.offload(memories, { descriptor: "tiny" }), (err) => err.code === "invalid_argument");
  assert.throws(() => new Lro({ adaptive_ratio: 2 }), (err) => err.code === "invalid_config");
});
