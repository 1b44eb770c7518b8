"""Descriptor profiles through `lro proxy --descriptor compact|pointer` in front of
@modelcontextprotocol/server-memory (npm), driven by the official MCP Python client: the
graph's read_graph result comes back as a compact or a pointer descriptor within its budget,
and the agent can still get everything: `lro_extract(describe=true)` returns the full
descriptor, and structured queries answer from the same file."""

import json
import math

import anyio
import pytest

from conftest import npm_server, proxied
from real_servers import MemoryGraph

BUDGETS = {"compact": 350, "pointer": 100}
NOMINAL_PATH = "p" * 64  # the path length the core's budgets are reckoned with


def tokens(descriptor: dict) -> int:
    """The core's estimate (characters / 4, ASCII here) with the path counted as 64 bytes."""
    text = json.dumps(descriptor, separators=(",", ":"), ensure_ascii=False)
    return math.ceil(len(text.replace(descriptor["file_path"], NOMINAL_PATH)) / 4)


def extract_json(result) -> list:
    assert not result.isError, result
    return [json.loads(line) for line in result.content[0].text.splitlines()
            if line and not line.startswith(("warning:", "equivalent jq:", "[truncated", "argument"))]


@pytest.fixture
def graph(tmp_path):
    return MemoryGraph(tmp_path)


def read_through_proxy(graph, profile, out_dir):
    """read_graph through a proxy with --descriptor PROFILE, then what an agent asks next."""
    async def scenario():
        async with proxied(graph.server(), out_dir, extra=["--descriptor", profile], env=graph.env) as session:
            await graph.prepare(session, type("Run", (), {"small_results": {}})())
            result = await session.call_tool("read_graph", {})
            descriptor = json.loads(result.content[0].text)
            file_path = descriptor["file_path"]
            described = await session.call_tool(session.extract_tool, {"file_path": file_path, "describe": True})
            teams = await session.call_tool(session.extract_tool, {
                "file_path": file_path, "section": "entities", "where": {"entityType": "team"}, "count": True})
            return result, described, teams
    return anyio.run(scenario)


@pytest.mark.parametrize("profile", ["compact", "pointer"])
def test_a_profile_through_the_proxy_and_the_full_descriptor_on_demand(graph, profile, tmp_path):
    result, described, teams = read_through_proxy(graph, profile, tmp_path / "lro")
    descriptor = json.loads(result.content[0].text)
    assert result.structuredContent is None, "the text block alone holds the descriptor"
    assert descriptor["offloaded"] is True
    assert tokens(descriptor) <= BUDGETS[profile], (tokens(descriptor), descriptor)
    count = len(graph.entities) + len(graph.relations)
    if profile == "pointer":
        assert list(descriptor) == ["offloaded", "file_path", "resource_uri", "count", "guidance"]
        assert descriptor["count"] == count
        assert "lro_extract_" in descriptor["guidance"]
    else:
        assert descriptor["summary"]["count"] == count
        assert len(descriptor["recipes"]) == 10
        assert [s["name"] for s in descriptor["sections"]] == ["entities", "relations"]
        assert "describe=true" in descriptor["guidance"]

    [full] = extract_json(described)
    assert full["file_path"] == descriptor["file_path"]
    assert len(full["jq_recipes"]) == 10 and full["line_schema"]
    assert [s["name"] for s in full["sections"]] == ["entities", "relations"]
    assert full["summary"]["count"] == count

    [number] = extract_json(teams)
    assert number == sum(e["entityType"] == "team" for e in graph.entities)


def test_the_full_profile_is_the_default(graph, tmp_path):
    # No --descriptor: what the other proxy tests see (checked in detail there).
    async def scenario():
        async with proxied(graph.server(), tmp_path / "lro", env={**graph.env}) as session:
            await graph.prepare(session, type("Run", (), {"small_results": {}})())
            return await session.call_tool("read_graph", {})
    result = anyio.run(scenario)
    assert len(json.loads(result.content[0].text)["jq_recipes"]) == 10
    assert tokens(json.loads(result.content[0].text)) <= 1000
