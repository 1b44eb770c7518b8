"""The object walker: Python objects written as the same lines their JSON text gives, the
types users pass beside JSON's own, and containers changed while they are written."""

from __future__ import annotations

import dataclasses
import datetime
import json
import random
from pathlib import Path
from typing import Any, List

import pydantic
import pytest

import lro


def record_lines(records: Any, config: lro.Config) -> List[str]:
    """The record lines of the offload file of `records` (Full detail: nothing projected)."""
    out = lro.offload(records, "list_things", "full", config=config)
    assert out["offloaded"] is True, out
    return Path(out["file_path"]).read_text(encoding="utf-8").splitlines()[1:]


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 2**63 - 1, -(2**63), 2**64, -(2**70), rng.randrange(-(10**6), 10**6)])
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.5, 1e300, 5e-324, 1e22, 0.1, rng.random()])
    if kind in (3, 4, 5):
        # Strings made at run time (not interned), escapes and non-ASCII among them.
        return "".join(rng.choice(["a", "é", "\u2028", '"', "\\", "\n", "\x00", "東", "😀", " "]) for _ in range(rng.randrange(12)))
    if kind == 6:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return tuple(random_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    # Keys from a small pool (repeated across records, as records repeat them) and fresh ones.
    return {rng.choice(["id", "name", f"k{rng.randrange(200)}", "ключ"]) + str(rng.randrange(3)): random_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def test_objects_write_the_lines_their_json_text_gives(config: lro.Config) -> None:
    rng = random.Random(33)
    # Enough distinct keys to pass the key cache's slots and its bound on keys held.
    records = [{f"field{rng.randrange(3000)}": random_value(rng, 0), "id": i, "v": random_value(rng, 0)} for i in range(2000)]
    assert record_lines(records, config) == record_lines(json.dumps(records), config)


def test_repeated_key_objects_stay_exact(config: lro.Config) -> None:
    # Keys built per record, so a freed key's address may come back as another key's.
    records = [{"".join(["k", str(i % 97)]): i, "".join(["k", str(i % 89)]): -i} for i in range(3000)]
    assert record_lines(records, config) == record_lines(json.dumps(records), config)


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str = "p"
    when: datetime.date = datetime.date(2025, 1, 2)
    unit: dataclasses.InitVar[str] = "m"

    def __post_init__(self, unit: str) -> None:
        self.note = unit  # an attribute, not a field: not written


class Memory(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    id: str
    created: datetime.datetime
    kind: str = pydantic.Field(alias="type")
    points: List[int] = []


def test_datetimes_dataclasses_and_pydantic_models(config: lro.Config) -> None:
    utc = datetime.timezone.utc
    when = datetime.datetime(2025, 1, 1, 12, 30, 5, 123, tzinfo=utc)
    model = Memory(id="m1", created=when, kind="semantic", points=[1, 2])
    records = [
        {"at": when, "day": datetime.date(2025, 3, 4), "time": datetime.time(8, 0), "naive": datetime.datetime(2025, 1, 1)},
        {"point": Point(1, 2.5), "points": [Point(3, -1.0, "q")]},
        {"model": model},
    ] * 200
    expected = [
        {"at": when.isoformat(), "day": "2025-03-04", "time": "08:00:00", "naive": "2025-01-01T00:00:00"},
        {
            "point": {"x": 1, "y": 2.5, "label": "p", "when": "2025-01-02"},
            "points": [{"x": 3, "y": -1.0, "label": "q", "when": "2025-01-02"}],
        },
        {"model": model.model_dump(mode="json")},
    ] * 200
    assert record_lines(records, config) == record_lines(json.dumps(expected), config)
    # A model as a record, not only inside one.
    assert record_lines([model] * 600, config) == record_lines(json.dumps([model.model_dump(mode="json")] * 600), config)


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (Point, "type is not JSON-serializable"),
        (complex(1, 2), "complex is not JSON-serializable"),
        ({1, 2}, "set is not JSON-serializable"),
    ],
)
def test_other_objects_are_input_errors(value: Any, needle: str, config: lro.Config) -> None:
    with pytest.raises(lro.InputError) as caught:
        lro.offload([{"id": 1, "x": value}], config=config)
    assert caught.value.code == "invalid_input" and f'records[0]["x"]: {needle}' in str(caught.value)


class Shrinking(int):
    """An int beyond 64 bits whose conversion (`__index__`, Python code) empties a container."""

    target: Any = None

    def __index__(self) -> int:
        self.target.clear()
        return int(self)


def test_a_dict_changed_while_written_is_an_input_error(config: lro.Config) -> None:
    value = Shrinking(2**70)
    record = {"a": value, "b": "kept?", "c": [1, 2, 3]}
    value.target = record
    with pytest.raises(lro.InputError) as caught:
        lro.offload([record], config=config)
    assert "changed size during iteration" in str(caught.value)


def test_a_list_changed_while_written_ends_where_it_ends(config: lro.Config) -> None:
    value = Shrinking(2**70)
    items = [value, "gone", {"gone": True}]
    value.target = items
    lines = record_lines([{"items": items, "pad": "x" * 8000}], config)
    assert lines[0].startswith(f'{{"items":[{2**70}],')
