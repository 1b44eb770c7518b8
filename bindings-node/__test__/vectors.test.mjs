// Runs every conformance vector in tests/vectors/ through the package's public JS API,
// following tests/vectors/README.md with the JS runner beside the vectors (runner.mjs, which
// the browser runs too): the build under test (build.mjs), the Node addon or, with
// LRO_TEST_WASM=1, the WebAssembly package.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import lro, { wasm } from './build.mjs'
import { apiCall, expected, produce } from '../../tests/vectors/runner.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const vectorsDir = path.resolve(here, '../../tests/vectors')

// The runner's files: real ones, each vector in a fresh, canonical directory.
const nodeFiles = {
  makeDir: () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-vector-'))),
  writeFile: (file, text) => fs.writeFileSync(file, text),
  readText: (file) => fs.readFileSync(file, 'utf8'),
  list: (dir) => fs.readdirSync(dir),
  removeDir: (dir) => fs.rmSync(dir, { recursive: true, force: true }),
}

const call = apiCall(lro)
const files = fs.existsSync(vectorsDir) ? fs.readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort() : []

test('conformance vectors are present', () => {
  // No vectors would make every parity claim vacuous: fail, never skip.
  assert.ok(files.length > 0, `no *.json vectors in ${vectorsDir}`)
})

for (const file of files) {
  const vector = JSON.parse(fs.readFileSync(path.join(vectorsDir, file), 'utf8'))
  test(`vector ${vector.name}`, async () => {
    assert.equal(vector.name, path.basename(file, '.json'), 'name = file name')
    // The wasm package has no BPE tokenizers: it must refuse them.
    const expect = expected(vector, !wasm)
    const produced = await produce(vector, call, nodeFiles, expect)
    // Same keys, same values: an unexpected file or error is a failure too.
    assert.deepEqual(Object.keys(produced).sort(), Object.keys(expect).sort(), 'produced vs expected parts')
    assert.deepStrictEqual(produced, expect)
  })
}
