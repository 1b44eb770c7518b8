"""`lro proxy --listen`: the gateway over streamable HTTP, driven by the official MCP Python
SDK's streamable-HTTP client, in front of @modelcontextprotocol/server-memory (npm). One
session builds a graph and reads it back offloaded, lists and reads its offload as a
resource and extracts from it; a second session sees none of it; SIGTERM ends the gateway
with exit code 0. Then the proxy's own `--url` mode as the gateway's client (stdio client ->
`lro proxy --url` -> `lro proxy --listen` -> server-memory): the result is offloaded once, by
the proxy nearest the client."""

import os
import signal
import subprocess
import threading
from contextlib import AsyncExitStack

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

import source_data
from conftest import descriptor_of, extract, extract_tool_for, load_graph, lro_binary, npm_server

LISTENING = "lro proxy: listening on "


def start_gateway(args, env=None):
    """`lro proxy --listen 127.0.0.1:0 ARGS...`: its URL, read from its stderr (which a thread
    then keeps draining), and its process."""
    proc = subprocess.Popen([lro_binary(), "proxy", "--listen", "127.0.0.1:0", *args],
                            env=env, stderr=subprocess.PIPE, text=True)
    url = None
    for line in proc.stderr:
        if LISTENING in line:
            url = line.split(LISTENING, 1)[1].strip()
            break
    assert url, "the gateway never said where it listens"
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return url, proc


@pytest.fixture
def gateway(tmp_path):
    """The gateway on a free loopback port; yields (url, process). The address is read from
    its stderr, which a thread then keeps draining."""
    url, proc = start_gateway(
        ["--output-dir", str(tmp_path / "lro"), "--", npm_server("mcp-server-memory")],
        env={**os.environ, "MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")})
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
            await load_graph(first, entities, relations)
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


def files_under(directory):
    return sorted(str(p) for p in directory.rglob("*") if p.is_file()) if directory.exists() else []


def test_the_proxys_url_mode_in_front_of_the_gateway_offloads_once(gateway, tmp_path):
    """The outer proxy announces itself (`clientInfo.proxy`), so the gateway's session passes
    every result through untouched and the outer proxy offloads it, on the client's side: one
    offload, of the graph itself, in the outer proxy's directory, none in the gateway's."""
    url, proc = gateway
    outer_dir = tmp_path / "outer"
    entities, relations = source_data.graph(200, 150)
    params = StdioServerParameters(
        command=lro_binary(), args=["proxy", "--output-dir", str(outer_dir), "--url", url])

    async def scenario():
        with open(tmp_path / "outer.stderr", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    extract_tool = extract_tool_for(init.serverInfo.name)
                    tools = [tool.name for tool in (await session.list_tools()).tools]
                    # The gateway does not offer its extract tool to a proxy: the outer
                    # one's is listed, once, with no clash to hide.
                    assert tools.count(extract_tool) == 1 and "read_graph" in tools, tools
                    await load_graph(session, entities, relations)
                    descriptor = descriptor_of(await session.call_tool("read_graph", {}))
                    assert descriptor["file_path"].startswith(str(outer_dir.resolve())), descriptor["file_path"]
                    assert descriptor["extract_tool"] == extract_tool
                    # The file holds the graph, not the gateway's descriptor of it.
                    session.extract_tool = extract_tool
                    names = await extract(session, file_path=descriptor["file_path"],
                                          query='select(.entityType == "person") | .name')
                    assert sorted(names) == sorted(e["name"] for e in entities if e["entityType"] == "person")
                    listed = offload_uris(await session.list_resources())
                    assert descriptor["resource_uri"] in listed
                    # Nothing was offloaded by the gateway, not even the create_* echoes.
                    assert files_under(tmp_path / "lro") == []
                    return len(listed)

    assert anyio.run(scenario) == len(files_under(outer_dir))
    assert "is hidden by the proxy's extract tool" not in (tmp_path / "outer.stderr").read_text()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
