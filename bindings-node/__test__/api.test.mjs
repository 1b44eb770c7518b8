// The public API: sync and async agree, events arrive, errors carry the core's codes and
// bad input never takes the process down.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import { lro, mcp, packageDir, packageName, wasm } from './build.mjs'
import { makeMemories } from './fixtures/memories.mjs'

const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-api-')))
const memories = makeMemories(200)

/** Asserts that `fn` throws (or rejects with) an Error whose code is `code`. */
async function rejects(fn, code) {
  await assert.rejects(async () => fn(), (err) => {
    assert.ok(err instanceof Error, 'an Error')
    assert.equal(err.code, code, err.message)
    assert.equal(err.name, 'LroError')
    return true
  })
}

/** The public API: the same names in both builds (index.d.ts declares them). */
const API = [
  'offload', 'offloadAsync', 'offloadJson', 'offloadJsonAsync', 'offloadInject', 'offloadInjectAsync',
  'interceptToolResult', 'interceptToolResultAsync', 'extract', 'extractAsync', 'extractToolCall',
  'extractToolCallAsync', 'resolveToolCall', 'resolveToolCallAsync', 'cleanup', 'cleanupAsync',
  'listResources', 'listResourcesAsync', 'readResource', 'readResourceAsync', 'resourceScheme', 'resourceLink',
  'resourceErrorCode', 'extractTool', 'extractToolForServer', 'configFromToml', 'configFromTomlString', 'configFromEnv', 'withEnv',
  'errorCodes', 'estimateTokens',
]

test('ESM and CommonJS load the same functions: the public API, and nothing internal', () => {
  for (const name of API) assert.equal(typeof lro[name], 'function', name)
  for (const internal of ['offloadEncoded', 'offloadEncodedAsync', 'projectionFields', '__setPlatform']) {
    assert.equal(lro[internal], undefined, internal)
  }
  // By package name, as users load it: every ESM export is the CommonJS one.
  const script = `import * as esm from ${JSON.stringify(packageName)}
    import { createRequire } from 'node:module'
    const cjs = createRequire(import.meta.url)(${JSON.stringify(packageName)})
    const names = Object.keys(esm).filter((name) => name !== 'default')
    console.log(JSON.stringify({ names, same: names.every((name) => esm[name] === cjs[name]) }))`
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir, encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  const { names, same } = JSON.parse(run.stdout)
  assert.ok(same, 'ESM and CommonJS exports are the same functions')
  for (const name of API) assert.ok(names.includes(name), name)
  assert.equal(typeof mcp.withLro, 'function')
})

test('offload writes the file and returns the descriptor; async gives the same', async () => {
  const outputDir = tmp()
  const sync = lro.offload(memories, { operation: 'recall', detail: 'medium', query: 'q', scores: [0.2, 0.9] }, { outputDir })
  const async_ = await lro.offloadAsync(memories, { operation: 'recall', detail: 'medium', query: 'q', scores: [0.2, 0.9] }, { outputDir })
  assert.equal(sync.offloaded, true)
  assert.deepEqual(sync.summary.score_range, [0.2, 0.9])
  assert.notEqual(sync.file_path, async_.file_path)
  const strip = (d) => JSON.parse(JSON.stringify(d).split(path.basename(d.file_path, '.jsonl')).join('X'))
  assert.deepEqual(strip(async_), strip(sync))
  assert.equal(fs.readFileSync(sync.file_path, 'utf8').trim().split('\n').length, 201)
  assert.equal(fs.statSync(sync.file_path).mode & 0o777, 0o600)
})

