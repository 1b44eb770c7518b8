"""Runs every conformance vector in tests/vectors/ against the WASI P2 component under
wasmtime-py, following tests/vectors/README.md (same normalisation as the native runner).

    bindings-wasm/.venv/bin/python bindings-wasm/tests/vectors_wasmtime.py [COMPONENT.wasm]

Each vector's fresh directory is preopened at its own path, so descriptors name real paths.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "component" / "host"))

from lro_wasmtime import LroComponent, LroError  # noqa: E402

VECTORS = Path(os.environ.get("LRO_VECTORS_DIR", HERE.parent.parent / "tests" / "vectors"))
COMPONENT = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parent / "component" / "dist" / "lro.component.wasm")
ULID = re.compile(r"(?<![A-Za-z0-9])[0-9A-HJKMNP-TV-Z]{26}")
VERBOSE = os.environ.get("LRO_VERBOSE") == "1"
TIMESTAMP = re.compile(r'("timestamp":")[^"]*"')


def normalise(value, directory: str):
    if isinstance(value, str):
        return ULID.sub("{ulid}", value.replace(directory, "{dir}"))
    if isinstance(value, list):
        return [normalise(v, directory) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            if key == "warning" and isinstance(v, str):
                out[key] = "{warning}"
            elif key == "age_seconds" and isinstance(v, (int, float)) and not isinstance(v, bool):
                out[key] = 0
            else:
                out[key] = normalise(v, directory)
        return out
    return value


def file_of(outcome):
    if isinstance(outcome, dict):
        if outcome.get("offloaded") is True:
            return outcome["file_path"]
        response = outcome.get("response")
        if isinstance(response, dict):
            return response.get("file_path")
    return None


def call(lro: LroComponent, vector: dict, config: dict, directory: str):
    kind, data, request = vector["call"], vector.get("input"), vector.get("request")
    if kind == "config_toml":
        return lro.config_from_toml(data), None
    if kind == "config_env":
        return lro.config_from_env(data), None
    if kind == "offload":
        outcome = lro.offload(config, data, request)
    elif kind == "offload_json":
        outcome = lro.offload_json(config, data, request)
    elif kind == "offload_inject":
        outcome = lro.offload_inject(config, data["formatted"], data["pre_budget"], request)
    elif kind == "intercept":
        outcome = lro.intercept_tool_result(config, data["result"], data.get("context"))
    elif kind == "cleanup":
        return lro.cleanup(config), None
    elif kind == "extract":
        offloaded = lro.offload(config, data, request)
        assert offloaded.get("offloaded") is True, "an extract vector must offload first"
        path = vector.get("extract_path")
        path = path.replace("{dir}", directory) if isinstance(path, str) else offloaded["file_path"]
        return lro.extract(config, path, vector["extract"]), None
    else:
        raise ValueError(f"unknown call {kind}")
    return outcome, file_of(outcome)


# `resources` and `handles` vectors pin the MCP resources and result handles of the native
# builds (the proxy and the Python and Node MCP helpers); the component exports no MCP functions.
NOT_EXPORTED = {"resources", "handles"}


def produce(lro: LroComponent, vector: dict) -> dict:
    directory = os.path.realpath(tempfile.mkdtemp(prefix="lro-wasmtime-vec-"))
    try:
        for name, content in (vector.get("setup") or {}).get("files", {}).items():
            Path(directory, name).write_text(content)
        config = dict(vector.get("config") or {})
        out_dir = config.get("output_dir")
        config["output_dir"] = out_dir.replace("{dir}", directory) if isinstance(out_dir, str) else directory
        lro.set_preopens([directory])
        try:
            outcome, file = call(lro, vector, config, directory)
        except LroError as err:
            return {"error": err.code}
        produced = {"outcome": normalise(outcome, directory)}
        if file:
            # Byte for byte, split as the native runner's `lines()` does.
            lines = Path(file).read_bytes().decode("utf-8").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            produced["jsonl"] = [TIMESTAMP.sub(r'\1{timestamp}"', l, count=1) if i == 0 else l for i, l in enumerate(lines)]
        if vector["call"] == "cleanup":
            produced["remaining"] = sorted(os.listdir(directory))
        return produced
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def check_profiles(lro: LroComponent) -> list[str]:
    """Beyond the vectors: a per-call pointer is exactly {offloaded, file_path, resource_uri,
    count, guidance}, and describe: true on its file gives the full descriptor (ten jq_recipes)."""
    directory = os.path.realpath(tempfile.mkdtemp(prefix="lro-wasmtime-profiles-"))
    try:
        lro.set_preopens([directory])
        config = {"output_dir": directory}
        records = [{"id": f"m{i}", "memory_type": "semantic", "namespace": "_semantic/decisions",
                    "title": f"Decision number {i} about caching and storage layout"} for i in range(200)]
        pointer = lro.offload(config, records, {"operation": "recall", "descriptor": "pointer"})
        problems = []
        uri = "lro://offloads/" + os.path.basename(pointer.get("file_path", ""))
        if (sorted(pointer) != ["count", "file_path", "guidance", "offloaded", "resource_uri"]
                or pointer["count"] != 200 or pointer["resource_uri"] != uri):
            problems.append(f"pointer descriptor: {pointer}")
        described = lro.extract(config, pointer["file_path"], {"describe": True})
        full = described["results"][0] if described.get("count") == 1 else {}
        if full.get("file_path") != pointer["file_path"] or len(full.get("jq_recipes", [])) != 10:
            problems.append(f"describe: {json.dumps(described)[:500]}")
        return problems
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def check_kept_engine(lro: LroComponent) -> list[str]:
    """Beyond the vectors: the engine the component keeps for a configuration it saw last
    (its output directory made and resolved once) still writes when the directory is removed
    between two calls, answers a different configuration with that one's directory, and does
    not keep an invalid configuration."""
    root = os.path.realpath(tempfile.mkdtemp(prefix="lro-wasmtime-kept-"))
    try:
        lro.set_preopens([root])
        records = [{"id": f"m{i}", "title": f"Decision number {i} about caching and storage layout"} for i in range(300)]
        first, second = os.path.join(root, "first"), os.path.join(root, "second")
        problems = []

        def written(config: dict, directory: str, what: str) -> None:
            try:
                outcome = lro.offload(config, records, {"operation": "recall"})
            except LroError as err:
                problems.append(f"{what}: {err.code} {err}")
                return
            path = outcome.get("file_path", "")
            if os.path.dirname(path) != directory or not os.path.isfile(path):
                problems.append(f"{what}: {path!r} is not a file in {directory}")

        written({"output_dir": first}, first, "first call")
        shutil.rmtree(first)
        written({"output_dir": first}, first, "same config, its directory removed in between")
        written({"output_dir": second}, second, "another config")
        for bad in ({"output_dir": first, "threshold_tokens": -1}, {"output_dir": first, "threshold_tokens": -1}):
            try:
                lro.offload(bad, records)
                problems.append(f"an invalid config was accepted: {bad}")
            except LroError as err:
                if err.code != "invalid_config":
                    problems.append(f"an invalid config gave {err.code}, not invalid_config")
        written({"output_dir": first}, first, "the first config again")
        return problems
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    paths = sorted(VECTORS.glob("*.json"))
    if len(paths) < 30:
        print(f"expected at least 30 vectors in {VECTORS}, found {len(paths)}")
        return 1
    lro = LroComponent(COMPONENT)
    failures = []
    skipped = 0
    for path in paths:
        vector = json.loads(path.read_text())
        if vector["call"] in NOT_EXPORTED:
            skipped += 1
            continue
        produced = produce(lro, vector)
        # The component has no BPE tokenizers: it must refuse them.
        expect = vector.get("expect_no_tokenizer") or vector["expect"]
        if produced != expect:
            failures.append(path.name)
            print(f"FAIL {path.name}\n--- expected\n{json.dumps(expect, indent=1)[:3000]}\n--- produced\n{json.dumps(produced, indent=1)[:3000]}")
        elif VERBOSE:
            print(f"ok   {path.name}")
    ran = len(paths) - skipped
    print(f"wasmtime-py {ran - len(failures)}/{ran} vectors pass ({skipped} of MCP resources left to the native builds)")
    problems = check_profiles(lro)
    for problem in problems:
        print(f"FAIL profiles: {problem}")
    print(f"wasmtime-py descriptor profiles: {'FAIL' if problems else 'ok'}")
    kept = check_kept_engine(lro)
    for problem in kept:
        print(f"FAIL kept engine: {problem}")
    print(f"wasmtime-py engine kept across calls: {'FAIL' if kept else 'ok'}")
    return 1 if failures or problems or kept else 0


if __name__ == "__main__":
    sys.exit(main())
