// The package under Node, ESM: the same module instance as lro.js (CommonJS), whose named
// exports Node reads, with `init` as the default export, as the web build has it
// (`import init, { offload } from 'lro-wasm'`).
import lro from './lro.js'

export * from './lro.js'
export default lro.init