test('the JSON fast path takes a string or a Buffer and matches offload', async () => {
  const outputDir = tmp()
  const text = JSON.stringify(memories)
  const fromValue = lro.offload(memories, null, { outputDir })
  const fromString = lro.offloadJson(text, null, { outputDir })
  const fromBuffer = await lro.offloadJsonAsync(Buffer.from(text), null, { outputDir })
  const lines = (d) => fs.readFileSync(d.file_path, 'utf8').split('\n').slice(1).join('\n')
  assert.equal(lines(fromString), lines(fromValue))
  assert.equal(lines(fromBuffer), lines(fromValue))
  // A Buffer given to offload is JSON bytes too; a string is text output.
  assert.equal(lro.offload(Buffer.from('[1,2]')).results.length, 2)
  assert.equal(lro.offload('one\ntwo').results, 'one\ntwo')
})

test('below the threshold results come back inline', () => {
  const out = lro.offload(memories.slice(0, 2), { operation: 'search', nextCursor: 'c1' })
  assert.equal(out.offloaded, false)
  assert.equal(out.count, 2)
  assert.equal(out.next_cursor, 'c1')
  assert.deepEqual(Object.keys(out.results[0]), ['id', 'memory_type', 'title', 'namespace', 'tags', 'status', 'created', 'modified'])
})

test('events reach onEvent, sync and async, before the call returns', async () => {
  const outputDir = tmp()
  const events = []
  const out = lro.offload(memories, null, { outputDir, onEvent: (e) => events.push(e) })
  assert.deepEqual(events.map((e) => e.event), ['OffloadCreated'])
  assert.equal(events[0].file_path, out.file_path)
  await lro.offloadAsync(memories, null, { outputDir, onEvent: (e) => events.push(e) })
  assert.equal(events.length, 2)
  const report = await lro.cleanupAsync({ outputDir, ttlSeconds: 0, onEvent: (e) => events.push(e) })
  assert.equal(report.removed.length, 2)
  assert.deepEqual(events.slice(2).map((e) => e.event), ['OffloadFileExpired', 'OffloadFileExpired'])
  // A write failure is an event and an inline truncated result, never an exception.
  const blocked = path.join(outputDir, 'blocked')
  fs.writeFileSync(blocked, '')
  const failed = lro.offload(memories, null, { outputDir: blocked, onEvent: (e) => events.push(e) })
  assert.equal(failed.truncated, true)
  assert.equal(events.at(-1).event, 'OffloadWriteFailed')
})

test('an exception in onEvent propagates to the caller', async () => {
  const boom = () => {
    throw new RangeError('listener failed')
  }
  assert.throws(() => lro.offload(memories, null, { outputDir: tmp(), onEvent: boom }), RangeError)
  await assert.rejects(lro.offloadAsync(memories, null, { outputDir: tmp(), onEvent: boom }), RangeError)
})

test('extract runs recipes and jq filters on an offloaded file', async () => {
  const outputDir = tmp()
  const { file_path } = lro.offload(memories, { detail: 'full' }, { outputDir })
  const counts = lro.extract(file_path, { recipe: 6 }, { outputDir })
  assert.equal(counts.results[0].reduce((n, row) => n + row.count, 0), 200)
  const ids = await lro.extractAsync(file_path, { query: 'select(.provenance.confidence >= 0.98) | .id' }, { outputDir })
  assert.deepEqual(ids.results, ['mem-000048', 'mem-000049', 'mem-000098', 'mem-000099', 'mem-000148', 'mem-000149', 'mem-000198', 'mem-000199'])
  const found = lro.extract(file_path, { search: { pattern: 'DECISION 7\\b', ignoreCase: true } }, { outputDir })
  assert.equal(found.count, 1)
  const range = lro.extract(file_path, { lines: { start: 10, end: 12 } }, { outputDir })
  assert.deepEqual(range.results.map((m) => m.id), ['mem-000010', 'mem-000011'])
  const limited = lro.extract(file_path, { query: '.id' }, { outputDir, extract: { maxOutputRecords: 5 } })
  assert.equal(limited.count, 5)
  assert.equal(limited.truncated, true)
  await rejects(() => lro.extract(file_path, { query: '.[' }, { outputDir }), 'invalid_query')
  await rejects(() => lro.extract(file_path, { recipe: 1, query: '.' }, { outputDir }), 'invalid_argument')
  await rejects(() => lro.extract(file_path, { recipe: 99 }, { outputDir }), 'invalid_argument')
  await rejects(() => lro.extract('/etc/passwd', { recipe: 1 }, { outputDir }), 'path_denied')
  await rejects(() => lro.extractAsync(path.join(outputDir, 'atlatl-recall-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl'), { recipe: 1 }, { outputDir }), 'not_found')
})

