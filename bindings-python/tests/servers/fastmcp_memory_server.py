"""A fastmcp server whose `recall_memories` tool returns 500 memories, offloaded by
`lro.fastmcp.LroMiddleware`, with resources of its own and fastmcp's pagination (pages of 40).
Started by test_fastmcp.py as a real subprocess, driven by the official MCP client."""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fastmcp import FastMCP  # noqa: E402

from lro.fastmcp import LroMiddleware  # noqa: E402
from mif import memories  # noqa: E402

middleware = LroMiddleware(
    {
        "output_dir": os.environ["LRO_TEST_OUTPUT_DIR"],
        "ttl_seconds": int(os.environ.get("LRO_TEST_TTL", "3600")),
        # LRO_TEST_LINK=1: the resource link and structuredContent (the options' path).
        "mcp": {"resource_link": bool(os.environ.get("LRO_TEST_LINK")), "structured_content": bool(os.environ.get("LRO_TEST_LINK"))},
    },
    server_name="lro-test-fastmcp",
)
server = FastMCP("lro-test-fastmcp", middleware=[middleware], list_page_size=40)


@server.resource("memo://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """What this server holds."""
    return "500 memories about caching"


@server.resource("memo://notes/{note_id}", name="note")
def note(note_id: str) -> str:
    """One note."""
    return f"note {note_id}"


@server.tool
def recall_memories(query: str = "", detail: str = "light") -> List[Dict[str, Any]]:
    """Recall memories matching a query."""
    return memories(500)


@server.tool
async def cleanup_offloads() -> Dict[str, Any]:
    """Removes expired offload files (what a scheduled task would call)."""
    report = await middleware.cleanup()
    return {"removed": len(report["removed"])}


if __name__ == "__main__":
    server.run("stdio", show_banner=False)
