"""Benchmark: the memory `lro proxy` needs for one large tool result.

The official MCP Python client (`ClientSession` over `stdio_client`) calls a FastMCP stdio
server (servers/big_server.py) through `lro proxy`; the tool returns about MB megabytes of
records, in one of two shapes FastMCP gives:
- `dict` (big_records): one text block of JSON;
- `str` (big_text): the same text in one text block and again in
  `structuredContent: {"result": text}` (the SDK's shape for a tool returning `str`).
Figures: the size of the result's text and of the JSON-RPC message that carries it, the
proxy's peak resident memory (VmHWM) and its ratio to the message and to the result's text,
and the call's wall time. The proxy offloads the result; the check is that the client
receives the descriptor, and (--max-ratio) that the peak is at most that many times the
message.

Usage: python bench_proxy_memory.py --lro PATH [--mb 56] [--shape dict|str|both] [--max-ratio 3]
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


TOOLS = {"dict": "big_records", "str": "big_text"}


async def run(lro, mb, out, tool):
    params = StdioServerParameters(
        command=lro, args=["proxy", "--output-dir", out, "--", sys.executable, SERVER]
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            (proxy,) = children_named("lro")
            baseline = peak_rss_mb(proxy)
            start = time.perf_counter()
            result = await session.call_tool(tool, {"mb": mb})
            elapsed = time.perf_counter() - start
            peak = peak_rss_mb(proxy)
            descriptor = json.loads(result.content[0].text)
            assert descriptor and descriptor["offloaded"] is True, str(result)[:300]
            file_bytes = Path(descriptor["file_path"]).stat().st_size
    return baseline, peak, elapsed, descriptor, file_bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lro", required=True, help="the lro binary")
    parser.add_argument("--mb", type=int, default=56, help="size of the result, in MB of records")
    parser.add_argument("--shape", choices=["dict", "str", "both"], default="both",
                        help="the tool's return type, as FastMCP writes it")
    parser.add_argument("--max-ratio", type=float, default=None,
                        help="fail when the peak exceeds this many times the message (the result as JSON)")
    args = parser.parse_args()
    # The message's exact size: the same result the server builds, as FastMCP writes it.
    sys.path.insert(0, str(Path(SERVER).parent))
    import pydantic_core
    from big_server import big_records

    text = pydantic_core.to_json(big_records(args.mb), indent=2).decode()
    failed = []
    for shape in (["dict", "str"] if args.shape == "both" else [args.shape]):
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        if shape == "str":
            result["structuredContent"] = {"result": text}
        message_bytes = len(json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}, separators=(",", ":")))
        del result
        with tempfile.TemporaryDirectory() as out:
            baseline, peak, elapsed, descriptor, file_bytes = asyncio.run(
                run(args.lro, args.mb, out, TOOLS[shape]))
        figures = {
            "shape": shape,
            "result_text_mb": round(len(text) / 1e6, 1),
            "message_mb": round(message_bytes / 1e6, 1),
            "offload_file_mb": round(file_bytes / 1e6, 1),
            "records": descriptor["summary"]["count"],
            "proxy_rss_before_call_mb": round(baseline, 1),
            "proxy_peak_rss_mb": round(peak, 1),
            "peak_over_message": round(peak * 1024 * 1024 / message_bytes, 2),
            "peak_over_result_text": round(peak * 1024 * 1024 / len(text), 2),
            "call_seconds": round(elapsed, 2),
        }
        print(json.dumps(figures, indent=2))
        print(f"{shape}: {figures['message_mb']} MB message ({figures['result_text_mb']} MB of text): proxy "
              f"peak RSS {figures['proxy_peak_rss_mb']} MB, {figures['peak_over_message']}x the message, "
              f"{figures['peak_over_result_text']}x the text; call {elapsed:.2f} s")
        if args.max_ratio is not None and figures["peak_over_message"] > args.max_ratio:
            failed.append(f"{shape}: {figures['peak_over_message']}x the message > {args.max_ratio}x")
    if failed:
        sys.exit("peak memory above the bound: " + "; ".join(failed))


if __name__ == "__main__":
    main()
