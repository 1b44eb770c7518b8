"""pydantic-ai (pydantic-ai-slim[openai,mcp]): its MCPToolset over a stdio transport, one per
server, and its OpenAI models, Chat Completions (OpenAIChatModel) and the Responses API
(OpenAIResponsesModel), on the scripted model."""

import asyncio

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.openai import OpenAIProvider

import harness
from checks import FrameworkSuite


class PydanticAISuite(FrameworkSuite):
    model_class = OpenAIChatModel

    def run(self, servers, base_url):
        return asyncio.run(self.agent(servers, base_url))

    async def agent(self, servers, base_url):
        # init_timeout: the servers start on a machine that runs other suites beside this
        # one; pydantic-ai's 5 s default for start-up and `initialize` is a desktop's.
        toolsets = [MCPToolset(StdioTransport(command=s.command, args=s.args, env=s.full_env()), id=s.name,
                               init_timeout=120)
                    for s in servers]
        provider = OpenAIProvider(base_url=base_url, api_key=harness.API_KEY)
        agent = Agent(self.model_class(harness.MODEL_NAME, provider=provider), toolsets=toolsets,
                      instructions="Answer from the knowledge graph.")
        async with agent:
            result = await agent.run(harness.PROMPT)
        return result.output


class TestPydanticAIChat(PydanticAISuite):
    framework = "pydantic-ai 2.68.0 (Chat Completions)"


class TestPydanticAIResponses(PydanticAISuite):
    framework = "pydantic-ai 2.68.0 (Responses)"
    model_class = OpenAIResponsesModel
