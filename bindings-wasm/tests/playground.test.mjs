// The playground (bindings-wasm/playground/) in headless Chromium, driven as a person would:
// through labels and the keyboard. Its answers are checked against the sample data itself,
// computed here from the same generator. Screenshots go to target/playground/ for review.
//   node --test bindings-wasm/tests/playground.test.mjs     (after `make build-wasm-js`)
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { graph, memories, orders } from "../playground/samples.mjs";
import { openBrowser } from "./browser/chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const shots = path.resolve(here, "../../target/playground");

let session;
let page;
const requests = [];
const problems = [];

before(async () => {
  fs.mkdirSync(shots, { recursive: true });
  session = await openBrowser();
  page = await session.browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (err) => problems.push(`page error: ${err}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  await page.goto(`${session.origin}/playground/`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
});

after(async () => {
  await session?.close();
});

const text = (selector) => page.locator(selector).innerText();
const tally = (records, key) => {
  const counts = new Map();
  for (const r of records) counts.set(r[key], (counts.get(r[key]) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([value, count]) => ({ [key]: value, count }));
};
const resultLines = async () => (await text("#results-body")).split("\n").filter(Boolean);
const costs = async () =>
  Object.fromEntries(
    await page.locator("[data-cost]").evaluateAll((cells) => cells.map((c) => [c.dataset.cost, Number(c.textContent.replace(/[~,]/g, ""))])),
  );

test("loads from its own origin only (offline), with no error, and reports its load time", async (t) => {
  const ready = await page.evaluate(() => performance.getEntriesByName("lro-playground-ready")[0].startTime);
  const wasm = await page.evaluate(() => performance.getEntriesByType("resource").find((e) => e.name.endsWith(".wasm"))?.encodedBodySize);
  t.diagnostic(`navigation to ready: ${Math.round(ready)} ms; wasm fetched: ${wasm} bytes`);
  assert.ok(requests.length > 0);
  const foreign = requests.filter((url) => !url.startsWith(`${session.origin}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
  assert.deepEqual(foreign, []);
  assert.ok(wasm > 100_000, "the page fetched the WebAssembly module");
  assert.deepEqual(problems, []);
});

test("the MIF sample is offloaded: summary, the three profiles' costs side by side, ten recipes", async () => {
  assert.equal(await page.getByLabel("Sample").inputValue(), "memories");
  assert.match(await text("#status"), /^Offloaded: 150 records/);
  const c = await costs();
  assert.ok(c.inline > c.full && c.full > c.compact && c.compact > c.pointer && c.pointer > 0, JSON.stringify(c));
  assert.match(await text("#file-path"), /^\/tmp\/atlatl-recall-[0-9A-HJKMNP-TV-Z]{26}\.jsonl$/);
  assert.match(await text("#summary"), /records\s+150/);
  assert.equal(await page.locator("button.recipe").count(), 10);
  const descriptor = JSON.parse(await page.locator("#descriptor").textContent());
  assert.deepEqual(Object.keys(descriptor).slice(0, 6), ["offloaded", "summary", "file_path", "resource_uri", "line_schema", "jq_recipes"]);
});

test("recipe 6, run from the keyboard, counts the sample's memories by namespace", async () => {
  await page.locator('button[data-recipe="6"]').focus();
  await page.keyboard.press("Enter");
  assert.match(await text("#results-status"), /^Recipe 6 \(Count by namespace\): 1 result from 150 records/);
  const shown = JSON.parse(await text("#results-body"));
  assert.deepEqual(shown, tally(memories(), "namespace"));
});

test("a typed jq filter", async () => {
  await page.getByLabel("jq filter").fill('select(.status == "active") | .id');
  await page.getByLabel("jq filter").press("Enter");
  const active = memories().filter((m) => m.status === "active").map((m) => m.id);
  assert.match(await text("#results-status"), new RegExp(`^Filter: ${active.length} results from 150 records`));
  assert.deepEqual(await resultLines(), active);
  await page.screenshot({ path: path.join(shots, "playground.png"), fullPage: true });
});

test("a structured query: a request, and a bare filter document, with the jq that does the same", async () => {
  const where = page.getByLabel(/Structured query/);
  await where.fill('{"where": {"tags": "cache", "status": "active"}, "fields": ["id", "title"], "sort": {"created": -1}, "limit": 5}');
  await page.getByRole("button", { name: "Run query" }).click();
  const expected = memories()
    .filter((m) => m.tags.includes("cache") && m.status === "active")
    .sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0))
    .slice(0, 5)
    .map(({ id, title }) => ({ id, title }));
  assert.equal(expected.length, 5);
  assert.deepEqual((await resultLines()).map((l) => JSON.parse(l)), expected);
  assert.match(await text("#results-jq"), /The same with jq: tail -n \+2 \/tmp\/atlatl-recall-.* \| jq /);

  await where.fill('{"status": "archived", "memory_type": {"$in": ["episodic", "procedural"]}}');
  await page.getByRole("button", { name: "Run query" }).click();
  const archived = memories().filter((m) => m.status === "archived" && m.memory_type !== "semantic");
  assert.match(await text("#results-status"), new RegExp(`^Query: ${archived.length} results`));
  assert.deepEqual((await resultLines()).map((l) => JSON.parse(l).id), archived.map((m) => m.id));
});

