"""Structured queries against mongomock, the oracle: random filter documents, sorts, projections
and aggregates over random records and a corpus of memories, run by LRO and by mongomock on the
same documents.

The generator stays where mongomock follows MongoDB. Where mongomock departs from MongoDB's
documentation (and LRO follows the documentation), the departure is pinned in
``test_where_mongomock_departures`` below instead, with the case that shows it.
"""

from __future__ import annotations

import json
import random
from typing import Any, Dict, List, Tuple

import mongomock
import pytest

import lro
from mif import memories

WORDS = ["cache", "Cache", "db", "api", "ops", "été"]
# No 0 and 1: mongomock (Python) takes True for 1 and False for 0, MongoDB does not.
NUMBERS = [-2, 2, 3, 4.5, 7, 9.25]


def scalar(rng: random.Random) -> Any:
    return rng.choice([None, True, False, rng.choice(NUMBERS), rng.choice(NUMBERS), rng.choice(WORDS), rng.choice(WORDS)])


def sub_object(rng: random.Random, whole: bool = False) -> Dict[str, Any]:
    # Keys always in the same order: mongomock compares embedded documents as dicts (any
    # order), MongoDB and LRO key by key. In arrays, whole: mongomock's $exists: false
    # matches an array where one element lacks the field (see the departures).
    doc: Dict[str, Any] = {}
    if whole or rng.random() < 0.8:
        doc["x"] = rng.choice(NUMBERS)
    if whole or rng.random() < 0.8:
        doc["y"] = rng.choice(WORDS)
    return doc


def record(rng: random.Random, i: int) -> Dict[str, Any]:
    # Ids from 10: an id of 1 would equal true in mongomock.
    doc: Dict[str, Any] = {"id": 10 + i}
    if rng.random() < 0.85:
        doc["n"] = rng.choice(NUMBERS) if rng.random() < 0.8 else scalar(rng)
    if rng.random() < 0.85:
        doc["s"] = rng.choice(WORDS) if rng.random() < 0.85 else scalar(rng)
    if rng.random() < 0.8:
        doc["tags"] = [rng.choice(WORDS) for _ in range(rng.randrange(4))]
    if rng.random() < 0.7:
        # Dotted paths go through objects or arrays of objects, never through a scalar (see
        # the departures: mongomock does not take a scalar parent as a missing field).
        doc["o"] = sub_object(rng) if rng.random() < 0.6 else [sub_object(rng, True) for _ in range(rng.randrange(1, 3))]
    if rng.random() < 0.6:
        doc["m"] = scalar(rng) if rng.random() < 0.7 else [scalar(rng) for _ in range(rng.randrange(1, 3))]
    return doc


# No positions (`tags.0`): mongomock takes a position past the end as present (see the
# departures); the jq-equivalence test and the vectors cover them.
FIELDS = ["n", "s", "tags", "o.x", "o.y", "m", "id", "nope"]


def condition(rng: random.Random, field: str, depth: int) -> Any:
    def operand() -> Any:
        return rng.choice([rng.choice(NUMBERS), rng.choice(WORDS), rng.choice(WORDS), True])

    kind = rng.randrange(15)
    if kind == 0:
        return operand()
    if kind == 1:
        return {"$eq": operand() if rng.random() < 0.9 else None}
    if kind == 2:
        return {"$ne": operand() if rng.random() < 0.85 else None}
    if kind == 3:
        return {rng.choice(["$gt", "$gte", "$lt", "$lte"]): operand()}
    if kind == 4:
        return {"$gt": rng.choice(NUMBERS), "$lte": rng.choice(NUMBERS)}
    if kind == 5:
        return {"$in": [operand() for _ in range(rng.randrange(1, 4))]}
    if kind == 6:
        return {"$nin": [operand() for _ in range(rng.randrange(1, 3))]}
    if kind == 7:
        return {"$exists": rng.random() < 0.5}
    if kind == 8:
        # mongomock does not implement $type "null" (the unit tests cover it).
        return {"$type": rng.choice(["string", "number", "array", "object", "bool", "int", "double"])}
    if kind == 9:
        pattern = {"$regex": rng.choice(["^c", "ach", "E$", "^(db|api)$", "p"])}
        # mongomock knows no $options under $not, where nested conditions may land.
        return pattern | ({"$options": rng.choice(["", "i"])} if depth == 0 else {})
    if kind == 10 and field == "tags":
        return {"$size": rng.randrange(4)}
    if kind == 11 and field == "tags":
        return {"$all": [rng.choice(WORDS) for _ in range(rng.randrange(1, 3))]}
    if kind == 12 and field == "o" and depth < 2:
        return {"$elemMatch": {"x": condition(rng, "x", depth + 1)}}
    if kind == 13 and field in ("tags", "m"):
        return {"$elemMatch": {"$in": [rng.choice(WORDS), rng.choice(NUMBERS)]}}
    # mongomock's $not departs from $ne through arrays (see the departures): top-level only.
    if kind == 14 and depth < 2 and "." not in field:
        inner = condition(rng, field, depth + 1)
        if isinstance(inner, dict) and inner and all(k.startswith("$") for k in inner):
            return {"$not": inner}
        return {"$not": {"$eq": inner}}
    return rng.choice(WORDS)


