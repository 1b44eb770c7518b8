"""openai-agents (the OpenAI Agents SDK): its MCPServerStdio and its OpenAI models, Chat
Completions (OpenAIChatCompletionsModel) and the Responses API (OpenAIResponsesModel), on the
scripted model; MCP schemas converted to strict mode, as the SDK offers."""

import asyncio
from contextlib import AsyncExitStack

from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStdio
from agents.run_context import RunContextWrapper
from openai import AsyncOpenAI

import harness
from checks import FrameworkSuite

# The SDK exports traces to OpenAI by default; these runs stay on loopback.
set_tracing_disabled(True)


class OpenAIAgentsSuite(FrameworkSuite):
    model_class = OpenAIChatCompletionsModel

    def run(self, servers, base_url):
        return asyncio.run(self.agent(servers, base_url))

    async def agent(self, servers, base_url):
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(AsyncOpenAI(base_url=base_url, api_key=harness.API_KEY))
            mcp_servers = [
                await stack.enter_async_context(MCPServerStdio(
                    params={"command": s.command, "args": s.args, "env": s.full_env()},
                    name=s.name, cache_tools_list=True, client_session_timeout_seconds=120))
                for s in servers
            ]
            agent = Agent(name="graph reader", instructions="Answer from the knowledge graph.",
                          mcp_servers=mcp_servers, mcp_config={"convert_schemas_to_strict": True},
                          model=self.model_class(model=harness.MODEL_NAME, openai_client=client))
            # Decision 5: the extract tool's schema converts to strict mode (the SDK falls back
            # to a non-strict tool, logging only at INFO, when it cannot).
            self.not_strict = [t.name for t in await agent.get_mcp_tools(RunContextWrapper(context=None))
                               if "lro_extract" in t.name and not t.strict_json_schema]
            result = await Runner.run(agent, harness.PROMPT, max_turns=10)
            return result.final_output

    def framework_errors(self):
        return [f"{name}: its input schema did not convert to strict mode" for name in self.not_strict]


class TestOpenAIAgentsChatCompletions(OpenAIAgentsSuite):
    framework = "openai-agents 0.24.0 (Chat Completions)"


class TestOpenAIAgentsResponses(OpenAIAgentsSuite):
    framework = "openai-agents 0.24.0 (Responses)"
    model_class = OpenAIResponsesModel
