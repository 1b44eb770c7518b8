// Gives the package what it shares with the Node addon (one API): the addon's generated
// index.d.ts as api.d.ts, without napi's loader marker (`__napiBindingTarget`, which only the
// addon's loader exports; index.d.ts here adds the web build's `init`); and the MCP helpers,
// mcp.js and mcp.d.ts, whose `require('./lro.js')` is this package's entry here. Run by
// `make build-wasm-js`; the files it writes are not committed.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const addon = path.resolve(here, '../../bindings-node')

/** The addon's declarations, as this package's api.d.ts (exported for the Node suite's check). */
export function packageTypes(addonTypes) {
  const marker = /\/\*\*(?:(?!\*\/)[\s\S])*\*\/\nexport declare const __napiBindingTarget: [^\n]*\n\n?/
  if (!marker.test(addonTypes)) throw new Error('index.d.ts of the addon no longer declares __napiBindingTarget as expected')
  return addonTypes.replace(marker, '')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(path.join(here, 'api.d.ts'), packageTypes(fs.readFileSync(path.join(addon, 'index.d.ts'), 'utf8')))
  for (const name of ['mcp.js', 'mcp.d.ts']) fs.copyFileSync(path.join(addon, name), path.join(here, name))
}
