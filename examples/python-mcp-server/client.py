"""The agent's side: starts server.py over stdio with the official `mcp` client, calls
`search_tickets`, receives LRO's descriptor instead of 2,000 tickets, and asks the extract tool
it names (`lro_extract_tickets`, after the server) for only what it needs (a MongoDB-style
filter, then a count by field); the answers are text, the result alone, as a model reads them. Exits non-zero when
anything is not as described, so `make examples` can run it.

    python client.py
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SERVER = Path(__file__).with_name("server.py")


async def main() -> None:
    out_dir = tempfile.mkdtemp(prefix="lro-example-")
    params = StdioServerParameters(
        command=sys.executable, args=[str(SERVER)], env={**os.environ, "LRO_OUTPUT_DIR": out_dir}
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {"search_tickets", "lro_extract_tickets"} <= tools, tools

        result = await session.call_tool("search_tickets", {"query": "timeout"})
        # One text block: the descriptor as JSON.
        descriptor = json.loads(result.content[0].text)
        assert descriptor["offloaded"], result
        extract = descriptor["extract_tool"]
        size = len(json.dumps(descriptor))
        print(f"search_tickets: {descriptor['summary']['count']} tickets offloaded to "
              f"{descriptor['file_path']} ({descriptor['summary']['estimated_tokens']} tokens); "
              f"the descriptor is {size} bytes")

        urgent = await session.call_tool(extract, {
            "file_path": descriptor["file_path"],
            "where": json.dumps({"priority": "urgent", "open": True, "product": {"$in": ["billing", "api"]}}),
            "fields": "id,title",
            "sort": "id",
            "limit": 3,
        })
        assert not urgent.is_error, urgent
        # One record per line.
        ids = [json.loads(line)["id"] for line in urgent.content[0].text.splitlines()]
        assert ids == ["T-00019", "T-00035", "T-00055"], ids
        print(f"open urgent billing/api tickets, first three: {ids}")

        per_product = await session.call_tool(
            extract, {"file_path": descriptor["file_path"], "group_by": "product"}
        )
        counts = json.loads(per_product.content[0].text)
        assert sorted(c["count"] for c in counts) == [400] * 5, counts
        print(f"tickets per product: {counts}")
    print("python-mcp-server: ok")


if __name__ == "__main__":
    asyncio.run(main())
