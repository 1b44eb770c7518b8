// One agent run of the Vercel AI SDK as its documentation shows it: `@ai-sdk/mcp`'s client per
// stdio MCP server, its tools handed to `generateText` with a step limit, and `@ai-sdk/openai`
// pointed at the scripted model's base URL (Chat Completions or the Responses API).
import { createMCPClient } from '@ai-sdk/mcp'
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio'
import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs } from 'ai'
import { collectingWarnings, startModel } from './harness.mjs'

/** Runs `steps` (the scripted model's script) with the tools of `servers` ({ key: stdio config }),
 * `api` 'chat' (`openai.chat(...)`) or 'responses' (the provider's default model). Returns what
 * the model was sent (`requests`, the scripted model's log), the final text and the warnings. */
export async function runAiSdk({ api, servers, steps }) {
  const model = await startModel(steps)
  const clients = []
  const aiWarnings = []
  try {
    const { value: finalText, warnings } = await collectingWarnings(async () => {
      globalThis.AI_SDK_LOG_WARNINGS = ({ warnings: logged }) => aiWarnings.push(...logged.map((w) => JSON.stringify(w)))
      let tools = {}
      for (const config of Object.values(servers)) {
        const client = await createMCPClient({ transport: new StdioMCPTransport(config) })
        clients.push(client)
        tools = { ...tools, ...(await client.tools()) }
      }
      const openai = createOpenAI({ baseURL: model.url, apiKey: 'scripted' })
      const result = await generateText({
        model: api === 'chat' ? openai.chat('scripted-model') : openai('scripted-model'),
        tools,
        stopWhen: stepCountIs(steps.length + 1),
        prompt: 'Read the knowledge graph and tell me how many teams it holds.',
      })
      for (const step of result.steps) aiWarnings.push(...(step.warnings ?? []).map((w) => JSON.stringify(w)))
      return result.text
    })
    return { requests: model.requests(), finalText, warnings: [...warnings, ...aiWarnings] }
  } finally {
    delete globalThis.AI_SDK_LOG_WARNINGS
    await Promise.all(clients.map((client) => client.close()))
    await model.stop()
  }
}
