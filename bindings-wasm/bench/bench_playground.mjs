// What the playground costs a visitor: the bytes it ships (raw and gzip, as a static host
// would serve them compressed) and the time from navigation to a page ready for input (the
// WebAssembly module fetched, compiled, instantiated, and the first sample offloaded), in
// headless Chromium, each load in a fresh browser context (an empty HTTP cache).
//   node bindings-wasm/bench/bench_playground.mjs [LOADS]      (`make bench-playground`)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

import { openBrowser } from "../tests/browser/chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const loads = Number(process.argv[2] ?? 15);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

const session = await openBrowser();
try {
  const timings = [];
  let shipped = [];
  for (let i = 0; i < loads; i++) {
    const context = await session.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${session.origin}/playground/`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
    timings.push(
      await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0];
        const wasm = performance.getEntriesByType("resource").find((e) => e.name.endsWith(".wasm"));
        return {
          ready: performance.getEntriesByName("lro-playground-ready")[0].startTime,
          domContentLoaded: nav.domContentLoadedEventEnd,
          wasmFetched: wasm.responseEnd,
        };
      }),
    );
    if (i === 0) {
      shipped = await page.evaluate(() => [
        location.href,
        ...performance.getEntriesByType("resource").map((e) => e.name),
      ]);
    }
    await context.close();
  }

  // The files the page fetched, read from disk: what a static host ships.
  const root = path.resolve(here, "..");
  const files = shipped
    .map((url) => new URL(url).pathname)
    .map((p) => (p.endsWith("/") ? `${p}index.html` : p))
    .map((p) => ({ name: p, bytes: fs.readFileSync(path.join(root, p)) }));
  console.log(`The playground's files (what a visitor downloads), raw and gzip -9:`);
  let raw = 0;
  let gzip = 0;
  for (const { name, bytes } of files) {
    const packed = zlib.gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += packed;
    console.log(`  ${name.padEnd(34)} ${String(bytes.length).padStart(9)} B  ${String(packed).padStart(8)} B gzip`);
  }
  console.log(`  ${"total".padEnd(34)} ${String(raw).padStart(9)} B  ${String(gzip).padStart(8)} B gzip (${kb(raw)}, ${kb(gzip)})`);

  const pick = (key) => timings.map((t) => t[key]);
  const line = (label, values) =>
    console.log(
      `  ${label.padEnd(34)} median ${median(values).toFixed(0).padStart(5)} ms   min ${Math.min(...values).toFixed(0)}   max ${Math.max(...values).toFixed(0)}`,
    );
  console.log(`\nLoads of /playground/ from loopback, ${loads} fresh contexts, headless Chromium:`);
  line("DOMContentLoaded", pick("domContentLoaded"));
  line("wasm module fetched", pick("wasmFetched"));
  line("ready (first sample offloaded)", pick("ready"));
} finally {
  await session.close();
}
