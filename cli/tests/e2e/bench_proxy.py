"""Benchmark: the latency `lro proxy` adds to a tool call, measured against the same trivial
stdio MCP server (servers/mock_server.py) called directly.

Two sessions run side by side, one direct and one through the proxy, and calls alternate
between them so both see the same machine load. Figures: median round trip of each, and the
median of the paired differences (what the proxy adds), for
  - a small inline call (echo), and
  - a 200-memory result, which the proxy offloads (JSONL file + descriptor).

Usage: python bench_proxy.py --lro PATH [--small N] [--large N]
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = [sys.executable, str(Path(__file__).resolve().parent / "servers" / "mock_server.py")]


class Session:
    def __init__(self, command):
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode() + b"\n"
        start = time.perf_counter_ns()
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        elapsed = time.perf_counter_ns() - start
        message = json.loads(answer)
        assert message.get("id") == self.next_id and "result" in message, answer[:300]
        return elapsed, message["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def measure(direct, proxied, tool, arguments, n, check):
    direct_ns, proxied_ns, diffs = [], [], []
    for i in range(n):
        d, _ = direct.call("tools/call", {"name": tool, "arguments": arguments})
        p, result = proxied.call("tools/call", {"name": tool, "arguments": arguments})
        if i == 0:
            check(result)
        direct_ns.append(d)
        proxied_ns.append(p)
        diffs.append(p - d)
    ms = lambda ns: ns / 1e6
    return {
        "calls": n,
        "direct_median_ms": round(ms(statistics.median(direct_ns)), 3),
        "proxied_median_ms": round(ms(statistics.median(proxied_ns)), 3),
        "added_median_ms": round(ms(statistics.median(diffs)), 3),
        "added_p90_ms": round(ms(sorted(diffs)[int(n * 0.9)]), 3),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lro", required=True, help="the lro binary")
    parser.add_argument("--small", type=int, default=2000, help="inline calls")
    parser.add_argument("--large", type=int, default=300, help="offloaded 200-memory calls")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        direct = Session(SERVER)
        proxied = Session([args.lro, "proxy", "--output-dir", out, "--", *SERVER])
        # Warm up both (page cache, allocator, Python's imports).
        measure(direct, proxied, "echo", {"text": "warm"}, 50, lambda r: None)

        def inline(result):
            assert result["content"][0]["text"] == "hello", result

        def offloaded(result):
            descriptor = json.loads(result["content"][0]["text"])
            assert descriptor["offloaded"] is True, str(result)[:300]
            assert descriptor["summary"]["count"] == 200

        figures = {
            "inline_echo": measure(direct, proxied, "echo", {"text": "hello"}, args.small, inline),
            "offloaded_200_memories": measure(direct, proxied, "memories", {"count": 200}, args.large, offloaded),
        }
        direct.close()
        proxied.close()
    print(json.dumps(figures, indent=2))
    for name, f in figures.items():
        print(f"{name}: direct {f['direct_median_ms']} ms, proxied {f['proxied_median_ms']} ms, "
              f"added median {f['added_median_ms']} ms (p90 {f['added_p90_ms']} ms) over {f['calls']} calls")


if __name__ == "__main__":
    main()
