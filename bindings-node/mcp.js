// LRO for servers built on the official MCP TypeScript SDK (@modelcontextprotocol/sdk).
//
//   const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
//   const { withLro, registerLroExtract } = require('lro/mcp')
//   const lro = { outputDir: '/tmp/lro' }
//   server.registerTool('recall_memories', { inputSchema }, withLro('recall_memories', recall, lro))
//   registerLroExtract(server, lro)     // `lro_extract_<server name>`
//   registerLroResources(server, lro)   // the offload files as MCP resources
//
// The wrapped handler's result goes through the core's interceptor (interceptToolResultAsync,
// off the main thread): below the threshold it is returned untouched; above it, the data is
// written to a JSONL file and the client gets the descriptor as one JSON text block (its
// `resource_uri` names the file as an MCP resource; `mcp: { structuredContent: true,
// resourceLink: true }` in the config add the descriptor as structuredContent and a
// `resource_link` block). The extract tool, named `lro_extract_<server name>` so that two
// servers in one agent offer two tools (`mcp.extractToolName` names it), lets an agent without
// a shell read that file through the server, and
// `registerLroResources` serves it as the resource `lro://offloads/{file}` to clients that
// cannot open it at all. Once `registerLroExtract` ran, a `tools/call` argument value
// `{ "$lro": resource_uri, where?, query?, ..., as? }` (a result handle) is replaced by the
// data it names before the SDK validates the arguments and the tool runs, so an agent passes
// an offloaded result, or a slice of it, on to the next tool without reading it; a handle that
// cannot be resolved is answered as an `isError` result naming the argument, and the tool is
// not called. All decisions stay in the Rust core.
'use strict'

const {
  interceptToolResultAsync,
  extractToolCallAsync,
  resolveToolCallAsync,
  extractTool,
  extractToolForServer,
  withEnv,
  listResourcesAsync,
  readResourceAsync,
  cleanupAsync,
  resourceScheme,
  resourceErrorCode,
} = require('./lro.js')

/** The offload files' URI scheme, media type and templates (the core's). */
const RESOURCE_SCHEME = resourceScheme()

/** The servers that serve the offload files of a config object, by that object (or by
 * `NO_CONFIG` for helpers given none): `withLro` given the same object tells them when an
 * offload adds a file. */
const servedBy = new WeakMap()
const NO_CONFIG = {}

/** The extract tool's name registered for a config object (or `NO_CONFIG`), by
 * `registerLroExtract`: `withLro` given the same object names it in its descriptors. */
const extractNames = new WeakMap()

/** Tells every server serving `config`'s files, whose client listed resources, that the
 * list changed. */
function resourcesChanged(config) {
  for (const served of servedBy.get(config ?? NO_CONFIG) ?? []) {
    if (served.asked) served.server.sendResourceListChanged()
  }
}

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
    // The name registerLroExtract gave the tool (given the same config object), read at
    // each call: the tools may be wrapped before the extract tool is registered.
    const extractTool = extractNames.get(config ?? NO_CONFIG)
    if (extractTool !== undefined) context.extractTool = extractTool
    const intercepted = await interceptToolResultAsync(result, context, lroConfig)
    if (intercepted.action === 'offloaded') resourcesChanged(config)
    return intercepted.result
  }
}

/**
 * Serves the offload files in `config.outputDir` as MCP resources on an SDK `McpServer`:
 * `lro://offloads/{file}` (the file as written) and `lro://offloads/{file}/records` (without
 * its header line), named by two resource templates. `resources/list` pages them, newest
 * first, with the server's own resources on the first page; a read of any other URI goes to
 * the server's own resources. Once the client has listed resources it hears
 * `notifications/resources/list_changed` after each offload by a `withLro` tool given the
 * same `config` object, and after `cleanup()` removed files. `lro_extract` takes the URI for
 * `file_path`.
 * @param {import('@modelcontextprotocol/sdk/server/mcp.js').McpServer} server
 * @param {object} [config] the LRO config the wrapped tools use (above all `outputDir`);
 *   without one, the defaults with the `ATLATL_PROMPT__OFFLOAD__*` environment, read now
 * @returns {{ cleanup: () => Promise<object> }} `cleanup()` removes expired offload files
 */
