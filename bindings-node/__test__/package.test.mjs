// The package as users get it: index.d.ts matches the Rust sources, the packed tarball
// installs into a fresh project (CommonJS and ESM), and the README's TypeScript example
// type-checks against index.d.ts and runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const tmp = (name) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), name)))
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

test('index.d.ts is what napi generates from the Rust sources', () => {
  // `napi build` rewrites index.d.ts from the doc comments; the committed copy (or the copy
  // mk/node.mk saved before building) must equal it, so docs and types never drift.
  const generated = fs.readFileSync(path.join(pkgDir, 'index.d.ts'), 'utf8')
  let committed
  if (process.env.LRO_DTS_BASELINE) {
    committed = fs.readFileSync(process.env.LRO_DTS_BASELINE, 'utf8')
  } else {
    try {
      committed = run('git', ['show', 'HEAD:./index.d.ts'], pkgDir)
    } catch {
      assert.fail('index.d.ts is not committed yet: commit it (or run through `make test-node`)')
    }
  }
  assert.ok(generated === committed, 'index.d.ts is stale: `npm run build` regenerated it; commit the new file')
})

test('the packed package installs and loads in a fresh project, CommonJS and ESM', () => {
  const work = tmp('lro-pack-')
  try {
    const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], pkgDir).trim().split('\n').at(-1)
    const project = path.join(work, 'app')
    fs.mkdirSync(project)
    fs.writeFileSync(path.join(project, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n')
    run('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(work, tarball)], project)
    const script = (load) =>
      `${load}; const r = offload(Array.from({length: 300}, (_, i) => ({id: 'm' + i, memory_type: 'semantic', ` +
      `namespace: 'ns', title: 'title number ' + i})), null, {outputDir: ${JSON.stringify(work)}}); ` +
      `console.log(r.offloaded, r.summary.count, typeof extract)`
    assert.equal(run('node', ['-e', script("const { offload, extract } = require('lro')")], project).trim(), 'true 300 function')
    const esm = run('node', ['--input-type=module', '-e', script("import { offload, extract } from 'lro'")], project)
    assert.equal(esm.trim(), 'true 300 function')
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
})

test("the README's TypeScript examples type-check and the first one runs", () => {
  const readme = fs.readFileSync(path.join(pkgDir, 'README.md'), 'utf8')
  const examples = [...readme.matchAll(/<!-- example: (\S+) -->\s*```ts\n([\s\S]*?)```/g)]
  assert.ok(examples.length >= 2, 'README examples are marked <!-- example: NAME.ts -->')
  const work = tmp('lro-readme-')
  try {
    // The examples import 'lro' as an installed package would be.
    const modules = path.join(work, 'node_modules')
    fs.mkdirSync(path.join(modules, '@modelcontextprotocol'), { recursive: true })
    fs.symlinkSync(pkgDir, path.join(modules, 'lro'))
    fs.symlinkSync(path.join(pkgDir, 'node_modules/@modelcontextprotocol/sdk'), path.join(modules, '@modelcontextprotocol/sdk'))
    fs.symlinkSync(path.join(pkgDir, 'node_modules/zod'), path.join(modules, 'zod'))
    fs.symlinkSync(path.join(pkgDir, 'node_modules/@types'), path.join(modules, '@types'))
    for (const [, name, code] of examples) fs.writeFileSync(path.join(work, name), code)
    fs.writeFileSync(path.join(work, 'package.json'), '{"type":"module"}\n')
    const tsconfig = { compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, outDir: 'out' } }
    fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['*.ts'] }))
    run(process.execPath, [path.join(pkgDir, 'node_modules/typescript/bin/tsc'), '-p', work], work)
    const first = examples[0][1].replace(/\.ts$/, '.js')
    const output = run(process.execPath, [path.join(work, 'out', first)], work)
    assert.match(output, /offloaded 500 memories/)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
})
