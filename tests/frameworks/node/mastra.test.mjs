// Mastra (`@mastra/core` Agent + `@mastra/mcp` MCPClient) in a real agent loop against the
// scripted model: through `lro proxy`, through the Node helper, two proxies in one agent, and
// server-memory directly (what the model would otherwise receive). Mastra prefixes each tool
// with its server's key (`mem_read_graph`, `mem_lro_extract_memory_server`).
import { after, before, describe, test } from 'node:test'
import { runMastra } from './mastra.mjs'
import { memoryWorld } from './harness.mjs'
import {
  checkDirectRun,
  checkSingleServerRun,
  checkTwoServerRun,
  directSteps,
  singleServerSteps,
  twoServerSteps,
} from './scenario.mjs'

describe('Mastra', () => {
  let graph, servers, remove
  before(() => {
    ;({ graph, servers, remove } = memoryWorld('lro-fw-mastra-'))
  })
  after(() => remove())

  for (const kind of ['proxy', 'helper']) {
    const through = kind === 'proxy' ? 'lro proxy' : 'the Node helper'
    test(`read_graph through ${through}, then its extract tool filters and counts`, async (t) => {
      const run = await runMastra({ servers: { mem: servers(kind) }, steps: singleServerSteps() })
      t.diagnostic(JSON.stringify(checkSingleServerRun({ ...run, graph })))
    })
  }

  test('two LRO proxies in one agent, each extract tool answers for its own server', async (t) => {
    const run = await runMastra({
      servers: { mem: servers('proxy'), everything: servers('everything-proxy') },
      steps: twoServerSteps(),
    })
    t.diagnostic(JSON.stringify(checkTwoServerRun({ ...run, graph })))
  })

  test('read_graph directly, without LRO, is the large result', async (t) => {
    const run = await runMastra({ servers: { mem: servers('direct') }, steps: directSteps() })
    t.diagnostic(JSON.stringify(checkDirectRun(run)))
  })
})
