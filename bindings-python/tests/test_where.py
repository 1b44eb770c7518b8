"""Structured queries through the Python API: arguments, results, errors and cut results."""

from __future__ import annotations

from typing import Any, Dict

import pytest
from mif import memories

import lro


@pytest.fixture
def offloaded(out_dir: str) -> str:
    response = lro.offload(memories(200), operation="recall", detail="full", config={"output_dir": out_dir})
    assert response["offloaded"]
    return str(response["file_path"])


def extract(path: str, out_dir: str, **query: Any) -> Dict[str, Any]:
    return lro.extract(path, config={"output_dir": out_dir}, **query)


def test_where_fields_sort_and_aggregates(offloaded: str, out_dir: str) -> None:
    response = extract(
        offloaded,
        out_dir,
        where={"namespace": {"$regex": "^_semantic"}, "tags": "tag3", "provenance.confidence": {"$gte": 0.7}},
        fields=("id", "provenance.confidence"),
        sort={"provenance.confidence": -1, "id": 1},
        limit=3,
    )
    assert response["results"] == [
        {"id": "mem-00199", "provenance": {"confidence": 0.99}},
        {"id": "mem-00045", "provenance": {"confidence": 0.95}},
        {"id": "mem-00094", "provenance": {"confidence": 0.94}},
    ]
    assert response["jq"].startswith(f"tail -n +2 {offloaded} | jq -sc '")
    assert extract(offloaded, out_dir, where={"memory_type": "episodic"}, count=True)["results"] == [67]
    assert extract(offloaded, out_dir, count=True, skip=190)["results"] == [10]
    assert extract(offloaded, out_dir, distinct="memory_type")["results"] == [["episodic", "procedural", "semantic"]]
    groups = extract(offloaded, out_dir, group_by="tags", where={"tags": {"$in": ["tag0", "tag1"]}})["results"][0]
    assert groups == [{"tags": "architecture", "count": 58}, {"tags": "tag0", "count": 29}, {"tags": "tag1", "count": 29}]
    stats = extract(offloaded, out_dir, stats="provenance.confidence", where={"id": {"$in": ["mem-00000", "mem-00001"]}})
    assert stats["results"] == [{"count": 2, "min": 0.5, "max": 0.51, "sum": 1.01, "avg": 0.505}]
    # The JSON text of a filter document works too (some clients send objects that way).
    assert extract(offloaded, out_dir, where='{"memory_type": "episodic"}', count=True)["results"] == [67]


def test_a_field_no_record_has_is_a_warning(offloaded: str, out_dir: str) -> None:
    response = extract(offloaded, out_dir, where={"confidence": {"$gt": 0.5}})
    assert response["results"] == []
    assert response["warnings"] == ['no record has the field "confidence"; closest field names: "provenance.confidence"']


def test_bad_queries_raise_typed_errors(offloaded: str, out_dir: str) -> None:
    with pytest.raises(lro.ExtractionError) as bad:
        extract(offloaded, out_dir, where={"tags": {"$has": "x"}})
    assert bad.value.code == "invalid_query" and "where.tags.$has" in str(bad.value)
    with pytest.raises(lro.ExtractionError) as regex:
        extract(offloaded, out_dir, where={"title": {"$regex": "("}})
    assert regex.value.code == "invalid_query"
    with pytest.raises(lro.LroError) as both:
        extract(offloaded, out_dir, where={}, recipe=1)
    assert both.value.code == "invalid_argument"
    with pytest.raises(lro.LroError) as two:
        extract(offloaded, out_dir, count=True, distinct="tags")
    assert two.value.code == "invalid_argument"


def test_cut_results_say_how_many_there_were(offloaded: str, out_dir: str) -> None:
    config = {"output_dir": out_dir, "extract": {"max_output_records": 5}}
    response = lro.extract(offloaded, config=config, where={"status": "active"}, fields=["id"])
    assert (response["truncated"], response["returned"], response["total"]) == (True, 5, 200)
    assert "5 item(s) of 200 returned" in response["hint"]
    sorted_all = lro.extract(offloaded, recipe=8, config={"output_dir": out_dir, "extract": {"max_output_bytes": 5000}})
    assert sorted_all["truncated"] and len(sorted_all["results"]) == 1
    assert sorted_all["returned"] == len(sorted_all["results"][0]) and sorted_all["total"] == 200


def test_the_offloader_takes_a_whole_request(offloaded: str, out_dir: str) -> None:
    offloader = lro.Offloader({"output_dir": out_dir})
    request = {"where": {"memory_type": "semantic"}, "count": True}
    assert offloader.extract(offloaded, request=request)["results"] == [67]
    with pytest.raises(lro.LroError) as both:
        offloader.extract(offloaded, recipe=1, request=request)
    assert both.value.code == "invalid_argument"