test('interceptToolResult rewrites a large CallToolResult', async () => {
  const outputDir = tmp()
  const result = { content: [{ type: 'text', text: JSON.stringify(memories) }], isError: false }
  const out = await lro.interceptToolResultAsync(result, { toolName: 'recall_memories', arguments: { detail: 'light' } }, { outputDir })
  assert.equal(out.action, 'offloaded')
  assert.equal(out.result.structuredContent, undefined)
  assert.equal(JSON.parse(out.result.content[0].text).summary.count, 200)
  // The mcp options: structuredContent and the link; the descriptor names the tool given.
  const both = await lro.interceptToolResultAsync(
    result,
    { toolName: 'recall_memories', extractTool: 'lro_extract_mem' },
    { outputDir, guidance: 'native', mcp: { structuredContent: true, resourceLink: true } },
  )
  assert.equal(both.result.structuredContent.extract_tool, 'lro_extract_mem')
  assert.deepEqual(both.result.content.map((block) => block.type), ['text', 'resource_link'])
  const never = lro.interceptToolResult(result, { toolName: 'recall_memories' }, { outputDir, mcp: { neverOffload: ['recall_memories'] } })
  assert.equal(never.action, 'bypassed')
  assert.equal(out.result.isError, false)
  const proxied = lro.interceptToolResult(result, { toolName: 'recall_memories', clientIsProxy: true }, { outputDir })
  assert.equal(proxied.action, 'bypassed')
})

test('offloadInject: the pre-budget set decides', () => {
  const out = lro.offloadInject('formatted prompt', memories, null, { outputDir: tmp() })
  assert.equal(out.offloaded, true)
  assert.equal(out.summary.operation, 'inject')
  assert.equal(out.summary.detail, 'medium')
  assert.equal(lro.offloadInject('formatted prompt', memories.slice(0, 1)).results, 'formatted prompt')
})

test('configuration from TOML, the environment and objects', () => {
  const dir = tmp()
  const file = path.join(dir, 'lro.toml')
  fs.writeFileSync(file, '[prompt.offload]\nthreshold_tokens = 800\noutput_dir = "/srv/lro"\n')
  const fromToml = lro.configFromToml(file)
  assert.equal(fromToml.thresholdTokens, 800)
  const layered = lro.configFromEnv({ ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS: '900', PATH: '/bin' }, fromToml)
  assert.equal(layered.thresholdTokens, 900)
  assert.equal(layered.outputDir, '/srv/lro')
  process.env.ATLATL_PROMPT__OFFLOAD__TTL_SECONDS = '60'
  try {
    assert.equal(lro.configFromEnv().ttlSeconds, 60)
  } finally {
    delete process.env.ATLATL_PROMPT__OFFLOAD__TTL_SECONDS
  }
  // A returned config is a valid input.
  assert.equal(lro.offload([1], null, layered).offloaded, false)
  assert.equal(lro.errorCodes().length, 11)
})

