"""The fastmcp middleware, through fastmcp's own in-memory client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from fastmcp import Client, FastMCP
from mif import memories

from lro.fastmcp import LroMiddleware

#: The extract tool, named after the server ("memories").
EXTRACT = "lro_extract_memories"


def make_server(out_dir: str, events: List[Dict[str, Any]], **config: Any) -> FastMCP:
    middleware = LroMiddleware({"output_dir": out_dir, **config}, on_event=events.append, server_name="memories")
    server = FastMCP("memories", middleware=[middleware])

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
        descriptor = json.loads(recall.content[0].text)
        extracted = await client.call_tool(EXTRACT, {"file_path": descriptor["file_path"], "recipe": 6})
        counted = await client.call_tool(
            EXTRACT, {"file_path": descriptor["file_path"], "where": {"memory_type": "episodic"}, "count": True}
        )
        small = await client.call_tool("small", {})
        return {"tools": tools, "recall": recall, "extracted": extracted, "counted": counted, "small": small}


def test_middleware_offloads_and_injects_extract(out_dir: str) -> None:
    events: List[Dict[str, Any]] = []
    seen = asyncio.run(scenario(out_dir, events))
    assert EXTRACT in seen["tools"] and "lro_extract" not in seen["tools"]
    assert seen["tools"]["recall_memories"].output_schema is None
    # One text block, the descriptor: no structuredContent by default.
    assert seen["recall"].structured_content is None and len(seen["recall"].content) == 1
    descriptor = json.loads(seen["recall"].content[0].text)
    assert descriptor["offloaded"] and descriptor["summary"]["count"] == 500
    assert descriptor["summary"]["detail"] == "medium"
    assert f"{EXTRACT}(file_path=" in descriptor["guidance"] and descriptor["extract_tool"] == EXTRACT
    # The answers are text alone, as every LRO surface gives them: a count is the number.
    counts = json.loads(seen["extracted"].content[0].text)
    assert sum(row["count"] for row in counts) == 500
    assert seen["counted"].content[0].text == "167\n" and seen["counted"].structured_content is None
    schema = seen["tools"][EXTRACT].input_schema["properties"]
    # The short definition by default: distinct and stats are in the long one only.
    assert {"where", "fields", "sort", "skip", "limit", "count", "group_by"} <= set(schema)
    assert not {"distinct", "stats"} & set(schema)
    assert seen["small"].structured_content == {"ok": True}
    assert [e["event"] for e in events] == ["OffloadCreated"]


async def pointer_scenario(out_dir: str) -> Dict[str, Any]:
    async with Client(make_server(out_dir, [], descriptor="pointer")) as client:
        tools = {t.name: t for t in await client.list_tools()}
        recall = await client.call_tool("recall_memories", {"query": "cache"})
        described = await client.call_tool(
            EXTRACT, {"file_path": json.loads(recall.content[0].text)["file_path"], "describe": True}
        )
        return {"tools": tools, "recall": recall, "described": described}


def test_middleware_with_the_pointer_profile_and_describe(out_dir: str) -> None:
    seen = asyncio.run(pointer_scenario(out_dir))
    assert {"section", "describe"} <= set(seen["tools"][EXTRACT].input_schema["properties"])
    pointer = json.loads(seen["recall"].content[0].text)
    assert set(pointer) == {"offloaded", "file_path", "resource_uri", "count", "guidance"} and pointer["count"] == 500
    # The descriptor, then the arguments the short definition does not describe.
    described = seen["described"].content[0].text.splitlines()
    full = json.loads(described[0])
    assert described[1].startswith(f"arguments of {EXTRACT}: file_path and one of")
    assert all(line.startswith("argument") for line in described[1:])
    assert full["file_path"] == pointer["file_path"] and len(full["jq_recipes"]) == 10
    assert full["summary"]["count"] == 500 and f"{EXTRACT}(file_path=" in full["guidance"]


def test_offloads_are_resources_through_the_official_client(out_dir: str) -> None:
    """The middleware's resources, over stdio, read by the official MCP client (not fastmcp's)."""
    import anyio

    from test_mcp_e2e import assert_expired_cleaned, resources_run

    server = Path(__file__).parent / "servers" / "fastmcp_memory_server.py"
    seen = anyio.run(resources_run, out_dir, True, server)
    assert seen["capabilities"].resources.list_changed is True
    assert [str(r.uri) for r in seen["before"].resources] == ["memo://readme"]
    recall = seen["recall"]
    descriptor = recall.structured_content
    link = seen["link"]
    name = Path(descriptor["file_path"]).name
    assert (str(link.uri), link.name, link.mime_type) == (f"lro://offloads/{name}", name, "application/jsonl")
    listed = seen["listed"]
    assert [str(r.uri) for r in listed.resources] == [str(link.uri), "memo://readme"]
    assert listed.resources[0].size == len(seen["file_text"].encode("utf-8"))
    assert listed.resources[0].title == "recall: 500 memories"
    templates = [t.uri_template for t in seen["templates"].resource_templates]
    assert templates == ["lro://offloads/{file}", "lro://offloads/{file}/records", "memo://notes/{note_id}"]
    text = seen["file_text"]
    assert seen["file"].contents[0].text == text
    assert seen["file"].contents[0].mime_type == "application/jsonl"
    assert seen["records"].contents[0].text == text.split("\n", 1)[1]
    assert seen["readme"].contents[0].text == "500 memories about caching"
    assert seen["note"].contents[0].text == "note 7"
    assert sum(row["count"] for row in json.loads(seen["by_uri"].content[0].text)) == 500
    assert seen["errors"] == {"traversal": -32602, "not an offload": -32602, "missing": -32002}
    # fastmcp pages the merged list (list_page_size=40): 151 offload files and the readme.
    pages = seen["pages"]
    assert [len(p) for p in pages] == [40, 40, 40, 32]
    offloads = [uri for page in pages for uri in page if uri.startswith("lro://")]
    assert len(offloads) == len(set(offloads)) == 151
    assert offloads == sorted(offloads, key=lambda uri: uri.rsplit("-", 1)[1], reverse=True)
    # One offload while the client listened, then the cleanup of the expired files.
    assert_expired_cleaned(seen, 40)


@pytest.mark.parametrize(
    "never",
    [{"mcp": {"never_offload": ["recall_memories"]}}, {"tools": {"recall_*": {"mode": "never"}}}],
    ids=["never_offload", "rule"],
)
def test_never_offloaded_tools_keep_their_output_schema_and_results(out_dir: str, never: Dict[str, Any]) -> None:
    async def run() -> Dict[str, Any]:
        server = make_server(out_dir, [], **never, threshold_tokens=1)
        async with Client(server) as client:
            tools = {t.name: t for t in await client.list_tools()}
            return {"tools": tools, "recall": await client.call_tool("recall_memories", {}), "small": await client.call_tool("small", {})}

    seen = asyncio.run(run())
    assert seen["tools"]["recall_memories"].output_schema is not None
    assert seen["tools"]["small"].output_schema is None
    assert len(json.loads(seen["recall"].content[0].text)) == 500
    assert json.loads(seen["small"].content[0].text)["offloaded"] is True
