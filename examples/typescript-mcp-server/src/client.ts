// The agent's side: starts the compiled server over stdio with the SDK's client, calls
// `list_orders`, receives LRO's descriptor instead of 3,000 orders, then asks the extract tool
// it names (`lro_extract_orders`, after the server) for aggregates, and reads the file as an MCP
// resource. Exits non-zero when anything is not as
// described (`make examples` runs it).
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

type Structured = Record<string, any>

const outputDir = mkdtempSync(join(tmpdir(), 'lro-example-'))
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [new URL('./server.js', import.meta.url).pathname],
  env: { ...(process.env as Record<string, string>), LRO_OUTPUT_DIR: outputDir },
})
const client = new Client({ name: 'example-agent', version: '1.0.0' })
await client.connect(transport)

// Both answers are one text block: an offloaded result's is the descriptor as JSON, the extract
// tool's the result alone (one value per line), as a model reads them.
const call = async (name: string, args: Structured): Promise<any> => {
  const result = await client.callTool({ name, arguments: args })
  const [block] = result.content as { type: string; text: string }[]
  assert.ok(!result.isError, block.text)
  return JSON.parse(block.text)
}

const descriptor = await call('list_orders', { segment: 'retail' })
const extract: string = descriptor.extract_tool
assert.equal(extract, 'lro_extract_orders')
assert.equal(descriptor.offloaded, true)
assert.equal(descriptor.summary.count, 3000)
console.log(
  `list_orders: ${descriptor.summary.count} orders offloaded (${descriptor.summary.estimated_tokens} tokens); ` +
    `the descriptor is ${JSON.stringify(descriptor).length} bytes`,
)

const emea = await call(extract, { file_path: descriptor.file_path, where: '{"region": "emea"}', stats: 'total' })
assert.equal(emea.count, 1000)
console.log(`EMEA order totals: ${JSON.stringify(emea)}`)

const big = await call(extract, {
  file_path: descriptor.file_path,
  where: JSON.stringify({ items: { $gte: 4 }, total: { $gt: 2000 } }),
  count: true,
})
assert.equal(big, 84)
console.log(`orders of 4 items above 2,000: ${big}`)

const { resources } = await client.listResources()
const file = resources.find((r) => descriptor.file_path.endsWith(r.name))
assert.ok(file, 'the offload file is listed as a resource')
const read = await client.readResource({ uri: `${file.uri}/records` })
const records = (read.contents[0] as { text: string }).text.trim().split('\n')
assert.equal(records.length, 3000)
console.log(`resource ${file.uri}: ${records.length} records`)

await client.close()
console.log('typescript-mcp-server: ok')
