// End to end over a real stdio transport: the SDK Client starts the SDK server of
// fixtures/memory-server.mjs, calls a tool returning 500 memories, gets the descriptor,
// then reads the file back through `lro_extract`.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import lro from './build.mjs'

const { extractTool } = lro
/** The extract tool, named after the fixture's McpServer ('memory-test-server'). */
const EXTRACT = 'lro_extract_memory_test_server'

const here = path.dirname(fileURLToPath(import.meta.url))
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-mcp-')))
let client

before(async () => {
  client = new Client({ name: 'lro-e2e-client', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(here, 'fixtures/memory-server.mjs')],
    env: { ...process.env, LRO_TEST_DIR: dir },
    stderr: 'inherit',
  })
  await client.connect(transport)
})

after(async () => {
  await client?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const extract = async (args) => {
  const result = await client.callTool({ name: EXTRACT, arguments: args })
  // The answer alone, as text, as every LRO surface answers (the core's `extractToolCall`):
  // one result per line, no structuredContent.
  assert.equal(result.structuredContent, undefined)
  const lines = result.isError ? [] : result.content[0].text.trimEnd().split('\n')
  // `describe: true` adds the arguments' descriptions, each line starting with `argument`.
  const values = lines.filter((l) => !l.startsWith('[truncated]') && !l.startsWith('argument'))
  return { result, lines, results: values.map((l) => JSON.parse(l)) }
}

test('the server lists lro_extract with the parameters of every LRO surface', async () => {
  const { tools } = await client.listTools()
  const tool = tools.find((t) => t.name === EXTRACT)
  assert.ok(tool, `${EXTRACT} is registered`)
  assert.equal(tools.find((t) => t.name === 'lro_extract'), undefined)
  assert.equal(lro.extractToolForServer('memory-test-server'), EXTRACT)
  assert.equal(lro.extractToolForServer(null), 'lro_extract')
  const core = extractTool()
  assert.deepEqual(Object.keys(tool.inputSchema.properties).sort(), Object.keys(core.inputSchema.properties).sort())
  for (const [name, property] of Object.entries(core.inputSchema.properties)) {
    const published = tool.inputSchema.properties[name]
    assert.equal(published.description, property.description, name)
    // Flat primitives; every optional one may be null (strict-mode converters send null).
    const types = [].concat(published.type ?? (published.anyOf ?? []).map((t) => t.type))
    assert.ok(types.includes([].concat(property.type)[0]), `${name}: ${JSON.stringify(published)}`)
    if (name !== 'file_path') assert.ok(types.includes('null'), `${name}: ${JSON.stringify(published)}`)
  }
  assert.equal(tool.description, core.description)
  assert.deepEqual(tool.inputSchema.required, ['file_path'])
})

test('500 memories come back as a descriptor, then lro_extract reads the file', async () => {
  const result = await client.callTool({ name: 'recall_memories', arguments: { query: 'caching' } })
  // One text block, the descriptor: no structuredContent, no link, by default.
  assert.equal(result.structuredContent, undefined)
  assert.deepEqual(result.content.map((block) => block.type), ['text'])
  const descriptor = JSON.parse(result.content[0].text)
  assert.equal(descriptor.offloaded, true)
  assert.equal(descriptor.extract_tool, EXTRACT)
  assert.equal(descriptor.resource_uri, `lro://offloads/${path.basename(descriptor.file_path)}`)
  assert.equal(descriptor.summary.count, 500)
  assert.equal(descriptor.summary.operation, 'recall')
  assert.equal(descriptor.summary.detail, 'light')
  assert.equal(descriptor.jq_recipes.length, 10)
  assert.ok(descriptor.file_path.startsWith(dir + path.sep), descriptor.file_path)
  assert.ok(descriptor.guidance.includes(`${EXTRACT}(file_path=`), descriptor.guidance)
  // The file: a header, then 500 Light records.
  const lines = fs.readFileSync(descriptor.file_path, 'utf8').trim().split('\n')
  assert.equal(lines.length, 501)
  assert.equal(JSON.parse(lines[0]).query, 'caching')

  // describe: the full descriptor again, rebuilt from the file.
  const described = await extract({ file_path: descriptor.file_path, describe: true })
  assert.deepEqual(described.results, [descriptor])
  // Then what the short definition leaves out: its arguments, described.
  assert.match(described.lines[1], new RegExp(`^arguments of ${EXTRACT}: file_path and one of where`))
  assert.ok(described.lines.some((l) => l.startsWith('argument where: A MongoDB filter document')))

  const counts = await extract({ file_path: descriptor.file_path, recipe: 6 })
  assert.equal(counts.result.isError, false)
  const perNamespace = counts.results[0]
  assert.equal(perNamespace.reduce((sum, row) => sum + row.count, 0), 500)
  assert.equal(perNamespace.length, 5)

  const filtered = await extract({ file_path: descriptor.file_path, recipe: 2, params: { namespace: '_semantic/people' } })
  // 100 memories are more than one answer holds: those that fit, then the count of all.
  assert.match(filtered.lines.at(-1), /^\[truncated\] returned \d+ of 100 results /)
  assert.ok(filtered.results.length > 10)
  assert.ok(filtered.results.every((m) => m.namespace === '_semantic/people'))
  // params as JSON text, as the published schema has it: the same answer.
  const asText = await extract({ file_path: descriptor.file_path, recipe: 2, params: '{"namespace": "_semantic/people"}' })
  assert.deepEqual(asText.lines, filtered.lines)

  const custom = await extract({ file_path: descriptor.file_path, query: 'select(.id == "mem-000042") | .title' })
  assert.deepEqual(custom.results, ['Decision 42 about caching and storage layout'])

  // 500 records are more than one answer holds: cut at a record, the next call named.
  const all = await extract({ file_path: descriptor.file_path, lines: '0:500' })
  assert.ok(Buffer.byteLength(all.result.content[0].text) <= 16384)
  assert.match(all.lines.at(-1), /^\[truncated\] returned \d+ of 500 results .*next: the same call with \{"lines":"\d+:\d+"\}$/)

  // A structured query, as a model fills it: a MongoDB filter document, shaped.
  const where = await extract({
    file_path: descriptor.file_path,
    where: { namespace: { $regex: '^_semantic' }, tags: 'api' },
    fields: ['id'],
    sort: { id: -1 },
    limit: 2,
    group_by: null,
  })
  assert.equal(where.result.isError, false, where.result.content[0].text)
  const want = Array.from({ length: 500 }, (_, i) => i)
    .filter((i) => [0, 1, 4].includes(i % 5) && (i % 6 === 3 || (i + 2) % 6 === 3))
    .reverse()
    .slice(0, 2)
    .map((i) => ({ id: `mem-${String(i).padStart(6, '0')}` }))
  assert.deepEqual(where.results, want)
  const explained = await client.callTool({
    name: EXTRACT,
    arguments: { file_path: descriptor.file_path, where: '{"tags": "api"}', count: true, explain: true },
  })
  const [count, jq] = explained.content[0].text.trimEnd().split('\n')
  assert.match(count, /^\d+$/, 'a count is the bare number')
  assert.match(jq, /^equivalent jq: tail -n \+2 .* \| jq -s/)
  const grouped = await extract({ file_path: descriptor.file_path, group_by: 'memory_type' })
  // Largest first, ties in value order.
  assert.deepEqual(grouped.results, [
    [
      { memory_type: 'episodic', count: 167 },
      { memory_type: 'semantic', count: 167 },
      { memory_type: 'procedural', count: 166 },
    ],
  ])
})

test('a small result stays inline and untouched', async () => {
  const result = await client.callTool({ name: 'recall_memories', arguments: { query: 'few' } })
  assert.equal(result.structuredContent, undefined)
  assert.equal(JSON.parse(result.content[0].text).length, 3)
})

test('lro_extract reports mistakes as tool errors with the core code', async () => {
  const outside = await extract({ file_path: '/etc/passwd', recipe: 1 })
  assert.equal(outside.result.isError, true)
  assert.match(outside.result.content[0].text, /\[path_denied\]/)
  const both = await extract({ file_path: path.join(dir, 'x.jsonl'), recipe: 1, query: '.' })
  assert.equal(both.result.isError, true)
  assert.match(both.result.content[0].text, /\[invalid_argument\]/)
  const operator = await extract({ file_path: path.join(dir, 'x.jsonl'), where: { tags: { $has: 'x' } } })
  assert.equal(operator.result.isError, true)
  assert.match(operator.result.content[0].text, /\[invalid_query\]: where\.tags\.\$has/)
})
