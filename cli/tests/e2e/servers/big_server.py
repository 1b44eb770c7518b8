"""A stdio FastMCP server (the official MCP Python SDK) with one large result, for the
proxy's memory benchmark (bench_proxy_memory.py).

  big_records {mb} -> a dict of about `mb` MB of JSON records; FastMCP returns a dict as its
                      JSON text in one text block, without structuredContent.
  big_text {mb}    -> the same records as one `str` (their indented JSON text); FastMCP
                      returns a `str` twice: in one text block and again in
                      `structuredContent: {"result": text}`.
"""

import pydantic_core

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("big-results", log_level="WARNING")


@mcp.tool()
def big_records(mb: int) -> dict:
    """About `mb` MB of raw records."""
    items, size, i = [], 0, 0
    while size < mb * 1_000_000:
        item = {"id": f"r{i}", "kind": ["alpha", "beta", "gamma"][i % 3],
                "label": f"record number {i}", "score": i % 97}
        items.append(item)
        size += 115  # the indented text FastMCP writes: about 115 bytes per item
        i += 1
    return {"total": len(items), "items": items}


@mcp.tool()
def big_text(mb: int) -> str:
    """About `mb` MB of raw records, as JSON text."""
    return pydantic_core.to_json(big_records(mb), indent=2).decode()


if __name__ == "__main__":
    mcp.run("stdio")
