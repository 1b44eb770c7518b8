// The client the conformance suite's client scenarios drive: an MCP client (the official
// TypeScript SDK over stdio) in front of `lro proxy --url URL`, which talks to the scenario's
// server. It does what the suite's reference client (examples/clients/typescript/
// everything-client.ts at v0.1.16) does for each scenario: initialize, list the tools, call
// the scenario's tool; the authorization is the proxy's, from the flags the scenario's
// context calls for.
//
// usage (the suite appends the URL and sets MCP_CONFORMANCE_SCENARIO, and for some
// scenarios MCP_CONFORMANCE_CONTEXT): LRO_BIN=PATH node client.mjs URL

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// The client ID metadata document URL the reference client offers (the scenarios' servers
// accept it without fetching it).
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The tool each scenario's server offers, and its arguments. */
function toolOf(scenario) {
  if (scenario === 'tools_call') {
    return { name: 'add_numbers', arguments: { a: 5, b: 10 } };
  }
  if (scenario === 'sse-retry') {
    return { name: 'test_reconnection', arguments: {} };
  }
  if (scenario === 'elicitation-sep1034-client-defaults') {
    return { name: 'test_client_elicitation_defaults', arguments: {} };
  }
  // The reference client calls it in the authorization scenarios it runs a whole session in;
  // the client-credentials and pre-registration ones stop at the tool list.
  const listOnly = /^auth\/(client-credentials-|pre-registration|cross-app-access)/;
  if (scenario.startsWith('auth/') && !listOnly.test(scenario)) {
    return { name: 'test-tool', arguments: {} };
  }
  return undefined;
}

/** The proxy's authorization flags for `scenario` and its context (`scratch`: a private
 * directory for what the flags name). */
function oauthFlags(scenario, context, scratch) {
  if (!scenario.startsWith('auth/')) {
    return [];
  }
  const flags = [
    '--oauth-store', join(scratch, 'oauth'),
    '--oauth-open', 'curl -sL -o /dev/null',
    '--oauth-client-metadata-url', CLIENT_METADATA_URL
  ];
  if (context.client_id) {
    flags.push('--oauth-client-id', context.client_id);
  }
  if (context.client_secret) {
    flags.push('--oauth-client-secret', context.client_secret);
  }
  if (context.private_key_pem) {
    const key = join(scratch, 'client-key.pem');
    writeFileSync(key, context.private_key_pem, { mode: 0o600 });
    flags.push('--oauth-client-key', key);
  }
  if (scenario.startsWith('auth/client-credentials-')) {
    flags.push('--oauth-grant', 'client-credentials');
  }
  return flags;
}

async function main() {
  const url = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const lro = process.env.LRO_BIN;
  if (!url || !scenario || !lro) {
    console.error('usage: LRO_BIN=PATH MCP_CONFORMANCE_SCENARIO=NAME node client.mjs URL');
    process.exit(2);
  }
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
  const scratch = mkdtempSync(join(tmpdir(), 'lro-conformance-client-'));
  const args = ['proxy', '--output-dir', join(scratch, 'offload'), '--url', url];
  args.push(...oauthFlags(scenario, context, scratch));

  const elicitation = scenario.startsWith('elicitation-');
  const client = new Client(
    { name: 'lro-conformance-client', version: '1.0.0' },
    // (The SDK of this version reads `applyDefaults` under `form`, the reference client's
    // older SDK at the top of `elicitation`.)
    { capabilities: elicitation ? { elicitation: { form: { applyDefaults: true } } } : {} }
  );
  if (elicitation) {
    // Accepts with nothing filled in: the SDK fills in the schema's defaults (SEP-1034).
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
  }
  const transport = new StdioClientTransport({ command: lro, args, stderr: 'inherit' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const tool = toolOf(scenario);
    if (tool) {
      if (!tools.some((t) => t.name === tool.name)) {
        throw new Error(`the server lists no tool ${tool.name}`);
      }
      const result = await client.callTool(tool);
      if (result.isError) {
        throw new Error(`${tool.name} failed: ${JSON.stringify(result.content)}`);
      }
    }
  } finally {
    await client.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`lro conformance client (${process.env.MCP_CONFORMANCE_SCENARIO}):`, error);
    process.exit(1);
  }
);
