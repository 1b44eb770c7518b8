// Descriptor profiles (`descriptor`), `describe: true` and the adaptive threshold
// (`contextRemainingTokens`), through every entry point that takes them, sync and async.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import lro from './build.mjs'
import { makeMemories } from './fixtures/memories.mjs'

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-profiles-')))
const memories = makeMemories(200)
const POINTER_KEYS = ['count', 'file_path', 'guidance', 'offloaded', 'resource_uri']

async function rejects(fn, code) {
  await assert.rejects(async () => fn(), (err) => {
    assert.equal(err.code, code, err.message)
    return true
  })
}

test('a per-call pointer is exactly { offloaded, file_path, resource_uri, count, guidance }, and describe gives the full descriptor', async () => {
  const config = { outputDir: tmp() }
  const json = JSON.stringify(memories)
  const pointers = [
    lro.offload(memories, { descriptor: 'pointer' }, config), // JS objects: the encoded path
    await lro.offloadAsync(memories, { descriptor: 'pointer' }, config),
    lro.offloadJson(json, { descriptor: 'pointer' }, config),
    await lro.offloadJsonAsync(Buffer.from(json), { descriptor: 'pointer' }, config),
    lro.offloadInject('formatted', memories, { descriptor: 'pointer' }, config),
    await lro.offloadInjectAsync('formatted', memories, { descriptor: 'pointer' }, config),
  ]
  for (const pointer of pointers) {
    assert.deepEqual(Object.keys(pointer).sort(), POINTER_KEYS)
    assert.equal(pointer.offloaded, true)
    assert.equal(pointer.count, 200)
  }
  const [first] = pointers
  const described = lro.extract(first.file_path, { describe: true }, config)
  assert.equal(described.count, 1)
  const full = described.results[0]
  assert.equal(full.jq_recipes.length, 10)
  assert.equal(full.file_path, first.file_path)
  assert.deepEqual((await lro.extractAsync(first.file_path, { describe: true }, config)).results, [full])
  // The full profile at offload time gives the same descriptor, but for the file's name.
  const direct = lro.offload(memories, { descriptor: 'full' }, config)
  const name = (file) => file.slice(file.lastIndexOf('/') + 1)
  assert.deepEqual(JSON.parse(JSON.stringify(direct).split(name(direct.file_path)).join(name(first.file_path))), full)
})

test('config.descriptor is the default profile; a call overrides it', () => {
  const config = { outputDir: tmp(), descriptor: 'compact' }
  const compact = lro.offload(memories, { operation: 'recall' }, config)
  assert.equal(compact.recipes.length, 10)
  assert.equal(compact.jq_recipes, undefined)
  assert.equal(compact.line_schema, undefined)
  assert.equal(lro.offload(memories, { descriptor: 'full' }, config).jq_recipes.length, 10)
  assert.deepEqual(Object.keys(lro.offload(memories, { descriptor: 'pointer' }, config)).sort(), POINTER_KEYS)
  // The MCP interceptor describes with the configured profile.
  const result = { content: [{ type: 'text', text: JSON.stringify(memories) }] }
  const intercepted = lro.interceptToolResult(result, { toolName: 'recall_memories' }, { ...config, descriptor: 'pointer' })
  assert.deepEqual(Object.keys(JSON.parse(intercepted.result.content[0].text)).sort(), POINTER_KEYS)
})

test('contextRemainingTokens lowers the threshold to adaptiveRatio of it, and the outcome says so', async () => {
  const outputDir = tmp()
  const few = makeMemories(20)
  const small = lro.offload(few, null, { outputDir })
  assert.equal(small.offloaded, false)
  assert.equal(small.threshold_tokens, undefined)
  assert.ok(small.estimated_tokens > 200)
  const adapted = lro.offload(few, { contextRemainingTokens: 2000 }, { outputDir })
  assert.equal(adapted.offloaded, true)
  assert.equal(adapted.threshold_tokens, 200)
  const roomy = await lro.offloadJsonAsync(JSON.stringify(few), { contextRemainingTokens: 1e9 }, { outputDir })
  assert.equal(roomy.offloaded, false)
  assert.equal(roomy.threshold_tokens, 1600)
  const half = lro.offload(few, { contextRemainingTokens: 2000, descriptor: 'pointer' }, { outputDir, adaptiveRatio: 0.5 })
  assert.deepEqual(Object.keys(half).sort(), [...POINTER_KEYS, 'threshold_tokens'].sort())
  assert.equal(half.threshold_tokens, 1000)
})

test('the configuration reports descriptor and adaptiveRatio from every source', () => {
  const fromToml = lro.configFromTomlString('[prompt.offload]\ndescriptor = "compact"\nadaptive_ratio = 0.25\n')
  assert.equal(fromToml.descriptor, 'compact')
  assert.equal(fromToml.adaptiveRatio, 0.25)
  const fromEnv = lro.configFromEnv({ ATLATL_PROMPT__OFFLOAD__DESCRIPTOR: 'pointer' }, { adaptiveRatio: 0.5 })
  assert.equal(fromEnv.descriptor, 'pointer')
  assert.equal(fromEnv.adaptiveRatio, 0.5)
  const defaults = lro.configFromEnv({})
  assert.equal(defaults.descriptor, 'full')
  assert.equal(defaults.adaptiveRatio, 0.1)
})

test('bad profiles, ratios and describe requests throw the core codes', async () => {
  const outputDir = tmp()
  await rejects(() => lro.offload(memories, { descriptor: 'tiny' }, { outputDir }), 'invalid_argument')
  await rejects(() => lro.offloadAsync(memories, { contextRemainingTokens: -1 }, { outputDir }), 'invalid_argument')
  await rejects(() => lro.offload(memories, null, { outputDir, descriptor: 'tiny' }), 'invalid_config')
  await rejects(() => lro.offload(memories, null, { outputDir, adaptiveRatio: 0 }), 'invalid_config')
  await rejects(() => lro.offloadAsync(memories, null, { outputDir, adaptiveRatio: 1.5 }), 'invalid_config')
  const file = lro.offload(memories, null, { outputDir }).file_path
  await rejects(() => lro.extract(file, { describe: true, recipe: 1 }, { outputDir }), 'invalid_argument')
  await rejects(() => lro.extractAsync(file, { describe: true, section: 'x' }, { outputDir }), 'invalid_argument')
})
