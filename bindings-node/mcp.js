// LRO for servers built on the official MCP TypeScript SDK (@modelcontextprotocol/sdk).
//
//   const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
//   const { withLro, registerLroExtract } = require('lro/mcp')
//   const lro = { outputDir: '/tmp/lro' }
//   server.registerTool('recall_memories', { inputSchema }, withLro('recall_memories', recall, lro))
//   registerLroExtract(server, lro)
//
// The wrapped handler's result goes through the core's interceptor (interceptToolResultAsync,
// off the main thread): below the threshold it is returned untouched; above it, the data is
// written to a JSONL file and the client gets the descriptor. `lro_extract` lets an agent
// without a shell read that file through the server. All decisions stay in the Rust core.
'use strict'

const { interceptToolResultAsync, extractAsync } = require('./lro.js')

/** The guidance the descriptor carries: `native` (points at `lro_extract`) unless the caller
 * chose otherwise, since these helpers exist to serve the extraction tool. */
function withNativeGuidance(config) {
  return { guidance: 'native', ...(config ?? {}) }
}

/**
 * Wraps an MCP tool handler so that large results are offloaded.
 * @param {string} toolName the tool's name (`recall_memories` gives the operation `recall`, ...)
 * @param {Function} handler the SDK tool handler: `(args, extra)`, or `(extra)` without an input schema
 * @param {object} [config] LRO config (`outputDir`, `thresholdTokens`, `onEvent`, ...);
 *   `outputSchemaDeclared: true` passes results of a tool with an `outputSchema` through untouched
 */
function withLro(toolName, handler, config) {
  const { outputSchemaDeclared, ...rest } = config ?? {}
  const lroConfig = withNativeGuidance(rest)
  return async (...params) => {
    const result = await handler(...params)
    // The SDK passes (args, extra) to tools with an input schema and (extra) to the others.
    const args = params.length > 1 ? params[0] : undefined
    const context = { toolName, arguments: args, outputSchemaDeclared: Boolean(outputSchemaDeclared) }
    const intercepted = await interceptToolResultAsync(result, context, lroConfig)
    return intercepted.result
  }
}

/** The `lro_extract` tool's description: what it does and its recipes, for the model. */
const EXTRACT_DESCRIPTION = [
  'Query a result set that was offloaded to a JSONL file (the `file_path` of an offloaded tool result).',
  'Give exactly one of `recipe` (1-10, as listed in the descriptor) or `query` (a jq filter run on each record);',
  '`params` fills a recipe\'s parameters, e.g. {"namespace": "_semantic"}, {"keyword": "cache"}, {"tag": "architecture"}.',
  'Recipes: 1=titles+namespaces, 2=filter namespace, 3=search titles, 4=IDs+titles, 5=filter type,',
  '6=count by namespace, 7=filter tag, 8=sort by date, 9 and 10=detail-adaptive.',
].join(' ')

/**
 * Registers the `lro_extract` tool (file_path, recipe, query, params) on an SDK `McpServer`.
 * Extraction runs in-process (embedded jq engine), off the main thread, limited to offload
 * files inside `config.outputDir`. Errors come back as `isError` results naming the code.
 * @param {import('@modelcontextprotocol/sdk/server/mcp.js').McpServer} server
 * @param {object} [config] the same LRO config the wrapped tools use (above all `outputDir`)
 * @returns the SDK's registered tool
 */
function registerLroExtract(server, config) {
  // zod comes with the SDK (a dependency and peer of it); loaded here so that requiring this
  // module never fails for users of the core functions alone.
  const { z } = require('zod')
  const lroConfig = withNativeGuidance(config)
  return server.registerTool(
    'lro_extract',
    {
      title: 'Extract from an offloaded result',
      description: EXTRACT_DESCRIPTION,
      inputSchema: {
        file_path: z.string().describe('Path to the offloaded JSONL file (OffloadResponse.file_path)'),
        recipe: z.number().int().min(1).max(10).nullish().describe('Standard recipe number (1-10); not with query'),
        query: z.string().nullish().describe('A jq filter for custom extraction; not with recipe'),
        params: z
          .record(z.string(), z.any())
          .nullish()
          .describe('Substitution parameters for parameterized recipes, e.g. {"namespace": "_semantic"}'),
      },
    },
    async ({ file_path, recipe, query, params }) => {
      const request = { recipe: recipe ?? undefined, query: query ?? undefined, params: params ?? undefined }
      try {
        const response = await extractAsync(file_path, request, lroConfig)
        return { content: [{ type: 'text', text: JSON.stringify(response) }] }
      } catch (err) {
        // A bad filter or path is the model's mistake to correct, not a protocol error.
        const code = err && err.code ? err.code : 'error'
        return { content: [{ type: 'text', text: `lro_extract failed [${code}]: ${err && err.message}` }], isError: true }
      }
    },
  )
}

module.exports = { withLro, registerLroExtract, EXTRACT_DESCRIPTION }
