#!/usr/bin/env python3
"""Writes the conformance vectors' inputs (tests/vectors/*.json).

The expected outputs are then produced by the Rust implementation and reviewed:
    python3 tests/vectors/generate.py && LRO_BLESS=1 cargo test -p lro-core --test vectors
Every corpus here is deterministic (no randomness, no clock).
"""
import hashlib
import json
import math
import pathlib

HERE = pathlib.Path(__file__).parent

TYPES = ["semantic", "episodic", "procedural"]
NAMESPACES = ["_semantic/decisions", "_semantic/knowledge", "_episodic/sessions", "_procedural/runbooks", "projects/atlas", "projects/borealis", "_semantic/people"]
TOPICS = ["caching", "storage layout", "retry policy", "auth tokens", "schema migration", "rate limits", "search ranking", "embedding refresh"]
TAGS = ["architecture", "ops", "security", "performance", "api", "data", "incident", "design"]


def memory(i, cjk=False):
    topic = TOPICS[i % len(TOPICS)]
    title = f"Decision {i}: {topic} for service {i % 7}"
    content = (f"We decided to change {topic} after review {i}. The previous approach caused latency spikes "
               f"under load; the new one keeps p99 under {100 + i % 50} ms and is documented in the runbook.")
    if cjk:
        title = f"決定 {i}: キャッシュ戦略と保存形式 {topic}"
        content = f"レビュー {i} の後、{topic} を変更しました。以前の方式では負荷時に遅延が発生していました。新しい方式は文書化されています。"
    return {
        "id": f"mem-{i:05d}",
        "memory_type": TYPES[i % 3],
        "title": title,
        "content": content,
        "created": f"2026-0{1 + i % 9}-{10 + i % 18:02d}T0{i % 10}:00:00Z",
        "modified": f"2026-10-{10 + i % 18:02d}T12:00:00Z",
        "namespace": NAMESPACES[(i * 3) % len(NAMESPACES)] if i % 5 else NAMESPACES[0],
        "tags": [TAGS[i % len(TAGS)], TAGS[(i + 3) % len(TAGS)]],
        "status": "active" if i % 4 else "archived",
        "summary": f"{topic} decision {i}",
        "entities": [{"name": f"service-{i % 7}", "type": "service"}],
        "relationships": [{"type": "supersedes", "target": f"mem-{max(i - 1, 0):05d}"}],
        "provenance": {"confidence": round(0.5 + (i % 50) / 100, 2), "trust_level": "verified", "source_type": "conversation", "agent": "claude"},
        "temporal": {"valid_from": "2026-01-01T00:00:00Z", "ttl": None},
        "extensions": {"x-team": "platform"},
    }


def memories(n, **kw):
    return [memory(i, **kw) for i in range(n)]


def estimate(records):
    """The core's estimator on the JSONL body, for boundary vectors (ASCII corpora only)."""
    body = "".join(json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)
    assert body.isascii()
    return math.ceil(len(body) / 4)


def light(m):
    return {k: m[k] for k in ["id", "memory_type", "title", "namespace", "tags", "status", "created", "modified"] if k in m}


VECTORS = []


def vector(name, description, call="offload", **fields):
    VECTORS.append({"name": name, "description": description, "call": call, **fields})


# --- offload: operations and detail levels -----------------------------------------------
vector("recall-light", "recall of 60 memories at light detail is offloaded; 10 recipes, light schema",
       input=memories(60), request={"operation": "recall", "detail": "light", "query": "caching"})
vector("recall-default-detail", "recall without detail takes the spec's default (light)",
       input=memories(60), request={"operation": "recall"})
vector("recall-medium", "medium detail: content, summary and confidence flattened from provenance",
       input=memories(40), request={"operation": "recall", "detail": "medium"})
vector("recall-full-scores", "full detail keeps every field in order; scores give score_range and never reach the file",
       input=memories(30), request={"operation": "recall", "detail": "full", "query": "retry", "scores": [0.42, 0.97, 0.31, 0.88]})
vector("inject-default-medium", "inject without detail defaults to medium",
       input=memories(40), request={"operation": "inject"})
vector("search-with-query", "search operation records its query in the header",
       input=memories(40), request={"operation": "search", "detail": "light", "query": "auth tokens", "scores": [0.5, 0.6]})
vector("list-operation", "list operation at full detail",
       input=memories(25), request={"operation": "list", "detail": "full"})
vector("detail-case-insensitive", "detail names are case-insensitive",
       input=memories(60), request={"operation": "recall", "detail": "LIGHT"})

# --- threshold ---------------------------------------------------------------------------------
small = [light(m) for m in memories(12)]
t = estimate(small)
vector("threshold-boundary-equal", "estimated tokens equal to the threshold stay inline (offload only when strictly greater)",
       config={"threshold_tokens": t}, input=small, request={"operation": "recall", "detail": "light"})
vector("threshold-boundary-over", "one token over the threshold is offloaded",
       config={"threshold_tokens": t - 1}, input=small, request={"operation": "recall", "detail": "light"})
vector("below-threshold-inline", "a small result set is returned inline at the requested detail",
       input=memories(3), request={"operation": "recall", "detail": "medium"})
vector("single-large-memory-inline", "a single memory below the threshold is inline even if large for one record",
       input=[memory(1)], request={"operation": "recall", "detail": "full"})
vector("single-huge-record", "one record alone above the threshold is offloaded as one line",
       input=[{"id": "doc-1", "body": "lorem ipsum dolor sit amet " * 400}], request={"operation": "fetch_document"})
vector("disabled-config", "enabled = false returns everything inline",
       config={"enabled": False}, input=memories(60), request={"operation": "recall"})
vector("threshold-zero", "threshold 0 offloads any non-empty result",
       config={"threshold_tokens": 0}, input=memories(1), request={"operation": "recall"})
vector("empty-array-inline", "an empty result is inline with count 0",
       input=[], request={"operation": "recall"})

# --- scripts and estimation --------------------------------------------------------------------
vector("cjk-memories", "CJK titles and content are estimated at about one token per character",
       input=memories(20, cjk=True), request={"operation": "recall", "detail": "medium"})
cjk_text = "東京の天気は晴れです。" * 60
vector("cjk-text-over-threshold", "600 CJK characters exceed a 500-token threshold that chars/4 would not",
       config={"threshold_tokens": 500}, input=cjk_text, request={"operation": "read_notes"})

# --- null and missing fields -----------------------------------------------------------------
sparse = memories(50)
for i, m in enumerate(sparse):
    if i % 3 == 0:
        m["title"] = None
    if i % 4 == 0:
        del m["namespace"]
    if i % 5 == 0:
        m.pop("tags")
    if i % 6 == 0:
        m["provenance"] = None
    if i % 7 == 0:
        m["content"] = None
vector("null-and-missing-light", "memories with null and missing fields at light detail", input=sparse, request={"operation": "recall", "detail": "light"})
vector("null-and-missing-medium", "... at medium (confidence missing where provenance is null)", input=sparse, request={"operation": "recall", "detail": "medium"})
vector("null-and-missing-full", "... at full", input=sparse, request={"operation": "recall", "detail": "full"})

# --- data that is not MIF ----------------------------------------------------------------------
entities = [{"name": f"entity-{i}", "entityType": ["person", "service", "city", "team"][i % 4],
             "observations": [f"observation {j} about entity {i}" for j in range(i % 4)]} for i in range(120)]
