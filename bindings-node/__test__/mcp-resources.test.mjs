// The offload files as MCP resources, end to end over a real stdio transport: the TypeScript
// SDK's Client against the SDK server of fixtures/memory-server.mjs (registerLroResources):
// the link in an offloaded result, resources/list in pages with the server's own resource,
// resources/read of the file and its records, the templates, lro_extract by URI, errors, and
// notifications/resources/list_changed after an offload and after a cleanup.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import crypto from 'node:crypto'
import lro from './build.mjs'

const { offload } = lro

const here = path.dirname(fileURLToPath(import.meta.url))
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-mcp-resources-')))
// Long enough that no file expires while the test runs, however loaded the machine: the expired
// files are planted with names dated two hours back.
const TTL_SECONDS = 3600
let client
const listChanged = []

before(async () => {
  client = new Client({ name: 'lro-resources-client', version: '1.0.0' })
  client.setNotificationHandler(ResourceListChangedNotificationSchema, (notification) => {
    listChanged.push(notification.method)
  })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(here, 'fixtures/memory-server.mjs')],
    env: { ...process.env, LRO_TEST_DIR: dir, LRO_TEST_TTL: String(TTL_SECONDS), LRO_TEST_LINK: '1' },
    stderr: 'inherit',
  })
  await client.connect(transport)
})

after(async () => {
  await client?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const waitFor = async (count) => {
  const deadline = Date.now() + 30_000
  while (listChanged.length < count) {
    assert.ok(Date.now() < deadline, `expected ${count} list_changed notifications, got ${listChanged.length}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const errorCode = async (promise) => {
  try {
    await promise
  } catch (err) {
    return err.code
  }
  return 'no error'
}

test('offload files are resources beside the server\'s own, and the client hears of changes', async () => {
  assert.equal(client.getServerCapabilities().resources.listChanged, true)
  const before = await client.listResources()
  assert.deepEqual(before.resources.map((r) => r.uri), ['memo://readme'])

  const result = await client.callTool({ name: 'recall_memories', arguments: { query: 'caching' } })
  const descriptor = result.structuredContent
  const name = path.basename(descriptor.file_path)
  const link = result.content.at(-1)
  assert.deepEqual(link, { type: 'resource_link', uri: `lro://offloads/${name}`, name, mimeType: 'application/jsonl' })
  assert.equal(descriptor.resource_uri, link.uri)
  // Read now: the short time-to-live removes the file later in this test.
  const text = fs.readFileSync(descriptor.file_path, 'utf8')
  await waitFor(1)

  const listed = await client.listResources()
  assert.deepEqual(listed.resources.map((r) => r.uri), [link.uri, 'memo://readme'])
  assert.equal(listed.resources[0].title, 'recall: 500 memories')
  assert.equal(listed.resources[0].size, Buffer.byteLength(text))
  assert.equal(listed.nextCursor, undefined)

  const templates = await client.listResourceTemplates()
  assert.deepEqual(templates.resourceTemplates.map((t) => t.uriTemplate), ['lro://offloads/{file}', 'lro://offloads/{file}/records'])

  const file = await client.readResource({ uri: link.uri })
  assert.deepEqual(file.contents, [{ uri: link.uri, mimeType: 'application/jsonl', text }])
  const records = await client.readResource({ uri: `${link.uri}/records` })
  assert.equal(records.contents[0].text, text.slice(text.indexOf('\n') + 1))
  const readme = await client.readResource({ uri: 'memo://readme' })
  assert.equal(readme.contents[0].text, '500 memories about caching')

  const counted = await client.callTool({ name: 'lro_extract_memory_test_server', arguments: { file_path: link.uri, count: true } })
  assert.equal(counted.content[0].text, '500\n')

  assert.equal(await errorCode(client.readResource({ uri: 'lro://offloads/notes.txt' })), -32602)
  assert.equal(await errorCode(client.readResource({ uri: 'lro://offloads/atlatl-recall-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl' })), -32002)
  assert.equal(await errorCode(client.readResource({ uri: 'lro://offloads/../../etc/passwd' })), -32602)

  // 150 more files from another writer: the list comes in pages, newest first.
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: i, note: `bulk record number ${i} of the batch` }))
  for (let i = 0; i < 150; i++) assert.equal(offload(rows, { operation: 'bulk' }, { outputDir: dir }).offloaded, true)
  const pages = []
  let cursor
  do {
    const page = await client.listResources(cursor === undefined ? undefined : { cursor })
    pages.push(page.resources.map((r) => r.uri))
    cursor = page.nextCursor
  } while (cursor !== undefined)
  assert.deepEqual(pages.map((p) => p.length), [101, 51])
  const offloads = pages.flat().filter((uri) => uri.startsWith('lro://'))
  assert.equal(new Set(offloads).size, 151)
  const ulids = offloads.map((uri) => uri.split('-').at(-1))
  assert.deepEqual(ulids, [...ulids].sort().reverse())
  assert.equal(listChanged.length, 1, 'one offload through the server')

  // Files past the time-to-live (copies of a real one, named two hours back) are no
  // resources; the cleanup removes them, tells the client, and leaves the others.
  const template = path.join(dir, offloads[0].split('/').at(-1))
  const planted = Array.from({ length: 3 }, () => `atlatl-bulk-${ulidAt(Date.now() - 2 * 3600 * 1000)}.jsonl`)
  for (const name of planted) fs.copyFileSync(template, path.join(dir, name))
  const listedNow = (await client.listResources()).resources.map((r) => r.uri)
  assert.equal(listedNow.length, 101)
  assert.ok(planted.every((name) => !listedNow.includes(`lro://offloads/${name}`)), 'expired files are not listed')
  const cleaned = await client.callTool({ name: 'cleanup_offloads', arguments: {} })
  assert.deepEqual(JSON.parse(cleaned.content[0].text), { removed: 3 })
  await waitFor(2)
  assert.ok(planted.every((name) => !fs.existsSync(path.join(dir, name))), 'cleanup removed the expired files')
  const after = await client.listResources()
  assert.equal(after.resources.length, 101)
  assert.ok(after.resources.some((r) => r.uri === 'memo://readme'))
})

/** A ULID for the time `ms` (Crockford base32: 10 characters of time, 16 random). */
function ulidAt(ms) {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  let time = ''
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = alphabet[t % 32] + time
  const random = Array.from(crypto.randomBytes(16), (b) => alphabet[b % 32]).join('')
  return time + random
}
