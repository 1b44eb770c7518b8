// The package's types: the Node addon's API, whose index.d.ts the build copies as api.d.ts
// (js/share.mjs), and the web build's `init`.
export * from './api'

/**
 * Loads and compiles the WebAssembly module: await it once before any other call in a
 * browser or a worker (the web build fetches `lro_wasm_bg.wasm` beside its JS, or takes the
 * module, its bytes or its URL). Under Node the module is ready when the package loads, and
 * this resolves at once.
 */
export default function init(module?: unknown): Promise<unknown>

/** `init`, synchronously, from the module or its bytes (under Node: nothing to do). */
export declare function initSync(module?: unknown): unknown
