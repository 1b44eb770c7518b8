// Runs every conformance vector in tests/vectors/ through the package's public JS API,
// following tests/vectors/README.md. One suite for every JS build (lightningcss style):
// LRO_IMPL names the module to test (a path, or a package name); by default, this package.
//   LRO_IMPL=../bindings-wasm/js/pkg/lro.js node --test __test__/vectors.test.mjs
// The module must export offload, offloadJson, offloadInject, interceptToolResult, extract, cleanup,
// configFromTomlString, configFromEnv, listResources, readResource and resourceScheme (sync
// or returning Promises), and throw errors whose `.code` is the core's code.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const vectorsDir = path.resolve(here, '../../tests/vectors')

async function loadImpl() {
  const spec = process.env.LRO_IMPL
  if (!spec) return import(pathToFileURL(path.resolve(here, '../lro.js')).href)
  const isPath = spec.startsWith('.') || path.isAbsolute(spec)
  const mod = await import(isPath ? pathToFileURL(path.resolve(process.cwd(), spec)).href : spec)
  // A CommonJS module imported from ESM puts its exports on `default`.
  return mod.offload ? mod : mod.default
}
const lro = await loadImpl()

const camel = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase())
const snake = (key) => key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())

/** Keys whose values are data, not options: free-form arguments and parameters, and a
 * structured query's filter document, sort and fields, keyed by the records' field names. */
const DATA_KEYS = new Set(['arguments', 'params', 'where', 'sort', 'fields'])

/** Renames the keys of an options object (and its nested objects) with `rename`; data (see
 * `DATA_KEYS`) is left as it is. */
function renameKeys(value, rename) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [rename(k), DATA_KEYS.has(k) ? v : renameKeys(v, rename)]),
  )
}

const ULID = /(?<![A-Za-z0-9])[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-HJKMNP-TV-Z])/g

/** README step 3: DIR -> {dir}, then ULIDs -> {ulid}, in every string; `warning` and
 * `age_seconds` values replaced. */
function normalise(value, dir) {
  if (typeof value === 'string') return value.split(dir).join('{dir}').replace(ULID, '{ulid}')
  if (Array.isArray(value)) return value.map((v) => normalise(v, dir))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (k === 'warning' && typeof v === 'string') return [k, '{warning}']
        if (k === 'age_seconds' && typeof v === 'number') return [k, 0]
        return [k, normalise(v, dir)]
      }),
    )
  }
  return value
}

/** README step 4: the file's lines, header timestamp normalised. */
function fileLines(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  lines[0] = lines[0].replace(/"timestamp":"[^"]*"/, '"timestamp":"{timestamp}"')
  return lines
}

/** Runs the vector's call; returns the raw outcome and the file it wrote (if any). */
async function run(vector, dir) {
  const config = { ...(vector.config ?? {}) }
  config.output_dir = typeof config.output_dir === 'string' ? config.output_dir.split('{dir}').join(dir) : dir
  const jsConfig = renameKeys(config, camel)
  const request = renameKeys(vector.request ?? null, camel)
  const input = vector.input
  const offloadedFile = (outcome) => (outcome && outcome.offloaded ? outcome.file_path : undefined)
  switch (vector.call) {
    case 'config_toml':
      return { outcome: renameKeys(await lro.configFromTomlString(input), snake) }
    case 'config_env':
      return { outcome: renameKeys(await lro.configFromEnv(input), snake) }
    case 'offload': {
      const outcome = await lro.offload(input, request, jsConfig)
      return { outcome, file: offloadedFile(outcome) }
    }
    case 'offload_json': {
      const outcome = await lro.offloadJson(input, request, jsConfig)
      return { outcome, file: offloadedFile(outcome) }
    }
    case 'offload_inject': {
      const outcome = await lro.offloadInject(input.formatted, input.pre_budget, request, jsConfig)
      return { outcome, file: offloadedFile(outcome) }
    }
    case 'intercept': {
      const outcome = await lro.interceptToolResult(input.result, renameKeys(input.context, camel), jsConfig)
      return { outcome, file: outcome.response?.file_path }
    }
    case 'cleanup':
      return { outcome: await lro.cleanup(jsConfig) }
    case 'extract': {
      const offloaded = await lro.offload(input, request, jsConfig)
      assert.equal(offloaded.offloaded, true, 'an extract vector must offload first')
      // `extract_path`, when given, names the file to read instead (error cases).
      const target = vector.extract_path === undefined ? offloaded.file_path : vector.extract_path.split('{dir}').join(dir)
      const outcome = await lro.extract(target, renameKeys(vector.extract, camel), jsConfig)
      return { outcome, file: offloaded.file_path }
    }
    case 'resources': {
      const offloaded = await lro.offload(input, request, jsConfig)
      assert.equal(offloaded.offloaded, true, 'a resources vector must offload first')
      const file = path.basename(offloaded.file_path)
      const op = Object.fromEntries(
        Object.entries(vector.resources).map(([k, v]) => [k, typeof v === 'string' ? v.split('{file}').join(file) : v]),
      )
      switch (op.method) {
        case 'list':
          return { outcome: await lro.listResources(op.cursor ?? null, jsConfig) }
        case 'read':
          return { outcome: await lro.readResource(op.uri, jsConfig) }
        case 'templates':
          return { outcome: { resourceTemplates: lro.resourceScheme().templates } }
        case 'extract':
          return { outcome: await lro.extract(op.uri, renameKeys(op.extract, camel), jsConfig) }
        default:
          throw new Error(`unknown resources method ${op.method}`)
      }
    }
    default:
      throw new Error(`unknown call ${vector.call}`)
  }
}

/** `resources` vectors: every ISO 8601 UTC timestamp in a string. */
function normaliseTimestamps(value) {
  if (typeof value === 'string') return value.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '{timestamp}')
  if (Array.isArray(value)) return value.map(normaliseTimestamps)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normaliseTimestamps(v)]))
  }
  return value
}

async function check(vector) {
  // README step 1: a fresh, canonical directory holding setup.files.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-vector-')))
  try {
    for (const [name, content] of Object.entries(vector.setup?.files ?? {})) {
      fs.writeFileSync(path.join(dir, name), content)
    }
    const produced = {}
    try {
      const { outcome, file } = await run(vector, dir)
      produced.outcome = normalise(vector.call === 'resources' ? normaliseTimestamps(outcome) : outcome, dir)
      // README step 4: the file is compared when the vector expects its lines.
      if (file && 'jsonl' in vector.expect) produced.jsonl = fileLines(file)
      if (vector.call === 'cleanup') produced.remaining = fs.readdirSync(dir).sort()
    } catch (err) {
      if (!err || typeof err.code !== 'string' || !('error' in vector.expect)) throw err
      produced.error = err.code
    }
    // Same keys, same values: an unexpected file or error is a failure too.
    assert.deepEqual(Object.keys(produced).sort(), Object.keys(vector.expect).sort(), 'produced vs expected parts')
    for (const key of Object.keys(vector.expect)) {
      assert.deepStrictEqual(produced[key], vector.expect[key], `${key} differs`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const files = fs.existsSync(vectorsDir) ? fs.readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort() : []

test('conformance vectors are present', () => {
  // No vectors would make every parity claim vacuous: fail, never skip.
  assert.ok(files.length > 0, `no *.json vectors in ${vectorsDir}`)
})

for (const file of files) {
  const vector = JSON.parse(fs.readFileSync(path.join(vectorsDir, file), 'utf8'))
  test(`vector ${vector.name}`, async () => {
    assert.equal(vector.name, path.basename(file, '.json'), 'name = file name')
    await check(vector)
  })
}
