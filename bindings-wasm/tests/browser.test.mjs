// Every conformance vector in tests/vectors/ on the wasm-bindgen package's web build, in
// headless Chromium, in the page and in a Web Worker: each context runs the Node runner's
// logic (tests/vectors/runner.mjs) over in-memory files (browser/memory-files.mjs), and what
// each vector produced is compared here with its `expect`, exactly as the Node suite does.
//   node --test bindings-wasm/tests/browser.test.mjs     (after `make build-wasm-js`)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { expected } from "../../tests/vectors/runner.mjs";
import { openBrowser } from "./browser/chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsDir = path.join(here, "../../tests/vectors");
const vectors = fs
  .readdirSync(vectorsDir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((file) => ({ file, vector: JSON.parse(fs.readFileSync(path.join(vectorsDir, file), "utf8")) }));
assert.ok(vectors.length >= 30, `expected at least 30 vectors in ${vectorsDir}, found ${vectors.length}`);
const toRun = vectors.map(({ file }) => file);

const CONTEXTS = [
  { name: "in the page", run: "runVectorsInPage", scope: "Window" },
  { name: "in a Web Worker", run: "runVectorsInWorker", scope: "DedicatedWorkerGlobalScope" },
];

let session;
const pageErrors = [];
const runs = {};

before(async () => {
  session = await openBrowser();
  const page = await session.browser.newPage();
  page.on("pageerror", (err) => pageErrors.push(String(err)));
  await page.goto(`${session.origin}/tests/browser/vectors.html`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
  for (const context of CONTEXTS) {
    runs[context.run] = await page.evaluate(([run, names]) => window[run](names), [context.run, toRun]);
  }
});

after(async () => {
  await session?.close();
});

for (const context of CONTEXTS) {
  describe(`wasm-bindgen web build ${context.name}`, () => {
    test(`runs in ${context.scope}, every vector, no page error`, () => {
      const run = runs[context.run];
      assert.equal(run.scope, context.scope);
      assert.deepEqual(
        run.results.map((r) => r.name),
        toRun,
      );
      assert.deepEqual(pageErrors, []);
    });
    for (const { file, vector } of vectors) {
      test(vector.name ?? file, () => {
        const result = runs[context.run].results.find((r) => r.name === file);
        assert.ok(result, `${file} did not run`);
        assert.equal(result.thrown, undefined, result.thrown);
        assert.deepStrictEqual(result.produced, expected(vector, false));
      });
    }
  });
}