test('configuration files: regular files only, misspelled sections warned about', async () => {
  const dir = tmp()
  const fifo = path.join(dir, 'lro.fifo')
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0)
  // A FIFO used to block the open for good; a device or a directory is refused too.
  for (const [bad, says] of [[fifo, /not a regular file/], ['/dev/zero', /not a regular file/], [dir, /is a directory/]]) {
    assert.throws(() => lro.configFromToml(bad), (e) => e.code === 'invalid_config' && says.test(e.message))
  }
  const huge = path.join(dir, 'huge.toml')
  fs.writeFileSync(huge, '')
  fs.truncateSync(huge, 2 << 20)
  assert.throws(() => lro.configFromToml(huge), (e) => e.code === 'invalid_config' && /larger than 1048576 bytes/.test(e.message))
  const typo = path.join(dir, 'typo.toml')
  fs.writeFileSync(typo, '[Prompt.Offload]\nthreshold_tokens = 10\n')
  const warned = []
  const onWarning = (w) => warned.push(w)
  process.on('warning', onWarning)
  try {
    assert.equal(lro.configFromToml(typo).thresholdTokens, 1600)
    assert.equal(lro.configFromTomlString('[prompt.ofload]\nenabled = false\n').enabled, true)
    // 'warning' events are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('warning', onWarning)
  }
  assert.deepEqual(warned.map((w) => w.name), ['LroConfigWarning', 'LroConfigWarning'])
  assert.match(warned[0].message, /\[Prompt\.Offload\] looks like \[prompt\.offload\]/)
  assert.match(warned[1].message, /\[prompt\.ofload\]/)
})

test('bad input throws coded errors and never crashes', async () => {
  const cyclic = {}
  cyclic.self = cyclic
  let deep = []
  for (let i = 0; i < 100000; i++) deep = [deep]
  const cases = [
    [() => lro.offload(memories, { detail: 'huge' }), 'invalid_detail'],
    [() => lro.offload(memories, { detial: 'light' }), 'invalid_argument'],
    [() => lro.offload(memories, { operation: '../etc' }), 'invalid_operation'],
    [() => lro.offload(memories, 'light'), 'invalid_argument'],
    [() => lro.offload(memories, null, { thresholdTokens: 'lots' }), 'invalid_config'],
    [() => lro.offload(memories, null, { thresholdTokens: -1 }), 'invalid_config'],
    [() => lro.offload(memories, null, { bogus: true }), 'invalid_config'],
    [() => lro.offload(memories, null, { filePrefix: '../x' }), 'invalid_config'],
    [() => lro.offload(memories, null, { onEvent: 'not a function' }), 'invalid_config'],
    [() => lro.offload(memories, null, 42), 'invalid_config'],
    [() => lro.offload(cyclic), 'invalid_input'],
    [() => lro.offload(10n), 'invalid_input'],
    [() => lro.offload([...memories, { ...memories[0], title: 10n }]), 'invalid_input'],
    [() => lro.offload([...memories, { ...memories[0], get title() { throw new Error('no') } }]), 'invalid_input'],
    [() => lro.offload(deep), 'invalid_input'],
    [() => lro.offload(undefined), 'invalid_input'],
    [() => lro.offloadJson('[1,2'), 'invalid_input'],
    [() => lro.offloadJson('['.repeat(100000)), 'invalid_input'],
    [() => lro.offloadJson(42), 'invalid_input'],
    [() => lro.offloadAsync(cyclic), 'invalid_input'],
    [() => lro.offloadAsync(memories, { detail: 7 }), 'invalid_detail'],
    [() => lro.interceptToolResult({ content: [] }, { tool: 'x' }), 'invalid_argument'],
    [() => lro.extract(42, { recipe: 1 }), 'invalid_argument'],
    [() => lro.configFromToml('/nonexistent/lro.toml'), 'not_found'],
    [() => lro.configFromTomlString('[prompt.offload]\nthreshold_tokens = "many"'), 'invalid_config'],
    [() => lro.configFromEnv({ ATLATL_PROMPT__OFFLOAD__ENABLED: 'maybe' }), 'invalid_config'],
  ]
  for (const [fn, code] of cases) await rejects(fn, code)
  // JSON.stringify escapes a lone surrogate, which is not Unicode text: that record alone
  // becomes a text record holding its JSON text; the others stay records.
  const outputDir = tmp()
  const odd = lro.offload([...memories, { id: 'odd', title: 'lone \ud800' }], { detail: 'full' }, { outputDir })
  assert.equal(odd.offloaded, true)
  const lines = fs.readFileSync(odd.file_path, 'utf8').trimEnd().split('\n')
  assert.equal(lines.length, memories.length + 2)
  assert.deepEqual(JSON.parse(lines.at(-1)), { text: '{"id":"odd","title":"lone \\ud800"}' })
})

