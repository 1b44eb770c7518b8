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

const { interceptToolResultAsync, extractAsync, extractTool, withEnv } = require('./lro.js')

/** Whether `config` holds a configuration value: a key other than `onEvent` that is set
 * (what the core functions count, after JSON drops functions and `undefined`). */
function holdsConfiguration(config) {
  return Object.entries(config).some(
    ([key, value]) => key !== 'onEvent' && value !== undefined && value !== null && typeof value !== 'function',
  )
}

/** The helpers' configuration, read once, when the helper is called. The guidance the
 * descriptor carries is `native` (it points at `lro_extract`) unless chosen otherwise, since
 * these helpers exist to serve the extraction tool. A configuration given is used as given;
 * without one, the defaults and native guidance get the `ATLATL_PROMPT__OFFLOAD__*`
 * environment on top (its guidance wins, as in `lro proxy`). */
function helperConfig(config) {
  const given = config ?? {}
  if (holdsConfiguration(given)) return { guidance: 'native', ...given }
  return withEnv({ ...given, guidance: 'native' })
}

/**
 * Wraps an MCP tool handler so that large results are offloaded.
 * @param {string} toolName the tool's name (`recall_memories` gives the operation `recall`, ...)
 * @param {Function} handler the SDK tool handler: `(args, extra)`, or `(extra)` without an input schema
 * @param {object} [config] LRO config (`outputDir`, `thresholdTokens`, `onEvent`, ...), used as
 *   given; without one, the defaults with the `ATLATL_PROMPT__OFFLOAD__*` environment, read now.
 *   `outputSchemaDeclared: true` passes results of a tool with an `outputSchema` through untouched
 */
function withLro(toolName, handler, config) {
  const { outputSchemaDeclared, ...rest } = config ?? {}
  const lroConfig = helperConfig(rest)
  return async (...params) => {
    const result = await handler(...params)
    // The SDK passes (args, extra) to tools with an input schema and (extra) to the others.
    const args = params.length > 1 ? params[0] : undefined
    const context = { toolName, arguments: args, outputSchemaDeclared: Boolean(outputSchemaDeclared) }
    const intercepted = await interceptToolResultAsync(result, context, lroConfig)
    return intercepted.result
  }
}

/** The `lro_extract` tool as every LRO surface describes it (the core's; the `lro proxy`
 * publishes the same): its description, and a description for each argument. */
const EXTRACT_TOOL = extractTool()

/** The `lro_extract` tool's description, for the model. */
const EXTRACT_DESCRIPTION = EXTRACT_TOOL.description

/**
 * Registers the `lro_extract` tool on an SDK `McpServer`: `file_path` and a structured query
 * (`where`, `fields`, `sort`, `skip`, `limit`, `count`, `group_by`, `distinct`, `stats`), or
 * `recipe` with `params`, `query`, `lines`, `search`; `section` scopes it to one section;
 * `describe: true` returns the full descriptor of a result a compact or pointer one described.
 * Extraction runs in-process (embedded engine), off the main thread, limited to offload files
 * inside `config.outputDir`. Errors come back as `isError` results naming the code.
 * @param {import('@modelcontextprotocol/sdk/server/mcp.js').McpServer} server
 * @param {object} [config] the same LRO config the wrapped tools use (above all `outputDir`);
 *   without one, the defaults with the `ATLATL_PROMPT__OFFLOAD__*` environment, read now
 * @returns the SDK's registered tool
 */
function registerLroExtract(server, config) {
  // zod comes with the SDK (a dependency and peer of it); loaded here so that requiring this
  // module never fails for users of the core functions alone.
  const { z } = require('zod')
  const lroConfig = helperConfig(config)
  const described = (name, type) => type.describe(EXTRACT_TOOL.inputSchema.properties[name].description)
  const count = () => z.number().int().min(0)
  const inputSchema = {
    file_path: described('file_path', z.string()),
    where: described('where', z.record(z.string(), z.any()).nullish()),
    fields: described('fields', z.array(z.string()).nullish()),
    sort: described('sort', z.record(z.string(), z.union([z.literal(1), z.literal(-1)])).nullish()),
    skip: described('skip', count().nullish()),
    limit: described('limit', count().nullish()),
    count: described('count', z.boolean().nullish()),
    group_by: described('group_by', z.string().nullish()),
    distinct: described('distinct', z.string().nullish()),
    stats: described('stats', z.string().nullish()),
    recipe: described('recipe', z.number().int().min(1).max(10).nullish()),
    query: described('query', z.string().nullish()),
    params: described('params', z.record(z.string(), z.any()).nullish()),
    lines: described(
      'lines',
      z.object({ start: count(), end: count().nullish(), unit: z.enum(['records', 'chars']).nullish() }).nullish(),
    ),
    search: described(
      'search',
      z
        .object({ pattern: z.string(), ignore_case: z.boolean().nullish(), max_results: z.number().int().min(1).nullish() })
        .nullish(),
    ),
    section: described('section', z.string().nullish()),
    describe: described('describe', z.boolean().nullish()),
  }
  return server.registerTool(
    EXTRACT_TOOL.name,
    { title: 'Extract from an offloaded result', description: EXTRACT_DESCRIPTION, inputSchema },
    async ({ file_path, ...given }) => {
      // Clients often send every optional argument as null; the core reads snake_case keys.
      const request = Object.fromEntries(Object.entries(given).filter(([, value]) => value != null))
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