def filter_doc(rng: random.Random, depth: int = 0) -> Dict[str, Any]:
    doc: Dict[str, Any] = {}
    for _ in range(rng.randrange(3)):
        if depth < 2 and rng.random() < 0.2:
            doc[rng.choice(["$and", "$or", "$nor"])] = [filter_doc(rng, depth + 1) for _ in range(rng.randrange(1, 4))]
        else:
            field = rng.choice(FIELDS + ["o"])
            doc[field] = condition(rng, field, depth)
    return doc


def load(records: List[Dict[str, Any]], out_dir: str) -> Tuple[str, Any]:
    response = lro.offload(records, operation="rand", detail="full", config={"output_dir": out_dir, "threshold_tokens": 0})
    assert response["offloaded"]
    collection = mongomock.MongoClient().db.records
    # `_id` in file order: mongomock breaks sort ties by it (ObjectIds do not compare).
    collection.insert_many([{**r, "_id": n} for n, r in enumerate(records)])
    return response["file_path"], collection


def ours(path: str, out_dir: str, **query: Any) -> Dict[str, Any]:
    return lro.extract(path, config={"output_dir": out_dir}, **query)


def theirs(collection: Any, where: Dict[str, Any], **options: Any) -> List[Dict[str, Any]]:
    projection = options.pop("projection", None)
    cursor = collection.find(where, projection if projection else {"_id": 0})
    if "sort" in options:
        cursor = cursor.sort(options["sort"])
    if options.get("skip"):
        cursor = cursor.skip(options["skip"])
    if options.get("limit"):
        cursor = cursor.limit(options["limit"])
    return [{k: v for k, v in doc.items() if k != "_id"} for doc in cursor]


@pytest.mark.parametrize("seed", range(4))
def test_random_filters_select_what_mongomock_selects(out_dir: str, seed: int) -> None:
    rng = random.Random(seed)
    records = [record(rng, i) for i in range(60)]
    path, collection = load(records, out_dir)
    matched_any = 0
    for _ in range(150):
        where = filter_doc(rng)
        try:
            want = [doc["id"] for doc in collection.find(where)]
        except Exception as error:  # mongomock refuses a few shapes MongoDB takes; skip those
            pytest.fail(f"mongomock refused {where}: {error}")
        got = [r["id"] for r in ours(path, out_dir, where=where, fields=["id"])["results"]]
        assert got == want, f"{json.dumps(where)}: ours {got}, mongomock {want}"
        matched_any += bool(want)
    assert matched_any > 30, "the generator should find records"


@pytest.mark.parametrize("seed", range(2))
def test_shapes_and_aggregates_agree_with_mongomock(out_dir: str, seed: int) -> None:
    rng = random.Random(100 + seed)
    records = [record(rng, i) for i in range(60)]
    # Sort keys mongomock orders as MongoDB does: scalars of one type per field and arrays
    # of strings (the smallest element ascending, the largest descending).
    for r in records:
        r["n"] = rng.choice(NUMBERS) if rng.random() < 0.9 else None
        if "s" in r:
            r["s"] = rng.choice(WORDS)
    path, collection = load(records, out_dir)
    for _ in range(60):
        where = filter_doc(rng)
        # Scalar sort keys: mongomock sorts arrays whole (see the departures).
        sort = [(rng.choice(["n", "s", "id"]), rng.choice([1, -1])) for _ in range(rng.randrange(1, 3))]
        sort = list(dict(sort).items())
        skip, limit = rng.choice([0, 0, 2, 5]), rng.choice([0, 0, 3, 10])
        fields = rng.choice([["id"], ["id", "s", "o.x"], ["n", "tags", "id"]])
        got = ours(path, out_dir, where=where, sort=dict(sort), skip=skip, limit=limit, fields=fields)["results"]
        want = theirs(collection, where, sort=sort, skip=skip, limit=limit, projection={f: 1 for f in fields} | {"_id": 0})
        assert got == want, f"{json.dumps(where)} sort {sort} skip {skip} limit {limit} fields {fields}"

        count = ours(path, out_dir, where=where, count=True, skip=skip, limit=limit)["results"]
        options: Dict[str, Any] = {"skip": skip} | ({"limit": limit} if limit else {})
        assert count == [collection.count_documents(where, **options)], json.dumps(where)

        field = rng.choice(["s", "n", "tags", "o.x"])
        values = ours(path, out_dir, where=where, distinct=field)["results"][0]
        assert sorted(map(json.dumps, values)) == sorted(map(json.dumps, collection.distinct(field, where))), (field, where)

        stats = ours(path, out_dir, where=where, stats="n")["results"][0]
        numbers = [doc["n"] for doc in collection.find(where) if isinstance(doc.get("n"), (int, float)) and not isinstance(doc["n"], bool)]
        assert stats["count"] == len(numbers)
        if numbers:
            assert (stats["min"], stats["max"]) == (min(numbers), max(numbers))
            assert stats["sum"] == pytest.approx(sum(numbers)) and stats["avg"] == pytest.approx(sum(numbers) / len(numbers))

        groups = ours(path, out_dir, where=where, group_by="tags")["results"][0]
        pipeline = [
            {"$match": where},
            {"$unwind": {"path": "$tags", "preserveNullAndEmptyArrays": True}},
            {"$group": {"_id": {"doc": "$_id", "tag": "$tags"}}},
            {"$group": {"_id": "$_id.tag", "count": {"$sum": 1}}},
        ]
        want_groups = {json.dumps(g["_id"]): g["count"] for g in collection.aggregate(pipeline)}
        assert {json.dumps(g["tags"]): g["count"] for g in groups} == want_groups, where
        assert [g["count"] for g in groups] == sorted((g["count"] for g in groups), reverse=True)


