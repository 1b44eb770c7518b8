// Hosts the LRO WASI Preview 2 component in Node: `jco transpile` turned it into JS and core
// wasm (in ./lro, or the directory given), WASI comes from @bytecodealliance/preview2-shim.
// The component sees only the directory preopened here. It offloads 1,200 rows of a report
// and answers a group-by from the file; exits non-zero when anything is not as described.
//
//   npm install && npx jco transpile lro.component.wasm --name lro -o lro && node host.mjs
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { _setPreopens } from '@bytecodealliance/preview2-shim/filesystem'

const transpiled = resolve(process.argv[2] ?? 'lro')
const outputDir = mkdtempSync(join(realpathSync(tmpdir()), 'lro-wasi-'))
// Preopened before the component's first call (its WASI adapter reads them once), at its own
// path, so the descriptor names a path a shell can open.
_setPreopens({ [outputDir]: outputDir })
const { offloader } = await import(pathToFileURL(join(transpiled, 'lro.js')).href)

// A WIT `lro-error` arrives as a thrown error whose payload's tag is the error code.
const call = (f) => {
  try {
    return JSON.parse(f())
  } catch (err) {
    if (err?.payload?.tag) throw new Error(`[${err.payload.tag}] ${err.payload.val}`)
    throw err
  }
}

const config = JSON.stringify({ output_dir: outputDir })
const rows = Array.from({ length: 1200 }, (_, i) => ({
  sku: `SKU-${i}`,
  warehouse: ['north', 'south', 'east', 'west'][i % 4],
  stock: (i * 37) % 500,
}))
const outcome = call(() => offloader.offload(config, JSON.stringify(rows), JSON.stringify({ operation: 'stock_report' })))
assert.equal(outcome.offloaded, true)
console.log(`offloaded ${outcome.summary.count} rows (${outcome.summary.estimated_tokens} tokens) to ${outcome.file_path}`)

const query = { where: { stock: { $lt: 50 } }, group_by: 'warehouse' }
const answer = call(() => offloader.extract(config, outcome.file_path, JSON.stringify(query)))
const low = answer.results[0]
assert.equal(low.reduce((sum, group) => sum + group.count, 0), 117)
console.log(`rows low on stock, per warehouse: ${JSON.stringify(low)}`)
console.log('wasi-node: ok')
