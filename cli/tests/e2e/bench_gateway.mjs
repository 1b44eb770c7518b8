// `make bench-gateway`: many concurrent sessions of the official TypeScript MCP client through
// one `lro proxy --listen`, in front of the conformance fixture (tests/conformance, one stdio
// child per session), and the same calls against the fixture directly over streamable HTTP.
// Every third call asks for a result above the offload threshold. Prints the calls answered,
// the cross-session leak checks, p50/p99 latency both ways (the difference is what the gateway
// adds) and the peak RSS of the gateway and of its children. Exits 1 when a call goes
// unanswered or a session sees what another one made.
//
// usage: node bench_gateway.mjs --lro PATH [--sessions 50] [--calls 20]
//
// Memory is read from /proc (VmHWM, the kernel's own high-water mark) once every call is
// answered and before any session ends, when every child the gateway started is still alive.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, '../../../tests/conformance/fixture.mjs');
// Rows of a result below the default threshold (1600 estimated tokens) and far above it.
const INLINE_ROWS = 5;
const OFFLOADED_ROWS = 400;
// A request unanswered this long counts as unanswered (and ends its session's calls).
const TIMEOUT_MS = 30000;

const { values: options } = parseArgs({
  options: {
    lro: { type: 'string' },
    sessions: { type: 'string', default: '50' },
    calls: { type: 'string', default: '20' }
  }
});
const sessions = Number(options.sessions);
const calls = Number(options.calls);
if (!options.lro || !(sessions > 0) || !(calls > 0)) {
  console.error('usage: node bench_gateway.mjs --lro PATH [--sessions N] [--calls N]');
  process.exit(2);
}

/** Starts `command` and resolves with its child and the URL it says it listens on (stderr). */
async function serve(command, args) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      said += text;
      const found = said.match(/listening on (http:\/\/\S+)/);
      if (found) {
        resolve(found[1]);
      }
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`${command} exited (${code ?? signal}) before listening:\n${said}`))
    );
  });
  return { child, url: new URL(url), said: () => said };
}

async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  return child.exitCode;
}

/** Peak resident memory of a live process, in bytes (VmHWM of /proc/PID/status). */
function peakRss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/^VmHWM:\s+(\d+) kB$/m)[1]) * 1024;
}