vector("raw-array-entities", "a non-MIF array: schema and recipes inferred from the fields that exist",
       input=entities, request={"operation": "read_graph"})
graph = {"entities": entities, "relations": [{"from": "entity-1", "to": "entity-2", "relationType": "knows"}], "total": 120}
vector("raw-object-envelope", "an object holding two arrays: each is a section of the file, the scalar kept in the envelope",
       input=graph, request={"operation": "read_graph", "detail": "full"})
log = "".join(f"2026-11-01T10:{i // 60:02d}:{i % 60:02d}Z INFO worker-{i % 3} processed batch {i} in {i % 97} ms\n" for i in range(300))
vector("plain-text-lines", "plain text becomes one {line, text} record per line", input=log, request={"operation": "tail_logs"})
vector("scalar-array", "an array of strings", input=[f"/srv/data/file-{i:04d}.parquet" for i in range(400)], request={"operation": "list_files"})
vector("mixed-array", "objects mixed with scalars get the scalar recipes",
       input=[{"k": i} if i % 2 else i for i in range(2000)], request={"operation": "mixed"})
vector("raw-awkward-keys", "field names that are jq keywords or not identifiers are quoted in recipes",
       input=[{"and": f"v{i % 3}", "first name": f"n{i}", "if": i, "tags-list": ["a", "b"]} for i in range(300)], request={"operation": "awkward"})

def text_result(value, **extra):
    return {"content": [{"type": "text", "text": value if isinstance(value, str) else json.dumps(value)}], **extra}

# --- shapes of real tool results (sections, text that holds data, trees) ----------------------
def issue(i):
    return {"number": i, "title": f"Cache misses after deploy {i}", "state": ["open", "closed"][i % 2],
            "labels": [{"id": 7, "name": "bug"}] if i % 3 else [], "user": {"login": f"dev{i % 4}"}}

graph_entities = [{"name": f"entity-{i:03d}", "entityType": ["person", "project", "service"][i % 3],
                   "observations": [f"owns cache layer {i % 5}"]} for i in range(40)]
graph_relations = [{"from": f"entity-{i:03d}", "to": f"entity-{(i * 7) % 40:03d}", "relationType": ["depends_on", "owns"][i % 2]}
                   for i in range(30)]
graph2 = {"entities": graph_entities, "relations": graph_relations}
vector("shape-graph-sections", "a knowledge graph: entities and relations are two sections of one file, ten recipes shared",
       config={"threshold_tokens": 300}, input=graph2, request={"operation": "read_graph"})
vector("shape-github-items", "{total_count, items}: the items are records, the counts stay inline; labels are not a tree",
       config={"threshold_tokens": 300}, input={"total_count": 50, "incomplete_results": False, "items": [issue(i) for i in range(50)]},
       request={"operation": "search_issues"})
vector("shape-nested-data", "arrays inside a nested object are sections named by their path; small fields stay nested in the envelope",
       config={"threshold_tokens": 200},
       input={"data": {"users": [{"id": i, "login": f"u{i}"} for i in range(25)], "posts": [{"id": i, "by": i % 25} for i in range(25)], "total": 50}},
       request={"operation": "graphql"})

def tree_node(path, depth):
    name = path.rsplit("/", 1)[-1]
    if depth == 3:
        return {"name": name, "type": "file"}
    return {"name": name, "type": "directory",
            "children": [tree_node(f"{path}/{['src', 'lib', 'docs'][i]}" if depth < 2 else f"{path}/f{i}.{['ts', 'md', 'rs'][i]}", depth + 1) for i in range(3)]}

dir_tree = [tree_node("app", 0), {"name": "README.md", "type": "file"}]
vector("shape-json-in-string-tree", "server-filesystem's directory_tree: JSON text inside a string field, a tree flattened to one record per node",
       config={"threshold_tokens": 200}, input={"content": json.dumps(dir_tree, indent=2)}, request={"operation": "directory_tree"})
nodes_tree = [{"id": f"n{i}", "path": f"/x/{i}", "nodes": [{"id": f"n{i}.{j}", "nodes": [{"id": f"n{i}.{j}.0", "nodes": []}]} for j in range(3)]}
              for i in range(12)]
vector("shape-tree-other-key", "a tree under another recurring key; its nodes have a path field already, so the new one is _path",
       config={"threshold_tokens": 200}, input=nodes_tree, request={"operation": "outline"})
rows = [{"id": i, "region": ["amer", "emea", "apac"][i % 3], "name": ["O'Brien", 'say "hi"', "Zoë 東京 🚀", "back\\slash"][i % 4],
         "amount": round(i * 1.25, 2), "active": i % 2 == 0, "note": None} for i in range(60)]

def py_repr(value):
    """Python's repr, as mcp-server-sqlite returns str(rows) (written here to keep the generator standalone)."""
    return repr(value)

vector("shape-python-literal-dicts", "mcp-server-sqlite's text: repr() of a list of dicts becomes one object per row",
       config={"threshold_tokens": 200}, input=py_repr(rows), request={"operation": "read_query"})
vector("shape-python-literal-tuples", "mcp-server-duckdb's text: repr() of a list of tuples becomes one array per row",
       config={"threshold_tokens": 200}, input=py_repr([tuple(r.values()) for r in rows]), request={"operation": "query"})
csv_names = ["Pat, O'Brien", 'Zoë "Z"']
csv_rows = "id,region,name,amount,code\n" + "".join(
    f'{i},{["amer", "emea"][i % 2]},"{csv_names[i % 2].replace(chr(34), chr(34) * 2)}",{i * 2.5},{i:03d}\n' for i in range(60))
vector("shape-csv", "CSV text with a header row: one object per row; exact numbers become numbers, 007 stays text",
       config={"threshold_tokens": 200}, input=csv_rows, request={"operation": "export"})
vector("shape-tsv", "TSV text with a header row",
       config={"threshold_tokens": 200}, input="when\tcount\thost\n" + "".join(f"2026-01-{1 + i % 28:02d}\t{i}\thost-{i % 5}\n" for i in range(80)),
       request={"operation": "export"})
vector("shape-markdown-table", "a Markdown table: one object per row, cells trimmed, escaped pipes read",
       config={"threshold_tokens": 200},
       input="| Name | Size | Note |\n|:-----|-----:|------|\n" + "".join(f"| file{i}.ts | {i * 10} | a \\| b {i} |\n" for i in range(60)),
       request={"operation": "list_table"})
git_log = "".join(f"commit {hashlib.sha1(str(i).encode()).hexdigest()}\nAuthor: {['Ada', 'Linus', 'Grace'][i % 3]} <dev{i % 3}@example.com>\nDate:   2026-0{1 + i % 9}-1{i % 9}\n\n    {['fix', 'feat', 'docs'][i % 3]}: change {i}\n\n" for i in range(40))
vector("shape-text-git-log", "plain text gets text recipes: search, ranges, counts and context, never a sort by line",
       config={"threshold_tokens": 300}, input=git_log, request={"operation": "git_log"})
vector("shape-entries-map", "an object with more large fields than sections allowed is a map: one {key, value} record per field",
       config={"threshold_tokens": 200}, input={f"2026-01-{d:02d}": [{"sold": d * k} for k in range(3)] for d in range(1, 41)},
       request={"operation": "daily_sales"})