function registerLroResources(server, config) {
  const { ResourceTemplate } = require('@modelcontextprotocol/sdk/server/mcp.js')
  const { ListResourcesRequestSchema, McpError } = require('@modelcontextprotocol/sdk/types.js')
  const { outputSchemaDeclared, ...rest } = config ?? {}
  const lroConfig = helperConfig(rest)
  // An LRO error becomes the JSON-RPC error of its code (not_found -32002, a URI that names
  // no offload file -32602).
  const protocolError = (err) =>
    err && typeof err.code === 'string' ? new McpError(resourceErrorCode(err.code), `${err.code}: ${err.message}`) : err
  for (const template of RESOURCE_SCHEME.templates) {
    const { name, uriTemplate, ...metadata } = template
    server.registerResource(name, new ResourceTemplate(uriTemplate, { list: undefined }), metadata, async (uri) => {
      try {
        return await readResourceAsync(uri.href, lroConfig)
      } catch (err) {
        throw protocolError(err)
      }
    })
  }
  // resources/list, paginated: McpServer lists its own resources all at once, so its handler
  // (registered with the templates above) answers the first page's share.
  const handlers = server.server._requestHandlers
  const own = handlers instanceof Map ? handlers.get('resources/list') : undefined
  if (typeof own !== 'function') {
    throw new Error('lro/mcp: this @modelcontextprotocol/sdk has no resources/list handler to extend')
  }
  const served = { server, asked: false }
  const key = config ?? NO_CONFIG
  servedBy.set(key, [...(servedBy.get(key) ?? []), served])
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    served.asked = true
    const cursor = request.params?.cursor
    let page
    try {
      page = await listResourcesAsync(cursor ?? null, lroConfig)
    } catch (err) {
      throw protocolError(err)
    }
    const resources = [...page.resources]
    if (cursor == null) resources.push(...(await own(request, extra)).resources)
    return page.nextCursor === undefined ? { resources } : { resources, nextCursor: page.nextCursor }
  })
  return {
    async cleanup() {
      const report = await cleanupAsync(lroConfig)
      if (report.removed.length > 0) resourcesChanged(config)
      return report
    },
  }
}

/** Whether some object in `value` has a string `$lro`: the core decides the rest. Calls
 * without one (nearly all) cost this walk, not a trip to the thread pool. */
function mayHoldHandles(value) {
  const stack = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item === null || typeof item !== 'object') continue
    if (!Array.isArray(item) && typeof item.$lro === 'string') return true
    stack.push(...Object.values(item))
  }
  return false
}

/** Resolves result handles in every `tools/call` of `server` (an SDK `McpServer` whose
 * tools are registered) before its own handler validates the arguments (a handle is an
 * object where the tool may take a string) and calls the tool; the extract tool `extractName`
 * reads offload files itself, so its arguments are never taken for handles (as in the
 * `lro proxy`). */
function resolveHandlesIn(server, extractName, lroConfig) {
  const { CallToolRequestSchema } = require('@modelcontextprotocol/sdk/types.js')
  const handlers = server.server._requestHandlers
  const own = handlers instanceof Map ? handlers.get('tools/call') : undefined
  if (typeof own !== 'function') {
    throw new Error('lro/mcp: this @modelcontextprotocol/sdk has no tools/call handler to extend')
  }
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    if (name === extractName || !mayHoldHandles(args)) return own(request, extra)
    // On the libuv pool: a handle may filter a large file (bounded by the extraction's time
    // limit and `extract.handleMaxBytes`).
    const resolved = await resolveToolCallAsync(args, lroConfig)
    if (resolved === null) return own(request, extra)
    // A handle that cannot be resolved: the tool is not called; the model reads why.
    if (resolved.result !== undefined) return resolved.result
    return own({ ...request, params: { ...request.params, arguments: resolved.arguments } }, extra)
  })
}

/**
 * Lists the extract tool `name` with the core's `inputSchema` (what the `lro proxy` and the
 * Python helpers list), instead of zod's rendering of it: zod drops `nullable: true`, which
 * smolagents reads, and writes each integer as an `anyOf` with 2^53 bounds (24 tokens more on
 * the short definition, sent with every request). Calls are still validated by zod.
 */
function listedAsTheCoreGivesIt(server, name, inputSchema) {
  const { ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js')
  const handlers = server.server._requestHandlers
  const own = handlers instanceof Map ? handlers.get('tools/list') : undefined
  if (typeof own !== 'function') return
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const listed = await own(request, extra)
    return { ...listed, tools: listed.tools.map((tool) => (tool.name === name ? { ...tool, inputSchema } : tool)) }
  })
}

/** The `lro_extract` tool's description, for the model, in the default (short) form;
 * `registerLroExtract` lists the form its configuration's `mcp.extractToolDefinition` names. */
