"""Hostile filters: ``lro.extract`` raises ``resource_limit`` for a value nested too
deep and for a filter past the memory bound, and the process goes on to the next call."""

from __future__ import annotations

import pytest

import lro

DEEP = [
    "first(reduce range(100000) as $i (0;[.]))",
    "reduce range(100000) as $i (0;[.]) | tojson | length",
    '("<a>"*20000)|fromxml',
]
MEMORY = ["[1]|until(length>1e10;.+.)", '"x"|until(length>1e10;.+.)', '"x" * 1e10 | length']
# Values many times their input, built in one step: sized before they are built.
ONE_STEP = [
    '"\\u0001" * 20000000 | tojson | length',
    '"x" * 5000000 | "' + "\\(.)" * 15 + '" | length',
    '0 | strftime("%c" * 10000000) | length',
    '[range(100000)] | join("x" * 1000) | length',
]
# Flat chains past the filter's depth bound: refused before they are parsed.
FLAT = [".|" * 3000 + ".", "1," * 3000 + "1", "1+" * 3000 + "1"]


@pytest.mark.parametrize("query", DEEP + MEMORY + ONE_STEP)
def test_bounds_are_resource_limit_and_the_process_goes_on(out_dir: str, query: str) -> None:
    config = lro.Config(
        output_dir=out_dir, threshold_tokens=10, extract={"max_memory_bytes": 64 << 20}
    )
    assert config.extract["max_memory_bytes"] == 64 << 20
    path = lro.offload([{"id": f"m{i}", "title": f"t{i}"} for i in range(50)], config=config)[
        "file_path"
    ]
    with pytest.raises(lro.ExtractionError) as caught:
        lro.extract(path, query=query, config=config)
    assert caught.value.code == "resource_limit", caught.value
    assert lro.extract(path, query=".id", config=config)["count"] == 50


@pytest.mark.parametrize("query", FLAT)
def test_flat_chains_are_refused_and_the_process_goes_on(out_dir: str, query: str) -> None:
    config = lro.Config(output_dir=out_dir, threshold_tokens=10)
    path = lro.offload([{"id": i} for i in range(50)], config=config)["file_path"]
    with pytest.raises(lro.LroError) as caught:
        lro.extract(path, query=query, config=config)
    assert caught.value.code == "invalid_query", caught.value
    assert "too deep" in str(caught.value)
    assert lro.extract(path, query=".id", config=config)["count"] == 50


def test_resource_limit_is_a_listed_code() -> None:
    assert "resource_limit" in lro.ERROR_CODES
    assert lro.CODE_CLASSES["resource_limit"] is lro.ExtractionError