vector("shape-other-fields", "small fields too many for the envelope go to the file as one record of their own",
       config={"threshold_tokens": 200}, input={**{f"meta_{i}": f"value {i}" for i in range(60)}, "items": [{"id": i} for i in range(40)]},
       request={"operation": "wide"})
vector("shape-truncated-literal", "a truncated Python literal is not read as data: it stays text, one record per line",
       config={"threshold_tokens": 100}, input=py_repr(rows)[:-40], request={"operation": "read_query"})
vector("shape-ragged-csv", "a CSV with a ragged row is text",
       config={"threshold_tokens": 100}, input=csv_rows + "61,amer\n", request={"operation": "export"})
vector("shape-bad-json-in-string", "invalid JSON inside a string field is that field's text",
       config={"threshold_tokens": 100}, input={"content": json.dumps(dir_tree)[:-3], "truncated": True}, request={"operation": "directory_tree"})
vector("shape-json-lines", "JSON lines text (NDJSON, as jq -c and log tools write): one record per line",
       config={"threshold_tokens": 200}, input="".join(json.dumps(r) + "\n" for r in rows), request={"operation": "tail_events"})
vector("shape-json-lines-with-a-scalar", "JSON lines with a line that is no object or array are text",
       config={"threshold_tokens": 200}, input="".join(json.dumps(r) + "\n" for r in rows) + "42\n", request={"operation": "tail_events"})
vector("shape-keyed-collection", "records keyed by id ({id: record, ...}), however small each one: one {key, value} record per field",
       config={"threshold_tokens": 200}, input={"total": 40, "users": {f"u{i}": {"name": f"N{i}", "age": 20 + i} for i in range(40)}},
       request={"operation": "list_users"})
import datetime, decimal, uuid
driver_rows = [(i, decimal.Decimal(f"{i}.50"), datetime.datetime(2026, 1, 1 + i % 28, 12, i % 60, tzinfo=datetime.timezone.utc),
                datetime.date(2026, 2, 1 + i % 28), uuid.UUID(int=i), datetime.time(7, i % 60, 3, 120 * i),
                datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))), b"\x00'" if i % 2 else None)
               for i in range(40)]
vector("shape-python-driver-values", "repr() of database rows: Decimal, UUID, date, time and datetime read as their JSON text, bytes as their literal",
       config={"threshold_tokens": 200}, input=py_repr(driver_rows), request={"operation": "read_query"})
vector("intercept-python-literal-text", "a Python server's text block holding repr() of rows is offloaded as records", call="intercept",
       config={"threshold_tokens": 200}, input={"result": text_result(py_repr(rows)), "context": {"tool_name": "read_query"}})
vector("intercept-text-blocks-each-json", "several text blocks that each hold a JSON object are one record each", call="intercept",
       config={"threshold_tokens": 200},
       input={"result": {"content": [{"type": "text", "text": json.dumps(r, indent=2)} for r in rows[:30]]}, "context": {"tool_name": "list_rows"}})

# --- tables given as JSON: column names beside positional rows ---------------------------------
CITIES = ["Oslo", "Bergen", "Tromsø", "Stavanger"]
# Numbers a JS build's input object holds exactly too (the JSON-text path keeps any digits).
table_rows = [[f"{CITIES[i % 4]}", 1000 + i * 37, round(0.1 * i + 0.05, 2), 100000 + i * 7919, i % 3 == 0] for i in range(40)]
table_names = ["city", "population", "ratio", "serial", "coastal"]
vector("shape-table-pandas-split", "pandas orient=split: one named record per row with its index; the column list stays in the envelope",
       config={"threshold_tokens": 200}, input={"columns": table_names, "index": [f"r{i}" for i in range(40)], "data": table_rows},
       request={"operation": "query"})
vector("shape-table-clickhouse", "ClickHouse JSONCompact: meta names the cells of data; rows and statistics stay in the envelope",
       config={"threshold_tokens": 200},
       input={"meta": [{"name": "id", "type": "UInt64"}, {"name": "host", "type": "String"}, {"name": "latency", "type": "Float64"}],
              "data": [[str(i), f"host-{i % 5}", i * 1.5 + 0.25] for i in range(50)], "rows": 50, "rows_before_limit_at_least": 50,
              "statistics": {"elapsed": 0.0021, "rows_read": 50, "bytes_read": 1200}},
       request={"operation": "clickhouse_query"})
vector("shape-table-trino", "Trino/Presto: columns with names and types beside positional data; the query's other fields stay",
       config={"threshold_tokens": 200},
       input={"id": "20261127_000001_00001_abcde", "columns": [{"name": "orderkey", "type": "bigint"}, {"name": "status", "type": "varchar(1)"}],
              "data": [[i, "FOP"[i % 3]] for i in range(60)], "stats": {"state": "FINISHED", "processedRows": 60}},
       request={"operation": "trino_query"})
vector("shape-table-bigquery", "BigQuery: schema.fields name the f[].v cells of rows; values stay as BigQuery wrote them (strings, null)",
       config={"threshold_tokens": 200},
       input={"kind": "bigquery#queryResponse", "schema": {"fields": [{"name": "word", "type": "STRING", "mode": "NULLABLE"}, {"name": "word_count", "type": "INTEGER", "mode": "NULLABLE"}]},
              "jobReference": {"projectId": "p", "jobId": "job_1", "location": "US"}, "totalRows": "40",
              "rows": [{"f": [{"v": f"word{i}"}, {"v": str(i * 3) if i % 7 else None}]} for i in range(40)], "jobComplete": True, "cacheHit": False},
       request={"operation": "bigquery_query"})
vector("shape-table-spreadsheet", "a spreadsheet's values (Google Sheets values.get): the first row names the columns of the others",
       config={"threshold_tokens": 200},
       input={"range": "Sales!A1:C41", "majorDimension": "ROWS", "values": [["Region", "Month", "Revenue"]] + [[["North", "South"][i % 2], f"2026-{1 + i % 12:02d}", f"{i * 125}"] for i in range(40)]},
       request={"operation": "sheets_get"})
vector("shape-table-ragged", "a row shorter than the columns: not a table, laid out as before (data rows as arrays, the column list a section)",
       config={"threshold_tokens": 200}, input={"columns": table_names, "data": table_rows[:-1] + [table_rows[-1][:3]]},
       request={"operation": "query"})
vector("intercept-table-text", "a text block holding ClickHouse JSONCompact through MCP: named records, meta in the envelope", call="intercept",
       config={"threshold_tokens": 200},
       input={"result": text_result({"meta": [{"name": "user", "type": "String"}, {"name": "events", "type": "UInt32"}],
                                     "data": [[f"user{i}", i * 11] for i in range(50)], "rows": 50}), "context": {"tool_name": "run_select_query"}})

# --- a preview of the first records in the descriptor (preview_records) ---------------------------
clickhouse = {"meta": [{"name": "user", "type": "String"}, {"name": "events", "type": "UInt32"}, {"name": "last_seen", "type": "DateTime"}],
              "data": [[f"user{i}", i * 11, f"2026-11-{1 + i % 27:02d} 10:00:00"] for i in range(60)], "rows": 60}
vector("preview-zero", "preview_records = 0 (the default): no preview in the descriptor",
       config={"threshold_tokens": 200, "preview_records": 0}, input=clickhouse, request={"operation": "clickhouse_query"})
