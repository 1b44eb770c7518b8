// `lro proxy --listen` driven by the official MCP TypeScript SDK's streamable-HTTP client, in
// front of @modelcontextprotocol/server-everything (npm, stdio): initialize, tools/list, a call
// whose result is offloaded, that offload as a resource (list and read) and through the extract
// tool, a call that reports progress, and the end of the session (DELETE), after which its id
// is refused. Run by `make test-proxy` (node --test); the binary is $LRO_BIN.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const lro = process.env.LRO_BIN ?? join(here, '../../../target/release/lro');
const everything = join(here, 'node_modules/.bin/mcp-server-everything');
// The proxy names its extract tool after the server's serverInfo.name, "mcp-servers/everything".
const EXTRACT = 'lro_extract_mcp_servers_everything';

/** The gateway on a free loopback port: its process, URL and output directory. */
async function startGateway() {
  const outputDir = realpathSync(mkdtempSync(join(tmpdir(), 'lro-gateway-ts-')));
  const child = spawn(
    lro,
    ['proxy', '--listen', '127.0.0.1:0', '--output-dir', outputDir, '--', everything, 'stdio'],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  );
  let said = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text) => {
      said += text;
      const found = said.match(/listening on (http:\/\/\S+)/);
      if (found) {
        resolve(new URL(found[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`the gateway exited (${code}):\n${said}`)));
  });
  return { child, url, outputDir };
}

test('the TypeScript SDK client offloads, reads, extracts, sees progress and ends its session', async () => {
  const gateway = await startGateway();
  try {
    const client = new Client({ name: 'lro-gateway-ts-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(gateway.url);
    await client.connect(transport);
    assert.equal(client.getServerVersion().name, 'mcp-servers/everything');
    const sessionId = transport.sessionId;
    assert.ok(sessionId, 'the gateway issued an Mcp-Session-Id');

    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ['echo', 'trigger-long-running-operation', EXTRACT]) {
      assert.ok(tools.includes(name), `${name} in ${tools}`);
    }

    // 2000 lines of text, far above the offload threshold.
    const message = Array.from({ length: 2000 }, (_, n) => `row ${n} of the echo`).join('\n');
    const echoed = await client.callTool({ name: 'echo', arguments: { message } });
    assert.ok(!echoed.isError, JSON.stringify(echoed));
    const descriptor = JSON.parse(echoed.content[0].text);
    assert.equal(descriptor.offloaded, true);
    assert.equal(descriptor.extract_tool, EXTRACT);
    // The session's own directory, OUTPUT_DIR/s-<SHA-256 of the session id, 32 hex digits>:
    // the id itself, a bearer secret without authentication, never appears in a path.
    const hashed = 's-' + createHash('sha256').update(sessionId).digest('hex').slice(0, 32);
    assert.ok(
      descriptor.file_path.startsWith(join(gateway.outputDir, hashed) + '/'),
      descriptor.file_path
    );
    assert.ok(!descriptor.file_path.includes(sessionId), descriptor.file_path);

    const listed = (await client.listResources()).resources.map((r) => r.uri);
    assert.ok(listed.includes(descriptor.resource_uri), `${descriptor.resource_uri} in ${listed}`);
    const read = await client.readResource({ uri: descriptor.resource_uri });
    const text = read.contents.map((c) => c.text).join('\n');
    assert.ok(text.includes('row 1999 of the echo'), text.slice(0, 300));

    const extracted = await client.callTool({
      name: EXTRACT,
      arguments: {
        file_path: descriptor.file_path,
        query: 'select(.text | test("^row 1234 ")) | .text'
      }
    });
    assert.ok(!extracted.isError, JSON.stringify(extracted));
    const answer = extracted.content[0].text;
    assert.match(answer, /row 1234 of the echo/);
    assert.doesNotMatch(answer, /row 1235/);

    // Progress notifications of a call come back on that call's stream.
    const progress = [];
    const done = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: (update) => progress.push(update) }
    );
    assert.ok(!done.isError, JSON.stringify(done));
    assert.deepEqual(
      progress.map(({ progress: step, total }) => [step, total]),
      [[1, 3], [2, 3], [3, 3]]
    );

    // DELETE ends the session: its id is unknown afterwards (404).
    const version = transport.protocolVersion;
    await transport.terminateSession();
    await client.close();
    const after = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sessionId,
        'MCP-Protocol-Version': version
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' })
    });
    assert.equal(after.status, 404);
    await after.body?.cancel();
  } finally {
    if (gateway.child.exitCode === null) {
      const exited = once(gateway.child, 'exit');
      gateway.child.kill('SIGTERM');
      const [code] = await exited;
      assert.equal(code, 0, 'the gateway exits 0 on SIGTERM');
    }
    rmSync(gateway.outputDir, { recursive: true, force: true });
  }
});
