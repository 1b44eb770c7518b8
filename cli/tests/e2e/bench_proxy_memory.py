"""Benchmark: the memory `lro proxy` needs for one large tool result.

The official MCP Python client (`ClientSession` over `stdio_client`) calls a FastMCP stdio
server (servers/big_server.py) through `lro proxy`; the tool returns about MB megabytes of
records (a dict: one text block of JSON, as FastMCP writes it). Figures: the size of the
result's text and of the JSON-RPC message that carries it, the proxy's peak resident memory
(VmHWM) and its ratio to the message, and the call's wall time. The proxy offloads the
result; the check is that the client receives the descriptor.

Usage: python bench_proxy_memory.py --lro PATH [--mb 56]
"""

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SERVER = str(Path(__file__).resolve().parent / "servers" / "big_server.py")


def children_named(name):
    """Processes whose parent is this one and whose command is `name`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == os.getpid() and comm == name:
            found.append(int(entry))
    return found


def peak_rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


async def run(lro, mb, out):
    params = StdioServerParameters(
        command=lro, args=["proxy", "--output-dir", out, "--", sys.executable, SERVER]
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            (proxy,) = children_named("lro")
            baseline = peak_rss_mb(proxy)
            start = time.perf_counter()
            result = await session.call_tool("big_records", {"mb": mb})
            elapsed = time.perf_counter() - start
            peak = peak_rss_mb(proxy)
            descriptor = result.structuredContent
            assert descriptor and descriptor["offloaded"] is True, str(result)[:300]
            file_bytes = Path(descriptor["file_path"]).stat().st_size
    return baseline, peak, elapsed, descriptor, file_bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lro", required=True, help="the lro binary")
    parser.add_argument("--mb", type=int, default=56, help="size of the result, in MB of records")
    args = parser.parse_args()
    # The message's exact size: the same result the server builds, as FastMCP writes it.
    sys.path.insert(0, str(Path(SERVER).parent))
    import pydantic_core
    from big_server import big_records

    text = pydantic_core.to_json(big_records(args.mb), indent=2).decode()
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
        "content": [{"type": "text", "text": text}], "isError": False}}, separators=(",", ":"))
    with tempfile.TemporaryDirectory() as out:
        baseline, peak, elapsed, descriptor, file_bytes = asyncio.run(run(args.lro, args.mb, out))
    figures = {
        "result_text_mb": round(len(text) / 1e6, 1),
        "message_mb": round(len(message) / 1e6, 1),
        "offload_file_mb": round(file_bytes / 1e6, 1),
        "records": descriptor["summary"]["count"],
        "proxy_rss_before_call_mb": round(baseline, 1),
        "proxy_peak_rss_mb": round(peak, 1),
        "peak_over_message": round(peak * 1024 * 1024 / len(message), 2),
        "call_seconds": round(elapsed, 2),
    }
    print(json.dumps(figures, indent=2))
    print(f"{figures['message_mb']} MB message ({figures['result_text_mb']} MB of text): proxy peak RSS "
          f"{figures['proxy_peak_rss_mb']} MB, {figures['peak_over_message']}x the message; call {elapsed:.2f} s")


if __name__ == "__main__":
    main()