test('a mistake in an option object is named by its path, in the same words in both builds', () => {
  const missing = path.join(tmp(), 'none.jsonl')
  const cases = [
    [() => lro.offload(memories, { detail: 7 }), 'invalid_detail', 'options.detail: invalid type: integer `7`, expected a string'],
    [() => lro.offload(memories, { mode: true }), 'invalid_argument', 'options.mode: invalid type: boolean `true`, expected string or map'],
    [() => lro.offload(memories, null, { extract: { timeoutMs: -1 } }), 'invalid_config',
      'config.extract.timeoutMs: invalid value: integer `-1`, expected u64'],
    [() => lro.offload(memories, null, { store: { retries: 1.5 } }), 'invalid_config',
      'config.store.retries: invalid type: floating point `1.5`, expected u32'],
    [() => lro.offload(memories, null, { mcp: { neverOffload: ['a', 1] } }), 'invalid_config',
      'config.mcp.neverOffload: invalid type: integer `1`, expected a string'],
    [() => lro.extract(missing, { lines: { start: 0, unit: {} } }), 'invalid_argument',
      'request.lines.unit: invalid value: map, expected map with a single key'],
    [() => lro.extract(missing, { lines: { end: 5 } }), 'invalid_argument', 'request.lines: missing field `start`'],
    [() => lro.extract(missing, { search: { pattern: 'x', maxResults: 'many' } }), 'invalid_argument',
      'request.search.maxResults: invalid type: string "many", expected u64'],
  ]
  for (const [fn, code, message] of cases) {
    assert.throws(fn, (err) => {
      assert.deepEqual([err.code, err.message], [code, message])
      return true
    })
  }
})

test('JS objects and their JSON text give the same file and result at every detail, sync and async', async () => {
  // Records that JSON.stringify writes differently from what a field read sees.
  const hidden = { ...memories[1] }
  Object.defineProperty(hidden, 'namespace', { value: 'not-enumerable', enumerable: false })
  class WithToJson { toJSON() { return { id: 'j', namespace: 'from-toJSON', title: 't' } } }
  const variants = {
    memories,
    extraFields: memories.map((m, i) => ({ ...m, embedding: [i, i + 1], fn: () => i, missing: undefined })),
    undefinedId: [...memories.slice(0, 50), { ...memories[50], id: undefined }],
    nonEnumerable: [...memories.slice(0, 50), hidden],
    toJson: [...memories.slice(0, 50), new WithToJson()],
    nullProto: memories.slice(0, 60).map((m) => Object.assign(Object.create(null), m)),
    small: memories.slice(0, 2),
    // Large sets of MIF memories cross in chunks, scanned on another thread.
    large: makeMemories(5000).map((m, i) => (i % 7 ? m : { ...m, title: `é "${i}"\n\u2028 😀` })),
    largeNotAllMif: [...makeMemories(4999), { title: 'no id' }],
    // Values that are not plain strings, in the fields the projection reads.
    awkward: makeMemories(1500).map((m, i) => ({
      ...m,
      title: AWKWARD[i % AWKWARD.length],
      tags: AWKWARD[(i + 3) % AWKWARD.length],
      created: AWKWARD[(i + 7) % AWKWARD.length],
      status: AWKWARD[(i + 11) % AWKWARD.length],
    })),
    // A chunk ends early once its text is long: two titles of three million characters.
    longStrings: makeMemories(3).map((m, i) => ({ ...m, title: `${i}`.repeat(3_000_000) })),
  }
  for (const [name, records] of Object.entries(variants)) {
    for (const detail of ['light', 'medium', 'full', undefined]) {
      const outputDir = tmp()
      const options = { operation: 'recall', detail }
      const fromText = lro.offloadJson(JSON.stringify(records), options, { outputDir })
      const file = (r) => (r.offloaded ? fs.readFileSync(r.file_path, 'utf8').split('\n').slice(1) : null)
      // The file's path, and its name in resource_uri, are the file's own.
      const normal = (r) =>
        JSON.parse(JSON.stringify(r).replaceAll(r.file_path ?? '\u0000', 'F').replaceAll(path.basename(r.file_path ?? '\u0000'), 'N'))
      for (const fromObjects of [lro.offload(records, options, { outputDir }), await lro.offloadAsync(records, options, { outputDir })]) {
        assert.deepEqual(file(fromObjects), file(fromText), `${name} ${detail}`)
        assert.deepEqual(normal(fromObjects), normal(fromText), `${name} ${detail}`)
      }
    }
  }
})

