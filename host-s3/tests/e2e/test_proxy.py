"""`lro proxy` with an s3:// output directory, driven by the official MCP Python client: one
proxy (one replica) offloads a tool result to the bucket, another proxy process answers
lro_extract on the same s3:// path."""

import json
import os
import sys
from collections import Counter
from contextlib import asynccontextmanager

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import MOCK_SERVER, key_of, lro_binary


@asynccontextmanager
async def proxy(s3_dir: str):
    params = StdioServerParameters(
        command=lro_binary(),
        args=["proxy", "--output-dir", s3_dir, "--", sys.executable, str(MOCK_SERVER)],
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def mock_namespace_counts(n: int) -> dict:
    # mock_server.memory(i): three namespaces in turn.
    names = ["_semantic/decisions", "_episodic/sessions", "_procedural/howto"]
    return dict(Counter(names[i % 3] for i in range(n)))


def test_one_proxy_offloads_to_the_bucket_and_another_extracts(s3, s3_dir):
    async def scenario():
        async with proxy(s3_dir) as writer:
            result = await writer.call_tool("memories", {"count": 300})
            assert not result.isError
            # One text block, the descriptor, naming the extract tool as the proxy lists it.
            assert result.structuredContent is None
            descriptor = json.loads(result.content[0].text)
            assert descriptor["offloaded"] is True
            path = descriptor["file_path"]
            assert path.startswith(f"{s3_dir}/atlatl-memories-")
            extract = descriptor["extract_tool"]
            assert f'{extract}(file_path="{path}", recipe=1)' in descriptor["guidance"]

        bucket, key = key_of(path)
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode().splitlines()
        assert len(body) == 301 and json.loads(body[0])["count"] == 300

        async with proxy(s3_dir) as reader:
            # Another proxy of the same server lists the same tool and reads the object.
            answer = await reader.call_tool(extract, {"file_path": path, "recipe": 6})
            assert not answer.isError, answer.content[0].text
            rows = json.loads(answer.content[0].text)
            assert {r["namespace"]: r["count"] for r in rows} == mock_namespace_counts(300)
            missing = await reader.call_tool(extract, {"file_path": path.replace(key.rsplit("-", 1)[1], "01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl"), "recipe": 1})
            assert missing.isError and missing.content[0].text.startswith("error[not_found]")

    anyio.run(scenario)
