// The second kind of LRO-fronted server the framework tests drive: a TypeScript-SDK McpServer
// built the way the Node helper's README shows (`withLro` around the tool, `registerLroExtract`
// beside it), whose `read_graph` returns the same knowledge graph server-memory would (the
// JSONL file MEMORY_FILE_PATH names, in server-memory's own format). The helpers get no
// configuration: they read ATLATL_PROMPT__OFFLOAD__* (the test sets OUTPUT_DIR), as a user's
// server would. The SDK, zod and the addon come from bindings-node (`make build-node`), so the
// helper and the server share one SDK.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const bindings = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bindings-node')
const require = createRequire(path.join(bindings, 'package.json'))
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js')
const { withLro, registerLroExtract } = require('./mcp.js')

/** The graph in MEMORY_FILE_PATH, as server-memory's `read_graph` returns it. */
function readGraph() {
  const graph = { entities: [], relations: [] }
  for (const line of readFileSync(process.env.MEMORY_FILE_PATH, 'utf8').split('\n')) {
    if (!line.trim()) continue
    const { type, ...item } = JSON.parse(line)
    if (type === 'entity') graph.entities.push(item)
    if (type === 'relation') graph.relations.push(item)
  }
  return graph
}

const server = new McpServer({ name: 'memory-helper', version: '1.0.0' })
server.registerTool(
  'read_graph',
  { title: 'Read Graph', description: 'Read the entire knowledge graph', inputSchema: {} },
  withLro('read_graph', async () => ({ content: [{ type: 'text', text: JSON.stringify(readGraph(), null, 2) }] })),
)
registerLroExtract(server)
await server.connect(new StdioServerTransport())