/** Field values JSON.stringify writes in every way it can (and a few it leaves out). */
const AWKWARD = [
  new Date(Date.UTC(2026, 0, 2)), 12.5, -0, NaN, Infinity, true, null, undefined, () => 1, Symbol('s'),
  ['a', 'b\n"'], [], ['a', 1], ['a', 'b', { c: 'd' }], [, 'hole'], Object.assign(['x'], { toJSON: () => 'array' }),
  new Proxy(['p', 'q'], {}), Object.defineProperty(['g', 'h'], 1, { enumerable: true, get: () => 'from a getter' }),
  { nested: { deep: ['é'] } }, { toJSON: (key) => `toJSON of ${key}` },
  'pair \ud83d\ude00', 'controls \u0000\u0001\b\t\n\f\r\u001f\u007f',
  'back\\slash "quote"', '', 'ÿ Latin-1 only', '\u2028\u2029 separators', 'CJK 漢字',
]

test('offloadEncoded (the entry for MIF memories) writes the JSON of the values it is given', { skip: wasm && "the addon's internal entry point" }, async () => {
  // The addon's own exports, behind the package entry.
  const addon = createRequire(import.meta.url)('../index.js')
  const records = [
    { id: 'm1', memory_type: 'semantic', tags: ['a', 'é"\n😀'], title: 12 },
    { id: 'm2😀', namespace: 'n', status: 'x\\y' },
  ]
  // Text and shape as lro.js encodes them: a bit per present field, then (length << 2) | kind
  // (0 a string, 1 JSON text, 2 an array of strings whose lengths follow), in the order of
  // projectionFields, with lengths in UTF-16 units.
  const bit = (field) => 1 << addon.projectionFields('recall', null).indexOf(field)
  const chunks = [
    ['m1semantic12aé"\n😀', Int32Array.of(bit('id') | bit('memory_type') | bit('title') | bit('tags'), 2 << 2, 8 << 2, (2 << 2) | 1, (2 << 2) | 2, 1, 5)],
    ['m2😀nx\\y', Int32Array.of(bit('id') | bit('namespace') | bit('status'), 4 << 2, 1 << 2, 3 << 2)],
  ]
  const fields = addon.projectionFields('recall', null)
  const given = () => {
    const queue = [...chunks]
    return () => queue.shift()
  }
  const outputDir = tmp()
  const options = { operation: 'search', query: 'q', detail: 'light' }
  const whole = lro.offloadJson(JSON.stringify(records), options, { outputDir, thresholdTokens: 1 })
  const body = (r) => fs.readFileSync(r.file_path, 'utf8').split('\n').slice(1)
  assert.deepEqual(body(addon.offloadEncoded(given(), fields, options, { outputDir, thresholdTokens: 1 })), body(whole))
  assert.deepEqual(body(await addon.offloadEncodedAsync(given(), fields, options, { outputDir, thresholdTokens: 1 })), body(whole))
  // `null` from `next` (a record that is not a MIF memory) or nothing at all: null.
  assert.equal(addon.offloadEncoded(() => null, fields, null, { outputDir }), null)
  assert.equal(addon.offloadEncoded(() => undefined, fields, null, { outputDir }), null)
  assert.equal(await addon.offloadEncodedAsync(() => null, fields, null, { outputDir }), null)
  assert.equal(await addon.offloadEncodedAsync(() => undefined, fields, null, { outputDir }), null)
  // A shape that does not match its text, a chunk that is not one, an exception: errors.
  const malformed = [
    ['abc', Int32Array.of(bit('id'), 4 << 2)],
    ['abc', Int32Array.of(bit('id'), 2 << 2)],
    ['abc', Int32Array.of(1 << 30)],
    ['abc', [1, 3 << 2]],
    [42, Int32Array.of()],
    'text',
  ]
  for (const chunk of malformed) {
    assert.throws(() => addon.offloadEncoded(() => chunk, fields, null, { outputDir }), (err) => err.code === 'invalid_input', String(chunk))
    let calls = 0
    const once = () => (calls++ === 0 ? chunk : undefined)
    await rejects(() => addon.offloadEncodedAsync(once, fields, null, { outputDir }), 'invalid_input')
  }
  assert.throws(
    () => addon.offloadEncoded(() => { throw new TypeError('cycle') }, fields, null, { outputDir }),
    (err) => err.code === 'invalid_input' && /cycle/.test(err.message),
  )
  // `offload` takes this path, small sets and large: each field is read once, where a
  // fallback to JSON.stringify would read it again.
  for (const n of [10, 3000]) {
    const counted = makeMemories(n)
    let reads = 0
    Object.defineProperty(counted[n - 2], 'title', { enumerable: true, get: () => (reads++, 'counted') })
    for (const offload of [lro.offload, lro.offloadAsync]) {
      reads = 0
      const outcome = await offload(counted, null, { outputDir, thresholdTokens: 1 })
      assert.equal(reads, 1, `${offload.name}, ${n} records`)
      assert.match(fs.readFileSync(outcome.file_path, 'utf8'), /"title":"counted"/)
    }
  }
  // Full detail reads every field: nothing to encode.
  // Chunks that do not hold the fields the options' projection reads: null, `next` not called.
  const never = () => assert.fail('next called')
  assert.equal(addon.offloadEncoded(never, fields, { detail: 'full' }, { outputDir }), null)
  assert.equal(addon.offloadEncoded(never, fields, { detail: 'medium' }, { outputDir }), null)
  assert.equal(await addon.offloadEncodedAsync(never, fields.slice(1), null, { outputDir }), null)
})
test('offload reads records and options as JSON.stringify does, whatever they are', async () => {
  const outputDir = tmp()
  const records = makeMemories(3000).map((m, i) => ({ ...m, content: `c${i}`, summary: `s${i}`, provenance: { confidence: 0.5 } }))
  // Options whose detail JS reads otherwise than their JSON says: the JSON decides.
  class Getter { get detail() { return 'light' } }
  const options = [
    Object.assign(Object.create({ detail: 'light' }), { operation: 'inject' }),
    Object.create({ detail: 'medium' }),
    Object.defineProperty({ operation: 'search' }, 'detail', { value: 'medium', enumerable: false }),
    { detail: 'light', toJSON: () => ({ detail: 'medium' }) },
    new Getter(),
  ]
  // Records with a `toJSON` of their own, and an array item read through a counting getter.
  const replaced = records.slice(0, 50)
  replaced.toJSON = () => replaced.map((r) => ({ ...r, title: 'replaced' }))
  let reads = 0
  const tags = ['a', 'b', 1]
  Object.defineProperty(tags, 0, { enumerable: true, get: () => `read ${reads++}` })
  const counted = [...records.slice(0, 10), { ...records[10], tags }]
  const file = (r) => (r.offloaded ? fs.readFileSync(r.file_path, 'utf8').split('\n').slice(1) : null)
  const cases = [...options.map((o) => [records, o]), [replaced, null], [counted, null]]
  for (const [input, option] of cases) {
    for (const offload of [lro.offload, lro.offloadAsync]) {
      reads = 0
      const fromObjects = await offload(input, option, { outputDir, thresholdTokens: 1 })
      reads = 0
      const fromText = lro.offloadJson(JSON.stringify(input), JSON.parse(JSON.stringify(option)), { outputDir, thresholdTokens: 1 })
      assert.deepEqual(file(fromObjects), file(fromText), `${offload.name} ${JSON.stringify(option)}`)
      assert.equal(fromObjects.summary.estimated_tokens, fromText.summary.estimated_tokens)
    }
  }
})

