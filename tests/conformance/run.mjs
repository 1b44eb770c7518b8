// Runs the official MCP conformance suite's server scenarios (every one, pending ones too:
// `--suite all`) twice, side by side: against the fixture over streamable HTTP, and against
// `lro proxy --listen` with the fixture behind it as a stdio child. Each server is started on
// a free loopback port and its address read from its stderr (no waiting on a clock). Each run
// passes its own expected-failures file, which makes a warning count as a failure and an entry
// that now passes fail too. Beside them, the suite's client scenarios against `lro proxy --url`
// (clients.mjs). Exits 1 when any run does.
//
// usage: node run.mjs --lro PATH [--only direct|proxy|clients]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { runClients } from './clients.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const node = process.execPath;
const fixture = join(here, 'fixture.mjs');
const conformance = join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

const { values: options } = parseArgs({
  options: { lro: { type: 'string' }, only: { type: 'string' } }
});
if (!options.lro && options.only !== 'direct') {
  console.error('usage: node run.mjs --lro PATH [--only direct|proxy|clients]');
  process.exit(2);
}

/** Starts `command` and resolves with the URL it says it listens on (its stderr). */
function serve(name, command, args) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  const listening = new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      said += text;
      const found = said.match(/listening on (http:\/\/\S+)/);
      if (found) {
        resolve(found[1]);
      }
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${said}`))
    );
  });
  return { child, listening, said: () => said };
}

/** Runs the suite against one server: its exit code and output. */
async function run(name, command, args, expected) {
  const server = serve(name, command, args);
  try {
    const url = await server.listening;
    const suite = spawn(
      node,
      [conformance, 'server', '--url', url, '--suite', 'all', '--expected-failures', expected],
      { stdio: ['ignore', 'pipe', 'pipe'] }
    );
    let output = '';
    suite.stdout.setEncoding('utf8').on('data', (text) => (output += text));
    suite.stderr.setEncoding('utf8').on('data', (text) => (output += text));
    const [code] = await once(suite, 'exit');
    return { name, code, output, server: server.said() };
  } catch (error) {
    return { name, code: 1, output: String(error), server: server.said() };
  } finally {
    // Stopped and waited for: the gateway stops its sessions' fixtures before it exits.
    if (server.child.exitCode === null && server.child.signalCode === null) {
      const exited = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      await exited;
    }
  }
}

const runs = [];
const only = (name) => options.only === undefined || options.only === name;
const clients = only('clients') ? runClients(options.lro) : undefined;
if (only('direct')) {
  runs.push(
    run('direct', node, [fixture, '--port', '0'], join(here, 'expected-failures-direct.yaml'))
  );
}
let offloads;
if (only('proxy')) {
  offloads = mkdtempSync(join(tmpdir(), 'lro-conformance-'));
  runs.push(
    run(
      'proxy',
      options.lro,
      ['proxy', '--listen', '127.0.0.1:0', '--output-dir', offloads, '--', node, fixture, '--stdio'],
      join(here, 'expected-failures-proxy.yaml')
    )
  );
}

let failed = false;
for (const result of await Promise.all(runs)) {
  // The summary, and for a failing run everything it printed.
  const summary = result.output.slice(result.output.indexOf('=== SUMMARY ==='));
  console.log(`\n##### conformance: ${result.name} #####`);
  console.log(result.code === 0 ? summary : `${result.output}\n--- server stderr ---\n${result.server}`);
  failed ||= result.code !== 0;
}
if (offloads) {
  rmSync(offloads, { recursive: true, force: true });
}
if (clients) {
  const { ok, report } = await clients;
  console.log('\n##### conformance: client scenarios through lro proxy --url #####');
  console.log(report);
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);
