"""`lro proxy --listen`: the gateway over streamable HTTP, driven by the official MCP Python
SDK's streamable-HTTP client, in front of @modelcontextprotocol/server-memory (npm). One
session builds a graph and reads it back offloaded, lists and reads its offload as a
resource and extracts from it; a second session sees none of it; SIGTERM ends the gateway
with exit code 0."""

import os
import signal
import subprocess
import threading
from contextlib import AsyncExitStack

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

import source_data
from conftest import descriptor_of, extract, extract_tool_for, lro_binary, npm_server

LISTENING = "lro proxy: listening on "


@pytest.fixture
def gateway(tmp_path):
    """The gateway on a free loopback port; yields (url, process). The address is read from
    its stderr, which a thread then keeps draining."""
    proc = subprocess.Popen(
        [lro_binary(), "proxy", "--listen", "127.0.0.1:0", "--output-dir", str(tmp_path / "lro"),
         "--", npm_server("mcp-server-memory")],
        env={**os.environ, "MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")},
        stderr=subprocess.PIPE, text=True)
    url = None
    for line in proc.stderr:
        if LISTENING in line:
            url = line.split(LISTENING, 1)[1].strip()
            break
    assert url, "the gateway never said where it listens"
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    yield url, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


async def session_at(url, stack):
    read, write, _ = await stack.enter_async_context(streamable_http_client(url))
    session = await stack.enter_async_context(ClientSession(read, write))
    init = await session.initialize()
    session.extract_tool = extract_tool_for(init.serverInfo.name)
    return session


def offload_uris(listed):
    return [str(r.uri) for r in listed.resources if str(r.uri).startswith("lro://offloads/")]


def test_sessions_offload_through_the_gateway_and_see_only_their_own(gateway, tmp_path):
    url, proc = gateway
    entities, relations = source_data.graph(400, 300)

    async def scenario():
        async with AsyncExitStack() as stack:
            first = await session_at(url, stack)
            tools = {tool.name for tool in (await first.list_tools()).tools}
            assert {"read_graph", first.extract_tool} <= tools
            for start in range(0, len(entities), 100):
                created = await first.call_tool("create_entities", {"entities": entities[start:start + 100]})
                assert not created.isError, created
            for start in range(0, len(relations), 100):
                created = await first.call_tool("create_relations", {"relations": relations[start:start + 100]})
                assert not created.isError, created
            descriptor = descriptor_of(await first.call_tool("read_graph", {}))
            assert descriptor["file_path"].startswith(str((tmp_path / "lro").resolve()))
            teams = await extract(first, file_path=descriptor["file_path"],
                                  query='select(.entityType == "team") | .name')
            assert sorted(teams) == sorted(e["name"] for e in entities if e["entityType"] == "team")
            uri = descriptor["resource_uri"]
            # create_entities echoes what it made: some of those answers were offloaded too.
            mine = offload_uris(await first.list_resources())
            assert uri in mine
            read = await first.read_resource(uri)
            assert len(read.contents[0].text.splitlines()) > len(entities)

            second = await session_at(url, stack)
            assert offload_uris(await second.list_resources()) == []
            for theirs in mine:
                with pytest.raises(McpError):
                    await second.read_resource(theirs)
            refused = await second.call_tool(second.extract_tool,
                                             {"file_path": descriptor["file_path"], "query": "."})
            assert refused.isError, refused
            # Outside its own directory (path_denied), or that directory is not made yet.
            assert refused.content[0].text.startswith(("error[path_denied]", "error[not_found]")), refused

    anyio.run(scenario)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
