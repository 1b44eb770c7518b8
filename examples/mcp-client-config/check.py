"""Checks the client configurations in this folder the way a client uses them: for every
server entry, starts `command` with `args` and `env` (the official `mcp` client over stdio),
initializes, and lists the tools: the server's own and LRO's extract tool (named after the
server, `lro_extract_<server name>`) must be there.
`lro` must be on PATH (`cargo install --path cli`, or the release binary). Exits non-zero
when a server does not start or lacks a tool.

    python check.py claude-code.mcp.json cursor.mcp.json
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# A tool each server of these files must list, besides LRO's extract tool.
EXPECTED = {"memory": "read_graph", "filesystem": "directory_tree"}


async def check(name: str, entry: dict) -> None:
    params = StdioServerParameters(
        command=entry["command"], args=entry.get("args", []), env={**os.environ, **entry.get("env", {})}
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await asyncio.wait_for(session.initialize(), timeout=120)
        tools = {tool.name for tool in (await session.list_tools()).tools}
    server = getattr(init, "server_info", None) or init.serverInfo  # mcp 2.x, 1.x
    extract = "lro_extract_" + "_".join("".join(c if c.isascii() and c.isalnum() else " " for c in server.name.lower()).split())
    missing = {extract, EXPECTED.get(name, extract)} - tools
    assert not missing, f"{name}: {sorted(missing)} not listed (got {sorted(tools)})"
    print(f"{name}: {server.name} through lro proxy, {len(tools)} tools including {extract}")


async def main(paths: list[str]) -> None:
    for path in paths:
        servers = json.loads(Path(path).read_text())["mcpServers"]
        for name, entry in servers.items():
            await check(name, entry)
    print("mcp-client-config: ok")


if __name__ == "__main__":
    here = Path(__file__).parent
    asyncio.run(main(sys.argv[1:] or [str(here / "claude-code.mcp.json"), str(here / "cursor.mcp.json")]))
