"""Numbers keep their digits: in the file and through extraction ("nothing lost")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

import lro

BIG = 123456789012345678901234567890
NEG = -9223372036854775809
DECIMAL = "3.14159265358979323846264338327950288"


def records(n: int) -> List[Dict[str, Any]]:
    return [{"id": i, "big": BIG, "neg": NEG, "name": f"record {i}"} for i in range(n)]


def text_with_decimal(n: int) -> str:
    # A decimal no double holds: only JSON text can carry it.
    return json.dumps(records(n)).replace(f'"name": "record {n - 1}"', f'"name": "record {n - 1}", "dec": {DECIMAL}')


def last_line(path: str) -> str:
    return Path(path).read_text(encoding="utf-8").rstrip("\n").split("\n")[-1]


@pytest.mark.parametrize("as_text", [False, True])
def test_a_big_integer_survives_offload_and_extract(config: lro.Config, as_text: bool) -> None:
    rows = records(300)
    out = lro.offload(json.dumps(rows) if as_text else rows, config=config)
    assert out["offloaded"] is True and out["summary"]["count"] == 300
    assert f'"big":{BIG},"neg":{NEG}' in last_line(out["file_path"])
    got = lro.extract(out["file_path"], query=".big", config=config)["results"]
    # A Python int, exactly (not a float, not a dict of serde_json's private key).
    assert got[:2] == [BIG, BIG] and type(got[0]) is int
    assert lro.extract(out["file_path"], query=".neg", config=config)["results"][0] == NEG


def test_a_long_decimal_keeps_its_digits_in_the_file(config: lro.Config) -> None:
    out = lro.offload(text_with_decimal(300), config=config)
    assert out["offloaded"] is True
    assert f'"dec":{DECIMAL}' in last_line(out["file_path"])
    # Through `tojson` the text is the file's: nothing rounded on the way.
    got = lro.extract(out["file_path"], query="select(.dec) | .dec | tojson", config=config)["results"]
    assert got == [DECIMAL]
    # As a Python value it is a float (the nearest double): the file keeps the digits.
    assert lro.extract(out["file_path"], query="select(.dec) | .dec", config=config)["results"] == [float(DECIMAL)]
