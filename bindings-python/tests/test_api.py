"""The Python API: offload, fast path, config sources, events, estimator, extract, cleanup, intercept."""

from __future__ import annotations

import json
import os
import pickle
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest
from mif import memories

import lro


def test_small_result_is_inline_and_projected_to_light(config: lro.Config) -> None:
    out = lro.offload(memories(2), config=config)
    assert out["offloaded"] is False and out["count"] == 2
    assert set(out["results"][0]) == {"id", "memory_type", "title", "namespace", "tags", "status", "created", "modified"}


def test_large_result_is_offloaded_with_descriptor(config: lro.Config, out_dir: str) -> None:
    out = lro.offload(memories(200), "search", detail="full", query="cache", scores=[0.2, 0.9], config=config)
    assert out["offloaded"] is True
    assert out["file_path"].startswith(out_dir + os.sep) and "atlatl-search-" in out["file_path"]
    assert out["summary"]["count"] == 200 and out["summary"]["score_range"] == [0.2, 0.9]
    assert len(out["jq_recipes"]) == 10
    header = json.loads(Path(out["file_path"]).read_text(encoding="utf-8").split("\n")[0])
    assert header["query"] == "cache" and header["detail"] == "full"


@pytest.mark.parametrize("encode", [lambda r: json.dumps(r), lambda r: json.dumps(r).encode(), lambda r: bytearray(json.dumps(r).encode())])
def test_fast_path_gives_the_same_file(encode: Any, tmp_path: Path) -> None:
    records = memories(300)
    files = []
    for name, arg in (("objects", records), ("json", encode(records))):
        d = tmp_path / name
        d.mkdir()
        out = lro.offload(arg, config={"output_dir": str(d)})
        lines = Path(out["file_path"]).read_text(encoding="utf-8").split("\n")
        files.append(lines[1:])
    assert files[0] == files[1]


def test_plain_text_goes_as_its_json_encoding(config: lro.Config) -> None:
    out = lro.offload(json.dumps("line one\nline two"), config=config)
    assert out["results"] == "line one\nline two" and out["count"] == 2


