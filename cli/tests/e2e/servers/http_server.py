"""A small streamable-HTTP MCP server (FastMCP from the official Python SDK) on 127.0.0.1:$PORT,
for the proxy's remote case. JSON_RESPONSE=1 answers application/json instead of SSE."""

import os

import anyio

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP(
    "remote-inventory",
    host="127.0.0.1",
    port=int(os.environ["PORT"]),
    json_response=bool(os.environ.get("JSON_RESPONSE")),
    log_level="WARNING",
)


@mcp.tool()
def list_items(count: int) -> list[dict]:
    """Inventory items, `count` of them."""
    return [
        {"sku": f"SKU-{i:05d}", "warehouse": ["north", "south", "east"][i % 3],
         "name": f"Item {i} of the remote inventory", "quantity": i % 50}
        for i in range(count)
    ]


@mcp.tool()
def whoami(ctx: Context) -> str:
    """The clientInfo this server received in initialize."""
    info = ctx.session.client_params.clientInfo
    return info.model_dump_json()


@mcp.tool()
async def progress(ctx: Context) -> str:
    """Reports progress twice, then answers."""
    await ctx.report_progress(1, 2)
    await ctx.report_progress(2, 2)
    return "done"


@mcp.tool()
async def wait(seconds: float, ctx: Context) -> str:
    """Reports progress once (the call has begun), then answers after `seconds`."""
    await ctx.report_progress(0, 1)
    await anyio.sleep(seconds)
    return "waited"


if __name__ == "__main__":
    mcp.run(transport="streamable-http")
