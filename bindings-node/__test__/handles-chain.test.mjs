// A result passed on by reference through the Node helper, as `lro proxy` passes it between
// two servers (cli/tests/e2e/test_handles_chain.py): on an SDK McpServer, a graph of 300
// entities of four types is read (`withLro`: offloaded), one type is kept with the extract
// tool's `save: true` (a new offload file, answered with its descriptor), and a `write_file`
// tool of the server's own gets `content` as a result handle, which `registerLroExtract`'s
// tools/call handler replaces with the kept records before the SDK validates the arguments.
// The SDK Client talks to the server over the SDK's in-memory transport.
//
// The written file must hold exactly the kept entities; a bad handle is answered with
// `isError` naming the argument, and the tool is never called.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { mcp } from './build.mjs'

const { withLro, registerLroExtract, registerLroResources, extractToolName } = mcp

const ENTITIES = 300
const RELATIONS = 200
const TYPES = ['person', 'project', 'team', 'service']
const KEPT_TYPE = 'team'

/** server-memory's read_graph shape: entities with observations, and relations. */
function graph() {
  const entities = Array.from({ length: ENTITIES }, (_, i) => ({
    name: `entity-${String(i).padStart(3, '0')}`,
    entityType: TYPES[i % TYPES.length],
    observations: [0, 1, 2].map((j) => `observation ${j} of entity ${i}: notes on caching, owners and uptime`),
  }))
  const relations = Array.from({ length: RELATIONS }, (_, i) => ({
    from: `entity-${String(i % ENTITIES).padStart(3, '0')}`,
    to: `entity-${String((i * 7 + 3) % ENTITIES).padStart(3, '0')}`,
    relationType: 'depends_on',
  }))
  return { entities, relations }
}

const kept = graph().entities.filter((e) => e.entityType === KEPT_TYPE)
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-handles-')))
const files = path.join(dir, 'files')
const written = []
let client
let extract
/** `notifications/resources/list_changed` received, and who waits for the next. */
let changes = 0
const waiting = []
/** Resolves once `count` list changes have arrived (the test's timeout bounds it). */
async function changed(count) {
  while (changes < count) await new Promise((resolve) => waiting.push(resolve))
}

before(async () => {
  fs.mkdirSync(files)
  const config = { outputDir: path.join(dir, 'lro') }
  const server = new McpServer({ name: 'graph', version: '1.0.0' })
  // As server-memory answers: the graph as JSON text.
  server.registerTool(
    'read_graph',
    { description: 'The whole knowledge graph' },
    withLro('read_graph', async () => ({ content: [{ type: 'text', text: JSON.stringify(graph()) }] }), config),
  )
  registerLroExtract(server, config)
  registerLroResources(server, config)
  // Registered after the extract tool, not wrapped by LRO: handles reach it resolved all the same.
  server.registerTool(
    'write_file',
    { description: 'Writes content to a file', inputSchema: { path: z.string(), content: z.string() } },
    async (args) => {
      assert.equal(path.dirname(args.path), files)
      written.push(args.path)
      fs.writeFileSync(args.path, args.content)
      return { content: [{ type: 'text', text: `wrote ${args.content.length} characters` }] }
    },
  )
  extract = extractToolName(server, config)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  client = new Client({ name: 'lro-handles-client', version: '1.0.0' })
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    changes += 1
    for (const resolve of waiting.splice(0)) resolve()
  })
  await client.connect(clientSide)
})

after(async () => {
  await client?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const text = (result) => result.content.filter((b) => b.type === 'text').map((b) => b.text).join('')

test('read_graph offloaded, one type saved, write_file given a handle writes exactly those records', { timeout: 60_000 }, async () => {
  // A client that listed resources hears of each new offload file, the saved one too.
  await client.listResources()
  const read = await client.callTool({ name: 'read_graph', arguments: {} })
  const descriptor = JSON.parse(text(read))
  assert.equal(descriptor.offloaded, true)
  await changed(1)

  const saved = await client.callTool({
    name: extract,
    arguments: {
      file_path: descriptor.resource_uri,
      section: 'entities',
      where: JSON.stringify({ entityType: KEPT_TYPE }),
      save: true,
    },
  })
  assert.ok(!saved.isError, text(saved))
  const savedDescriptor = JSON.parse(text(saved))
  assert.equal(savedDescriptor.offloaded, true)
  assert.equal(savedDescriptor.summary.count, kept.length)
  assert.equal(kept.length, ENTITIES / TYPES.length)
  assert.match(savedDescriptor.resource_uri, /^lro:\/\/offloads\//)
  await changed(2)
  const listed = (await client.listResources()).resources.map((r) => r.uri)
  assert.ok(listed.includes(savedDescriptor.resource_uri), 'the saved file is listed')

  const target = path.join(files, 'kept.jsonl')
  const wrote = await client.callTool({
    name: 'write_file',
    arguments: { path: target, content: { $lro: savedDescriptor.resource_uri, as: 'jsonl' } },
  })
  assert.ok(!wrote.isError, text(wrote))
  // Exactly the kept records, as the inline chain would have typed them.
  assert.equal(fs.readFileSync(target, 'utf8'), kept.map((e) => JSON.stringify(e) + '\n').join(''))
  assert.deepEqual(written, [target])
})

test('a bad handle is answered with isError naming the argument; the tool is not called', async () => {
  const before = written.length
  const refused = await client.callTool({
    name: 'write_file',
    arguments: { path: path.join(files, 'refused.txt'), content: { $lro: '/etc/passwd', as: 'text' } },
  })
  assert.equal(refused.isError, true)
  assert.match(text(refused), /^error\[path_denied\]: argument `content` holds a result handle/)
  assert.equal(written.length, before)
  assert.equal(fs.existsSync(path.join(files, 'refused.txt')), false)
})