vector("preview-full", "preview_records = 3: the full descriptor shows the first three records, named by the table's columns",
       config={"threshold_tokens": 200, "preview_records": 3}, input=clickhouse, request={"operation": "clickhouse_query"})
vector("preview-compact", "preview_records = 3 in the compact descriptor",
       config={"threshold_tokens": 200, "preview_records": 3, "descriptor": "compact"}, input=clickhouse, request={"operation": "clickhouse_query"})
vector("preview-cut", "preview_records = 1000: the records that fit the budget, and a note saying how many",
       config={"threshold_tokens": 200, "preview_records": 1000}, input=clickhouse, request={"operation": "clickhouse_query"})
vector("preview-none-fit", "records each larger than the budget: no record shown, and the note says so",
       config={"threshold_tokens": 200, "preview_records": 2, "descriptor": "compact"},
       input=[{"id": f"doc-{i}", "body": "lorem ipsum dolor sit amet " * 100} for i in range(3)], request={"operation": "fetch_documents"})

# --- keys named twice: kept last, and said -----------------------------------------------------
# Only JSON text can name a key twice (a dict or an object cannot), so these inputs are text.
dup_rows = "[" + ", ".join(f'{{"id": {i}, "state": "open", "state": "closed"}}' if i % 10 == 0 else
                           (f'{{"id": {i}, "id": {i}, "id": {i * 10}}}' if i == 7 else f'{{"id": {i}, "state": "open"}}')
                           for i in range(40)) + "]"
vector("text-duplicate-keys", "a key named twice keeps its last value and its record; the header counts them (duplicate_keys), the descriptor warns",
       config={"threshold_tokens": 100}, input=dup_rows, request={"operation": "list_rows"})
vector("text-duplicate-keys-pointer", "the pointer descriptor warns of keys named twice too",
       config={"threshold_tokens": 100, "descriptor": "pointer"}, input=dup_rows, request={"operation": "list_rows"})
vector("intercept-duplicate-keys", "a text block whose JSON names keys twice: counted in the header, warned of in the compact descriptor", call="intercept",
       config={"threshold_tokens": 100, "descriptor": "compact"}, input={"result": text_result(dup_rows), "context": {"tool_name": "list_rows"}})

# --- configuration of the output ---------------------------------------------------------------
vector("custom-prefix", "file_prefix names the file", config={"file_prefix": "lro"}, input=memories(60), request={"operation": "recall"})
vector("native-guidance", "guidance = native directs the model to lro_extract", config={"guidance": "native"},
       input=memories(60), request={"operation": "recall", "detail": "medium"})
vector("native-guidance-raw", "native guidance for raw data lists the inferred recipes", config={"guidance": "native"},
       input=entities, request={"operation": "read_graph"})
vector("pagination-cursor-inline", "an inline result keeps its pagination cursor",
       input=memories(2), request={"operation": "recall", "next_cursor": "page-2"})
vector("pagination-cursor-dropped", "an offloaded result never carries a cursor",
       input=memories(60), request={"operation": "recall", "next_cursor": "page-2"})

# --- write failure -------------------------------------------------------------------------
vector("write-failure-fallback", "an unwritable output dir gives an inline result truncated to the threshold, with a warning",
       config={"output_dir": "{dir}/blocked/sub"}, setup={"files": {"blocked": ""}}, input=memories(60), request={"operation": "recall"})
vector("write-failure-text", "the text fallback is the leading lines that fit",
       config={"output_dir": "{dir}/blocked/sub", "threshold_tokens": 200}, setup={"files": {"blocked": ""}}, input=log, request={"operation": "tail_logs"})
vector("write-failure-envelope", "the object fallback keeps the envelope and each section's leading records that fit",
       config={"output_dir": "{dir}/blocked/sub", "threshold_tokens": 300}, setup={"files": {"blocked": ""}}, input=graph, request={"operation": "read_graph"})

# --- errors ------------------------------------------------------------------------------------
vector("error-unknown-detail", "an unknown detail level is invalid_detail", input=memories(2), request={"operation": "recall", "detail": "huge"}, expect={"error": "invalid_detail"})
vector("error-bad-operation", "an operation that is not file-name safe is invalid_operation", input=memories(2), request={"operation": "../etc/passwd"}, expect={"error": "invalid_operation"})
vector("error-unknown-request-field", "an unknown request field is invalid_argument", input=memories(2), request={"operation": "recall", "detial": "full"}, expect={"error": "invalid_argument"})
vector("error-invalid-json", "input that is not JSON is invalid_input", call="offload_json", input="[{\"id\": 1,", request={"operation": "recall"}, expect={"error": "invalid_input"})
vector("offload-json-fast-path", "serialized JSON input gives the same result as parsed input", call="offload_json",
       input=json.dumps(memories(60)), request={"operation": "recall"})
vector("error-bad-config-value", "a bad config value is invalid_config", config={"threshold_tokens": "lots"}, input=memories(2), request={"operation": "recall"}, expect={"error": "invalid_config"})
vector("error-bad-prefix", "a prefix with a path separator is invalid_config", config={"file_prefix": "../x"}, input=memories(2), request={"operation": "recall"}, expect={"error": "invalid_config"})

# --- configuration loading ---------------------------------------------------------------------
vector("config-toml", "the [prompt.offload] section over the defaults", call="config_toml",
       input="[server]\nport = 8080\n\n[prompt.offload]\nenabled = true\nthreshold_tokens = 3200\nttl_seconds = 60\noutput_dir = \"/var/tmp/lro\"\n\n[prompt.offload.extract]\ntimeout_ms = 2500\n\n[prompt.offload.store]\nretries = 1\n")
