"""Parity: every conformance vector in tests/vectors gives the core's exact output.

Rules are those of tests/vectors/README.md. Calls that take records run twice: once with
Python objects and once with JSON bytes (the fast path); both must match the vector.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import lro

VECTOR_DIR = Path(__file__).resolve().parents[2] / "tests" / "vectors"
VECTORS = sorted(VECTOR_DIR.glob("*.json"))
# A ULID: 26 Crockford base32 characters, not part of a longer alphanumeric run.
ULID = re.compile(r"(?<![A-Za-z0-9])[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-HJKMNP-TV-Z])")
TIMESTAMP = re.compile(r'"timestamp":"[^"]*"')
# `resources` vectors: any ISO 8601 UTC timestamp in a string.
ISO_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")
RECORD_CALLS = {"offload", "offload_json", "extract", "offload_inject", "resources"}


def _cases() -> List[Tuple[Path, str]]:
    cases = []
    for path in VECTORS:
        call = json.loads(path.read_text(encoding="utf-8")).get("call")
        cases.append((path, "objects"))
        if call in RECORD_CALLS:
            cases.append((path, "json"))
    return cases


def test_vectors_are_present() -> None:
    # An empty directory must fail the suite, not skip it silently.
    assert VECTORS, f"no conformance vectors in {VECTOR_DIR}"


def normalise(value: Any, out_dir: str) -> Any:
    """README step 3: DIR -> {dir}, ULIDs -> {ulid}, `warning` -> {warning}, `age_seconds` -> 0."""
    if isinstance(value, dict):
        fixed = {"warning": "{warning}", "age_seconds": 0}
        return {k: fixed[k] if k in fixed else normalise(v, out_dir) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, out_dir) for v in value]
    if isinstance(value, str):
        return ULID.sub("{ulid}", value.replace(out_dir, "{dir}"))
    return value


def normalise_timestamps(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: normalise_timestamps(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise_timestamps(v) for v in value]
    if isinstance(value, str):
        return ISO_TIMESTAMP.sub("{timestamp}", value)
    return value


def records_arg(records: Any, mode: str) -> Any:
    """The records as objects, or as JSON bytes for the fast path.

    A bare string is text data: as a Python ``str`` it would be read as JSON text, so it
    always goes as its JSON encoding (the documented way to offload plain text).
    """
    if mode == "json" or isinstance(records, str):
        return json.dumps(records, ensure_ascii=False).encode("utf-8")
    return records


def prepare_dir(vector: Dict[str, Any], root: Path) -> str:
    """README step 1."""
    d = root / "out"
    d.mkdir()
    out_dir = os.path.realpath(d)
    for name, content in vector.get("setup", {}).get("files", {}).items():
        target = Path(out_dir) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return out_dir


def make_config(vector: Dict[str, Any], out_dir: str) -> lro.Config:
    settings = dict(vector.get("config") or {})
    settings["output_dir"] = settings["output_dir"].replace("{dir}", out_dir) if "output_dir" in settings else out_dir
    return lro.Config(**settings)


def run_call(vector: Dict[str, Any], out_dir: str, mode: str) -> Any:
    """README step 2: the call itself."""
    call = vector["call"]
    data = vector.get("input")
    request = dict(vector.get("request") or {})
    if call == "config_toml":
        return lro.Config.from_toml(data).to_dict()
    if call == "config_env":
        return lro.Config.from_env(data).to_dict()
    offloader = lro.Offloader(make_config(vector, out_dir))
    # Requests and contexts go whole, in their JSON form, so that the core checks them
    # (an unknown field is `invalid_argument`, as in every binding).
    if call == "offload":
        return offloader.offload(records_arg(data, mode), request=request)
    if call == "offload_json":
        return offloader.offload(data if mode == "objects" else data.encode("utf-8"), request=request)
    if call == "offload_inject":
        return offloader.offload_inject(data["formatted"], records_arg(data["pre_budget"], mode), request=request)
    if call == "intercept":
        return offloader.intercept_tool_result(data["result"], context=data["context"])
    if call == "cleanup":
        return offloader.cleanup()
    if call == "extract":
        offloaded = offloader.offload(records_arg(data, mode), request=request)
        assert offloaded["offloaded"], "an extract vector must offload first"
        path = vector.get("extract_path", "").replace("{dir}", out_dir) or offloaded["file_path"]
        return offloader.extract(path, **vector["extract"])
    if call == "resources":
        offloaded = offloader.offload(records_arg(data, mode), request=request)
        assert offloaded["offloaded"], "a resources vector must offload first"
        operation = {k: v.replace("{file}", Path(offloaded["file_path"]).name) if isinstance(v, str) else v
                     for k, v in vector["resources"].items()}
        method = operation["method"]
        if method == "list":
            return offloader.list_resources(operation.get("cursor"))
        if method == "read":
            return offloader.read_resource(operation["uri"])
        if method == "templates":
            return {"resourceTemplates": lro.RESOURCE_TEMPLATES}
        if method == "extract":
            return offloader.extract(operation["uri"], request=operation["extract"])
        raise AssertionError(f"unknown resources method {method!r}")
    if call == "handles":
        return resolve_handles(offloader, vector, data, request, out_dir)
    raise AssertionError(f"unknown call {call!r}")


def placed(value: Any, placeholders: Dict[str, str]) -> Any:
    """``value`` with each placeholder (``{uri}``, ...) replaced in every string."""
    if isinstance(value, str):
        for old, new in placeholders.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [placed(v, placeholders) for v in value]
    if isinstance(value, dict):
        return {k: placed(v, placeholders) for k, v in value.items()}
    return value


def resolve_handles(offloader: lro.Offloader, vector: Dict[str, Any], data: Any, request: Dict[str, Any], out_dir: str) -> Any:
    """``handles`` vectors: ``{"arguments": ...}`` (as given without a handle) or ``{"error", "path"}``."""
    offloaded = offloader.offload(records_arg(data, "objects"), request=request)
    assert offloaded["offloaded"], "a handles vector must offload first"
    written = offloaded["file_path"]
    uri = lro.RESOURCE_URI_PREFIX + Path(written).name
    arguments = placed(vector["handles"]["arguments"], {"{uri}": uri, "{path}": written, "{dir}": out_dir})
    resolved = offloader.resolve_tool_call(arguments)
    if resolved is None:
        return {"arguments": arguments}
    if "result" in resolved:
        assert resolved["result"]["isError"] is True
        return {"error": resolved["code"], "path": resolved["argument"]}
    return {"arguments": resolved["arguments"]}


def written_lines(out_dir: str, before: set) -> List[str]:
    """README step 4: the lines of the one file the call wrote, header timestamp normalised."""
    new = sorted(n for n in os.listdir(out_dir) if n not in before and n.endswith(".jsonl"))
    assert len(new) == 1, f"expected one written file, found {new}"
    text = (Path(out_dir) / new[0]).read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines:
        lines[0] = TIMESTAMP.sub('"timestamp":"{timestamp}"', lines[0], count=1)
    return lines


@pytest.mark.parametrize(("path", "mode"), _cases(), ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_vector(path: Path, mode: str, tmp_path: Path) -> None:
    vector = json.loads(path.read_text(encoding="utf-8"))
    expect = vector["expect"]
    out_dir = prepare_dir(vector, tmp_path)
    before = set(os.listdir(out_dir))
    if "error" in expect:
        with pytest.raises(lro.LroError) as caught:
            run_call(vector, out_dir, mode)
        assert caught.value.code == expect["error"], str(caught.value)
        assert type(caught.value) is lro.CODE_CLASSES[expect["error"]]
        return
    outcome = run_call(vector, out_dir, mode)
    if vector["call"] == "resources":
        outcome = normalise_timestamps(outcome)
    if "outcome" in expect:
        assert normalise(outcome, out_dir) == expect["outcome"]
    if "jsonl" in expect:
        assert written_lines(out_dir, before) == expect["jsonl"]
    if "remaining" in expect:
        assert sorted(os.listdir(out_dir)) == expect["remaining"]
