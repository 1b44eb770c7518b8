"""End to end over stdio: a real MCP server (official SDK) with LRO, the real ClientSession."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, Dict

import lro
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mif import NAMESPACES

SERVER = Path(__file__).parent / "servers" / "mcp_memory_server.py"


async def session_run(out_dir: str) -> Dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER)],
        env={**os.environ, "LRO_TEST_OUTPUT_DIR": out_dir},
    )
    seen: Dict[str, Any] = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            seen["tools"] = tools
            recall = await session.call_tool("recall_memories", {"query": "cache", "detail": "light"})
            seen["recall"] = recall
            descriptor = recall.structured_content
            assert descriptor is not None and descriptor["offloaded"], recall
            seen["ids"] = await session.call_tool(
                "lro_extract", {"file_path": descriptor["file_path"], "recipe": 4}
            )
            seen["filtered"] = await session.call_tool(
                "lro_extract",
                {
                    "file_path": descriptor["file_path"],
                    "query": "select(.namespace == $ns) | .id",
                    "params": {"ns": "_semantic/facts"},
                },
            )
            seen["where"] = await session.call_tool(
                "lro_extract",
                {
                    "file_path": descriptor["file_path"],
                    "where": {"namespace": "_semantic/facts", "tags": "tag3"},
                    "fields": ["id"],
                    "sort": {"id": -1},
                    "limit": 2,
                },
            )
            seen["described"] = await session.call_tool(
                "lro_extract", {"file_path": descriptor["file_path"], "describe": True}
            )
            seen["grouped"] = await session.call_tool("lro_extract", {"file_path": descriptor["file_path"], "group_by": "namespace"})
            seen["bad_where"] = await session.call_tool(
                "lro_extract", {"file_path": descriptor["file_path"], "where": {"tags": {"$has": "x"}}}
            )
            seen["bad"] = await session.call_tool("lro_extract", {"file_path": "/etc/passwd", "recipe": 1})
            seen["small"] = await session.call_tool("small_lookup", {"key": "k"})
    return seen


def test_offload_then_extract_over_stdio(out_dir: str) -> None:
    seen = asyncio.run(asyncio.wait_for(session_run(out_dir), timeout=120))

    tools = seen["tools"]
    assert {"recall_memories", "lro_extract", "small_lookup"} <= set(tools)
    extract_params = tools["lro_extract"].input_schema["properties"]
    assert set(extract_params) == {
        "file_path", "recipe", "query", "params", "lines", "search",
        "where", "fields", "sort", "skip", "limit", "count", "group_by", "distinct", "stats",
        "section", "describe",
    }
    assert extract_params["where"]["description"] == lro.EXTRACT_QUERY_PARAMETERS["where"]
    # Every argument is described as the core describes it (the `lro proxy` publishes the same).
    core_params = lro.EXTRACT_TOOL_INPUT_SCHEMA["properties"]
    assert {k: v["description"] for k, v in extract_params.items()} == {k: core_params[k]["description"] for k in extract_params}
    assert tools["lro_extract"].description == lro.EXTRACT_TOOL_DESCRIPTION
    assert tools["recall_memories"].output_schema is None

    recall = seen["recall"]
    descriptor = recall.structured_content
    assert not recall.is_error
    assert descriptor["summary"]["count"] == 500
    assert descriptor["summary"]["detail"] == "light"
    assert descriptor["file_path"].startswith(out_dir + os.sep)
    assert len(descriptor["jq_recipes"]) == 10
    assert "lro_extract" in descriptor["guidance"]
    assert json.loads(recall.content[0].text) == descriptor
    lines = Path(descriptor["file_path"]).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 501 and json.loads(lines[0])["type"] == "lro_header"

    ids = seen["ids"]
    assert not ids.is_error, ids
    results = ids.structured_content["results"]
    assert len(results) == 500
    assert results[0] == {"id": "mem-00000", "title": "Decision 0 about caching and storage layout", "namespace": "_semantic/decisions"}

    described = seen["described"]
    assert not described.is_error, described
    assert described.structured_content["results"] == [descriptor]

    filtered = seen["filtered"].structured_content
    assert filtered["results"] == [f"mem-{i:05d}" for i in range(4, 500, 5)]

    where = seen["where"].structured_content
    assert where["results"] == [{"id": f"mem-{i:05d}"} for i in (479, 444)]
    assert where["jq"].startswith("tail -n +2 ")
    grouped = seen["grouped"].structured_content["results"][0]
    assert sorted((g["namespace"], g["count"]) for g in grouped) == [(ns, 100) for ns in sorted(NAMESPACES)]
    assert seen["bad_where"].is_error and "invalid_query" in seen["bad_where"].content[0].text

    bad = seen["bad"]
    assert bad.is_error and "path_denied" in bad.content[0].text

    small = seen["small"]
    assert not small.is_error and json.loads(small.content[0].text) == {"key": "k", "value": 42}
    assert len(os.listdir(out_dir)) == 1
