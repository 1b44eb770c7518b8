// Per-tool rules (`config.tools`, the environment's TOOLS__<label> variables) and a call's
// own `mode`, `threshold` and `context.rule`, through the addon's entry points.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import lro from './build.mjs'

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-rules-')))
const rows = Array.from({ length: 30 }, (_, i) => ({ id: `row-${i}`, name: `item ${i}`, size: i * 7 }))
const result = (data) => ({ content: [{ type: 'text', text: JSON.stringify(data) }] })

test('rules from an object and from the environment are one rule, read back as given', () => {
  const tools = { 'fs_*': { mode: 'never' }, search: { threshold: 200, descriptor: 'pointer' } }
  const fromEnv = lro.configFromEnv({
    ATLATL_PROMPT__OFFLOAD__TOOLS__A: 'fs_*:mode=never;search:threshold=200,descriptor=pointer',
  })
  assert.deepEqual(fromEnv.tools, tools)
  assert.deepEqual(lro.withEnv({ tools }, {}).tools, tools)
  assert.equal(lro.configFromEnv({}).tools, undefined)
})

test('a rule decides for the tools it matches; the most specific wins', async () => {
  const config = { outputDir: tmp(), thresholdTokens: 10, tools: { '*': { mode: 'always' }, 'fs_*': { mode: 'never' } } }
  const never = lro.interceptToolResult(result(rows), { toolName: 'fs_read' }, config)
  assert.equal(never.action, 'bypassed')
  assert.deepEqual(never.result, result(rows))
  const always = await lro.interceptToolResultAsync(result(rows.slice(0, 1)), { toolName: 'git_log' }, config)
  assert.equal(always.action, 'offloaded')
})

test('a call gives its own mode, threshold or rule', () => {
  const config = { outputDir: tmp() }
  assert.equal(lro.offload(rows.slice(0, 1), { mode: 'always' }, config).offloaded, true)
  assert.equal(lro.offloadJson(JSON.stringify(rows), { mode: 'never' }, { ...config, thresholdTokens: 10 }).offloaded, false)
  assert.equal(lro.offload(rows, { threshold: 50 }, config).offloaded, true)
  const ruled = { ...config, tools: { fs_read: { mode: 'always' } } }
  const call = lro.interceptToolResult(result(rows.slice(0, 1)), { toolName: 'fs_read', rule: { mode: 'never' } }, ruled)
  assert.equal(call.action, 'bypassed')
})

test('bad rules throw with the core codes, naming where they are', () => {
  const throwsCode = (fn, code, says) =>
    assert.throws(fn, (err) => err.code === code && err.message.includes(says), says)
  throwsCode(() => lro.offload(rows, {}, { tools: { 'a b': { mode: 'never' } } }), 'invalid_config', 'invalid tool pattern "a b"')
  throwsCode(() => lro.offload(rows, {}, { tools: { x: { mood: 'never' } } }), 'invalid_config', 'prompt.offload.tools."x".mood')
  throwsCode(() => lro.configFromEnv({ ATLATL_PROMPT__OFFLOAD__TOOLS__X: 'x:mode=sometimes' }), 'invalid_config', 'ATLATL_PROMPT__OFFLOAD__TOOLS__X')
  throwsCode(() => lro.offload(rows, { mode: 'sometimes' }, {}), 'invalid_argument', 'mode')
  throwsCode(() => lro.interceptToolResult(result(rows), { toolName: 'x', rule: { mode: 'sometimes' } }, {}), 'invalid_argument', 'rule')
})