function childrenOf(pid) {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  );
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Markers named in a text: every session's result rows carry their session's. */
function markersIn(text) {
  return new Set([...text.matchAll(/"marker":\s*"([^"]+)"/g)].map((found) => found[1]));
}

/** A session of the official client, initialized (through the gateway: its child started). */
async function connect(url, marker) {
  const client = new Client({ name: `bench-${marker}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  const s = { client, transport, marker, latencies: [], answers: [], failed: [] };
  try {
    await client.connect(transport, { timeout: TIMEOUT_MS });
  } catch (error) {
    s.failed.push(`initialize: ${error.message}`);
  }
  return s;
}

/** `calls` calls of bench_rows, every third offload-sized, one after the other. */
async function callAll(s) {
  for (let call = 0; call < calls && s.failed.length === 0; call += 1) {
    const large = call % 3 === 0;
    const begun = performance.now();
    try {
      const result = await s.client.callTool(
        { name: 'bench_rows', arguments: { marker: s.marker, rows: large ? OFFLOADED_ROWS : INLINE_ROWS } },
        undefined,
        { timeout: TIMEOUT_MS }
      );
      s.latencies.push(performance.now() - begun);
      s.answers.push({ large, result });
    } catch (error) {
      s.failed.push(`call ${call}: ${error.message}`);
    }
  }
}

/**
 * Every session against `url`: all are initialized first, then all make their calls at once
 * (the latencies are those of calls under that load, not of session start-up).
 */
async function runAll(url, count = sessions) {
  const markers = Array.from({ length: count }, (_, n) => `s${n}-${randomUUID()}`);
  const done = await Promise.all(markers.map((marker) => connect(url, marker)));
  const begun = performance.now();
  await Promise.all(done.map(callAll));
  return { done, seconds: (performance.now() - begun) / 1000 };
}

const failures = [];
// What one session saw of another's, apart: the leak line says whether there was any.
const leaks = [];
function checkLeak(condition, what) {
  if (!condition) {
    leaks.push(what);
  }
  check(condition, what);
}

function check(condition, what) {
  if (!condition) {
    failures.push(what);
  }
}

/** p50 and p99 of the calls `which` picks (all, the inline-sized, the offload-sized). */
function percentiles(done, which) {
  const latencies = done
    .flatMap((s) => s.latencies.filter((_, n) => which(s.answers[n].large)))
    .sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const KINDS = {
  all: () => true,
  inline: (large) => !large,
  offloaded: (large) => large
};

function summary(name, done) {
  const answered = done.flatMap((s) => s.answers).filter(({ result }) => !result.isError).length;
  const asked = done.length * calls;
  check(answered === asked, `${name}: ${answered} of ${asked} calls answered`);
  for (const s of done.filter((s) => s.failed.length > 0)) {
    check(false, `${name}: ${s.marker}: ${s.failed.join('; ')}`);
  }
  const figures = Object.fromEntries(
    Object.entries(KINDS).map(([kind, which]) => [kind, percentiles(done, which)])
  );
  const shown = Object.entries(figures)
    .map(([kind, { p50, p99 }]) => `${kind} p50 ${p50.toFixed(1)} / p99 ${p99.toFixed(1)} ms`)
    .join(', ');
  console.log(`${name.padEnd(16)} answered ${answered}/${asked}; ${shown}`);
  return figures;
}

/** Each inline result carries its own session's marker alone. */
function checkInline(name, s) {
  for (const { large, result } of s.answers) {
    const text = result.content?.[0]?.text ?? '';
    if (!large || name === 'direct') {
      const seen = markersIn(text);
      checkLeak(seen.size === 1 && seen.has(s.marker), `${name}: ${s.marker} got rows of ${[...seen]}`);
    }
  }
}

/**
 * Through the gateway: each offload-sized result is a descriptor; the session's
 * resources/list names exactly its own offloads, and each reads back with its marker alone.
 */
async function checkOffloads(s, everyUri) {
  const mine = new Set();
  for (const { large, result } of s.answers.filter((a) => a.large)) {
    const descriptor = JSON.parse(result.content[0].text);
    check(large && descriptor.offloaded === true, `${s.marker}: a large result was not offloaded`);
    mine.add(descriptor.resource_uri);
  }
  const listed = (await s.client.listResources()).resources
    .map((r) => r.uri)
    .filter((uri) => uri.startsWith('lro://offloads/'));
  checkLeak(
    listed.length === mine.size && listed.every((uri) => mine.has(uri)),
    `${s.marker}: resources/list gives ${listed.length} offloads, it made ${mine.size}`
  );
  for (const uri of listed) {
    checkLeak(!everyUri.has(uri), `${s.marker}: ${uri} is listed by two sessions`);
    everyUri.add(uri);
    const read = await s.client.readResource({ uri });
    const seen = markersIn(read.contents.map((c) => c.text ?? '').join('\n'));
    checkLeak(seen.size === 1 && seen.has(s.marker), `${s.marker}: ${uri} holds rows of ${[...seen]}`);
  }
  return mine;
}

/** A session asking for another one's offload by its URI is refused. */
async function checkRefused(s, theirs) {
  const read = await s.client.readResource({ uri: theirs }).then(
    () => true,
    () => false
  );
  checkLeak(!read, `${s.marker}: read another session's ${theirs}`);
}

async function closeAll(done) {
  await Promise.all(
    done.map(async ({ client, transport }) => {
      // A session that never began has nothing to end.
      await transport.terminateSession().catch(() => {});
      await client.close();
    })
  );
}

const mb = (bytes) => `${(bytes / (1 << 20)).toFixed(1)} MB`;
console.log(
  `${sessions} sessions x ${calls} calls of bench_rows (${Math.ceil(calls / 3)} per session offloaded: ` +
    `${OFFLOADED_ROWS} rows; the others ${INLINE_ROWS} rows), all sessions at once`
);

// Directly: the fixture over streamable HTTP, one process for every session.
const direct = await serve(process.execPath, [fixture, '--port', '0', '--bench']);
// One session alone first: the latency the gateway adds to a call without load.
const directAlone = await runAll(direct.url, 1);
checkInline('direct', directAlone.done[0]);
await closeAll(directAlone.done);
const directRun = await runAll(direct.url);
const directRss = peakRss(direct.child.pid);
for (const s of directRun.done) {
  checkInline('direct', s);
}
await closeAll(directRun.done);
await stop(direct.child);

// Through the gateway: one fixture child (stdio) per session.
const offloads = mkdtempSync(join(tmpdir(), 'lro-bench-gateway-'));
const gateway = await serve(options.lro, [
  'proxy', '--listen', '127.0.0.1:0', '--output-dir', offloads, '--',
  process.execPath, fixture, '--stdio', '--bench'
]);
const gatewayAlone = await runAll(gateway.url, 1);
checkInline('gateway', gatewayAlone.done[0]);
await closeAll(gatewayAlone.done);
const gatewayRun = await runAll(gateway.url);
const gatewayRss = peakRss(gateway.child.pid);
const childRss = childrenOf(gateway.child.pid).map(peakRss);
const everyUri = new Set();
const made = [];
for (const s of gatewayRun.done) {
  checkInline('gateway', s);
  if (s.failed.length === 0) {
    made.push({ s, uris: [...(await checkOffloads(s, everyUri))] });
  }
}
// Each session tries the next one's first offload.
for (const [n, { s }] of made.entries()) {
  const theirs = made[(n + 1) % made.length];
  if (theirs.s !== s && theirs.uris.length > 0) {
    await checkRefused(s, theirs.uris[0]);
  }
}
const offloaded = made.reduce((sum, { uris }) => sum + uris.length, 0);
await closeAll(gatewayRun.done);
const gatewayExit = await stop(gateway.child);
check(gatewayExit === 0, `the gateway exited ${gatewayExit} on SIGTERM`);
rmSync(offloads, { recursive: true, force: true });

function addedBy(g, d) {
  return Object.keys(KINDS)
    .map((kind) => {
      const [p50, p99] = ['p50', 'p99'].map((p) => (g[kind][p] - d[kind][p]).toFixed(1));
      return `${kind} p50 ${p50} / p99 ${p99} ms`;
    })
    .join(', ');
}
const d1 = summary('direct, alone', directAlone.done);
const g1 = summary('gateway, alone', gatewayAlone.done);
console.log(`added, alone     ${addedBy(g1, d1)}`);
const d = summary('direct', directRun.done);
const g = summary('gateway', gatewayRun.done);
console.log(
  `added            ${addedBy(g, d)} (wall: direct ${directRun.seconds.toFixed(2)} s, gateway ${gatewayRun.seconds.toFixed(2)} s)`
);
console.log(
  `leaks   ${offloaded} offloads, each listed and readable by its own session only, another's refused ` +
    `(${everyUri.size} distinct URIs); every result carried its own session's marker: ` +
    (leaks.length === 0 ? 'yes' : 'NO')
);
const childTotal = childRss.reduce((a, b) => a + b, 0);
console.log(
  `memory  gateway peak RSS ${mb(gatewayRss)}; its ${childRss.length} children ${mb(childTotal)} ` +
    `together (largest ${mb(Math.max(0, ...childRss))}); the fixture serving every session directly ${mb(directRss)}`
);
check(childRss.length === sessions, `the gateway had ${childRss.length} children for ${sessions} sessions`);
if (failures.length > 0) {
  console.error(`FAILED:\n  ${failures.slice(0, 20).join('\n  ')}`);
  process.exit(1);
}
// The clients' idle keep-alive connections would hold the process a few seconds more.
process.exit(0);
