"""The extract tool's answers through the Python binding: the core's, as `lro proxy` and the
Node helper give them (`mcp/tests/extract_tool.rs` pins the same cases in Rust)."""

from __future__ import annotations

import json
from typing import Any, Dict

import lro


def entities() -> str:
    records = [
        {
            "name": f"entity-{i}",
            "entityType": "person" if i % 3 == 0 else "place",
            "observations": [f"observation {i} about something worth remembering"],
        }
        for i in range(400)
    ]
    return json.dumps({"entities": records})


def offload_text(offloader: lro.Offloader, text: str) -> str:
    result = {"content": [{"type": "text", "text": text}]}
    intercepted = offloader.intercept_tool_result(result, "echo")
    assert intercepted["action"] == "offloaded"
    return str(intercepted["response"]["file_path"])


def answer(offloader: lro.Offloader, arguments: Dict[str, Any]) -> str:
    result = offloader.extract_tool_call(arguments)
    assert result["isError"] is False, result
    assert "structuredContent" not in result and len(result["content"]) == 1
    return str(result["content"][0]["text"])


def test_a_count_is_the_bare_number(config: lro.Config) -> None:
    offloader = lro.Offloader(config)
    path = offload_text(offloader, entities())
    assert answer(offloader, {"file_path": path, "where": '{"entityType": "person"}', "count": True}) == "134\n"
    # Strict-mode clients send every argument, null when unused; the old object forms still work.
    every = {name: None for name in lro.EXTRACT_TOOL_INPUT_SCHEMA["properties"]}
    assert answer(offloader, {**every, "file_path": path, "count": True}) == "400\n"
    assert answer(offloader, {"file_path": path, "where": {"entityType": "person"}, "count": True}) == "134\n"
    explained = answer(offloader, {"file_path": path, "group_by": "entityType", "explain": True}).splitlines()
    assert json.loads(explained[0]) == [{"entityType": "place", "count": 266}, {"entityType": "person", "count": 134}]
    assert explained[1].startswith("equivalent jq: ")


def test_answers_are_bounded_with_the_next_call_named(config: lro.Config) -> None:
    offloader = lro.Offloader(config)
    path = offload_text(offloader, entities())
    text = answer(offloader, {"file_path": path, "where": "{}"})
    assert len(text.encode()) <= 16384
    assert 'of 400 results' in text.splitlines()[-1] and '"skip":' in text.splitlines()[-1]
    echo = offload_text(offloader, "Echo: " + " ".join(f"word{i}" for i in range(8000)))
    for arguments in ({"lines": "0:1"}, {"lines": {"start": 0, "end": 1}}, {"search": "word7999"}, {"recipe": 1}):
        text = answer(offloader, {"file_path": echo, **arguments})
        assert len(text.encode()) <= 16384, arguments
    assert '"chars":"' in answer(offloader, {"file_path": echo, "lines": "0:1"}).splitlines()[-1]
    small = lro.Offloader(config.replace(extract={"answer_max_bytes": 1000}))
    assert len(answer(small, {"file_path": path, "lines": "0:100"}).encode()) <= 1000


def test_errors_are_results_naming_their_code(config: lro.Config) -> None:
    offloader = lro.Offloader(config)
    result = offloader.extract_tool_call({"file_path": "/etc/passwd", "recipe": 1})
    assert result["isError"] is True and result["content"][0]["text"].startswith("error[path_denied]: ")
    assert offloader.extract_tool_call(None)["content"][0]["text"].startswith("error[invalid_argument]: ")
