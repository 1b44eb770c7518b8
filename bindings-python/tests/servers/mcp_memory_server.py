"""An MCP server (official SDK, stdio) whose `recall_memories` tool returns 500 memories,
offloaded by `lro.mcp.LroTools`. Started by test_mcp_e2e.py as a real subprocess: with mcp
2.x (`MCPServer`, the test venv) and with mcp 1.x (`FastMCP`, .venv-mcp1)."""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

import lro  # noqa: E402
from lro.mcp import LroTools  # noqa: E402
from mif import memories  # noqa: E402

server = Server("lro-test-memories")
lro_tools = LroTools(
    server,
    {
        "output_dir": os.environ["LRO_TEST_OUTPUT_DIR"],
        "ttl_seconds": int(os.environ.get("LRO_TEST_TTL", "3600")),
        # LRO_TEST_LINK=1: the resource link and structuredContent (the options' path).
        "mcp": {"resource_link": bool(os.environ.get("LRO_TEST_LINK")), "structured_content": bool(os.environ.get("LRO_TEST_LINK"))},
    },
)


# The server's own resources, which list and read beside the offload files.
@server.resource("memo://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """What this server holds."""
    return "500 memories about caching"


@server.resource("memo://notes/{note_id}", name="note")
def note(note_id: str) -> str:
    """One note."""
    return f"note {note_id}"


@lro_tools.tool()
def recall_memories(query: str = "", detail: str = "light") -> List[Dict[str, Any]]:
    """Recall memories matching a query."""
    return memories(500)


@lro_tools.tool()
def small_lookup(key: str) -> Dict[str, Any]:
    """A small result, returned inline."""
    return {"key": key, "value": 42}


@server.tool()
async def cleanup_offloads() -> Dict[str, Any]:
    """Removes expired offload files (what a scheduled task would call)."""
    report = await lro_tools.cleanup()
    return {"removed": len(report["removed"])}


if __name__ == "__main__":
    assert lro.__version__
    server.run("stdio")
