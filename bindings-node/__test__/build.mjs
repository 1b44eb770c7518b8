// The build under test. One suite for both JavaScript builds (lightningcss's TEST_WASM): the
// Node addon by default, and with LRO_TEST_WASM=1 the WebAssembly package
// (bindings-wasm/js, `make build-wasm-js` first), whose API is the addon's. Test files take
// the API from here, never by package name, and child processes (MCP servers, scripts)
// inherit the choice through the environment.
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))

/** Whether the WebAssembly package is under test. */
export const wasm = process.env.LRO_TEST_WASM === '1'

/** The package's directory, and its name (`require(packageName)` works with it as cwd). */
export const packageDir = wasm ? path.resolve(here, '../../bindings-wasm/js') : path.resolve(here, '..')
const require = createRequire(path.join(packageDir, 'package.json'))
export const packageName = require('./package.json').name

/** The API, as `require(packageName)` gives it (CommonJS), and `lro/mcp`'s helpers. */
export const lro = require(packageName)
export const mcp = require(`${packageName}/mcp`)

/** The API as `import(packageName)` gives it (ESM), to compare with `lro`. */
export async function importPackage() {
  return import(pathToFileURL(require.resolve(packageName)).href).then((m) => (m.offload ? m : m.default))
}

export default lro
