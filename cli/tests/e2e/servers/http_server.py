"""A small streamable-HTTP MCP server (FastMCP from the official Python SDK) on 127.0.0.1:$PORT,
for the proxy's remote case. JSON_RESPONSE=1 answers application/json instead of SSE. Its
event streams are resumable: every event is kept (ids, a priming event, `retry: 300`), so that
a stream the server closes is resumed with Last-Event-ID (the `interrupted` tool closes its own)."""

import os

import anyio

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.streamable_http import EventMessage, EventStore


class MemoryEventStore(EventStore):
    """Every event of every stream, in order: enough to replay a stream after an id."""

    def __init__(self):
        self.events = []  # (event id, stream id, message or None for a priming event)

    async def store_event(self, stream_id, message):
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        at = next((i for i, (event_id, _, _) in enumerate(self.events) if event_id == last_event_id), None)
        if at is None:
            return None
        stream_id = self.events[at][1]
        for event_id, stream, message in self.events[at + 1:]:
            if stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


mcp = FastMCP(
    "remote-inventory",
    host="127.0.0.1",
    port=int(os.environ["PORT"]),
    json_response=bool(os.environ.get("JSON_RESPONSE")),
    event_store=MemoryEventStore(),
    retry_interval=300,
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


@mcp.tool()
async def interrupted(count: int, ctx: Context) -> list[dict]:
    """Closes the call's event stream first (the client resumes it), then answers with
    `count` items, as `list_items` does."""
    await ctx.close_sse_stream()
    return list_items(count)


if __name__ == "__main__":
    mcp.run(transport="streamable-http")
