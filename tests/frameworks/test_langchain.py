"""langchain-mcp-adapters: MultiServerMCPClient (stdio; by default a session per tool call) and
LangChain's create_agent with ChatOpenAI on the scripted model, on Chat Completions (the
default) and on the Responses API (`use_responses_api=True`)."""

import asyncio

from langchain.agents import create_agent
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI

import harness
from checks import FrameworkSuite


class LangChainSuite(FrameworkSuite):
    use_responses_api = False

    def run(self, servers, base_url):
        return asyncio.run(self.agent(servers, base_url))

    async def agent(self, servers, base_url):
        client = MultiServerMCPClient({
            s.name: {"transport": "stdio", "command": s.command, "args": s.args, "env": s.full_env()}
            for s in servers
        })
        tools = await client.get_tools()
        model = ChatOpenAI(model=harness.MODEL_NAME, base_url=base_url, api_key=harness.API_KEY,
                           use_responses_api=self.use_responses_api)
        agent = create_agent(model, tools, system_prompt="Answer from the knowledge graph.")
        state = await agent.ainvoke({"messages": [{"role": "user", "content": harness.PROMPT}]})
        return state["messages"][-1].text


class TestLangChainChatCompletions(LangChainSuite):
    framework = "langchain-mcp-adapters 0.3.2 + ChatOpenAI 1.7.4 (Chat Completions)"


class TestLangChainResponses(LangChainSuite):
    framework = "langchain-mcp-adapters 0.3.2 + ChatOpenAI 1.7.4 (Responses API)"
    use_responses_api = True