def test_corpus_queries_agree_with_mongomock(out_dir: str) -> None:
    records = memories(120)
    path, collection = load(records, out_dir)
    for where in [
        {"namespace": {"$regex": "^_semantic"}, "tags": "tag3", "provenance.confidence": {"$gte": 0.7}},
        {"$or": [{"memory_type": "episodic"}, {"tags": {"$all": ["architecture", "tag1"]}}]},
        {"entities": {"$elemMatch": {"name": "cache", "type": "component"}}, "status": {"$ne": "archived"}},
        {"provenance.trust_level": {"$in": ["high", "low"]}, "created": {"$lt": "2025-01-10"}},
        {"title": {"$not": {"$regex": "(?i)decision 1"}}, "tags.1": {"$nin": ["tag0", "tag2"]}},
    ]:
        got = ours(path, out_dir, where=where, fields=["id"], sort={"created": -1, "id": 1})["results"]
        want = theirs(collection, where, projection={"id": 1, "_id": 0}, sort=[("created", -1), ("id", 1)])
        assert got == want and got, where


def test_where_mongomock_departures(out_dir: str) -> None:
    """Where mongomock departs from MongoDB's documentation, LRO follows the documentation."""
    records = [
        {"id": 0, "a": 5},
        {"id": 1, "a": [2, 3]},
        {"id": 2, "a": {"x": 1, "y": 2}},
        {"id": 3, "b": True},
        {"id": 4, "a": None},
        {"id": 5, "a": [], "o": [{"y": 1}, {}], "t": ["b", "z"]},
        {"id": 6, "t": ["c", "d"]},
    ]
    path, collection = load(records, out_dir)

    def both(where: Dict[str, Any]) -> Tuple[List[int], List[int]]:
        got = [r["id"] for r in ours(path, out_dir, where=where, fields=["id"])["results"]]
        return got, [d["id"] for d in collection.find(where)]

    # A dotted path under a scalar (or null) is a missing field, which null matches ("Query for
    # Null or Missing Fields"); mongomock matches only missing top-level parents.
    assert both({"a.z": None}) == ([0, 1, 2, 3, 4, 6], [2, 3, 6])
    # $all with no values matches nothing (the server parses it as always false); mongomock
    # matches everything.
    assert both({"a": {"$all": []}}) == ([], [0, 1, 2, 3, 4, 5, 6])
    # $size applies to arrays only; mongomock also counts the keys of an object.
    assert both({"a": {"$size": 2}}) == ([1], [1, 2])
    # true is not 1 (BSON types); Python's True == 1 leads mongomock astray.
    assert both({"b": 1}) == ([], [3])
    # $gte: null matches null and missing fields, as {"a": null} does; mongomock only null.
    assert both({"a": {"$gte": None}}) == ([3, 4, 6], [4])
    # Embedded documents are equal field by field in order (the documentation's "exact match,
    # including the field order"); mongomock compares them as dicts.
    assert both({"a": {"y": 2, "x": 1}}) == ([], [2])
    # $not {$eq} is $ne; through a position of a non-array, mongomock's $not fails to match
    # the missing field that its own $ne matches.
    assert both({"a.0": {"$not": {"$eq": 2}}}) == ([0, 2, 3, 4, 5, 6], [2, 3, 6])
    assert both({"a.0": {"$ne": 2}}) == ([0, 2, 3, 4, 5, 6], [0, 2, 3, 4, 5, 6])
    # A position on a scalar, on null or past the end of an array is a missing field, which
    # null matches; mongomock finds a value there.
    assert both({"a.0": {"$ne": None}}) == ([1], [0, 1, 4, 5])
    # $exists: false means no element has the field; mongomock takes one element without it.
    assert both({"o.y": {"$exists": False}}) == ([0, 1, 2, 3, 4, 6], [0, 1, 2, 3, 4, 5, 6])
    # An array sorts by its smallest element ascending, its largest descending; mongomock
    # compares the arrays whole.
    def sorted_ids(direction: int) -> Tuple[List[int], List[int]]:
        got = [r["id"] for r in ours(path, out_dir, where={"t": {"$exists": True}}, sort={"t": direction}, fields=["id"])["results"]]
        return got, [d["id"] for d in collection.find({"t": {"$exists": True}}).sort("t", direction)]

    assert sorted_ids(1) == ([5, 6], [5, 6])
    assert sorted_ids(-1) == ([5, 6], [6, 5])