const EXTRACT_DESCRIPTION = extractTool({ mcp: { extractToolDefinition: 'short' } }).description

/** The extract tool's name for `server`: `config.mcp.extractToolName`, else
 * `lro_extract_<server name>` (the McpServer's `name`), else `lro_extract`. */
function extractToolName(server, lroConfig) {
  const configured = lroConfig?.mcp?.extractToolName
  if (typeof configured === 'string' && configured !== '') return configured
  const name = server?.server?._serverInfo?.name
  return extractToolForServer(typeof name === 'string' ? name : null)
}

/**
 * Registers the extract tool on an SDK `McpServer`, named `lro_extract_<server name>` (or
 * `config.mcp.extractToolName`): `file_path` and a structured query
 * (`where`, `fields`, `sort`, `skip`, `limit`, `count`, `group_by`, `distinct`, `stats`), or
 * `recipe` with `params`, `query`, `lines`, `search`; `section` scopes it to one section;
 * `describe: true` returns the full descriptor of a result a compact or pointer one described;
 * `save: true` writes the output as a new offload file and returns its descriptor, whose
 * `resource_uri` is a result handle.
 * Extraction runs in-process (embedded engine), off the main thread, limited to offload files
 * inside `config.outputDir`. Errors come back as `isError` results naming the code. From then
 * on every `tools/call` of the server has its result handles resolved (see the module's head):
 * register it after the server's tools or before, either way.
 * @param {import('@modelcontextprotocol/sdk/server/mcp.js').McpServer} server
 * @param {object} [config] the same LRO config the wrapped tools use (above all `outputDir`);
 *   without one, the defaults with the `ATLATL_PROMPT__OFFLOAD__*` environment, read now
 * @returns the SDK's registered tool
 */
function registerLroExtract(server, config) {
  // zod comes with the SDK (a dependency and peer of it); loaded here so that requiring this
  // module never fails for users of the core functions alone.
  const { z } = require('zod')
  const helper = helperConfig(config)
  const name = extractToolName(server, helper)
  extractNames.set(config ?? NO_CONFIG, name)
  // In the configuration too, so that `describe: true` rebuilds descriptors naming it.
  const lroConfig = { ...helper, mcp: { ...(helper.mcp ?? {}), extractToolName: name } }
  // The core's definition in the configured form (short by default; the `lro proxy`
  // publishes the same).
  const definition = extractTool(lroConfig)
  // The core's schema, property by property: flat, nullable primitives (strict-mode
  // friendly). An object or array a client sends where text is published (the forms older
  // clients used: `where: {...}`, `lines: {start, end}`) is passed on as its JSON text, which
  // the core reads.
  const asText = (value) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : value)
  const zodOf = (key, property) => {
    const kind = [].concat(property.type).find((type) => type !== 'null')
    let type
    if (kind === 'integer') {
      type = z.number().int()
      if (property.minimum !== undefined) type = type.min(property.minimum)
      if (property.maximum !== undefined) type = type.max(property.maximum)
    } else if (kind === 'boolean') {
      type = z.boolean()
    } else {
      type = z.string()
    }
    if (key !== 'file_path') type = type.nullish()
    if (kind === 'string') type = z.preprocess(asText, type)
    // The short form describes no argument: the tool's description names them.
    return property.description === undefined ? type : type.describe(property.description)
  }
  // Arguments the short form does not list (`distinct`, `explain`, ...) pass through to the
  // core, which reads every argument whichever form is listed: a strict zod object would drop
  // them unseen.
  const inputSchema = z
    .object(Object.fromEntries(Object.entries(definition.inputSchema.properties).map(([key, property]) => [key, zodOf(key, property)])))
    .passthrough()
  const tool = server.registerTool(
    name,
    { title: 'Extract from an offloaded result', description: definition.description, inputSchema },
    // The core answers, as the `lro proxy` and the Python helpers answer: the answer alone as
    // text, bounded, with errors as `isError` results naming their code.
    async (args) => {
      const result = await extractToolCallAsync(args, lroConfig)
      // `save: true` wrote an offload file: a client that listed resources hears of it.
      if (args.save === true && !result.isError) resourcesChanged(config)
      return result
    },
  )
  // The tool registered, McpServer has its tools/call handler, which this wraps.
  resolveHandlesIn(server, name, lroConfig)
  listedAsTheCoreGivesIt(server, name, definition.inputSchema)
  return tool
}

module.exports = { withLro, registerLroExtract, registerLroResources, extractToolName, EXTRACT_DESCRIPTION, RESOURCE_SCHEME }
