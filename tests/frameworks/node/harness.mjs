// What the framework tests share: the scripted model server (tests/frameworks/scripted_model.py)
// and its log, the knowledge graph server-memory serves, and the MCP servers an agent talks to:
// server-memory and server-everything directly or through `lro proxy`, and the Node helper.
import { spawn, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
export const ROOT = path.resolve(here, '../../..')
const FRAMEWORKS = path.resolve(here, '..')
const E2E_BIN = path.join(ROOT, 'cli/tests/e2e/node_modules/.bin')

/** The release `lro` binary: $LRO_BIN, else the workspace's (`make build-proxy` builds it). */
export function lroBinary() {
  const binary = process.env.LRO_BIN ?? path.join(ROOT, 'target/release/lro')
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`cargo build --release -p lro-cli\``)
  return binary
}

function npmServer(name) {
  const binary = path.join(E2E_BIN, name)
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`npm ci\` in cli/tests/e2e`)
  return binary
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

// --- the data -------------------------------------------------------------------------------

export const ENTITIES = 400
export const RELATIONS = 300

/** Writes the knowledge graph (ENTITIES entities, RELATIONS relations, the generator every
 * suite uses) to `file` in server-memory's JSONL format; returns { entities, relations }, the
 * source of truth the expectations are computed from. The shared tests/frameworks/data.py
 * writes it; without it (a branch that lacks it), the proxy e2e tests' generator. */
export function writeMemoryFile(file) {
  const shared = path.join(FRAMEWORKS, 'data.py')
  if (existsSync(shared)) {
    execFileSync('python3', [shared, 'memory-file', file])
    return JSON.parse(execFileSync('python3', [shared, 'graph'], { encoding: 'utf8', maxBuffer: 64 << 20 }))
  }
  const program = `import sys, json; sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'cli/tests/e2e'))}); import source_data
entities, relations = source_data.graph(${ENTITIES}, ${RELATIONS}); print(json.dumps([entities, relations]))`
  const [entities, relations] = JSON.parse(execFileSync('python3', ['-c', program], { encoding: 'utf8' }))
  const lines = [
    ...entities.map((e) => JSON.stringify({ type: 'entity', ...e })),
    ...relations.map((r) => JSON.stringify({ type: 'relation', ...r })),
  ]
  writeFileSync(file, lines.join('\n'))
  return { entities, relations }
}

// --- the MCP servers --------------------------------------------------------------------------

/** server-everything's `get-env` returns its whole environment: these variables make it large
 * (about 40 KB) and known. */
export const PAD_VARIABLES = Object.fromEntries(
  Array.from({ length: 300 }, (_, i) => [`LRO_FW_PAD_${String(i).padStart(4, '0')}`, `value ${i} `.repeat(12).trim()]),
)

/** A test file's world: the 400-entity graph written as server-memory's file in a new
 * temporary directory (`graph`), the servers' configurations over it (`servers(kind)`, see
 * `serverConfig`, offloads in the same directory) and `remove()`. */
export function memoryWorld(prefix) {
  const tmp = tempDir(prefix)
  const memoryFile = path.join(tmp.dir, 'memory.jsonl')
  const graph = writeMemoryFile(memoryFile)
  const servers = (kind) => serverConfig(kind, { memoryFile, outputDir: path.join(tmp.dir, 'offloads') })
  return { graph, servers, remove: () => tmp.remove() }
}

/** The stdio servers an agent can be given, as { command, args, env } (what both frameworks'
 * stdio configurations take). `kind`: 'direct' (server-memory itself), 'proxy' (`lro proxy` in
 * front of server-memory), 'helper' (the Node helper's server), 'everything-proxy' (`lro
 * proxy` in front of server-everything). */
export function serverConfig(kind, { memoryFile, outputDir }) {
  const proxy = (server, env) => ({
    command: lroBinary(),
    args: ['proxy', '--output-dir', outputDir, '--', ...server],
    env,
  })
  switch (kind) {
    case 'direct':
      return { command: npmServer('mcp-server-memory'), args: [], env: { MEMORY_FILE_PATH: memoryFile } }
    case 'proxy':
      return proxy([npmServer('mcp-server-memory')], { MEMORY_FILE_PATH: memoryFile })
    case 'helper':
      return {
        command: process.execPath,
        args: [path.join(here, 'helper-server.mjs')],
        env: { MEMORY_FILE_PATH: memoryFile, ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: outputDir },
      }
    case 'everything-proxy':
      return proxy([npmServer('mcp-server-everything'), 'stdio'], PAD_VARIABLES)
    default:
      throw new Error(`unknown server kind ${kind}`)
  }
}

// --- the scripted model -----------------------------------------------------------------------

/** The scripted OpenAI-compatible model server on loopback, running `steps`. `url` is its base
 * URL; `requests()` reads its log (one entry per request the framework made). */
export async function startModel(steps) {
  const { dir, remove } = tempDir('lro-fw-model-')
  const script = path.join(dir, 'script.json')
  const log = path.join(dir, 'log.jsonl')
  writeFileSync(script, JSON.stringify({ steps }))
  const child = spawn('python3', [path.join(FRAMEWORKS, 'scripted_model.py'), '--script', script, '--log', log], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout })
    lines.once('line', (line) => {
      const match = /^listening (http:\/\/\S+)$/.exec(line.trim())
      match ? resolve(match[1]) : reject(new Error(`scripted model said ${JSON.stringify(line)}`))
    })
    child.once('exit', (code) => reject(new Error(`scripted model exited (${code}) before listening`)))
  })
  return {
    url,
    requests: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
        : [],
    async stop() {
      child.kill('SIGTERM')
      await exited
      remove()
    },
  }
}

// --- what the model saw -----------------------------------------------------------------------

/** Every tool result the model received, from the last request (the conversation holds them
 * all), in order, as { name, text }. */
export function toolResultsSeen(requests) {
  if (!requests.length) throw new Error('the framework made no request to the model')
  return requests.at(-1).tool_results
}

/** The text of a tool result as the framework handed it to the model, without the framework's
 * wrapping of an MCP text result: a JSON list of content parts, a CallToolResult
 * ({content: [...]}) or a JSON string, reduced to its parts' text, one part a line (a part
 * that is not text stays as its JSON, so nothing the model saw is dropped). */
export function unwrapText(text) {
  let value
  try {
    value = JSON.parse(text)
  } catch {
    return text
  }
  if (typeof value === 'string') return value
  const parts = Array.isArray(value) ? value : Array.isArray(value?.content) ? value.content : null
  if (!parts) return text
  return parts
    .map((part) => (part?.type === 'text' ? part.text : typeof part === 'string' ? part : JSON.stringify(part)))
    .join('\n')
}

/** How many offload descriptors `text` holds (the key `offloaded: true`, plain or in JSON
 * that was itself put in a JSON string). */
export function descriptorCount(text) {
  return (text.match(/offloaded\\*"\s*:\s*true/g) ?? []).length
}

/** Runs `body` with console.warn / console.error and process warnings collected; returns
 * { value, warnings }. */
export async function collectingWarnings(body) {
  const warnings = []
  const saved = { warn: console.warn, error: console.error }
  const onWarning = (w) => warnings.push(`process warning: ${w.name}: ${w.message}`)
  console.warn = (...args) => warnings.push(`console.warn: ${args.map(String).join(' ')}`)
  console.error = (...args) => warnings.push(`console.error: ${args.map(String).join(' ')}`)
  process.on('warning', onWarning)
  try {
    return { value: await body(), warnings }
  } finally {
    Object.assign(console, saved)
    process.off('warning', onWarning)
  }
}
