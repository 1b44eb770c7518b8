"""Errors: every core code maps to one class with `.code`; bad input never crashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import lro


def test_every_code_has_its_class() -> None:
    assert set(lro.ERROR_CODES) == set(lro.CODE_CLASSES)
    for code in lro.ERROR_CODES:
        err = lro.error_for_code(code, "m")
        assert type(err) is lro.CODE_CLASSES[code] and err.code == code and str(err) == "m"
        assert isinstance(err, lro.LroError) and isinstance(err, ValueError)


def circular() -> Any:
    a: list = []
    a.append(a)
    return a


def deep(n: int) -> Any:
    v: Any = 1
    for _ in range(n):
        v = [v]
    return v


@pytest.mark.parametrize(
    ("records", "needle"),
    [
        (circular(), "nested deeper"),
        (deep(100_000), "nested deeper"),
        ([{"id": 1, "when": complex(1, 2)}], "[0][\"when\"]: complex"),
        ([{(1, 2): "tuple key"}], "keys must be"),
        ({1, 2}, "set is not JSON"),
        ("[{\"id\": 1,", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        ("\ud800", "surrogates not allowed"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ],
)
def test_bad_records_raise_input_error(records: Any, needle: str, config: lro.Config) -> None:
    with pytest.raises(lro.InputError) as caught:
        lro.offload(records, config=config)
    assert caught.value.code == "invalid_input" and needle in str(caught.value)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"detail": "huge"}, "invalid_detail"),
        ({"detail": 3}, "invalid_detail"),
        ({"operation": "../x"}, "invalid_operation"),
        ({"request": {"operation": "recall", "detial": "full"}}, "invalid_argument"),
    ],
)
def test_bad_requests(kwargs: Any, code: str, config: lro.Config) -> None:
    with pytest.raises(lro.LroError) as caught:
        lro.Offloader(config).offload([{"id": 1}], **kwargs)
    assert caught.value.code == code


@pytest.mark.parametrize(
    "kwargs",
    [{"threshold_tokens": "lots"}, {"threshold_tokens": -1}, {"enabled": "maybe"}, {"file_prefix": "../x"}, {"guidance": "loud"}],
)
def test_bad_config_values(kwargs: Any) -> None:
    with pytest.raises(lro.ConfigError) as caught:
        lro.Config(**kwargs)
    assert caught.value.code == "invalid_config"


def test_bad_config_sources(tmp_path: Path) -> None:
    with pytest.raises(lro.ConfigError):
        lro.Config.from_toml("[prompt.offload]\nthreshold = 3")
    with pytest.raises(lro.ConfigError):
        lro.Config.from_env({"ATLATL_PROMPT__OFFLOAD__TYPO": "1"})
    with pytest.raises(lro.PathError) as caught:
        lro.Config.from_toml(tmp_path / "missing.toml")
    assert caught.value.code == "not_found"
    with pytest.raises(lro.ConfigError):
        lro.offload([], config=42)  # type: ignore[arg-type]


def test_extraction_errors(config: lro.Config, out_dir: str) -> None:
    from mif import memories

    path = lro.offload(memories(50), config=config)["file_path"]
    cases = [
        (dict(recipe=1, query="."), "invalid_argument"),
        (dict(), "invalid_argument"),
        (dict(recipe=99), "invalid_argument"),
        (dict(recipe=300), "invalid_argument"),
        (dict(query=".title | ascii_downcase("), "invalid_query"),
        (dict(query="error(\"boom\")"), "query_failed"),
    ]
    for kwargs, code in cases:
        with pytest.raises(lro.ExtractionError) as caught:
            lro.extract(path, config=config, **kwargs)
        assert caught.value.code == code, kwargs
    # Arguments of the wrong type reach the core, which refuses them with its code, as the
    # JS builds do; `dict()` in the wrapper raised a bare ValueError or TypeError for these.
    wrong_types: list[dict[str, Any]] = [
        dict(lines="0:2"),
        dict(lines=5),
        dict(search="x"),
        dict(params="x"),
        dict(sort=5),
    ]
    for kwargs in wrong_types:
        with pytest.raises(lro.ExtractionError) as caught:
            lro.extract(path, config=config, **kwargs)
        assert caught.value.code == "invalid_argument", kwargs
    with pytest.raises(lro.PathError) as denied:
        lro.extract("/etc/passwd", recipe=1, config=config)
    assert denied.value.code == "path_denied"
    with pytest.raises(lro.PathError) as missing:
        lro.extract(path.replace("atlatl-", "atlatl-") + ".gone", recipe=1, config=config)
    assert missing.value.code in ("not_found", "path_denied")


def test_mappings_of_the_wrong_type_get_the_cores_code(config: lro.Config) -> None:
    """The module's functions pass what is not a mapping on to the core, which names it."""
    with pytest.raises(lro.LroError) as caught:
        lro.offload([{"id": 1}], config=config, request="recall")  # type: ignore[arg-type]
    assert caught.value.code == "invalid_argument"
    wire = {"content": [{"type": "text", "text": "x"}]}
    for kwargs in [dict(context="x"), dict(rule=3)]:
        with pytest.raises(lro.LroError) as caught:
            lro.intercept_tool_result(wire, "t", config=config, **kwargs)  # type: ignore[arg-type]
        assert caught.value.code == "invalid_argument", kwargs


def test_deep_jq_output_does_not_crash(config: lro.Config) -> None:
    path = lro.offload([{"k": i, "pad": "x" * 80} for i in range(100)], config=config)["file_path"]
    try:
        out = lro.extract(path, query="reduce range(5000) as $i (0; [.])", config=config)
        assert out["count"] >= 0
    except lro.LroError:
        pass
