"""llama-index-tools-mcp: BasicMCPClient (stdio) and McpToolSpec's tools in a FunctionAgent,
with LlamaIndex's OpenAI-compatible LLM (OpenAILike, Chat Completions) on the scripted model.
Runs in its own venv (.venv-llama-index): llama-index-tools-mcp 0.6.0 needs mcp 2.x and the
OpenAI SDK 2.x, the other frameworks mcp 1.x (langchain-mcp-adapters) and OpenAI 3.x."""

import ast
import asyncio
import re

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.llms.openai_like import OpenAILike
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

import harness
from checks import FrameworkSuite


class TestLlamaIndexFunctionAgent(FrameworkSuite):
    framework = "llama-index-tools-mcp 0.6.0 FunctionAgent (OpenAILike)"

    def run(self, servers, base_url):
        return asyncio.run(self.agent(servers, base_url))

    async def agent(self, servers, base_url):
        tools = []
        for s in servers:
            client = BasicMCPClient(s.command, args=s.args, env=s.full_env(), timeout=120)
            tools += await McpToolSpec(client=client).to_tool_list_async()
        llm = OpenAILike(model=harness.MODEL_NAME, api_base=base_url, api_key=harness.API_KEY,
                         is_chat_model=True, is_function_calling_model=True, context_window=128000)
        agent = FunctionAgent(tools=tools, llm=llm, system_prompt="Answer from the knowledge graph.")
        response = await agent.run(harness.PROMPT)
        return str(response)

    def tool_text(self, received, step):
        # LlamaIndex gives the model str() of the SDK's CallToolResult: "meta=None
        # content=[TextContent(type='text', text='...', ...)] structuredContent=... isError=False".
        # The tool's text is the repr'd string of its one text block (the checks see the rest,
        # such as a structuredContent repeating the descriptor, through the whole result).
        result = received.result_of(step)
        texts = re.findall(r"TextContent\(type='text', text=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", result)
        assert len(texts) == 1, f"{len(texts)} text blocks in {result[:300]!r}"
        return ast.literal_eval(texts[0])
