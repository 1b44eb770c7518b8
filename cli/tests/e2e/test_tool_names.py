"""Issue 32 against real servers: two proxies in one agent offer two extract tools, named after
their servers; a tool `--never-offload` names keeps its outputSchema and its structured result;
an offloaded result is one text block holding the descriptor."""

import json

import anyio
import pytest
from mcp.shared.exceptions import McpError

import source_data
from conftest import extract, npm_server, proxied


async def listed(session) -> dict:
    return {tool.name: tool for tool in (await session.list_tools()).tools}


def test_two_proxied_servers_give_two_extract_tools(tmp_path):
    """server-memory and server-everything behind one client each: `lro_extract_memory_server`
    and `lro_extract_mcp_servers_everything`; each descriptor names its own tool, and either
    proxy answers for the other's file (same user, same output directory)."""
    entities, relations = source_data.graph(400, 300)
    out = tmp_path / "lro"
    seen = {}

    async def run():
        memory_env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
        async with proxied([npm_server("mcp-server-memory")], out, env=memory_env) as memory, \
                proxied([npm_server("mcp-server-everything"), "stdio"], out) as everything:
            seen["memory_tools"] = await listed(memory)
            seen["everything_tools"] = await listed(everything)
            for start in range(0, len(entities), 100):
                await memory.call_tool("create_entities", {"entities": entities[start:start + 100]})
            seen["graph"] = await memory.call_tool("read_graph", {})
            descriptor = json.loads(seen["graph"].content[0].text)
            # The other server's proxy answers for this file too.
            seen["counted"] = await extract(everything, file_path=descriptor["file_path"], section="entities", count=True)
            try:
                plain = await everything.call_tool("lro_extract", {"file_path": descriptor["file_path"], "count": True})
                seen["plain"] = "error result" if plain.isError else plain
            except McpError as err:  # the SDK answers an unknown tool with a protocol error
                seen["plain"] = f"protocol error: {err}"

    anyio.run(run)
    memory_extract = [name for name in seen["memory_tools"] if name.startswith("lro_extract")]
    everything_extract = [name for name in seen["everything_tools"] if name.startswith("lro_extract")]
    assert memory_extract == ["lro_extract_memory_server"]
    assert everything_extract == ["lro_extract_mcp_servers_everything"]
    graph = seen["graph"]
    assert graph.structuredContent is None and [block.type for block in graph.content] == ["text"]
    descriptor = json.loads(graph.content[0].text)
    assert descriptor["extract_tool"] == "lro_extract_memory_server"
    assert "lro_extract_memory_server(file_path=" in descriptor["guidance"]
    assert descriptor["resource_uri"].startswith("lro://offloads/atlatl-read_graph-")
    assert seen["counted"] == [len(entities)]
    # The plain name is not the proxy's: it goes to server-everything, which has no such tool.
    assert seen["plain"] == "error result" or "lro_extract" in seen["plain"], seen["plain"]


def test_a_never_offloaded_tool_keeps_its_output_schema(tmp_path):
    """server-everything's get-structured-content declares an outputSchema: with
    --never-offload it is listed with it and its structured result passes untouched, even under a
    threshold every result crosses; the other tools lose theirs."""
    seen = {}

    async def run():
        extra = ["--never-offload", "get-structured-content", "--threshold", "1"]
        async with proxied([npm_server("mcp-server-everything"), "stdio"], tmp_path / "lro", extra) as session:
            seen["tools"] = await listed(session)
            seen["weather"] = await session.call_tool("get-structured-content", {"location": "Chicago"})

    anyio.run(run)
    tool = seen["tools"]["get-structured-content"]
    assert tool.outputSchema is not None and "temperature" in tool.outputSchema["properties"]
    assert all(t.outputSchema is None for name, t in seen["tools"].items() if name != "get-structured-content")
    weather = seen["weather"]
    assert not weather.isError
    assert set(weather.structuredContent) >= {"temperature", "conditions", "humidity"}
    assert "offloaded" not in weather.content[0].text


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
