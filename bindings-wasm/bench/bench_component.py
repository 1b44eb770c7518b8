"""Offload of 200 full-detail memories: the WASI P2 component under wasmtime-py vs the native
core, the same call on the same JSON text (budget: component at most 3x native).

    bindings-wasm/.venv/bin/python bindings-wasm/bench/bench_component.py [COMPONENT.wasm] [N]

The native side is `lro-bench-native` (bench/native), built with the root workspace's release
settings by the rustup toolchain. The two sides run in alternating rounds, so that the load of
other work on the machine weighs on both alike; figures are medians (and minima) over all
rounds, after a warm-up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "component" / "host"))

from lro_wasmtime import LroComponent  # noqa: E402

COMPONENT = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parent / "component" / "dist" / "lro.component.wasm")
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 200
ROUNDS = 10
PER_ROUND = 20
WARM_UP = 20
TYPES = ["semantic", "episodic", "procedural"]
NAMESPACES = ["_semantic/decisions", "_episodic/sessions", "projects/atlas", "_procedural/runbooks"]


def memory(i: int) -> dict:
    """The core benchmark's memory (core/benches/offload.rs): about 160 tokens."""
    return {
        "id": f"mem-{i:06}",
        "memory_type": TYPES[i % 3],
        "title": f"Decision {i}: caching strategy for service {i % 17}",
        "content": f"We moved service {i % 17} to a write-through cache after incident {i}; p99 latency fell from 480 ms to 95 ms and the runbook was updated.",
        "created": "2026-03-14T09:26:53Z",
        "modified": "2026-10-01T12:00:00Z",
        "namespace": NAMESPACES[i % 4],
        "tags": ["architecture", "performance"],
        "status": "active",
        "summary": "write-through cache for latency",
        "provenance": {"confidence": 0.87, "trust_level": "verified", "source_type": "conversation", "agent": "claude"},
        "entities": [{"name": f"service-{i % 17}", "type": "service"}],
    }


def native_binary() -> str:
    target = ROOT / "target" / "wasm-native"  # apart from the wasm builds: no lock contention
    subprocess.run(
        ["cargo", "build", "--quiet", "--profile", "native-bench", "--manifest-path", str(ROOT / "Cargo.toml"), "-p", "lro-wasm-bench-native"],
        check=True,
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
    )
    return str(target / "native-bench" / "lro-bench-native")


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    records = json.dumps([memory(i) for i in range(COUNT)])
    directory = os.path.realpath(tempfile.mkdtemp(prefix="lro-bench-"))
    try:
        records_file = Path(directory, "records.json.in")
        records_file.write_text(records)
        out = Path(directory, "out")
        out.mkdir()
        native_bin = native_binary()
        start = time.perf_counter()
        lro = LroComponent(COMPONENT, preopens=[str(out)])
        load_ms = (time.perf_counter() - start) * 1000
        config = {"output_dir": str(out)}
        request = {"operation": "recall", "detail": "full"}

        def component_round(n: int) -> list[float]:
            times = []
            for _ in range(n):
                start = time.perf_counter()
                outcome = lro.offload_json(config, records, request)
                times.append((time.perf_counter() - start) * 1000)
                assert outcome["offloaded"] is True
                os.remove(outcome["file_path"])  # outside the timing, as natively
            return times

        def native_round(n: int) -> list[float]:
            run = subprocess.run([native_bin, str(records_file), str(out), str(n)], check=True, capture_output=True, text=True)
            return json.loads(run.stdout)["times_ms"]

        component_round(WARM_UP)
        times, native_times = [], []
        for _ in range(ROUNDS):
            native_times += native_round(PER_ROUND)
            times += component_round(PER_ROUND)
        native = {"median_ms": median(native_times), "min_ms": min(native_times)}
        component_ms = median(times)
        ratio = component_ms / native["median_ms"]
        print(f"offload of {COUNT} full memories ({len(records)} bytes of JSON), median of {ROUNDS * PER_ROUND} each, {ROUNDS} alternating rounds:")
        print(f"  native core (StdHost, in-process):     {native['median_ms']:.3f} ms  (min {native['min_ms']:.3f} ms)")
        print(f"  component under wasmtime-py:           {component_ms:.3f} ms  (min {min(times):.3f} ms)")
        print(f"  ratio component / native:              {ratio:.2f}x  (budget 3x; of the minima {min(times) / native['min_ms']:.2f}x)")
        print(f"  component compile + instantiate, once: {load_ms:.0f} ms")
        size = os.path.getsize(COMPONENT)
        print(f"  component size:                        {size} bytes ({size / 1048576:.2f} MiB, budget 2 MiB)")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
