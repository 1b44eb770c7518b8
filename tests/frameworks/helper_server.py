"""The Python helper as a framework meets it: an MCP server of the official SDK (stdio) whose
`read_graph` returns the test graph (data.py: the same 400 entities and 300 relations as
server-memory's), offloaded by `lro.mcp.LroTools`, which adds the extract tool. Started by
the framework tests with the interpreter of their venv (mcp 1.x FastMCP or mcp 2.x MCPServer,
both served by lro.mcp); offload files go to $LRO_TEST_OUTPUT_DIR."""

import logging
import os
import sys
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

from lro.mcp import LroTools  # noqa: E402

import data  # noqa: E402

server = Server("memory")
lro_tools = LroTools(server, {"output_dir": os.environ["LRO_TEST_OUTPUT_DIR"]})


@lro_tools.tool()
def read_graph() -> Dict[str, Any]:
    """Read the entire knowledge graph."""
    return data.read_graph_result()


if __name__ == "__main__":
    # The SDK logs every request at INFO on stderr: the test output would drown in it.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    server.run("stdio")
