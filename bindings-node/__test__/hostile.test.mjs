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

test('deep values and memory-hungry filters are resource_limit, and the next call works', async () => {
  const outputDir = tmp()
  const options = { outputDir, thresholdTokens: 10, extract: { maxMemoryBytes: 64 * 1024 * 1024 } }
  const { file_path } = lro.offload(makeMemories(50), {}, options)
  for (const query of [...DEEP, ...MEMORY]) {
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
