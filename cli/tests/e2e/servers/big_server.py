"""A stdio FastMCP server (the official MCP Python SDK) with one large result, for the
proxy's memory benchmark (bench_proxy_memory.py).

  big_records {mb} -> a dict of about `mb` MB of JSON records; FastMCP returns a dict as its
                      JSON text in one text block, without structuredContent.
"""

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


if __name__ == "__main__":
    mcp.run("stdio")
