// The Vercel AI SDK (`ai` + `@ai-sdk/mcp` + `@ai-sdk/openai`) in a real agent loop against the
// scripted model: through `lro proxy`, through the Node helper, two proxies in one agent, and
// server-memory directly (what the model would otherwise receive).
import { after, before, describe, test } from 'node:test'
import { runAiSdk } from './ai-sdk.mjs'
import { memoryWorld } from './harness.mjs'
import {
  checkDirectRun,
  checkSingleServerRun,
  checkTwoServerRun,
  directSteps,
  singleServerSteps,
  twoServerSteps,
} from './scenario.mjs'

describe('Vercel AI SDK', () => {
  let graph, servers, remove
  before(() => {
    ;({ graph, servers, remove } = memoryWorld('lro-fw-ai-sdk-'))
  })
  after(() => remove())

  for (const api of ['chat', 'responses']) {
    test(`${api}: read_graph through lro proxy, then its extract tool filters and counts`, async (t) => {
      const run = await runAiSdk({ api, servers: { mem: servers('proxy') }, steps: singleServerSteps() })
      t.diagnostic(JSON.stringify(checkSingleServerRun({ ...run, graph })))
    })
  }

  test('chat: read_graph through the Node helper, then its extract tool filters and counts', async (t) => {
    const run = await runAiSdk({ api: 'chat', servers: { mem: servers('helper') }, steps: singleServerSteps() })
    t.diagnostic(JSON.stringify(checkSingleServerRun({ ...run, graph })))
  })

  test('chat: two LRO proxies in one agent, each extract tool answers for its own server', async (t) => {
    const run = await runAiSdk({
      api: 'chat',
      servers: { mem: servers('proxy'), everything: servers('everything-proxy') },
      steps: twoServerSteps(),
    })
    t.diagnostic(JSON.stringify(checkTwoServerRun({ ...run, graph })))
  })

  test('chat: read_graph directly, without LRO, is the large result', async (t) => {
    const run = await runAiSdk({ api: 'chat', servers: { mem: servers('direct') }, steps: directSteps() })
    t.diagnostic(JSON.stringify(checkDirectRun(run)))
  })
})
