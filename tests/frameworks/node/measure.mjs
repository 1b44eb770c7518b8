// What the model sees of server-memory's `read_graph` (400 entities), per framework: directly,
// through `lro proxy` and through the Node helper, in characters of the tool result the
// framework sent to the (scripted) model, and what it sees of an extract count. Run by
// `make measure-frameworks-node`; prints a Markdown table.
import path from 'node:path'
import { runAiSdk } from './ai-sdk.mjs'
import { serverConfig, tempDir, writeMemoryFile } from './harness.mjs'
import { runMastra } from './mastra.mjs'
import { WHERE } from './scenario.mjs'

const FRAMEWORKS = {
  'Vercel AI SDK, Chat Completions (`openai.chat`)': (servers, steps) => runAiSdk({ api: 'chat', servers, steps }),
  'Vercel AI SDK, Responses API (`openai(...)`)': (servers, steps) => runAiSdk({ api: 'responses', servers, steps }),
  'Mastra (OpenAI-compatible, chat)': (servers, steps) => runMastra({ servers, steps }),
}

const tmp = tempDir('lro-fw-measure-')
const memoryFile = path.join(tmp.dir, 'memory.jsonl')
writeMemoryFile(memoryFile)
// The servers' own start-up lines (stderr) would break the table: both frameworks take `stderr`.
const server = (kind) => ({ ...serverConfig(kind, { memoryFile, outputDir: path.join(tmp.dir, 'offloads') }), stderr: 'ignore' })
const readSteps = [{ call: [{ tool: '*read_graph', args: {} }] }, { answer: 'done' }]
const countSteps = [
  ...readSteps.slice(0, 1),
  { call: [{ tool: '*lro_extract*', args: { file_path: '{file_path}', where: JSON.stringify(WHERE), count: true } }] },
  { answer: 'done' },
]

/** The read_graph result's size as the model got it, or the run's error. */
async function seen(run, kind, steps, pick) {
  try {
    const { requests } = await run({ mem: server(kind) }, steps)
    return pick(requests.at(-1).tool_results)
  } catch (error) {
    return `error: ${String(error.message ?? error).split('\n')[0].slice(0, 120)}`
  }
}

const chars = (results) => results[0].text.length.toLocaleString('en-US')
console.log('| framework | read_graph direct | through lro proxy | through the Node helper | a count through lro proxy, as the model sees it |')
console.log('|---|---|---|---|---|')
try {
  for (const [name, run] of Object.entries(FRAMEWORKS)) {
    const direct = await seen(run, 'direct', readSteps, chars)
    const proxy = await seen(run, 'proxy', readSteps, chars)
    const helper = await seen(run, 'helper', readSteps, chars)
    const count = await seen(run, 'proxy', countSteps, ([, { text }]) => `${text.length} chars: \`${JSON.stringify(text).slice(0, 60)}\``)
    console.log(`| ${name} | ${direct} | ${proxy} | ${helper} | ${count} |`)
  }
} finally {
  tmp.remove()
}
