// The conformance suite's client scenarios against `lro proxy --url URL`, driven by
// client.mjs (an SDK client over stdio in front of the proxy). Those of the current
// specification (2025-11-25) gate: a scenario fails the run unless it passes without a
// warning or is listed, with its reason, in expected-failures-client.yaml (an entry that
// passes fails the run too). The 2025-03-26 back-compat, draft and extension ones are run
// and reported only. The suite processes run side by side, each running its scenarios in
// parallel; `sse-retry`, which times the client's reconnection to within 200 ms, runs alone
// once they are done, so that their start-up (a Node client and a proxy per scenario, and
// every scenario's servers in one event loop) does not make it late.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const node = process.execPath;
const conformance = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const expected = join(here, 'expected-failures-client.yaml');

/** The suite runs: what each selects, and whether it gates. Together they are every client
 * scenario of the suite at this version. */
const GATING = '2025-11-25';
const FIRST = [
  { label: `${GATING}: authorization`, select: ['--suite', 'auth', '--spec-version', GATING] },
  ...['initialize', 'tools_call', 'elicitation-sep1034-client-defaults'].map((name) => ({
    label: `${GATING}: ${name}`,
    select: ['--scenario', name]
  })),
  ...['2025-03-26', 'draft', 'extension'].map((version) => ({
    label: `${version} (reported only)`,
    select: ['--suite', 'all', '--spec-version', version],
    reportOnly: true
  }))
];
const TIMED = { label: `${GATING}: sse-retry`, select: ['--scenario', 'sse-retry'] };

/** Runs the suite's scenarios that `run.select` names: its exit code, output and the
 * checks of each scenario. */
async function runSuite(lro, run) {
  const out = mkdtempSync(join(tmpdir(), 'lro-conformance-clients-'));
  // The suite splits the command on spaces and appends the server's URL; LRO_BIN names
  // the proxy (a path with spaces would not survive the split).
  const command = `${node} ${join(here, 'client.mjs')}`;
  const args = [conformance, 'client', '--command', command, ...run.select, '--output-dir', out];
  if (!run.reportOnly) {
    args.push('--expected-failures', expected);
  }
  const suite = spawn(node, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LRO_BIN: lro }
  });
  let output = '';
  suite.stdout.setEncoding('utf8').on('data', (text) => (output += text));
  suite.stderr.setEncoding('utf8').on('data', (text) => (output += text));
  const [code] = await once(suite, 'exit');
  const scenarios = readChecks(out);
  rmSync(out, { recursive: true, force: true });
  return { ...run, code, output, scenarios };
}

/** The checks.json of each scenario under `dir` (named `<scenario>-<timestamp>/`). */
function readChecks(dir) {
  const found = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.name === 'checks.json') {
        const name = relative(dir, dirname(path)).replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
        found.push({ name, checks: JSON.parse(readFileSync(path, 'utf8')) });
      }
    }
  };
  walk(dir);
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** One row of the table: the scenario's counts, and why it failed. */
function row(scenario, listed, gating) {
  const count = (status) => scenario.checks.filter((c) => c.status === status).length;
  const [passed, failed, warnings] = [count('SUCCESS'), count('FAILURE'), count('WARNING')];
  const ok = failed === 0 && warnings === 0;
  const first = scenario.checks.find((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const why = first ? ` (${(first.errorMessage ?? first.name).split('\n')[0].slice(0, 90)})` : '';
  let result;
  if (!gating) {
    result = ok ? 'pass' : 'fail, reported only';
  } else if (listed) {
    result = ok ? 'PASSES: remove it from expected-failures-client.yaml' : 'expected failure';
  } else {
    result = ok ? 'pass' : 'FAIL';
  }
  const checks = `${passed}/${passed + failed}${warnings ? `, ${warnings} warnings` : ''}`;
  return `| ${scenario.name} | ${result} | ${checks}${ok ? '' : why} |`;
}

/** The scenarios listed in expected-failures-client.yaml (`client:` entries). */
function listedFailures() {
  return new Set(
    readFileSync(expected, 'utf8')
      .split('\n')
      .map((line) => line.match(/^\s+-\s+(\S+)/)?.[1])
      .filter(Boolean)
  );
}

/**
 * Runs every suite run (the timed one last, alone) and returns `{ ok, report }`: ok when
 * every gating run passed (its suite exit code, the expected failures considered).
 */
export async function runClients(lro) {
  const runs = await Promise.all(FIRST.map((run) => runSuite(lro, run)));
  runs.push(await runSuite(lro, TIMED));
  const listed = listedFailures();
  const lines = ['| scenario | result | checks passed |', '| --- | --- | --- |'];
  const gating = runs.filter((run) => !run.reportOnly);
  const rows = (group) =>
    group.flatMap((run) => run.scenarios.map((s) => row(s, listed.has(s.name), !run.reportOnly)));
  lines.push(`| **${GATING}** | | |`, ...rows(gating));
  for (const run of runs.filter((r) => r.reportOnly)) {
    lines.push(`| **${run.label}** | | |`, ...rows([run]));
  }
  const failed = gating.filter((run) => run.code !== 0);
  const outputs = failed.map((run) => `--- ${run.label} ---\n${run.output}`);
  return { ok: failed.length === 0, report: [...outputs, lines.join('\n')].join('\n') };
}