vector("config-toml-missing-section", "a document without the section gives the defaults", call="config_toml", input="[other]\nx = 1\n")
vector("config-toml-bad-type", "a wrong type names the key", call="config_toml", input="[prompt.offload]\nttl_seconds = \"soon\"\n", expect={"error": "invalid_config"})
vector("config-toml-unknown-key", "a typo is an error, not ignored", call="config_toml", input="[prompt.offload]\nthreshold = 10\n", expect={"error": "invalid_config"})
vector("config-env", "ATLATL_PROMPT__OFFLOAD__* variables", call="config_env",
       input={"ATLATL_PROMPT__OFFLOAD__ENABLED": "false", "ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "900", "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": "/data/lro", "HOME": "/root"})
vector("config-env-bad", "a bad environment value is invalid_config", call="config_env", input={"ATLATL_PROMPT__OFFLOAD__TTL_SECONDS": "-5"}, expect={"error": "invalid_config"})

# --- inject_context ------------------------------------------------------------------------------
vector("inject-below-threshold", "the budgeted prompt text is returned inline when the pre-budget set is small", call="offload_inject",
       input={"formatted": "## Context\n- Decision 0\n- Decision 1", "pre_budget": memories(2)}, request={"operation": "inject"})
vector("inject-pre-budget-over", "a large pre-budget set is offloaded whole and the formatted text discarded", call="offload_inject",
       input={"formatted": "## Context\n- Decision 0", "pre_budget": memories(40)}, request={"operation": "inject"})

# --- MCP tools/call results ------------------------------------------------------------------------
vector("intercept-recall-text", "a recall_memories result whose text is a JSON array of memories", call="intercept",
       input={"result": text_result(memories(60)), "context": {"tool_name": "recall_memories", "arguments": {"query": "cache", "detail": "medium"}}})
vector("intercept-structured", "structuredContent is the data when present", call="intercept",
       input={"result": {"content": [{"type": "text", "text": "see structured"}], "structuredContent": graph}, "context": {"tool_name": "read_graph"}})
vector("intercept-small-inline", "a small result is untouched", call="intercept",
       input={"result": text_result(memories(2)), "context": {"tool_name": "recall_memories"}})
vector("intercept-proxy-bypass", "a proxy client gets results inline", call="intercept",
       input={"result": text_result(memories(60)), "context": {"tool_name": "recall_memories", "client_is_proxy": True}})
vector("intercept-output-schema", "a tool with an outputSchema is left inline on purpose", call="intercept",
       input={"result": text_result(memories(60)), "context": {"tool_name": "recall_memories", "output_schema_declared": True}})
vector("intercept-is-error-kept", "isError and _meta survive offloading", call="intercept",
       input={"result": text_result(log, isError=True, _meta={"trace": "abc"}), "context": {"tool_name": "tail_logs"}})
vector("intercept-text-and-image", "non-text content items are kept after the descriptor", call="intercept",
       input={"result": {"content": [{"type": "text", "text": log}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}, "context": {"tool_name": "screenshot_logs"}})
vector("intercept-disabled", "LRO disabled leaves results untouched", call="intercept", config={"enabled": False},
       input={"result": text_result(memories(60)), "context": {"tool_name": "recall_memories"}})
vector("intercept-write-failure", "a failed write gives truncated text plus a warning item", call="intercept",
       config={"output_dir": "{dir}/blocked/sub"}, setup={"files": {"blocked": ""}},
       input={"result": text_result(log), "context": {"tool_name": "tail_logs"}})
vector("intercept-bad-context", "an unknown context field is invalid_argument", call="intercept",
       input={"result": text_result("x"), "context": {"tool": "x"}}, expect={"error": "invalid_argument"})

# --- cleanup ---------------------------------------------------------------------------------------
old = "atlatl-recall-00000000000000000000000000.jsonl"      # created at the Unix epoch: expired
# A name dated ahead of the clock is judged by the file's modification time where the host keeps
# one (StdHost: kept until mtime + ttl), and is expired where it keeps none (memory, object
# stores, JS): host-dependent, so tested per host (core/tests/std_host_files.rs,
# mcp/tests/resources_files.rs, cli/tests/hostile_files.rs), not here.
stale_temp = old + ".tmp-1"                                  # an unfinished write of 1970 (killed): removed
LEFT_ALONE = {
    "notes.txt": "keep",
    "lro-recall-00000000000000000000000000.jsonl": "other prefix",
    "atlatl-bad.jsonl": "not ours",
    # Names LRO never writes: a lower-case ULID, a temp suffix with a leading zero.
    "atlatl-recall-01jh5x3q7y0000000000000000.jsonl": "lower case",
    old + ".tmp-01": "not LRO's temp name",
}
vector("cleanup-expired-only", "expired offload files of the prefix and stale temps of unfinished writes are "
       "removed; names LRO never writes are left alone", call="cleanup",
       setup={"files": {old: "{}\n", stale_temp: "temp", **LEFT_ALONE}},
       expect={"remaining": sorted(LEFT_ALONE)})
vector("cleanup-empty-dir", "an empty directory is an empty report", call="cleanup", setup={"files": {}}, expect={"remaining": []})

# --- native extraction ---------------------------------------------------------------------------
def extract_vector(name, description, extract, input=None, request=None, **fields):
    vector(name, description, call="extract", input=input if input is not None else memories(60),
           request=request or {"operation": "recall", "detail": "medium"}, extract=extract, **fields)

extract_vector("extract-recipe-count-by-namespace", "recipe 6 counts by namespace", {"recipe": 6})
extract_vector("extract-recipe-titles-raw", "recipe 1 returns raw tab-separated strings", {"recipe": 1})
extract_vector("extract-recipe-with-params", "recipe 3 with a keyword bound as $keyword", {"recipe": 3, "params": {"keyword": "retry"}})
extract_vector("extract-recipe-default-params", "a recipe without params uses the example shown in the descriptor", {"recipe": 2})
extract_vector("extract-recipe-confidence", "recipe 9 at medium sorts by .confidence", {"recipe": 9})
extract_vector("extract-query", "a jq filter over each record", {"query": "select(.memory_type == \"episodic\") | {id, confidence}"})
extract_vector("extract-query-with-variable", "params are variables of a query too", {"query": "select(.namespace == $ns) | .id", "params": {"ns": "projects/atlas"}})
extract_vector("extract-lines", "records 5 to 8", {"lines": {"start": 5, "end": 8}})
extract_vector("extract-search", "regex search over raw lines, case-insensitive, capped", {"search": {"pattern": "decision 1[0-9]:", "ignore_case": True, "max_results": 3}})
extract_vector("extract-raw-recipe", "recipes of raw data are rebuilt from the file", {"recipe": 6}, input=entities, request={"operation": "read_graph"})
extract_vector("extract-limit-records", "a result cut by max_output_records says so", {"recipe": 4}, config={"extract": {"max_output_records": 7}})
extract_vector("extract-section-query", "section scopes a query to one section of the file", {"section": "relations", "query": "select(.to == \"entity-007\") | .from"},
               input=graph2, request={"operation": "read_graph"}, config={"threshold_tokens": 300})
extract_vector("extract-section-lines", "with a section, lines count from the section's first record", {"section": "relations", "lines": {"start": 0, "end": 2}},
               input=graph2, request={"operation": "read_graph"}, config={"threshold_tokens": 300})
extract_vector("extract-section-recipe", "a recipe of a file with sections reads its own section (recipe 7: relations' count by relationType)", {"recipe": 7},
               input=graph2, request={"operation": "read_graph"}, config={"threshold_tokens": 300})
extract_vector("extract-tree-query", "a flattened tree: every .ts file is one filter on path", {"query": "select(.path | endswith(\".ts\")) | .path"},
               input={"content": json.dumps(dir_tree)}, request={"operation": "directory_tree"}, config={"threshold_tokens": 200})
extract_vector("extract-text-context", "text recipe 5 prints the lines around each match", {"recipe": 5, "params": {"pattern": "feat: change 1[0-9]$"}},
               input=git_log, request={"operation": "git_log"}, config={"threshold_tokens": 300})
extract_vector("extract-error-unknown-section", "an unknown section is invalid_argument and names the sections", {"section": "nope", "query": "."},
               input=graph2, request={"operation": "read_graph"}, config={"threshold_tokens": 300}, expect={"error": "invalid_argument"})
extract_vector("extract-error-section-with-recipe", "a section with a recipe is invalid_argument (recipes read their own)", {"section": "entities", "recipe": 1},
               input=graph2, request={"operation": "read_graph"}, config={"threshold_tokens": 300}, expect={"error": "invalid_argument"})
extract_vector("extract-error-both", "recipe and query together are invalid_argument", {"recipe": 1, "query": "."}, expect={"error": "invalid_argument"})
extract_vector("extract-error-neither", "no verb is invalid_argument", {}, expect={"error": "invalid_argument"})
extract_vector("extract-error-recipe-number", "recipe 11 is invalid_argument", {"recipe": 11}, expect={"error": "invalid_argument"})
extract_vector("extract-error-bad-query", "a filter that does not parse is invalid_query", {"query": "select(.id =="}, expect={"error": "invalid_query"})
extract_vector("extract-error-runtime", "a filter that fails at run time is query_failed", {"query": ".title | tonumber"}, expect={"error": "query_failed"})
extract_vector("extract-error-resource-limit", "a value nested past the sandbox's bound is resource_limit, not a stack overflow", {"query": "reduce range(5000) as $i (0; [.])"}, expect={"error": "resource_limit"})
extract_vector("extract-error-traversal", "a path outside the output dir is path_denied", {"recipe": 1}, extract_path="{dir}/../../etc/passwd", expect={"error": "path_denied"})
extract_vector("extract-error-not-offload-file", "a file in the dir that is not an offload file is path_denied", {"recipe": 1},
               setup={"files": {"notes.jsonl": "{}\n"}}, extract_path="{dir}/notes.jsonl", expect={"error": "path_denied"})
extract_vector("extract-error-missing", "a missing offload file is not_found", {"recipe": 1},
               extract_path="{dir}/atlatl-recall-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl", expect={"error": "not_found"})

# --- structured queries (where): one vector per operator, shaping, aggregates ------------------
corpus = memories(30)
def where_vector(name, description, extract, input=None, **fields):
    extract_vector(name, description, extract, input=input if input is not None else corpus,
                   request={"operation": "recall", "detail": "full"}, **fields)

ID = ["id"]
where_vector("extract-where-eq", "implicit equality on a field", {"where": {"memory_type": "episodic"}, "fields": ID})
where_vector("extract-where-eq-operator", "$eq on a nested field", {"where": {"provenance.trust_level": {"$eq": "verified"}}, "count": True})
where_vector("extract-where-ne", "$ne matches records whose field differs or is missing", {"where": {"status": {"$ne": "active"}}, "fields": ["id", "status"]})
where_vector("extract-where-gt", "$gt on a nested number", {"where": {"provenance.confidence": {"$gt": 0.7}}, "fields": ["id", "provenance.confidence"]})
where_vector("extract-where-gte-lt", "$gte and $lt on one field are both required", {"where": {"provenance.confidence": {"$gte": 0.55, "$lt": 0.6}}, "fields": ["id", "provenance.confidence"]})
where_vector("extract-where-lte-string", "$lte compares strings byte by byte", {"where": {"created": {"$lte": "2026-02"}}, "fields": ["id", "created"]})
where_vector("extract-where-type-bracketing", "a number bound never matches strings (type bracketing)", {"where": {"title": {"$gt": 5}}, "count": True})
where_vector("extract-where-in", "$in: any of the values", {"where": {"namespace": {"$in": ["projects/atlas", "projects/borealis"]}}, "fields": ["id", "namespace"]})
where_vector("extract-where-nin", "$nin: none of the values", {"where": {"namespace": {"$nin": ["_semantic/decisions", "_procedural/runbooks"]}}, "fields": ["id", "namespace"]})
where_vector("extract-where-exists", "$exists: false finds records without the field", {"where": {"namespace": {"$exists": False}}, "fields": ID}, input=sparse[:30])
where_vector("extract-where-null-missing", "null matches null and missing fields", {"where": {"title": None}, "fields": ["id", "title"]}, input=sparse[:30])
where_vector("extract-where-type", "$type by name and by number", {"where": {"$or": [{"provenance": {"$type": "null"}}, {"content": {"$type": 10}}]}, "fields": ID}, input=sparse[:30])
where_vector("extract-where-regex", "$regex with the i option", {"where": {"title": {"$regex": "^decision 1[0-9]:", "$options": "i"}}, "fields": ["id", "title"]})
where_vector("extract-where-regex-extended", "$regex with the x option ignores pattern whitespace and comments", {"where": {"summary": {"$regex": "retry \\s policy  # the topic", "$options": "x"}}, "fields": ["id", "summary"]})
where_vector("extract-where-array-contains", "a value matches an array holding it", {"where": {"tags": "incident"}, "fields": ["id", "tags"]})
where_vector("extract-where-all", "$all: the array holds every value", {"where": {"tags": {"$all": ["architecture", "performance"]}}, "fields": ["id", "tags"]})
where_vector("extract-where-size", "$size: arrays of that length", {"where": {"tags": {"$size": 2}}, "count": True})
where_vector("extract-where-elemmatch", "$elemMatch: one element matches every condition", {"where": {"entities": {"$elemMatch": {"name": "service-3", "type": "service"}}}, "fields": ["id", "entities"]})
where_vector("extract-where-dotted-array", "a dotted path reaches into the objects of an array", {"where": {"relationships.target": "mem-00004"}, "fields": ["id", "relationships"]})
where_vector("extract-where-and", "$and of two documents", {"where": {"$and": [{"memory_type": "semantic"}, {"status": "active"}]}, "fields": ["id", "memory_type", "status"]})
where_vector("extract-where-or", "$or of two documents", {"where": {"$or": [{"namespace": "projects/atlas"}, {"tags": "security"}]}, "fields": ["id", "namespace", "tags"]})
where_vector("extract-where-nor", "$nor: neither document", {"where": {"$nor": [{"memory_type": "semantic"}, {"status": "archived"}]}, "fields": ["id", "memory_type", "status"]})
where_vector("extract-where-not", "$not inverts an operator expression", {"where": {"title": {"$not": {"$regex": "caching|retry"}}}, "fields": ["id", "title"]})
where_vector("extract-where-sort-skip-limit", "sort by two keys, then skip and limit", {"where": {"status": "active"}, "sort": {"memory_type": 1, "provenance.confidence": -1}, "skip": 2, "limit": 4, "fields": ["id", "memory_type", "provenance.confidence"]})
where_vector("extract-where-fields-exclude", "a projection document that drops fields", {"where": {"id": "mem-00003"}, "fields": {"content": 0, "entities": 0, "relationships": 0, "provenance.agent": 0}})
where_vector("extract-where-count", "count of the matching records", {"where": {"memory_type": "procedural"}, "count": True})
where_vector("extract-where-group-by", "group_by tags: records per tag, largest first", {"group_by": "tags"})
where_vector("extract-where-distinct", "distinct namespaces of active memories", {"where": {"status": "active"}, "distinct": "namespace"})
where_vector("extract-where-stats", "stats of a nested number", {"stats": "provenance.confidence"})
where_vector("extract-where-unknown-field", "a field no record has: empty result and a warning with the closest names", {"where": {"confidence": {"$gt": 0.5}}})
where_vector("extract-where-cut", "records cut by max_output_records say how many there were", {"where": {"status": "active"}, "fields": ID},
             config={"extract": {"max_output_records": 4}})
extract_vector("extract-recipe-array-cut", "one large array (recipe 8) keeps its leading items that fit", {"recipe": 8},
               config={"extract": {"max_output_bytes": 3000}})
extract_vector("extract-where-section", "a structured query over one section: its records only, and a jq command over its lines",
               {"section": "relations", "where": {"relationType": "owns"}, "group_by": "to", "limit": 6}, input=graph2, request={"operation": "read_graph"},
               config={"threshold_tokens": 300})
extract_vector("extract-where-table", "a structured query by column name on a table's records", {"where": {"population": {"$gt": 2200}, "coastal": True}, "fields": ["index", "city", "serial"]},
               input={"columns": table_names, "index": [f"r{i}" for i in range(40)], "data": table_rows}, request={"operation": "query"},
               config={"threshold_tokens": 200})
where_vector("extract-error-where-operator", "an unknown operator is invalid_query", {"where": {"tags": {"$contains": "ops"}}}, expect={"error": "invalid_query"})
where_vector("extract-error-where-regex", "a regex that does not compile is invalid_query", {"where": {"title": {"$regex": "(unclosed"}}}, expect={"error": "invalid_query"})
where_vector("extract-error-where-with-recipe", "where and recipe together are invalid_argument", {"where": {}, "recipe": 1}, expect={"error": "invalid_argument"})
where_vector("extract-error-two-aggregates", "two aggregates are invalid_argument", {"count": True, "distinct": "tags"}, expect={"error": "invalid_argument"})

# --- descriptor profiles and the adaptive threshold ---------------------------------------------
vector("profile-compact-mif", "descriptor = compact: summary, path, one line per recipe (jq part), one paragraph",
       config={"descriptor": "compact"}, input=memories(60), request={"operation": "recall", "detail": "medium"})
vector("profile-compact-native", "a compact descriptor with native guidance: recipe lines without commands",
       config={"descriptor": "compact", "guidance": "native", "threshold_tokens": 300}, input=graph2, request={"operation": "read_graph"})
vector("profile-compact-per-call", "a call asks for compact over the configured full profile",
       input=graph2, request={"operation": "read_graph", "descriptor": "compact"}, config={"threshold_tokens": 300})
vector("profile-pointer-mif", "descriptor = pointer: offloaded, file_path, count, one line of guidance",
       config={"descriptor": "pointer"}, input=memories(60), request={"operation": "recall"})
vector("profile-pointer-text", "a pointer descriptor of text lines, native guidance",
       config={"descriptor": "pointer", "guidance": "native", "threshold_tokens": 200}, input=log, request={"operation": "tail_logs"})
vector("profile-full-per-call", "a call asks for the full descriptor over a configured pointer profile",
       config={"descriptor": "pointer"}, input=memories(60), request={"operation": "recall", "descriptor": "full"})
vector("profile-small-stays-inline", "the profile changes nothing below the threshold",
       config={"descriptor": "pointer"}, input=memories(2), request={"operation": "recall"})
vector("profile-error-unknown", "an unknown per-call profile is invalid_argument",
       input=memories(60), request={"operation": "recall", "descriptor": "tiny"}, expect={"error": "invalid_argument"})
vector("intercept-profile-compact", "an MCP result described by the compact profile (text block and structuredContent)", call="intercept",
       config={"descriptor": "compact"}, input={"result": text_result(memories(60)), "context": {"tool_name": "recall_memories"}})
small = memories(8)
vector("adaptive-threshold-offloads", "context_remaining_tokens 4000 x 0.10: a result of about 1,000 tokens is offloaded and the applied threshold reported",
       input=small, request={"operation": "recall", "detail": "full", "context_remaining_tokens": 4000})
vector("adaptive-threshold-inline", "a large context left keeps the configured threshold (min), reported with the inline result",
       input=small, request={"operation": "recall", "detail": "full", "context_remaining_tokens": 1000000})
vector("adaptive-threshold-ratio", "adaptive_ratio from the configuration (0.5 x 1500 = 750)",
       config={"adaptive_ratio": 0.5}, input=small, request={"operation": "recall", "detail": "full", "context_remaining_tokens": 1500})
vector("adaptive-threshold-zero-left", "no context left: everything above zero tokens is offloaded, with a pointer",
       config={"descriptor": "pointer"}, input=memories(1), request={"operation": "recall", "context_remaining_tokens": 0})
vector("adaptive-write-failure", "the write-failure fallback is cut to the adaptive threshold",
       config={"output_dir": "{dir}/blocked/sub"}, setup={"files": {"blocked": ""}}, input=log,
       request={"operation": "tail_logs", "context_remaining_tokens": 2000})
vector("config-toml-profile", "descriptor and adaptive_ratio from TOML", call="config_toml",
       input="[prompt.offload]\ndescriptor = \"compact\"\nadaptive_ratio = 0.2\n")
vector("config-env-profile", "descriptor and adaptive_ratio from the environment", call="config_env",
       input={"ATLATL_PROMPT__OFFLOAD__DESCRIPTOR": "pointer", "ATLATL_PROMPT__OFFLOAD__ADAPTIVE_RATIO": "0.05"})
vector("config-env-bad-profile", "an unknown profile is invalid_config", call="config_env",
       input={"ATLATL_PROMPT__OFFLOAD__DESCRIPTOR": "tiny"}, expect={"error": "invalid_config"})
vector("config-toml-bad-ratio", "a ratio above 1 is invalid_config", call="config_toml",
       input="[prompt.offload]\nadaptive_ratio = 2.5\n", expect={"error": "invalid_config"})
extract_vector("extract-describe-pointer", "describe: true rebuilds the full descriptor of a file a pointer described",
               {"describe": True}, config={"descriptor": "pointer"})
extract_vector("extract-describe-sections", "describe: true on a file of sections: sections, envelope and recipes as offload gave them",
               {"describe": True}, input=graph, request={"operation": "read_graph"}, config={"descriptor": "compact", "threshold_tokens": 300})
extract_vector("extract-describe-text", "describe: true on text lines, native guidance",
               {"describe": True}, input=log, request={"operation": "tail_logs"}, config={"guidance": "native", "threshold_tokens": 200})
extract_vector("extract-error-describe-with-section", "describe takes no section", {"describe": True, "section": "relations"},
               input=graph2, request={"operation": "read_graph"}, config={"threshold_tokens": 300}, expect={"error": "invalid_argument"})
extract_vector("extract-error-describe-with-recipe", "describe and a recipe together are invalid_argument", {"describe": True, "recipe": 1},
               expect={"error": "invalid_argument"})

# --- MCP resources: offload files as lro://offloads/{file} ------------------------------------
# The vector offloads its input first; "{file}" in the operation is the written file's name.
def resources_vector(name, description, operation, **fields):
    vector(name, description, call="resources", input=memories(60), request={"operation": "recall", "detail": "light"},
           resources=operation, **fields)

FOREIGN = {
    "notes.txt": "not an offload file\n",
    "other-recall-01JH5X3Q7Y0000000000000000.jsonl": "{}\n",
    # Offload names whose time-to-live is long over: gone from the list.
    "atlatl-recall-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl": "{}\n",
    # (A name dated ahead of the clock: host-dependent, see the cleanup vectors.)
}
resources_vector("resources-list", "resources/list: offload files of the prefix, newest first, described from their header; "
                 "foreign and expired files left out", {"method": "list"}, setup={"files": FOREIGN})
resources_vector("resources-read-file", "resources/read of lro://offloads/{file}: the file as written", {"method": "read", "uri": "lro://offloads/{file}"})
resources_vector("resources-read-records", "resources/read of .../records: the records without the header line",
                 {"method": "read", "uri": "lro://offloads/{file}/records"})
resources_vector("resources-templates", "resources/templates/list: the two forms of an offload URI", {"method": "templates"})
resources_vector("resources-error-traversal", "a URI with .. names no offload file: path_denied",
                 {"method": "read", "uri": "lro://offloads/../../etc/passwd"}, expect={"error": "path_denied"})
resources_vector("resources-error-foreign-file", "a file of the directory that is not an offload file is never served",
                 {"method": "read", "uri": "lro://offloads/notes.txt"}, setup={"files": FOREIGN}, expect={"error": "path_denied"})
resources_vector("resources-error-expired", "an offload file past its time-to-live is not_found",
                 {"method": "read", "uri": "lro://offloads/atlatl-recall-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl"}, setup={"files": FOREIGN},
                 expect={"error": "not_found"})
resources_vector("resources-error-scheme", "a URI outside lro://offloads/ is invalid_argument",
                 {"method": "read", "uri": "file:///etc/passwd"}, expect={"error": "invalid_argument"})
resources_vector("resources-error-cursor", "a cursor resources/list never gave is invalid_argument",
                 {"method": "list", "cursor": "page-2"}, expect={"error": "invalid_argument"})
resources_vector("extract-by-resource-uri", "lro_extract takes the resource URI for the file path", {"method": "extract", "uri": "lro://offloads/{file}",
                 "extract": {"where": {"memory_type": "episodic"}, "count": True}})


# --- result handles: {"$lro": URI, ...} in a tool call's arguments, replaced by the data ----------
# The vector offloads its input first; in every string of `handles.arguments`, "{uri}" is the
# written file's resource URI, "{path}" its path and "{dir}" the output directory. The outcome
# is {"arguments": the arguments resolved} or {"error": code, "path": the argument}.
def entities(n):
    kinds = ["person", "place", "thing"]
    return [{"name": f"e{i:02}", "entityType": kinds[i % 3], "observations": [f"note {i}"]} for i in range(n)]

def handles_vector(name, description, arguments, **fields):
    fields.setdefault("config", {})
    fields["config"] = {"threshold_tokens": 50, **fields["config"]}
    vector(name, description, call="handles", input=entities(12), request={"operation": "read_graph"},
           handles={"arguments": arguments}, **fields)

handles_vector("handles-json-all", "a handle with no verb is every record, as a JSON array (as json is the default)",
               {"path": "out.json", "content": {"$lro": "{uri}"}})
handles_vector("handles-json-where", "where and fields: the matching records, shaped, as a JSON array",
               {"rows": {"$lro": "{uri}", "where": {"entityType": "place"}, "fields": "name", "as": "json"}})
handles_vector("handles-json-where-text", "where and sort given as JSON text, as the extract tool reads them",
               {"rows": {"$lro": "{uri}", "where": "{\"entityType\": \"thing\"}", "sort": "-name", "fields": "name"}})
handles_vector("handles-json-count", "a summary verb (count) gives its one value, not an array",
               {"n": {"$lro": "{uri}", "where": {"entityType": "person"}, "count": True}})
handles_vector("handles-json-group-by", "group_by gives its groups as one value",
               {"groups": {"$lro": "{uri}", "group_by": "entityType"}})
handles_vector("handles-jsonl-all", "as jsonl: one string, each record a compact JSON line ending in a newline",
               {"content": {"$lro": "{uri}", "as": "jsonl"}})
handles_vector("handles-jsonl-where", "as jsonl with a where filter",
               {"content": {"$lro": "{uri}", "where": {"entityType": "person"}, "as": "jsonl"}})
handles_vector("handles-text-query", "as text: a jq query's strings unquoted, one per line",
               {"names": {"$lro": "{uri}", "query": "select(.entityType == $t) | .name", "params": {"t": "thing"}, "as": "text"}})
handles_vector("handles-text-records", "as text: records (not strings) as compact JSON, one per line",
               {"body": {"$lro": "{uri}", "lines": "0:2", "as": "text"}})
handles_vector("handles-file-path", "$lro may be the file_path as well as the resource URI",
               {"content": {"$lro": "{path}", "lines": "10:12"}})
handles_vector("handles-nested", "handles at any depth, in arrays and objects; a key with / is escaped; "
               "an object whose $lro is not a string is no handle; other values untouched",
               {"items": [1, {"body": {"$lro": "{uri}", "count": True}}, {"$lro": 7}],
                "a/b": {"deep": {"$lro": "{uri}", "distinct": "entityType"}}, "flag": True})
handles_vector("handles-none", "arguments without a handle come back as they are",
               {"path": "x", "content": "plain text mentioning $lro", "n": [1, 2]})
handles_vector("handles-error-bad-as", "an unknown as is invalid_argument, naming the argument",
               {"content": {"$lro": "{uri}", "as": "yaml"}}, expect={"outcome": {"error": "invalid_argument", "path": "content"}})
handles_vector("handles-error-unknown-key", "a key a handle does not take is invalid_argument (describe answers no data)",
               {"x": [{"$lro": "{uri}", "describe": True}]}, expect={"outcome": {"error": "invalid_argument", "path": "x/0"}})
handles_vector("handles-error-outside", "a file outside the output directory is path_denied",
               {"content": {"$lro": "/etc/passwd"}}, expect={"outcome": {"error": "path_denied", "path": "content"}})
handles_vector("handles-error-traversal", "a URI that climbs out of the directory is path_denied",
               {"content": {"$lro": "lro://offloads/../../etc/passwd"}}, expect={"outcome": {"error": "path_denied", "path": "content"}})
handles_vector("handles-error-missing", "an offload file that is not there is not_found",
               {"content": {"$lro": "lro://offloads/atlatl-read_graph-01JH5X3Q7Y0000000000000000.jsonl"}},
               expect={"outcome": {"error": "not_found", "path": "content"}})
handles_vector("handles-error-bad-query", "a query that does not compile is invalid_query",
               {"content": {"$lro": "{uri}", "query": "select("}}, expect={"outcome": {"error": "invalid_query", "path": "content"}})
handles_vector("handles-error-cap", "data over extract.handle_max_bytes is refused (resource_limit), never cut",
               {"content": {"$lro": "{uri}", "as": "jsonl"}}, config={"extract": {"handle_max_bytes": 200}},
               expect={"outcome": {"error": "resource_limit", "path": "content"}})
handles_vector("handles-error-cap-shared", "the cap holds for all the handles of one call together: the second one is refused",
               {"a": {"$lro": "{uri}", "lines": "0:4"}, "b": {"$lro": "{uri}", "lines": "4:8"}},
               config={"extract": {"handle_max_bytes": 400}}, expect={"outcome": {"error": "resource_limit", "path": "b"}})
handles_vector("handles-error-truncated", "an extraction another limit cut (max_read_bytes) is an error, never a partial value",
               {"content": {"$lro": "{uri}"}}, config={"extract": {"max_read_bytes": 600}},
               expect={"outcome": {"error": "resource_limit", "path": "content"}})
handles_vector("handles-error-root", "the arguments themselves are no handle",
               {"$lro": "{uri}"}, expect={"outcome": {"error": "invalid_argument", "path": ""}})

if __name__ == "__main__":
    names = set()
    for v in VECTORS:
        assert v["name"] not in names, v["name"]
        names.add(v["name"])
        v.setdefault("config", {})
        v.setdefault("expect", {})
        path = HERE / f"{v['name']}.json"
        old_expect = {}
        if path.exists():
            old_expect = json.loads(path.read_text()).get("expect", {})
        # Keep blessed expectations unless the generator sets them itself.
        v["expect"] = {**old_expect, **v["expect"]}
        path.write_text(json.dumps(v, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(VECTORS)} vectors in {HERE}")
