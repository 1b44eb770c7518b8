"""`lro proxy --url`: a remote streamable-HTTP MCP server (FastMCP, official Python SDK) on
loopback, with SSE and with JSON responses; the proxy announces clientInfo.proxy: true and
offloads locally, and resumes a call's event stream the server closes before answering."""

import json

import anyio
import pytest

from conftest import descriptor_of, extract, lro_binary
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@pytest.mark.parametrize("http_server", [False, True], ids=["sse", "json"], indirect=True)
def test_remote_results_are_offloaded_locally(http_server, tmp_path, request):
    json_response = request.node.callspec.params["http_server"]

    async def scenario():
        params = StdioServerParameters(command=lro_binary(),
                                       args=["proxy", "--output-dir", str(tmp_path), "--url", http_server])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.serverInfo.name == "remote-inventory"
                session.extract_tool = "lro_extract_remote_inventory"
                tools = {tool.name for tool in (await session.list_tools()).tools}
                assert {"list_items", "whoami", "lro_extract_remote_inventory"} <= tools

                who = await session.call_tool("whoami", {})
                assert json.loads(who.content[0].text)["proxy"] is True

                small = await session.call_tool("list_items", {"count": 3})
                assert small.structuredContent == {"result": [
                    {"sku": f"SKU-{i:05d}", "warehouse": ["north", "south", "east"][i % 3],
                     "name": f"Item {i} of the remote inventory", "quantity": i % 50} for i in range(3)]}

                big = await session.call_tool("list_items", {"count": 1000})
                descriptor = descriptor_of(big)
                assert descriptor["summary"]["count"] == 1000
                assert descriptor["file_path"].startswith(str(tmp_path.resolve()))
                south = await extract(session, file_path=descriptor["file_path"],
                                      query='select(.warehouse == "south" and .quantity == 49) | .sku')
                assert south == [f"SKU-{i:05d}" for i in range(1000) if i % 3 == 1 and i % 50 == 49]

                # Concurrent calls over HTTP all come back.
                results = {}

                async def call(n):
                    results[n] = await session.call_tool("list_items", {"count": n})

                async with anyio.create_task_group() as group:
                    for n in range(1, 21):
                        group.start_soon(call, n)
                assert all(len(results[n].structuredContent["result"]) == n for n in range(1, 21))

                progress = []

                async def on_progress(value, total, message):
                    progress.append(value)

                done = await session.call_tool("progress", {}, progress_callback=on_progress)
                assert done.content[0].text == "done"
                # A JSON answer carries one message: only SSE can bring the progress along.
                assert progress == ([] if json_response else [1, 2])

                # The SDK's resumability: the tool closes its call's stream before answering
                # (`close_sse_stream`), the server keeps the answer in its event store, and the
                # proxy gets it on a GET with Last-Event-ID after the `retry` (300 ms), then
                # offloads it. (With JSON answers there is no stream to close.)
                resumed = await session.call_tool("interrupted", {"count": 1000})
                descriptor = descriptor_of(resumed)
                assert descriptor["summary"]["count"] == 1000
                skus = await extract(session, file_path=descriptor["file_path"], query=".sku")
                assert skus == [f"SKU-{i:05d}" for i in range(1000)]

    anyio.run(scenario)