def test_config_sources(tmp_path: Path) -> None:
    toml = "[prompt.offload]\nthreshold_tokens = 10\n[prompt.offload.extract]\ntimeout_ms = 5\n"
    path = tmp_path / "lro.toml"
    path.write_text(toml)
    assert lro.Config.from_toml(toml) == lro.Config.from_toml(path) == lro.Config.from_toml(str(path))
    c = lro.Config.from_toml(path).with_env({"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "20", "HOME": "/x"})
    assert c.threshold_tokens == 20 and c.extract["timeout_ms"] == 5
    assert lro.Config.from_env({"ATLATL_PROMPT__OFFLOAD__ENABLED": "false"}).enabled is False
    k = lro.Config(threshold_tokens=5, output_dir=tmp_path, extract={"max_output_records": 3}, guidance="native")
    assert k.output_dir == str(tmp_path) and k.guidance == "native" and k.extract["max_output_records"] == 3
    assert k.replace(ttl_seconds=7).ttl_seconds == 7 and k.ttl_seconds == 3600
    assert k.to_dict()["threshold_tokens"] == 5
    assert "threshold_tokens=5" in repr(k)


def test_config_files_are_regular_files_and_misspelled_sections_warn(tmp_path: Path) -> None:
    # A FIFO, a device or a directory is refused at once (a FIFO used to block the open).
    fifo = tmp_path / "lro.fifo"
    os.mkfifo(fifo)
    for bad, says in [(fifo, "not a regular file"), (Path("/dev/zero"), "not a regular file"), (tmp_path, "is a directory")]:
        with pytest.raises(lro.ConfigError, match=says):
            lro.Config.from_toml(bad)
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as f:
        f.truncate(2 << 20)
    with pytest.raises(lro.ConfigError, match="larger than 1048576 bytes"):
        lro.Config.from_toml(huge)
    # `[Prompt.Offload]` is not `[prompt.offload]` (TOML is case-sensitive): ignored, with a warning.
    typo = tmp_path / "typo.toml"
    typo.write_text("[Prompt.Offload]\nthreshold_tokens = 10\n")
    with pytest.warns(UserWarning, match=r"\[Prompt\.Offload\] looks like \[prompt\.offload\]"):
        c = lro.Config.from_toml(typo)
    assert c.threshold_tokens == 1600
    with pytest.warns(UserWarning, match=r"\[prompt\.ofload\]"):
        lro.Config.from_toml("[prompt.ofload]\nenabled = false\n")


def test_events_and_estimator(out_dir: str) -> None:
    events: List[Dict[str, Any]] = []
    offloader = lro.Offloader({"output_dir": out_dir, "ttl_seconds": 0}, on_event=events.append, estimator=lambda t: 10**6)
    out = offloader.offload([{"id": "a", "namespace": "n"}])
    assert out["offloaded"] and out["summary"]["estimated_tokens"] == 10**6
    assert events[0]["event"] == "OffloadCreated" and events[0]["file_path"] == out["file_path"]
    report = offloader.cleanup()
    assert [r["file_path"] for r in report["removed"]] == [out["file_path"]]
    assert events[-1]["event"] == "OffloadFileExpired"


def test_failing_callbacks_do_not_fail_the_call(out_dir: str) -> None:
    def boom(_: Any) -> int:
        raise RuntimeError("callback bug")

    seen: List[Any] = []
    old = __import__("sys").unraisablehook
    __import__("sys").unraisablehook = seen.append
    try:
        out = lro.Offloader({"output_dir": out_dir}, on_event=boom, estimator=boom).offload(memories(100))
    finally:
        __import__("sys").unraisablehook = old
    assert out["offloaded"] and len(seen) >= 2


def test_write_failure_falls_back_inline(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("")
    events: List[Dict[str, Any]] = []
    out = lro.offload(memories(100), config={"output_dir": str(blocked / "sub")}, on_event=events.append)
    assert out["offloaded"] is False and out["truncated"] is True and out["total_count"] == 100
    assert events[0]["event"] == "OffloadWriteFailed"


def test_extract_verbs(config: lro.Config) -> None:
    path = lro.offload(memories(50), config=config)["file_path"]
    assert lro.extract(path, recipe=2, params={"namespace": "_episodic"}, config=config)["count"] == 10
    assert lro.extract(path, query=".id", config=config)["results"][:2] == ["mem-00000", "mem-00001"]
    assert lro.extract(path, config=config, lines={"start": 1, "end": 3})["count"] == 2
    assert lro.extract(Path(path), config=config, search={"pattern": "Decision 4\\b"})["count"] == 1


def test_intercept_tool_result(config: lro.Config) -> None:
    result = {"content": [{"type": "text", "text": json.dumps(memories(100))}], "isError": False}
    out = lro.intercept_tool_result(result, "recall_memories", arguments={"detail": "medium"}, config=config)
    assert out["action"] == "offloaded" and out["response"]["summary"]["detail"] == "medium"
    # One text block, the descriptor; no structuredContent unless mcp.structured_content.
    assert "structuredContent" not in out["result"] and out["result"]["isError"] is False
    assert json.loads(out["result"]["content"][0]["text"]) == out["response"]
    both = lro.intercept_tool_result(
        result, "recall_memories", extract_tool="lro_extract_mem",
        config=config.replace(guidance="native", mcp={"structured_content": True, "resource_link": True}),
    )
    assert both["result"]["structuredContent"]["extract_tool"] == "lro_extract_mem"
    assert [b["type"] for b in both["result"]["content"]] == ["text", "resource_link"]
    never = config.replace(mcp={"never_offload": ["recall_memories"]})
    assert lro.intercept_tool_result(result, "recall_memories", config=never)["action"] == "bypassed"
    assert lro.extract_tool_for_server("Memory Server") == "lro_extract_memory_server"
    assert lro.extract_tool_for_server(None) == "lro_extract"
    assert config.replace(mcp={"never_offload": "a, b"}).mcp["never_offload"] == ["a", "b"]
    with pytest.raises(lro.ConfigError, match="extract_tool_name"):
        lro.Config(mcp={"extract_tool_name": "lro-extract"})
    assert lro.intercept_tool_result(result, "x", client_is_proxy=True, config=config)["action"] == "bypassed"


def test_threads_share_one_offloader(out_dir: str) -> None:
    offloader = lro.Offloader({"output_dir": out_dir})
    paths: List[str] = []
    threads = [threading.Thread(target=lambda: paths.append(offloader.offload(memories(100))["file_path"])) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(paths)) == 8 and sorted(os.listdir(out_dir)) == sorted(os.path.basename(p) for p in paths)


def test_helpers() -> None:
    assert lro.operation_for_tool("recall_memories") == "recall"
    assert lro.estimate_tokens("abcdefgh") == 2
    assert lro.DEFAULT_THRESHOLD_TOKENS == 1600 and lro.__version__


def test_errors_pickle() -> None:
    err = lro.PathError("nope", "not_found")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is lro.PathError and back.code == "not_found" and str(back) == "nope"


def offload_both_ways(records: Any, config: lro.Config) -> List[Any]:
    """`lro.offload` of Python objects and of their `json.dumps` text, with results or errors."""
    outs: List[Any] = []
    for arg in (records, json.dumps(records)):
        try:
            outs.append(lro.offload(arg, "list_things", config=config))
        except lro.LroError as err:
            outs.append(err.code)
    return outs


@pytest.mark.parametrize(
    "records",
    [
        # int and str keys that collide: JSON keeps the last value, at the first key's place.
        [{1: "int", "a": 0, "1": "str"}, {"b": {None: 1, "null": 2, True: 3}}],
        [{"x": [1.5, -0.0, 1e300, 2**63, -(2**63), "é\u2028\x00"]}],
        # Nesting at serde_json's limit (127 containers) and one past it.
        [json.loads("[" * 126 + "]" * 126)],
        [json.loads("[" * 127 + "]" * 127)],
    ],
)
def test_objects_and_their_json_text_agree(records: Any, config: lro.Config) -> None:
    by_object, by_text = offload_both_ways(records, config)
    assert by_object == by_text


def test_keys_that_collide_are_said_not_merged_silently(config: lro.Config) -> None:
    # JSON text naming a key twice, and dicts whose keys collide as JSON: the last value is
    # kept, the header counts them and the descriptor warns.
    rows = [{"id": i, 1: "int", "1": f"str {i}"} for i in range(300)]
    for records in (rows, json.dumps(rows), {"rows": rows}):
        response = lro.offload(records, "rows", config=config)
        assert response["offloaded"] and response["warning"].startswith("300 duplicate key"), response
        with open(response["file_path"], encoding="utf-8") as f:
            header = json.loads(f.readline())
            first = json.loads(f.readline())
        assert header["duplicate_keys"] == 300 and first == {"id": 0, "1": "str 0"}


def test_offload_files_are_mcp_resources(config: lro.Config, out_dir: str) -> None:
    response = lro.offload(memories(300), config=config)
    name = Path(response["file_path"]).name
    uri = lro.RESOURCE_URI_PREFIX + name
    assert lro.resource_link(response["file_path"]) == {
        "type": "resource_link", "uri": uri, "name": name, "mimeType": lro.RESOURCE_MIME_TYPE}
    page = lro.list_resources(config=config)
    assert [r["uri"] for r in page["resources"]] == [uri] and "nextCursor" not in page
    assert page["resources"][0]["size"] == os.path.getsize(response["file_path"])
    text = Path(response["file_path"]).read_text(encoding="utf-8")
    assert lro.read_resource(uri, config=config)["contents"][0]["text"] == text
    assert lro.read_resource(uri + "/records", config=config)["contents"][0]["text"] == text.split("\n", 1)[1]
    assert lro.extract(uri, count=True, config=config)["results"] == [300]
    assert [t["uriTemplate"] for t in lro.RESOURCE_TEMPLATES] == ["lro://offloads/{file}", "lro://offloads/{file}/records"]
    with pytest.raises(lro.PathError) as denied:
        lro.read_resource("lro://offloads/../../etc/passwd", config=config)
    assert lro.resource_error_code(denied.value.code) == -32602
    with pytest.raises(lro.PathError) as missing:
        lro.read_resource(lro.RESOURCE_URI_PREFIX + name.replace("recall", "search"), config=config)
    assert (missing.value.code, lro.resource_error_code(missing.value.code)) == ("not_found", -32002)
    with pytest.raises(lro.LroError) as bad_cursor:
        lro.list_resources("nope", config=config)
    assert bad_cursor.value.code == "invalid_argument"


def test_the_extract_tool_definition_in_both_forms() -> None:
    short, long = lro.extract_tool_definition(), lro.extract_tool_definition("long")
    assert short == {"description": lro.EXTRACT_TOOL_DESCRIPTION, "inputSchema": lro.EXTRACT_TOOL_INPUT_SCHEMA}
    assert set(short["inputSchema"]["properties"]) < set(long["inputSchema"]["properties"])
    assert all("description" not in p for p in short["inputSchema"]["properties"].values())
    assert lro.estimate_tokens(json.dumps(short, separators=(",", ":"))) <= 400
    assert lro.estimate_tokens(json.dumps(long, separators=(",", ":"))) > 1200
    with pytest.raises(lro.ConfigError):
        lro.extract_tool_definition("tiny")