test("the profile and the threshold change what the agent gets; errors show the core's code", async () => {
  await page.getByLabel("Descriptor profile").selectOption("pointer");
  const pointer = JSON.parse(await page.locator("#descriptor").textContent());
  assert.deepEqual(Object.keys(pointer), ["offloaded", "file_path", "resource_uri", "count", "guidance"]);
  const c = await costs();
  assert.equal(await page.locator("td.chosen").getAttribute("data-cost"), "pointer");
  assert.match(await text("#status"), new RegExp(`the pointer descriptor costs ~${c.pointer} tokens`));

  await page.getByLabel("Threshold (tokens)").fill("100000");
  await page.getByRole("button", { name: "Offload" }).click();
  assert.match(await text("#status"), /^Inline: /);
  assert.equal(JSON.parse(await page.locator("#inline-result").textContent()).length, 150);
  assert.ok(await page.locator("#query-panel").isHidden());

  await page.getByLabel("Threshold (tokens)").fill("1600");
  await page.getByLabel(/^Operation/).fill("../escape");
  await page.getByRole("button", { name: "Offload" }).click();
  assert.match(await text("#status"), /^Error invalid_operation: /);
});

test("the server-memory graph: two sections, a filter on one of them", async () => {
  await page.getByLabel("Sample").selectOption("graph");
  const { entities, relations } = graph();
  assert.match(await text("#status"), new RegExp(`^Offloaded: ${entities.length + relations.length} records`));
  const sections = await page.getByLabel("Section").locator("option").allInnerTexts();
  assert.deepEqual(sections, [`entities (${entities.length})`, `relations (${relations.length})`]);
  await page.getByLabel("Section").selectOption("relations");
  await page.getByLabel("jq filter").fill(".relationType");
  await page.getByLabel("jq filter").press("Enter");
  assert.deepEqual(await resultLines(), relations.map((r) => r.relationType));
});

test("SQL rows in Python repr: read as rows; recipe 6 counts them by status", async () => {
  await page.getByLabel("Sample").selectOption("sql");
  assert.match(await text("#status"), /^Offloaded: 160 records/);
  await page.locator('button[data-recipe="6"]').click();
  assert.deepEqual(JSON.parse(await text("#results-body")), tally(orders(), "status"));
});

test("the directory tree: one record per node", async () => {
  await page.getByLabel("Sample").selectOption("tree");
  assert.match(await text("#status"), /^Offloaded: \d+ records/);
  await page.getByLabel("jq filter").fill('select(.name == "Cargo.toml") | .path');
  await page.getByLabel("jq filter").press("Enter");
  assert.deepEqual(await resultLines(), ["Cargo.toml", "core/Cargo.toml", "cli/Cargo.toml"]);
});

test("a file opened with the file input: a CSV export", async () => {
  const rows = Array.from({ length: 300 }, (_, i) => `${i},${["north", "south"][i % 2]},${(i * 7.25).toFixed(2)}`);
  await page.getByLabel("Open a file as the tool result").setInputFiles({
    name: "export.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`id,region,amount\n${rows.join("\n")}\n`),
  });
  await page.waitForFunction(() => document.getElementById("operation").value === "export");
  assert.match(await text("#status"), /^Offloaded: 300 records/);
  await page.getByLabel(/Structured query/).fill('{"group_by": "region"}');
  await page.getByRole("button", { name: "Run query" }).click();
  assert.deepEqual(JSON.parse(await text("#results-body")), [
    { region: "north", count: 150 },
    { region: "south", count: 150 },
  ]);
});

test("every control has a label, and the keyboard reaches each one", async () => {
  await page.getByLabel("Sample").selectOption("memories");
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll("input, select, textarea, button")]
      .filter((el) => !el.closest("[hidden]"))
      .filter((el) => !(el.labels?.length || el.getAttribute("aria-label") || el.textContent.trim()))
      .map((el) => el.id || el.outerHTML.slice(0, 60)),
  );
  assert.deepEqual(unlabelled, []);
  await page.locator("body").focus();
  const reached = new Set();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    reached.add(await page.evaluate(() => document.activeElement.id || document.activeElement.dataset.recipe || document.activeElement.tagName));
  }
  for (const id of ["sample", "result", "file", "operation", "detail", "threshold", "profile", "params", "1", "10", "jq", "where"]) {
    assert.ok(reached.has(id), `Tab never reaches ${id}: ${[...reached].join(" ")}`);
  }
});

test("readable at 375 px: nothing scrolls sideways", async () => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.locator('button[data-recipe="6"]').click();
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
  assert.ok(widths.page <= widths.view, JSON.stringify(widths));
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(shots, "playground-375.png"), fullPage: true });
  assert.deepEqual(problems, []);
});
