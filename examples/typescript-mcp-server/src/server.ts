// An MCP server over stdio (@modelcontextprotocol/sdk) whose `list_orders` tool returns
// 3,000 orders. `withLro` offloads the result to a JSONL file and returns LRO's descriptor;
// `registerLroExtract` adds the `lro_extract` tool, `registerLroResources` serves the files
// as `lro://offloads/{file}` resources.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
import { withLro, registerLroExtract, registerLroResources } from 'lro/mcp'

const lro = { outputDir: process.env.LRO_OUTPUT_DIR, thresholdTokens: 1600 }
const server = new McpServer({ name: 'orders', version: '1.0.0' })

const regions = ['amer', 'emea', 'apac']
server.registerTool(
  'list_orders',
  { description: 'Every order of a customer segment (about 90,000 tokens)', inputSchema: { segment: z.string() } },
  withLro(
    'list_orders',
    async ({ segment }: { segment: string }) => ({
      content: [
        {
          type: 'text' as const,
          text: JSON.stringify(
            Array.from({ length: 3000 }, (_, i) => ({
              id: `O-${String(i).padStart(5, '0')}`,
              segment,
              region: regions[i % 3],
              total: Math.round(i * 7.5) / 10,
              items: 1 + (i % 4),
            })),
          ),
        },
      ],
    }),
    lro,
  ),
)
registerLroExtract(server, lro)
registerLroResources(server, lro)
await server.connect(new StdioServerTransport())
