// The agent's script (what the scripted model asks for, step by step) and the checks every
// framework's run must pass.
import assert from 'node:assert/strict'
import { PAD_VARIABLES, descriptorCount, toolResultsSeen, unwrapText } from './harness.mjs'

/** The filter the agent asks for: the entities of one type (tests/frameworks/data.py asks the
 * Python frameworks the same). */
export const WHERE = { entityType: 'team' }

/** The records WHERE matches, computed from the generated graph (never from LRO's output). */
export function expectedMatches(graph) {
  return graph.entities.filter((e) => e.entityType === WHERE.entityType)
}

/** The descriptor's size limit: what reaches the model of an offloaded read_graph. */
export const DESCRIPTOR_MAX_CHARS = 6000
/** Below this, the direct run's read_graph would not be the large result the test is about. */
export const DIRECT_MIN_CHARS = 40000

/** One LRO-fronted server: read the graph, filter it, count it, answer with the count. Tool
 * names are globs: frameworks may prefix them (Mastra: `mem_lro_extract_memory_server`). */
export function singleServerSteps() {
  return [
    { call: [{ tool: '*read_graph', args: {} }] },
    {
      call: [
        {
          tool: '*lro_extract*',
          args: { file_path: '{file_path}', where: JSON.stringify(WHERE), fields: 'name,entityType' },
        },
      ],
    },
    { call: [{ tool: '*lro_extract*', args: { file_path: '{file_path}', where: JSON.stringify(WHERE), count: true } }] },
    { answer: 'The graph holds {last} teams.' },
  ]
}

/** The direct run: read the graph, answer. What the model receives is the point. */
export function directSteps() {
  return [{ call: [{ tool: '*read_graph', args: {} }] }, { answer: 'Read the graph.' }]
}

/** The variable the agent reads back from server-everything's offloaded `get-env`. */
export const PAD_PROBE = 'LRO_FW_PAD_0123'

/** Two LRO-fronted servers in one agent: each one's large result, each one's extract tool. */
export function twoServerSteps() {
  return [
    { call: [{ tool: '*read_graph', args: {} }] },
    { call: [{ tool: '*lro_extract_memory*', args: { file_path: '{file_path}', where: JSON.stringify(WHERE), count: true } }] },
    { call: [{ tool: '*get-env', args: {} }] },
    { call: [{ tool: '*lro_extract_*everything*', args: { file_path: '{file_path}', query: `.${PAD_PROBE}` } }] },
    { answer: 'Done: {last}' },
  ]
}

function parsedOrFail(text, what) {
  try {
    return JSON.parse(text)
  } catch (error) {
    const rest = text.slice(text.indexOf('\n') + 1)
    assert.fail(`${what}: ${error.message}; after its first line: ${JSON.stringify(rest.slice(0, 400))}`)
  }
}

/** The checks of a single-server run through LRO. `finalText` is the framework's final
 * answer; returns what the model saw, for the report. */
export function checkSingleServerRun({ requests, finalText, warnings, graph }) {
  assert.deepEqual(warnings, [], 'the run logged warnings')
  const [graphResult, filterResult, countResult] = toolResultsSeen(requests)
  assert.ok(countResult, `the model saw three tool results: ${JSON.stringify(toolResultsSeen(requests), null, 1).slice(0, 2000)}`)

  assert.equal(descriptorCount(graphResult.text), 1, `the descriptor reached the model once: ${graphResult.text.slice(0, 3000)}`)
  assert.ok(
    graphResult.text.length < DESCRIPTOR_MAX_CHARS,
    `the offloaded read_graph reached the model in ${graphResult.text.length} chars (limit ${DESCRIPTOR_MAX_CHARS})`,
  )

  // Decisions 1 and 2: the descriptor carries the file's URI, and names the extract tool as the
  // server lists it (the framework may show it with a prefix, as Mastra does).
  const descriptor = parsedOrFail(unwrapText(graphResult.text), 'the model saw the descriptor alone, as one JSON text')
  assert.match(String(descriptor.resource_uri), /^lro:\/\/offloads\//, 'the descriptor carries resource_uri')
  const offered = requests.at(-1).tools
  assert.ok(
    offered.some((name) => name === descriptor.extract_tool || name.endsWith(`_${descriptor.extract_tool}`)),
    `the descriptor names the extract tool the agent was offered (${descriptor.extract_tool}; offered ${offered})`,
  )

  const matches = expectedMatches(graph)
  const filtered = unwrapText(filterResult.text)
  for (const { name } of matches) assert.ok(filtered.includes(name), `the filter's answer names ${name}: ${filtered.slice(0, 1500)}`)
  assert.ok(!filtered.includes('observation 0'), `fields left the observations out: ${filtered.slice(0, 1500)}`)

  const count = String(matches.length)
  assert.equal(unwrapText(countResult.text).trim(), count, `the count reached the model as the number: ${countResult.text}`)
  assert.ok(finalText.includes(count), `the final answer holds the count ${count}: ${finalText}`)
  return { graphChars: graphResult.text.length, countSeen: countResult.text, filterChars: filterResult.text.length }
}

/** The checks of the direct run (no LRO): the model got the whole graph. */
export function checkDirectRun({ requests, warnings }) {
  assert.deepEqual(warnings, [], 'the run logged warnings')
  const [graphResult] = toolResultsSeen(requests)
  assert.ok(graphResult.text.length > DIRECT_MIN_CHARS, `direct read_graph: ${graphResult.text.length} chars`)
  return { graphChars: graphResult.text.length }
}

/** The checks of two LRO-fronted servers in one agent. */
export function checkTwoServerRun({ requests, finalText, warnings, graph }) {
  assert.deepEqual(warnings, [], 'the run logged warnings')
  const extractTools = requests[0].tools.filter((name) => name.includes('lro_extract'))
  assert.equal(new Set(extractTools).size, 2, `two distinct extract tools offered: ${requests[0].tools}`)
  const [graphResult, countResult, envResult, probeResult] = toolResultsSeen(requests)
  assert.ok(probeResult, `the model saw four tool results: ${JSON.stringify(toolResultsSeen(requests)).slice(0, 2000)}`)
  assert.equal(descriptorCount(graphResult.text), 1, 'read_graph was offloaded, once')
  assert.equal(descriptorCount(envResult.text), 1, `get-env was offloaded, once: ${envResult.text.slice(0, 2000)}`)
  const count = String(expectedMatches(graph).length)
  assert.equal(unwrapText(countResult.text).trim(), count, `memory's extract tool answered the count: ${countResult.text}`)
  assert.ok(unwrapText(probeResult.text).includes(PAD_VARIABLES[PAD_PROBE]), `everything's extract tool answered: ${probeResult.text}`)
  assert.ok(finalText.includes(PAD_VARIABLES[PAD_PROBE]), `final answer: ${finalText}`)
  return { extractTools }
}
