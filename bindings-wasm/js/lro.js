// The package under Node, CommonJS (lro.mjs is its ESM face): the module built for Node,
// given what the native addon has, node:fs files (node-host.cjs) and `process.env`, for
// calls whose config names no host. The API is the Node addon's: index.d.ts is its own.
'use strict'

const wasm = require('./pkg/node/lro_wasm.js')
const { nodeHost } = require('./node-host.cjs')

// Only LRO's variables cross, read at each call as the addon reads them: the whole of
// process.env, serialized, cost twice an inline offload.
const PREFIX = 'ATLATL_PROMPT__OFFLOAD__'
function lroVariables() {
  const vars = {}
  for (const name of Object.keys(process.env)) if (name.startsWith(PREFIX)) vars[name] = process.env[name]
  return vars
}

wasm.__setPlatform(nodeHost(), lroVariables)

/** Under Node the module is compiled when the package loads: nothing to wait for. (In a
 * browser, the web build's `init()` fetches and compiles it.) */
async function init() {}

/** As `init`, synchronously. */
function initSync() {}

// The public API, by name: Node's ESM loader reads `exports.name =` as named exports
// (cjs-module-lexer).
exports.init = init
exports.initSync = initSync
exports.offload = wasm.offload
exports.offloadAsync = wasm.offloadAsync
exports.offloadJson = wasm.offloadJson
exports.offloadJsonAsync = wasm.offloadJsonAsync
exports.offloadInject = wasm.offloadInject
exports.offloadInjectAsync = wasm.offloadInjectAsync
exports.interceptToolResult = wasm.interceptToolResult
exports.interceptToolResultAsync = wasm.interceptToolResultAsync
exports.extract = wasm.extract
exports.extractAsync = wasm.extractAsync
exports.extractToolCall = wasm.extractToolCall
exports.extractToolCallAsync = wasm.extractToolCallAsync
exports.resolveToolCall = wasm.resolveToolCall
exports.resolveToolCallAsync = wasm.resolveToolCallAsync
exports.cleanup = wasm.cleanup
exports.cleanupAsync = wasm.cleanupAsync
exports.listResources = wasm.listResources
exports.listResourcesAsync = wasm.listResourcesAsync
exports.readResource = wasm.readResource
exports.readResourceAsync = wasm.readResourceAsync
exports.resourceScheme = wasm.resourceScheme
exports.resourceLink = wasm.resourceLink
exports.resourceErrorCode = wasm.resourceErrorCode
exports.extractTool = wasm.extractTool
exports.extractToolForServer = wasm.extractToolForServer
exports.configFromToml = wasm.configFromToml
exports.configFromTomlString = wasm.configFromTomlString
exports.configFromEnv = wasm.configFromEnv
exports.withEnv = wasm.withEnv
exports.configKeys = wasm.configKeys
exports.errorCodes = wasm.errorCodes
exports.estimateTokens = wasm.estimateTokens
