// One agent run of Mastra as its documentation shows it: `@mastra/mcp`'s MCPClient over the
// stdio servers (it names their tools `<server key>_<tool>`), a `@mastra/core` Agent given those
// tools, and the model through Mastra's own OpenAI-compatible provider at the scripted model's
// base URL.
import { Agent } from '@mastra/core/agent'
import { MCPClient } from '@mastra/mcp'
import { collectingWarnings, startModel } from './harness.mjs'

// Mastra's usage telemetry (PostHog) is for its users' apps, not a test: off, whatever the
// caller's environment says (read when an event would be sent).
process.env.MASTRA_TELEMETRY_DISABLED = '1'

/** Runs `steps` with the tools of `servers` ({ key: stdio config }). Returns the scripted
 * model's log (`requests`), the final text and the warnings. */
export async function runMastra({ servers, steps }) {
  const model = await startModel(steps)
  const mcp = new MCPClient({ id: `lro-${process.pid}-${Date.now()}`, servers })
  try {
    const { value: finalText, warnings } = await collectingWarnings(async () => {
      const agent = new Agent({
        id: 'graph-agent',
        name: 'graph-agent',
        instructions: 'You answer questions about the knowledge graph with its tools.',
        model: { providerId: 'scripted', modelId: 'scripted-model', url: model.url, apiKey: 'scripted', api: 'chat' },
        tools: await mcp.listTools(),
      })
      const result = await agent.generate('Read the knowledge graph and tell me how many teams it holds.', {
        maxSteps: steps.length + 1,
      })
      if (result.error) throw result.error
      return result.text
    })
    return { requests: model.requests(), finalText, warnings }
  } finally {
    await mcp.disconnect()
    await model.stop()
  }
}
