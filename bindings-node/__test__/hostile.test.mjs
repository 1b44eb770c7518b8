// Hostile filters: extract answers resource_limit for a value nested too deep and
// for a filter past the memory bound, sync and async, and the process goes on to the next call.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { lro, wasm } from './build.mjs'
import { makeMemories } from './fixtures/memories.mjs'

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-hostile-')))

const DEEP = [
  'first(reduce range(100000) as $i (0;[.]))',
  'reduce range(100000) as $i (0;[.]) | tojson | length',
  // The wasm builds carry the tabular formats only (no XML reader: a size budget).
  ...(wasm ? [] : ['("<a>"*20000)|fromxml']),
]
const MEMORY = ['[1]|until(length>1e10;.+.)', '"x"|until(length>1e10;.+.)', '"x" * 1e10 | length']
// Values many times their input, built in one step: sized before they are built.
const ONE_STEP = [
  '"\\u0001" * 20000000 | tojson | length',
  '"x" * 5000000 | "' + '\\(.)'.repeat(15) + '" | length',
  '0 | strftime("%c" * 10000000) | length',
  '[range(100000)] | join("x" * 1000) | length',
]
// Flat chains past the filter's depth bound: refused before they are parsed.
const FLAT = ['.|'.repeat(3000) + '.', '1,'.repeat(3000) + '1', '1+'.repeat(3000) + '1']

test('deep values and memory-hungry filters are resource_limit, and the next call works', async () => {
  const outputDir = tmp()
  const options = { outputDir, thresholdTokens: 10, extract: { maxMemoryBytes: 64 * 1024 * 1024 } }
  const { file_path } = lro.offload(makeMemories(50), {}, options)
  for (const query of [...DEEP, ...MEMORY, ...ONE_STEP]) {
    for (const run of [lro.extract, lro.extractAsync]) {
      await assert.rejects(async () => run(file_path, { query }, options), (err) => {
        assert.equal(err.code, 'resource_limit', `${query}: ${err.message}`)
        return true
      })
    }
    const ok = lro.extract(file_path, { query: '.id' }, options)
    assert.equal(ok.count, 50)
  }
  assert.ok(lro.errorCodes().includes('resource_limit'))
})

test('flat chains past the depth bound are invalid_query, and the next call works', async () => {
  const outputDir = tmp()
  const options = { outputDir, thresholdTokens: 10 }
  const { file_path } = lro.offload(makeMemories(50), {}, options)
  for (const query of FLAT) {
    for (const run of [lro.extract, lro.extractAsync]) {
      await assert.rejects(async () => run(file_path, { query }, options), (err) => {
        assert.equal(err.code, 'invalid_query', `${query.slice(0, 20)}: ${err.message}`)
        assert.match(err.message, /too deep/)
        return true
      })
    }
    assert.equal(lro.extract(file_path, { query: '.id' }, options).count, 50)
  }
})
