// The extract tool's definition in its two forms (`mcp.extractToolDefinition`): short by
// default, long by option, as `extractTool(config)` gives it and as `registerLroExtract`
// lists it on an SDK McpServer (the Node helper's listing, zod's rendering included).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import lro, { mcp } from './build.mjs'

const outputDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-tooldef-')))

/** The extract tool as an McpServer with `registerLroExtract(server, config)` lists it. */
async function listed(config) {
  const server = new McpServer({ name: 'memory', version: '1.0.0' })
  mcp.registerLroExtract(server, config)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'tooldef', version: '1.0.0' })
  await client.connect(clientSide)
  const { tools } = await client.listTools()
  await client.close()
  return tools.find((t) => t.name === 'lro_extract_memory')
}

test('extractTool gives the short form by default and the long one by option', () => {
  const short = lro.extractTool()
  const long = lro.extractTool({ mcp: { extractToolDefinition: 'long' } })
  assert.equal(short.description, mcp.EXTRACT_DESCRIPTION)
  const shortNames = Object.keys(short.inputSchema.properties)
  const longNames = Object.keys(long.inputSchema.properties)
  assert.equal(shortNames.length, 17)
  assert.equal(longNames.length, 22)
  assert.ok(shortNames.every((name) => longNames.includes(name)))
  assert.ok(Object.values(short.inputSchema.properties).every((p) => p.description === undefined))
  assert.ok(Object.values(long.inputSchema.properties).every((p) => typeof p.description === 'string'))
  assert.ok(lro.estimateTokens(JSON.stringify(short)) <= 400)
  assert.throws(() => lro.extractTool({ mcp: { extractToolDefinition: 'tiny' } }), (err) => err.code === 'invalid_config')
})

test('registerLroExtract lists the configured form', async () => {
  const short = await listed({ outputDir })
  const long = await listed({ outputDir, mcp: { extractToolDefinition: 'long' } })
  assert.equal(short.description, lro.extractTool().description)
  assert.equal(long.description, lro.extractTool({ mcp: { extractToolDefinition: 'long' } }).description)
  // Listed as the core gives it, as the `lro proxy` and the Python helpers list it.
  assert.deepEqual(short.inputSchema, lro.extractTool().inputSchema)
  assert.deepEqual(long.inputSchema, lro.extractTool({ mcp: { extractToolDefinition: 'long' } }).inputSchema)
  assert.equal(Object.keys(long.inputSchema.properties).length, 22)
  assert.ok(JSON.stringify(long).length > 3 * JSON.stringify(short).length)
  fs.rmSync(outputDir, { recursive: true, force: true })
})
