"""An MCP server over stdio (the official `mcp` SDK) whose `search_tickets` tool returns
2,000 support tickets. `lro.mcp.LroTools` offloads the result to a JSONL file, returns the
descriptor instead, and registers `lro_extract` so an agent without a shell can query it.

    pip install "lro[mcp]"      # or: pip install dist/lro-*.whl mcp
    python server.py            # speaks MCP on stdin/stdout; see client.py
"""

from __future__ import annotations

import os
from typing import Any, Dict, List

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

from lro.mcp import LroTools

server = Server("tickets")
# Without a configuration, LroTools uses the defaults and the ATLATL_PROMPT__OFFLOAD__*
# environment; here the output directory comes from the caller when given.
lro_tools = LroTools(server, {"output_dir": os.environ.get("LRO_OUTPUT_DIR"), "threshold_tokens": 1600})

PRIORITIES = ["low", "normal", "high", "urgent"]
PRODUCTS = ["billing", "search", "sync", "mobile", "api"]


@lro_tools.tool()
def search_tickets(query: str = "") -> List[Dict[str, Any]]:
    """Support tickets matching a query (all of them: about 60,000 tokens)."""
    return [
        {
            "id": f"T-{i:05d}",
            "title": f"{PRODUCTS[i % 5]} issue {i}: {query or 'unspecified'}",
            "priority": PRIORITIES[i % 4],
            "product": PRODUCTS[i % 5],
            "open": i % 3 != 0,
            "reopened": i % 7,
        }
        for i in range(2000)
    ]


if __name__ == "__main__":
    server.run()
