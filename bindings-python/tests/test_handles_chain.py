"""A result passed on by reference through the Python helpers, as ``lro proxy`` passes it
between two servers (cli/tests/e2e/test_handles_chain.py): a graph of 300 entities of four
types is read (offloaded), one type is kept with the extract tool's ``save: true`` (a new
offload file, answered with its descriptor), and a ``write_file`` tool gets ``content`` as a
result handle, replaced by the kept records before the SDK validates the arguments and the
tool runs. Once with ``lro.mcp`` on the official SDK's ``MCPServer``, once with the
``lro.fastmcp`` middleware on ``FastMCP``, each driven by its own in-memory client.

The written file must hold exactly the kept entities; a bad handle is answered with
``isError`` naming the argument, and the tool is never called."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List

import anyio
import pytest

ENTITIES, RELATIONS = 300, 200
TYPES = ["person", "project", "team", "service"]
KEPT_TYPE = "team"


def graph() -> Dict[str, List[Dict[str, Any]]]:
    """server-memory's read_graph shape: entities with observations, and relations."""
    entities = [
        {
            "name": f"entity-{i:03}",
            "entityType": TYPES[i % len(TYPES)],
            "observations": [f"observation {j} of entity {i}: notes on caching, owners and uptime" for j in range(3)],
        }
        for i in range(ENTITIES)
    ]
    relations = [
        {"from": f"entity-{i % ENTITIES:03}", "to": f"entity-{(i * 7 + 3) % ENTITIES:03}", "relationType": "depends_on"}
        for i in range(RELATIONS)
    ]
    return {"entities": entities, "relations": relations}


KEPT = [e for e in graph()["entities"] if e["entityType"] == KEPT_TYPE]


def jsonl(records: List[Dict[str, Any]]) -> str:
    return "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def is_error(result: Any) -> bool:
    # mcp 2.x's CallToolResult and fastmcp's client result both name it `is_error`.
    return bool(result.is_error)


async def chain(call: Callable[[str, Dict[str, Any]], Any], extract_tool: str, files: Path) -> Dict[str, Any]:
    """The three calls, then a bad handle; what each answered."""
    read = await call("read_graph", {})
    descriptor = json.loads(text_of(read))
    assert descriptor["offloaded"] is True, read
    saved = await call(extract_tool, {
        "file_path": descriptor["resource_uri"], "section": "entities",
        "where": json.dumps({"entityType": KEPT_TYPE}), "save": True})
    assert not is_error(saved), text_of(saved)
    kept = json.loads(text_of(saved))
    written = await call("write_file", {
        "path": str(files / "kept.jsonl"), "content": {"$lro": kept["resource_uri"], "as": "jsonl"}})
    assert not is_error(written), text_of(written)
    refused = await call("write_file", {"path": str(files / "refused.txt"), "content": {"$lro": "/etc/passwd", "as": "text"}})
    return {"saved": kept, "written": text_of(written), "refused": refused}


def write_file(files: Path, calls: List[str]) -> Callable[[str, str], str]:
    def write(path: str, content: str) -> str:
        """Writes `content` to `path` (under the test's directory)."""
        target = Path(path)
        assert target.parent == files, path
        calls.append(path)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content)} characters"

    return write


def check(seen: Dict[str, Any], files: Path, calls: List[str]) -> None:
    assert seen["saved"]["offloaded"] is True
    assert seen["saved"]["summary"]["count"] == len(KEPT) == ENTITIES // len(TYPES)
    assert seen["saved"]["resource_uri"].startswith("lro://offloads/")
    # Exactly the kept records, as the inline chain would have typed them.
    assert (files / "kept.jsonl").read_text(encoding="utf-8") == jsonl(KEPT)
    assert is_error(seen["refused"])
    assert text_of(seen["refused"]).startswith("error[path_denied]: argument `content` holds a result handle"), text_of(seen["refused"])
    # The tool ran once: never with the bad handle.
    assert calls == [str(files / "kept.jsonl")]
    assert not (files / "refused.txt").exists()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    d = tmp_path / "files"
    d.mkdir()
    return d


def test_chain_through_lro_mcp(out_dir: str, files: Path) -> None:
    from mcp.client.client import Client
    from mcp.server.mcpserver import MCPServer

    from lro.mcp import LroTools

    server = MCPServer("graph")
    lro_tools = LroTools(server, {"output_dir": out_dir})
    calls: List[str] = []

    @lro_tools.tool()
    def read_graph() -> Dict[str, Any]:
        """The whole knowledge graph."""
        return graph()

    # A tool of the server's own, not wrapped by LRO: handles reach it resolved all the same.
    server.tool("write_file")(write_file(files, calls))

    async def run() -> Dict[str, Any]:
        async with Client(server) as client:
            return await chain(client.call_tool, lro_tools.extract_tool_name, files)

    check(anyio.run(run), files, calls)


def test_chain_through_the_fastmcp_middleware(out_dir: str, files: Path) -> None:
    from fastmcp import Client, FastMCP

    from lro.fastmcp import LroMiddleware

    middleware = LroMiddleware({"output_dir": out_dir}, server_name="graph")
    server = FastMCP("graph", middleware=[middleware])
    calls: List[str] = []

    @server.tool
    def read_graph() -> Dict[str, Any]:
        """The whole knowledge graph."""
        return graph()

    server.tool(write_file(files, calls), name="write_file")

    async def run() -> Dict[str, Any]:
        async with Client(server) as client:

            async def call(name: str, arguments: Dict[str, Any]) -> Any:
                return await client.call_tool(name, arguments, raise_on_error=False)

            return await chain(call, middleware.extract_tool_name, files)

    check(anyio.run(run), files, calls)
