"""The fastmcp middleware, through fastmcp's own in-memory client."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

from fastmcp import Client, FastMCP
from mif import memories

from lro.fastmcp import LroMiddleware


def make_server(out_dir: str, events: List[Dict[str, Any]], **config: Any) -> FastMCP:
    server = FastMCP("memories", middleware=[LroMiddleware({"output_dir": out_dir, **config}, on_event=events.append)])

    @server.tool
    def recall_memories(query: str = "", detail: str = "medium") -> List[Dict[str, Any]]:
        """500 memories."""
        return memories(500)

    @server.tool
    def small() -> Dict[str, Any]:
        """A small result."""
        return {"ok": True}

    return server


async def scenario(out_dir: str, events: List[Dict[str, Any]]) -> Dict[str, Any]:
    async with Client(make_server(out_dir, events)) as client:
        tools = {t.name: t for t in await client.list_tools()}
        recall = await client.call_tool("recall_memories", {"query": "cache", "detail": "medium"})
        descriptor = recall.structured_content
        extracted = await client.call_tool("lro_extract", {"file_path": descriptor["file_path"], "recipe": 6})
        counted = await client.call_tool(
            "lro_extract", {"file_path": descriptor["file_path"], "where": {"memory_type": "episodic"}, "count": True}
        )
        small = await client.call_tool("small", {})
        return {"tools": tools, "recall": recall, "extracted": extracted, "counted": counted, "small": small}


def test_middleware_offloads_and_injects_extract(out_dir: str) -> None:
    events: List[Dict[str, Any]] = []
    seen = asyncio.run(scenario(out_dir, events))
    assert "lro_extract" in seen["tools"]
    assert seen["tools"]["recall_memories"].output_schema is None
    descriptor = seen["recall"].structured_content
    assert descriptor["offloaded"] and descriptor["summary"]["count"] == 500
    assert descriptor["summary"]["detail"] == "medium"
    assert "lro_extract" in descriptor["guidance"]
    assert json.loads(seen["recall"].content[0].text) == descriptor
    counts = seen["extracted"].structured_content["results"][0]
    assert sum(row["count"] for row in counts) == 500
    assert seen["counted"].structured_content["results"] == [167]
    schema = seen["tools"]["lro_extract"].input_schema["properties"]
    assert {"where", "fields", "sort", "skip", "limit", "count", "group_by", "distinct", "stats"} <= set(schema)
    assert seen["small"].structured_content == {"ok": True}
    assert [e["event"] for e in events] == ["OffloadCreated"]


async def pointer_scenario(out_dir: str) -> Dict[str, Any]:
    async with Client(make_server(out_dir, [], descriptor="pointer")) as client:
        tools = {t.name: t for t in await client.list_tools()}
        recall = await client.call_tool("recall_memories", {"query": "cache"})
        described = await client.call_tool(
            "lro_extract", {"file_path": recall.structured_content["file_path"], "describe": True}
        )
        return {"tools": tools, "recall": recall, "described": described}


def test_middleware_with_the_pointer_profile_and_describe(out_dir: str) -> None:
    seen = asyncio.run(pointer_scenario(out_dir))
    assert {"section", "describe"} <= set(seen["tools"]["lro_extract"].input_schema["properties"])
    pointer = seen["recall"].structured_content
    assert set(pointer) == {"offloaded", "file_path", "count", "guidance"} and pointer["count"] == 500
    assert json.loads(seen["recall"].content[0].text) == pointer
    full = seen["described"].structured_content["results"][0]
    assert full["file_path"] == pointer["file_path"] and len(full["jq_recipes"]) == 10
    assert full["summary"]["count"] == 500 and "lro_extract" in full["guidance"]
