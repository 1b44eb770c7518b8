// One configuration story: without a configuration, every function uses the
// defaults with the ATLATL_PROMPT__OFFLOAD__* environment on top, read at each call, as
// `lro offload` does; an object holding configuration is used as given. The environment a
// process starts with is tested in child processes; changes after loading, in this one.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { lro, mcp, packageDir, packageName, wasm } from './build.mjs'
import { makeMemories } from './fixtures/memories.mjs'

const { withLro } = mcp
const here = path.dirname(fileURLToPath(import.meta.url))
const PREFIX = 'ATLATL_PROMPT__OFFLOAD__'
const tmp = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lro-env-')))
const memories = makeMemories(200)
const SMALL = [{ id: 'm1', memory_type: 'semantic', namespace: '_semantic', title: 'one memory' }]

/** Runs `fn` with `vars` (names without the prefix) in this process's environment, then
 * restores it. */
async function withVars(vars, fn) {
  const saved = Object.keys(vars).map((name) => [PREFIX + name, process.env[PREFIX + name]])
  for (const [name, value] of Object.entries(vars)) process.env[PREFIX + name] = value
  try {
    return await fn()
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

/** Asserts that `fn` throws (or rejects with) `invalid_config` naming `variable`. */
async function rejectsNaming(fn, variable) {
  await assert.rejects(async () => fn(), (err) => {
    assert.equal(err.code, 'invalid_config', err.message)
    assert.ok(err.message.startsWith(`${variable}: `), err.message)
    return true
  })
}

test('a new user sets the environment and offload writes there (CommonJS and ESM)', () => {
  const dir = tmp()
  const scripts = {
    commonjs: ['-e', `const lro = require('${packageName}'); const records = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log(JSON.stringify(lro.offload(records, { operation: 'recall' })))`],
    esm: ['--input-type=module', '-e', `import { offloadAsync } from '${packageName}'; import fs from 'node:fs'; console.log(JSON.stringify(await offloadAsync(JSON.parse(fs.readFileSync(0, 'utf8')))))`],
  }
  for (const [kind, args] of Object.entries(scripts)) {
    const child = spawnSync(process.execPath, args, {
      cwd: packageDir,
      env: { ...process.env, [PREFIX + 'OUTPUT_DIR']: dir },
      input: JSON.stringify(memories),
      encoding: 'utf8',
    })
    assert.equal(child.status, 0, child.stderr)
    const outcome = JSON.parse(child.stdout)
    assert.equal(outcome.offloaded, true, kind)
    assert.equal(path.dirname(outcome.file_path), dir, kind)
  }
  fs.rmSync(dir, { recursive: true })
})

test('every function given no configuration reads the environment at each call', async () => {
  const dir = tmp()
  const events = []
  await withVars({ OUTPUT_DIR: dir }, async () => {
    const outcomes = [
      lro.offload(memories),
      await lro.offloadAsync(memories),
      lro.offloadJson(JSON.stringify(memories)),
      await lro.offloadJsonAsync(Buffer.from(JSON.stringify(memories))),
      lro.offloadInject('budgeted', memories),
      lro.interceptToolResult({ content: [{ type: 'text', text: JSON.stringify(memories) }] }, { toolName: 'recall_memories' }).response,
      // Only a callback is no configuration either.
      lro.offload(memories, null, { onEvent: (e) => events.push(e.event) }),
    ]
    for (const outcome of outcomes) assert.equal(path.dirname(outcome.file_path), dir)
    assert.deepEqual(events, ['OffloadCreated'])
    // extract confines reads to the output directory: the environment's, here too.
    assert.deepEqual(lro.extract(outcomes[0].file_path, { count: true }).results, [200])
    assert.deepEqual((await lro.extractAsync(outcomes[1].file_path, { count: true })).results, [200])
    assert.equal(lro.cleanup().removed.length, 0)
    // A variable set later counts from the next call on.
    await withVars({ TTL_SECONDS: '0', THRESHOLD_TOKENS: '5' }, async () => {
      assert.equal((await lro.cleanupAsync()).removed.length, outcomes.length)
      assert.equal(lro.offload(SMALL).offloaded, true)
      assert.equal(lro.offload(SMALL, undefined, {}).offloaded, true)
      assert.equal(lro.offload(SMALL, undefined, { outputDir: null }).offloaded, true)
    })
    assert.equal(lro.offload(SMALL).offloaded, false)
    // The three small results offloaded under a threshold of 5, in the environment's directory.
    assert.equal(lro.cleanup({ outputDir: dir, ttlSeconds: 0 }).removed.length, 3)
  })
  fs.rmSync(dir, { recursive: true })
})

test('an object holding configuration ignores the environment; withEnv layers it on top', async () => {
  const envDir = tmp()
  const explicitDir = tmp()
  await withVars({ OUTPUT_DIR: envDir, THRESHOLD_TOKENS: '5', FILE_PREFIX: 'fromenv' }, async () => {
    assert.equal(lro.offload(SMALL, null, { enabled: true }).offloaded, false)
    const outcome = lro.offload(memories, null, { outputDir: explicitDir })
    assert.equal(path.dirname(outcome.file_path), explicitDir)
    assert.ok(path.basename(outcome.file_path).startsWith('atlatl-recall-'), outcome.file_path)
    assert.deepEqual(fs.readdirSync(envDir), [])
    const onEvent = () => {}
    const layered = lro.withEnv({ thresholdTokens: 800, ttlSeconds: 60, onEvent })
    assert.equal(layered.thresholdTokens, 5)
    assert.equal(layered.ttlSeconds, 60)
    assert.equal(layered.outputDir, envDir)
    assert.equal(layered.filePrefix, 'fromenv')
    assert.equal(layered.onEvent, onEvent)
    // The result is a configuration: used as given, as built when withEnv was called.
    assert.equal(path.dirname(lro.offload(SMALL, null, layered).file_path), envDir)
    // Variables given explicitly replace the process's, over the object alone.
    const fromVars = lro.withEnv({ thresholdTokens: 800 }, { [PREFIX + 'TTL_SECONDS']: '7' })
    assert.deepEqual([fromVars.thresholdTokens, fromVars.ttlSeconds, fromVars.outputDir], [800, 7, ''])
    assert.equal(lro.configFromEnv({}, {}).thresholdTokens, 1600)
    assert.equal(lro.configFromEnv().thresholdTokens, 5)
  })
  fs.rmSync(envDir, { recursive: true })
  fs.rmSync(explicitDir, { recursive: true })
})

test('a bad environment value is invalid_config from the call that read it', async () => {
  for (const [name, value] of [['THRESHOLD_TOKENS', 'lots'], ['TTL_SECONDS', '-5'], ['GUIDANCE', 'loud'], ['THRESHOLD', '3']]) {
    await withVars({ [name]: value }, async () => {
      const calls = [
        () => lro.offload(SMALL),
        () => lro.offloadAsync(SMALL),
        () => lro.offload(SMALL, null, { onEvent() {} }),
        () => lro.extract('/nowhere.jsonl', { recipe: 1 }),
        () => lro.cleanupAsync(),
        () => lro.withEnv({ thresholdTokens: 800 }),
        () => lro.configFromEnv(),
        () => withLro('lookup', async () => ({ content: [] })),
      ]
      for (const call of calls) await rejectsNaming(call, PREFIX + name)
      // An explicit configuration does not read the environment, so its calls still work.
      assert.equal(lro.offload(SMALL, null, { enabled: true }).offloaded, false)
    })
  }
})

test('environment bytes that are not UTF-8: another variable is no obstacle, ours is named', { skip: wasm && 'the wasm build reads process.env, which Node has already decoded' }, () => {
  const script = `const lro = require('${packageName}'); try { console.log(lro.offload([1]).offloaded) } catch (e) { console.log(e.code, e.message) }`
  const run = (name) =>
    spawnSync('bash', ['-c', `export ${name}="$(printf 'caf\\351')"; exec "$0" -e "$1"`, process.execPath, script], {
      cwd: packageDir,
      encoding: 'utf8',
    })
  const unrelated = run('LRO_TEST_UNRELATED')
  assert.equal(unrelated.status, 0, unrelated.stderr)
  assert.equal(unrelated.stdout.trim(), 'false')
  const ours = run(PREFIX + 'OUTPUT_DIR')
  assert.equal(ours.status, 0, ours.stderr)
  assert.match(ours.stdout, /^invalid_config ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: the variable's value is not UTF-8/)
})

test('withLro given no configuration reads the environment when called; its guidance wins', async () => {
  const dir = tmp()
  const lookup = async () => ({ content: [{ type: 'text', text: JSON.stringify({ key: 'k', value: 'forty-two, as always' }) }] })
  await withVars({ OUTPUT_DIR: dir, THRESHOLD_TOKENS: '5' }, async () => {
    const events = []
    for (const config of [undefined, { onEvent: (e) => events.push(e.event) }, { outputSchemaDeclared: false }]) {
      const result = await withLro('lookup', lookup, config)({ key: 'k' }, {})
      const descriptor = JSON.parse(result.content[0].text)
      assert.equal(path.dirname(descriptor.file_path), dir)
      assert.match(descriptor.guidance, /lro_extract/)
    }
    assert.deepEqual(events, ['OffloadCreated'])
    const explicit = await withLro('lookup', lookup, { thresholdTokens: 900 })({ key: 'k' }, {})
    assert.equal(JSON.parse(explicit.content[0].text).offloaded, undefined, 'inline under an explicit threshold')
    await withVars({ GUIDANCE: 'shell' }, async () => {
      const shell = await withLro('lookup', lookup)({ key: 'k' }, {})
      assert.doesNotMatch(JSON.parse(shell.content[0].text).guidance, /lro_extract/)
    })
  })
  fs.rmSync(dir, { recursive: true })
})

test('an MCP server whose helpers get no configuration follows the environment end to end', async () => {
  const dir = tmp()
  const client = new Client({ name: 'lro-env-client', version: '1.0.0' })
  const env = { ...process.env, [PREFIX + 'OUTPUT_DIR']: dir, [PREFIX + 'THRESHOLD_TOKENS']: '100' }
  delete env.LRO_TEST_DIR
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(here, 'fixtures/memory-server.mjs')], env, stderr: 'inherit' }))
  try {
    // Three memories: inline at the default threshold, above the environment's 100 tokens.
    const result = await client.callTool({ name: 'recall_memories', arguments: { query: 'few' } })
    const descriptor = JSON.parse(result.content[0].text)
    assert.equal(descriptor.offloaded, true)
    assert.equal(path.dirname(descriptor.file_path), dir)
    // lro_extract confines reads to the same directory, from the same environment.
    const counted = await client.callTool({ name: 'lro_extract_memory_test_server', arguments: { file_path: descriptor.file_path, count: true } })
    assert.equal(counted.isError, false, counted.content[0].text)
    assert.equal(counted.content[0].text, '3\n')
  } finally {
    await client.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
