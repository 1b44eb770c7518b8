"""Figures: what an MCP client receives from each real server's large call through
`lro proxy`, and how many records the offload file holds (a before/after table).

The calls are the end-to-end tests' (real_servers.py). For each: the UTF-8 bytes of every
content block's text plus the compact JSON of structuredContent, its estimated tokens
(ceil(chars / 4)), the budget's estimate (non-ASCII chars count one token each), and the
record lines after the header of the offload file. The first column is the same call made
straight to the server, without the proxy. The last column is the length of the file's path,
which every recipe repeats: the core reckons its budget with a 64-byte path (ARCHITECTURE.md,
"The descriptor's budget"), so a longer one adds its extra bytes a dozen times.

Usage: python measure_real_servers.py --lro PATH [--guidance shell|native] [SCENARIO...]
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lro", required=True, help="the lro binary")
    parser.add_argument("--guidance", default="native", choices=["shell", "native"],
                        help="the proxy's guidance template (native, its default, or shell)")
    parser.add_argument("scenarios", nargs="*", help="memory, filesystem, sqlite, duckdb, git (default: all)")
    args = parser.parse_args()
    os.environ["LRO_BIN"] = args.lro
    from offload_checks import OffloadFile, ResponseFigures
    from real_servers import offloaded_descriptor, SCENARIOS

    print(f"guidance: {args.guidance}")
    print("| server and call | without LRO, bytes | response bytes | est. tokens (chars/4) | budget estimate | records in the file | file path bytes |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.scenarios or SCENARIOS:
        with tempfile.TemporaryDirectory(prefix="lro-") as tmp:
            direct, proxied = Path(tmp) / "d", Path(tmp) / "p"
            direct.mkdir()
            proxied.mkdir()
            raw = ResponseFigures.of(SCENARIOS[name](direct).run(direct, direct=True).result)
            scenario = SCENARIOS[name](proxied)
            run = scenario.run(Path(tmp) / "o", guidance=args.guidance)
            figures = ResponseFigures.of(run.result)
            descriptor = offloaded_descriptor(run.result)
            if descriptor.get("offloaded") is True:
                records = len(OffloadFile.read(descriptor["file_path"]).records)
                path_bytes = len(descriptor["file_path"].encode())
            else:
                records, path_bytes = "inline", "-"
            print(f"| {scenario.title} | {raw.utf8_bytes:,} | {figures.utf8_bytes:,} | {figures.tokens:,} | {figures.budget_tokens:,} | {records} | {path_bytes} |",
                  flush=True)


if __name__ == "__main__":
    main()
