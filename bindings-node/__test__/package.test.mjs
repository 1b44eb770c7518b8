// The package as users get it: its types are the addon's (index.d.ts as napi generates it from
// the Rust sources; the WebAssembly package ships the same), the packed tarball installs into
// a fresh project (CommonJS and ESM), and the README's TypeScript examples type-check against
// the package and run. The two builds' READMEs show the same examples.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageDir, packageName, wasm } from './build.mjs'

const addonDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const wasmDir = path.resolve(addonDir, '../bindings-wasm')
const tmp = (name) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), name)))
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** The README's TypeScript examples (`<!-- example: NAME.ts -->` before a ts block). */
const examples = (readme) => [...fs.readFileSync(readme, 'utf8').matchAll(/<!-- example: (\S+) -->\s*```ts\n([\s\S]*?)```/g)]
const readmes = { addon: path.join(addonDir, 'README.md'), wasm: path.join(wasmDir, 'README.md') }

test('index.d.ts is what napi generates from the Rust sources', { skip: wasm && 'the addon builds it' }, () => {
  // `napi build` rewrites index.d.ts from the doc comments; the committed copy (or the copy
  // mk/node.mk saved before building) must equal it, so docs and types never drift.
  const generated = fs.readFileSync(path.join(addonDir, 'index.d.ts'), 'utf8')
  let committed
  if (process.env.LRO_DTS_BASELINE) {
    committed = fs.readFileSync(process.env.LRO_DTS_BASELINE, 'utf8')
  } else {
    try {
      committed = run('git', ['show', 'HEAD:./index.d.ts'], addonDir)
    } catch {
      assert.fail('index.d.ts is not committed yet: commit it (or run through `make test-node`)')
    }
  }
  assert.ok(generated === committed, 'index.d.ts is stale: `npm run build` regenerated it; commit the new file')
})

test("the WebAssembly package's types are the addon's, with its init", { skip: !wasm && 'the wasm package is built by make build-wasm-js' }, async () => {
  const { packageTypes } = await import(path.join(wasmDir, 'js/share.mjs'))
  const shipped = fs.readFileSync(path.join(packageDir, 'api.d.ts'), 'utf8')
  const addonTypes = fs.readFileSync(path.join(addonDir, 'index.d.ts'), 'utf8')
  assert.ok(shipped === packageTypes(addonTypes), 'api.d.ts is the addon\'s index.d.ts: make build-wasm-js')
  assert.match(fs.readFileSync(path.join(packageDir, 'index.d.ts'), 'utf8'), /^export \* from '\.\/api'$/m)
  for (const name of ['mcp.js', 'mcp.d.ts']) {
    assert.ok(fs.readFileSync(path.join(packageDir, name), 'utf8') === fs.readFileSync(path.join(addonDir, name), 'utf8'), name)
  }
})

test('the packed package installs and loads in a fresh project, CommonJS and ESM', () => {
  const work = tmp('lro-pack-')
  try {
    const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], packageDir).trim().split('\n').at(-1)
    const project = path.join(work, 'app')
    fs.mkdirSync(project)
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n')
    run('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(work, tarball)], project)
    const script = (load) =>
      `${load}; const r = offload(Array.from({length: 300}, (_, i) => ({id: 'm' + i, memory_type: 'semantic', ` +
      `namespace: 'ns', title: 'title number ' + i})), null, {outputDir: ${JSON.stringify(work)}}); ` +
      `console.log(r.offloaded, r.summary.count, typeof extract)`
    const cjs = run('node', ['-e', script(`const { offload, extract } = require('${packageName}')`)], project)
    assert.equal(cjs.trim(), 'true 300 function')
    const esm = run('node', ['--input-type=module', '-e', script(`import { offload, extract } from '${packageName}'`)], project)
    assert.equal(esm.trim(), 'true 300 function')
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
})

test('both READMEs show the same examples, but for the package name', () => {
  const addon = examples(readmes.addon)
  const ofWasm = examples(readmes.wasm)
  assert.ok(addon.length >= 2, 'README examples are marked <!-- example: NAME.ts -->')
  assert.deepEqual(
    ofWasm.map(([, name, code]) => [name, code.replaceAll("from 'lro-wasm", "from 'lro")]),
    addon.map(([, name, code]) => [name, code]),
  )
})

test("the README's TypeScript examples type-check and the first one runs", () => {
  const found = examples(wasm ? readmes.wasm : readmes.addon)
  const work = tmp('lro-readme-')
  try {
    // The examples import the package as an installed one would be.
    const modules = path.join(work, 'node_modules')
    fs.mkdirSync(path.join(modules, '@modelcontextprotocol'), { recursive: true })
    fs.symlinkSync(packageDir, path.join(modules, packageName))
    fs.symlinkSync(path.join(addonDir, 'node_modules/@modelcontextprotocol/sdk'), path.join(modules, '@modelcontextprotocol/sdk'))
    fs.symlinkSync(path.join(addonDir, 'node_modules/zod'), path.join(modules, 'zod'))
    fs.symlinkSync(path.join(addonDir, 'node_modules/@types'), path.join(modules, '@types'))
    for (const [, name, code] of found) fs.writeFileSync(path.join(work, name), code)
    fs.writeFileSync(path.join(work, 'package.json'), '{"type":"module"}\n')
    const tsconfig = { compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, outDir: 'out' } }
    fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['*.ts'] }))
    run(process.execPath, [path.join(addonDir, 'node_modules/typescript/bin/tsc'), '-p', work], work)
    const first = found[0][1].replace(/\.ts$/, '.js')
    const output = run(process.execPath, [path.join(work, 'out', first)], work)
    assert.match(output, /offloaded 500 memories/)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
})