test('offload scans in turn when no thread can be started', { skip: wasm && 'the addon scans on a worker thread; the wasm build has none' }, () => {
  // A minimum stack no thread can have: spawning the worker fails, the call does not.
  const script = `import lro from ${JSON.stringify(createRequire(import.meta.url).resolve('../lro.js'))}
    import { makeMemories } from ${JSON.stringify(new URL('./fixtures/memories.mjs', import.meta.url).href)}
    const outcome = lro.offload(makeMemories(3000), null, { outputDir: process.argv[1] })
    process.stdout.write(JSON.stringify({ offloaded: outcome.offloaded, count: outcome.summary.count }))`
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, tmp()], { env: { ...process.env, RUST_MIN_STACK: String(2 ** 46) }, encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  assert.deepEqual(JSON.parse(run.stdout), { offloaded: true, count: 3000 })
})


test('config.host: the WebAssembly build keeps its files there; the addon refuses one', async () => {
  const files = new Map()
  const host = {
    writeAtomic(file, bytes) {
      if (files.has(file)) throw Object.assign(new Error(`${file} exists`), { code: 'EEXIST' })
      files.set(file, Uint8Array.from(bytes))
    },
    createDirAll() {},
    readFile(file) {
      if (!files.has(file)) throw Object.assign(new Error(`no ${file}`), { code: 'ENOENT' })
      return files.get(file)
    },
    listDir: () => [...files.keys()].map((file) => ({ name: path.basename(file), kind: 'file' })),
    removeFile: (file) => files.delete(file),
    canonicalize: (file) => file,
    entryKind: (file) => (files.has(file) || file === '/mem' ? (file === '/mem' ? 'dir' : 'file') : 'other'),
    nowMillis: () => Date.now(),
    tempDir: () => '/mem',
  }
  if (!wasm) {
    await rejects(() => lro.offload(memories, null, { host }), 'invalid_config')
    await rejects(() => lro.offloadAsync(memories, null, { host, outputDir: tmp() }), 'invalid_config')
    return
  }
  const config = { host, outputDir: '/mem' }
  const outcome = lro.offload(memories, null, config)
  assert.deepEqual([...files.keys()], [outcome.file_path])
  assert.deepEqual(lro.extract(outcome.file_path, { count: true }, config).results, [200])
  assert.equal(lro.readResource(lro.resourceLink(outcome.file_path).uri, config).contents[0].text.split('\n').length, 202)
  // withEnv keeps the host, as it keeps onEvent.
  assert.equal(lro.withEnv(config, {}).host, host)
  assert.equal((await lro.cleanupAsync({ ...config, ttlSeconds: 0 })).removed.length, 1)
  assert.equal(files.size, 0)
})

test('estimateTokens counts as the core does: characters / 4, wide scripts one per character', () => {
  assert.equal(lro.estimateTokens('abcdefgh'), 2)
  assert.equal(lro.estimateTokens('abcdefghi'), 3)
  assert.equal(lro.estimateTokens('東京タワー'), 5)
  assert.equal(lro.estimateTokens(''), 0)
  assert.throws(() => lro.estimateTokens(42), (err) => err.code === 'invalid_argument')
})
