// The addon against a hand-written JS offloader (the obvious code: JSON.stringify per record,
// fs.writeFileSync, a summary), side by side in one run, at 200 and 10,000 memories.
// Figures are medians of repeated runs; each run writes a real file. Prints a table.
// Beside them, JS objects against the addon's own JSON-text path (`offloadJson` of the same
// records' `JSON.stringify`, measured in the same alternating rounds), and, with
// `--native PATH` (the core's `offload_timing` example, which `make bench-node` builds), the
// Rust core's `offload_json` on the same records, in its own process.
//   node bench/offload.mjs [--native PATH]   (after `npm run build`)
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { offload, offloadJson } from '../lro.js'
import { makeMemories } from '../__test__/fixtures/memories.mjs'

const LIGHT = ['id', 'memory_type', 'title', 'namespace', 'tags', 'status', 'created', 'modified']
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lro-bench-'))
let seq = 0

/** What a developer would write by hand: Light projection, one JSON.stringify per record,
 * chars/4 tokens, header + lines in one writeFileSync, count and top namespaces. */
function handWritten(records, operation = 'recall') {
  const lines = records.map((r) => {
    const light = {}
    for (const k of LIGHT) if (k in r) light[k] = r[k]
    return JSON.stringify(light)
  })
  const body = lines.join('\n') + '\n'
  const tokens = Math.ceil(body.length / 4)
  if (tokens <= 1600) return { offloaded: false, results: lines.map((l) => JSON.parse(l)) }
  const counts = new Map()
  for (const r of records) counts.set(r.namespace, (counts.get(r.namespace) ?? 0) + 1)
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([ns]) => ns)
  const file = path.join(dir, `hand-${operation}-${seq++}.jsonl`)
  const header = { type: 'lro_header', operation, query: null, count: records.length, schema_version: '1.0', timestamp: new Date().toISOString(), estimated_tokens: tokens, detail: 'light' }
  fs.writeFileSync(file, JSON.stringify(header) + '\n' + body, { mode: 0o600 })
  return { offloaded: true, file_path: file, summary: { count: records.length, estimated_tokens: tokens, operation, top_namespaces: top } }
}

/** Medians of `fns`, measured in alternating rounds so that all of them see the same phases of
 * a shared machine (its speed drifts by a third over seconds). */
function medians(fns, runs) {
  for (const fn of fns) for (let i = 0; i < Math.min(5, runs); i++) fn() // warm-up (JIT, page cache)
  const times = fns.map(() => [])
  const perRound = Math.max(1, Math.floor(runs / 10))
  for (let done = 0; done < runs; done += perRound) {
    fns.forEach((fn, i) => {
      for (let k = 0; k < perRound; k++) {
        const t = process.hrtime.bigint()
        fn()
        times[i].push(Number(process.hrtime.bigint() - t) / 1e6)
      }
    })
  }
  return times.map((ts) => ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)])
}

/** The Rust core's medians on `records` at Light detail (the offload_timing example). */
function nativeTimes(binary, records, runs) {
  const file = path.join(os.tmpdir(), `lro-bench-native-${process.pid}.json`)
  fs.writeFileSync(file, JSON.stringify(records))
  try {
    return JSON.parse(execFileSync(binary, [file, String(runs), 'light'], { encoding: 'utf8' }))
  } finally {
    fs.rmSync(file, { force: true })
  }
}

const nativeAt = process.argv.indexOf('--native')
const nativeBinary = nativeAt > 0 ? process.argv[nativeAt + 1] : null
const config = { outputDir: dir }
const rows = []
const againstText = []
for (const n of [200, 10_000]) {
  const memories = makeMemories(n)
  const text = JSON.stringify(memories)
  const runs = n <= 200 ? 400 : 40
  // Each comparison alternates its own pair: the text pair's JSON.parse garbage would
  // otherwise keep V8's concurrent marker busy on the second core during the objects pair.
  const [hand, addon] = medians([() => handWritten(memories), () => offload(memories, null, config)], runs)
  const [handFromText, addonJson] = medians([() => handWritten(JSON.parse(text)), () => offloadJson(text, null, config)], runs)
  const [objects, textPath] = medians([() => offload(memories, null, config), () => offloadJson(text, null, config)], runs)
  const core = nativeBinary ? nativeTimes(nativeBinary, memories, Math.min(runs, 41)) : null
  againstText.push({ memories: n, objects, textPath, native: core?.json_text_ms })
  rows.push({ memories: n, input: 'JS objects', 'hand-written ms': hand, 'addon ms': addon, speedup: hand / addon })
  rows.push({ memories: n, input: 'JSON text', 'hand-written ms': handFromText, 'addon ms': addonJson, speedup: handFromText / addonJson })
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f))
}
fs.rmSync(dir, { recursive: true, force: true })

console.log(`node ${process.version}, ${os.cpus().length} cpus, medians of alternating rounds; Light detail (recall default), full MIF memories in`)
for (const r of rows) {
  console.log(
    `${String(r.memories).padStart(6)} memories  ${r.input.padEnd(10)}  hand-written ${r['hand-written ms'].toFixed(2).padStart(8)} ms` +
      `  addon ${r['addon ms'].toFixed(2).padStart(8)} ms  ${r.speedup.toFixed(2)}x`,
  )
}
console.log('\nJS objects against the JSON-text path (offloadJson of the same records as a string) and the Rust core (offload_json)')
for (const r of againstText) {
  const native = r.native === undefined ? '' : `  native ${r.native.toFixed(2).padStart(8)} ms  objects ${(r.objects / r.native).toFixed(2)}x native`
  console.log(
    `${String(r.memories).padStart(6)} memories  objects ${r.objects.toFixed(2).padStart(8)} ms  JSON text ${r.textPath.toFixed(2).padStart(8)} ms` +
      `  objects ${(r.objects / r.textPath).toFixed(2)}x text${native}`,
  )
}
