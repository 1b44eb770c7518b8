"""End to end over stdio: a real MCP server (official SDK) with LRO, the real ClientSession."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import anyio
import lro
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mif import NAMESPACES

SERVER = Path(__file__).parent / "servers" / "mcp_memory_server.py"
#: The extract tool, named after the server ("lro-test-memories").
EXTRACT = "lro_extract_lro_test_memories"


def descriptor_of(result: Any) -> Dict[str, Any]:
    """The descriptor an offloaded result holds: its one text block (no structuredContent)."""
    assert result.structured_content is None, result
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


async def session_run(out_dir: str) -> Dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER)],
        env={**os.environ, "LRO_TEST_OUTPUT_DIR": out_dir},
    )
    seen: Dict[str, Any] = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            seen["tools"] = tools
            recall = await session.call_tool("recall_memories", {"query": "cache", "detail": "light"})
            seen["recall"] = recall
            descriptor = descriptor_of(recall)
            assert descriptor is not None and descriptor["offloaded"], recall
            seen["ids"] = await session.call_tool(
                EXTRACT, {"file_path": descriptor["file_path"], "recipe": 4}
            )
            seen["filtered"] = await session.call_tool(
                EXTRACT,
                {
                    "file_path": descriptor["file_path"],
                    "query": "select(.namespace == $ns) | .id",
                    "params": {"ns": "_semantic/facts"},
                },
            )
            seen["where"] = await session.call_tool(
                EXTRACT,
                {
                    "file_path": descriptor["file_path"],
                    "where": {"namespace": "_semantic/facts", "tags": "tag3"},
                    "fields": ["id"],
                    "sort": {"id": -1},
                    "limit": 2,
                },
            )
            seen["described"] = await session.call_tool(
                EXTRACT, {"file_path": descriptor["file_path"], "describe": True}
            )
            seen["grouped"] = await session.call_tool(EXTRACT, {"file_path": descriptor["file_path"], "group_by": "namespace"})
            seen["bad_where"] = await session.call_tool(
                EXTRACT, {"file_path": descriptor["file_path"], "where": {"tags": {"$has": "x"}}}
            )
            seen["bad"] = await session.call_tool(EXTRACT, {"file_path": "/etc/passwd", "recipe": 1})
            seen["small"] = await session.call_tool("small_lookup", {"key": "k"})
    return seen


def test_offload_then_extract_over_stdio(out_dir: str) -> None:
    seen = asyncio.run(asyncio.wait_for(session_run(out_dir), timeout=120))

    tools = seen["tools"]
    assert {"recall_memories", EXTRACT, "small_lookup"} <= set(tools)
    assert "lro_extract" not in tools
    extract_params = tools[EXTRACT].input_schema["properties"]
    core_params = lro.EXTRACT_TOOL_INPUT_SCHEMA["properties"]
    assert set(extract_params) == set(core_params)
    # The short definition by default: no argument has a description (describe: true gives them).
    assert "description" not in extract_params["where"]
    # Every argument is published as the core publishes it (the `lro proxy` does the same):
    # its type (flat and nullable).
    for name, published in extract_params.items():
        assert {k: published[k] for k in core_params[name]} == core_params[name], name
    assert tools[EXTRACT].input_schema["required"] == ["file_path"]
    assert tools[EXTRACT].description == lro.EXTRACT_TOOL_DESCRIPTION
    assert tools["recall_memories"].output_schema is None

    recall = seen["recall"]
    descriptor = descriptor_of(recall)
    assert [block.type for block in recall.content] == ["text"]
    assert not recall.is_error
    assert descriptor["summary"]["count"] == 500
    assert descriptor["summary"]["detail"] == "light"
    assert descriptor["file_path"].startswith(out_dir + os.sep)
    assert len(descriptor["jq_recipes"]) == 10
    assert f"{EXTRACT}(file_path=" in descriptor["guidance"] and descriptor["extract_tool"] == EXTRACT
    assert descriptor["resource_uri"] == "lro://offloads/" + Path(descriptor["file_path"]).name
    assert json.loads(recall.content[0].text) == descriptor
    lines = Path(descriptor["file_path"]).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 501 and json.loads(lines[0])["type"] == "lro_header"

    # The answers are text alone, as every LRO surface gives them (no structuredContent).
    ids = seen["ids"]
    assert not ids.is_error, ids
    assert ids.structured_content is None
    lines = ids.content[0].text.splitlines()
    # 500 records are more than one answer holds: cut at a record, with the next call named.
    assert lines[-1].startswith("[truncated] returned ") and " of 500 results" in lines[-1], lines[-1]
    assert len(ids.content[0].text.encode()) <= 16384
    assert json.loads(lines[0]) == {"id": "mem-00000", "title": "Decision 0 about caching and storage layout", "namespace": "_semantic/decisions"}

    described = seen["described"]
    assert not described.is_error, described
    assert json.loads(described.content[0].text.splitlines()[0]) == descriptor

    filtered = seen["filtered"].content[0].text.splitlines()
    assert [json.loads(line) for line in filtered] == [f"mem-{i:05d}" for i in range(4, 500, 5)]

    where = seen["where"].content[0].text
    assert where == "".join(json.dumps({"id": f"mem-{i:05d}"}, separators=(",", ":")) + "\n" for i in (479, 444))
    grouped = json.loads(seen["grouped"].content[0].text)
    assert sorted((g["namespace"], g["count"]) for g in grouped) == [(ns, 100) for ns in sorted(NAMESPACES)]
    assert seen["bad_where"].is_error and "invalid_query" in seen["bad_where"].content[0].text

    bad = seen["bad"]
    assert bad.is_error and "path_denied" in bad.content[0].text

    small = seen["small"]
    assert not small.is_error and json.loads(small.content[0].text) == {"key": "k", "value": 42}
    assert len(os.listdir(out_dir)) == 1


class Notifications:
    """The server's notifications, as the client's message handler receives them."""

    def __init__(self) -> None:
        self.methods: List[str] = []

    async def __call__(self, message: Any) -> None:
        method = getattr(message, "method", None) or getattr(getattr(message, "root", None), "method", None)
        if isinstance(method, str) and method.startswith("notifications/"):
            self.methods.append(method)

    async def wait_for(self, method: str, count: int = 1) -> None:
        with anyio.fail_after(30):
            while self.methods.count(method) < count:
                await anyio.sleep(0.02)


LIST_CHANGED = "notifications/resources/list_changed"


def ulid_at(ms: int) -> str:
    """A ULID for the time `ms` (Crockford base32: 10 characters of time, 16 random)."""
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    stamp = "".join(alphabet[(ms >> (5 * i)) & 31] for i in reversed(range(10)))
    return stamp + "".join(alphabet[b % 32] for b in os.urandom(16))


async def resources_run(out_dir: str, cleanup: bool = False, server: Path = SERVER, python: str = sys.executable) -> Dict[str, Any]:
    """A session with an LRO helper's server: an offload, then resources listed (every
    page), read, templates, errors; 150 offload files more from another writer; with
    `cleanup`, three files past the time-to-live (copies named two hours back: no file
    expires by the clock while the test runs, however loaded the machine) and a cleanup."""
    ttl = 3600
    params = StdioServerParameters(
        command=python,
        args=[str(server)],
        env={**os.environ, "LRO_TEST_OUTPUT_DIR": out_dir, "LRO_TEST_TTL": str(ttl), "LRO_TEST_LINK": "1"},
    )
    notes = Notifications()
    seen: Dict[str, Any] = {"notes": notes}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=notes) as session:
            init = await session.initialize()
            seen["capabilities"] = init.capabilities
            seen["before"] = await session.list_resources()
            recall = await session.call_tool("recall_memories", {"query": "cache", "detail": "light"})
            seen["recall"] = recall
            await notes.wait_for(LIST_CHANGED)
            link = next(block for block in recall.content if block.type == "resource_link")
            seen["link"] = link
            # As written (a short ttl removes it before the session ends).
            seen["file_text"] = Path(recall.structured_content["file_path"]).read_text(encoding="utf-8")
            seen["listed"] = await session.list_resources()
            seen["templates"] = await session.list_resource_templates()
            seen["file"] = await session.read_resource(link.uri)
            seen["records"] = await session.read_resource(f"{link.uri}/records")
            seen["readme"] = await session.read_resource("memo://readme")
            seen["note"] = await session.read_resource("memo://notes/7")
            extract = next(t.name for t in (await session.list_tools()).tools if t.name.startswith("lro_extract_"))
            seen["by_uri"] = await session.call_tool(extract, {"file_path": link.uri, "group_by": "namespace"})
            # Result handles in another tool's arguments: resolved before the SDK validates
            # them (`key` takes a string), or answered without calling the tool.
            handle = {"$lro": str(link.uri), "fields": ["id"], "limit": 2, "as": "jsonl"}
            seen["handled"] = await session.call_tool("small_lookup", {"key": handle})
            seen["bad_handle"] = await session.call_tool("small_lookup", {"key": {"$lro": "/etc/passwd"}})
            errors = {}
            for name, uri in [("traversal", "lro://offloads/../../etc/passwd"),
                              ("not an offload", "lro://offloads/notes.txt"),
                              ("missing", "lro://offloads/atlatl-recall-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl")]:
                try:
                    await session.read_resource(uri)
                    errors[name] = None
                except Exception as err:  # the SDK's protocol error
                    errors[name] = err.error.code  # type: ignore[attr-defined]
            seen["errors"] = errors
            # 150 more files from another writer (a replica): the list comes in pages.
            records = [{"id": i, "note": f"bulk record number {i} of the batch"} for i in range(300)]
            for _ in range(150):
                assert lro.offload(records, operation="bulk", config={"output_dir": out_dir})["offloaded"]
            pages, cursor = [], None
            while True:
                page = await session.list_resources(params=None if cursor is None else types.PaginatedRequestParams(cursor=cursor))
                pages.append([str(r.uri) for r in page.resources])
                cursor = page.next_cursor
                if cursor is None:
                    break
            seen["pages"] = pages
            if cleanup:
                template = Path(out_dir) / pages[0][0].rsplit("/", 1)[1]
                hours_ago = int(time.time() * 1000) - 2 * 3600 * 1000
                planted = [f"atlatl-bulk-{ulid_at(hours_ago)}.jsonl" for _ in range(3)]
                for name in planted:
                    target = Path(out_dir) / name
                    target.write_bytes(template.read_bytes())
                    target.chmod(0o600)
                seen["planted"] = [f"lro://offloads/{name}" for name in planted]
                seen["listed_with_expired"] = await session.list_resources()
                seen["cleanup"] = await session.call_tool("cleanup_offloads", {})
                await notes.wait_for(LIST_CHANGED, 2)
                seen["left"] = [name for name in planted if (Path(out_dir) / name).exists()]
                seen["after_cleanup"] = await session.list_resources()
    return seen


def test_offloads_are_resources_over_stdio(out_dir: str) -> None:
    seen = anyio.run(resources_run, out_dir)
    assert seen["capabilities"].resources.list_changed is True
    assert [str(r.uri) for r in seen["before"].resources] == ["memo://readme"]

    recall = seen["recall"]
    descriptor = recall.structured_content
    link = seen["link"]
    name = Path(descriptor["file_path"]).name
    assert (str(link.uri), link.name, link.mime_type) == (f"lro://offloads/{name}", name, "application/jsonl")
    assert recall.content[-1] == link

    listed = seen["listed"]
    assert [str(r.uri) for r in listed.resources] == [str(link.uri), "memo://readme"]
    resource = listed.resources[0]
    assert resource.title == "recall: 500 memories"
    assert resource.size == len(seen["file_text"].encode("utf-8"))
    assert "light detail" in resource.description and 'query "cache"' in resource.description
    templates = [t.uri_template for t in seen["templates"].resource_templates]
    assert templates == ["lro://offloads/{file}", "lro://offloads/{file}/records", "memo://notes/{note_id}"]

    text = seen["file_text"]
    assert seen["file"].contents[0].text == text
    assert seen["file"].contents[0].mime_type == "application/jsonl"
    assert seen["records"].contents[0].text == text.split("\n", 1)[1]
    assert seen["readme"].contents[0].text == "500 memories about caching"
    assert seen["note"].contents[0].text == "note 7"
    grouped = json.loads(seen["by_uri"].content[0].text)
    assert sum(row["count"] for row in grouped) == 500
    assert seen["errors"] == {"traversal": -32602, "not an offload": -32602, "missing": -32002}
    assert_handles(seen)

    pages = seen["pages"]
    assert [len(p) for p in pages] == [101, 51], "100 offload files and the readme, then the other 51"
    offloads = [uri for page in pages for uri in page if uri.startswith("lro://")]
    assert len(offloads) == len(set(offloads)) == 151
    assert offloads == sorted(offloads, key=lambda uri: uri.rsplit("-", 1)[1], reverse=True)
    # One offload through the server while the client listened: one notification.
    assert seen["notes"].methods.count(LIST_CHANGED) == 1


def assert_handles(seen: Dict[str, Any]) -> None:
    """A handle's data reached the tool; a bad one never did."""
    handled = seen["handled"]
    assert not handled.is_error, handled
    assert json.loads(handled.content[0].text) == {"key": '{"id":"mem-00000"}\n{"id":"mem-00001"}\n', "value": 42}
    bad = seen["bad_handle"]
    assert bad.is_error and bad.content[0].text.startswith("error[path_denied]: argument `key` holds a result handle"), bad


def assert_expired_cleaned(seen: Dict[str, Any], page: int) -> None:
    """Files past the time-to-live are no resources; the cleanup removed those alone and told
    the client."""
    listed = [str(r.uri) for r in seen["listed_with_expired"].resources]
    assert len(listed) == page and not set(seen["planted"]) & set(listed)
    assert json.loads(seen["cleanup"].content[0].text) == {"removed": 3}
    assert seen["left"] == []
    assert seen["notes"].methods.count(LIST_CHANGED) == 2
    assert [str(r.uri) for r in seen["after_cleanup"].resources] == listed


def test_cleanup_tells_the_clients_that_listed(out_dir: str) -> None:
    seen = anyio.run(resources_run, out_dir, True)
    assert_expired_cleaned(seen, 101)


# The server on the SDK's 1.x line: its venv (`make test-python` makes it).
MCP1_PYTHON = Path(os.environ.get("LRO_MCP1_PYTHON", Path(__file__).parents[1] / ".venv-mcp1" / "bin" / "python"))


def test_mcp1_fastmcp_serves_the_same_resources(out_dir: str) -> None:
    if not MCP1_PYTHON.exists():
        pytest.fail(f"{MCP1_PYTHON} is missing: run `make test-python` (it makes the mcp 1.x venv)")
    seen = anyio.run(resources_run, out_dir, True, SERVER, str(MCP1_PYTHON))
    assert seen["capabilities"].resources.list_changed is True
    recall = seen["recall"]
    link = seen["link"]
    assert str(link.uri) == "lro://offloads/" + Path(recall.structured_content["file_path"]).name
    assert [str(r.uri) for r in seen["listed"].resources] == [str(link.uri), "memo://readme"]
    assert [t.uri_template for t in seen["templates"].resource_templates] == [
        "lro://offloads/{file}", "lro://offloads/{file}/records", "memo://notes/{note_id}"]
    assert seen["file"].contents[0].text == seen["file_text"]
    assert seen["records"].contents[0].text == seen["file_text"].split("\n", 1)[1]
    assert seen["readme"].contents[0].text == "500 memories about caching"
    assert seen["errors"] == {"traversal": -32602, "not an offload": -32602, "missing": -32002}
    assert_handles(seen)
    assert [len(p) for p in seen["pages"]] == [101, 51]
    assert_expired_cleaned(seen, 101)


def listed_extract_tool(config: Dict[str, Any]) -> Any:
    """The extract tool as an official SDK server with ``LroTools(server, config)`` lists it."""
    try:
        from mcp.server.mcpserver import MCPServer as Server
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server
    from lro.mcp import LroTools

    server = Server("memories")
    tools = LroTools(server, config)
    [tool] = [t for t in asyncio.run(server.list_tools()) if t.name == tools.extract_tool_name]
    return tool


def test_the_helper_lists_the_configured_definition(out_dir: str) -> None:
    short = listed_extract_tool({"output_dir": out_dir})
    long = listed_extract_tool({"output_dir": out_dir, "mcp": {"extract_tool_definition": "long"}})
    assert short.description == lro.extract_tool_definition()["description"]
    assert long.description == lro.extract_tool_definition("long")["description"]
    short_params, long_params = short.input_schema["properties"], long.input_schema["properties"]
    assert set(short_params) < set(long_params) and {"distinct", "stats", "explain"} <= set(long_params) - set(short_params)
    assert long_params["where"]["description"] == lro.EXTRACT_QUERY_PARAMETERS["where"]
    # Listed as the core gives it (the proxy lists the same): within 400 tokens.
    assert short.input_schema == lro.extract_tool_definition()["inputSchema"]
    listed = json.dumps(short.model_dump(mode="json", by_alias=True, exclude_none=True), separators=(",", ":"))
    assert lro.estimate_tokens(listed) <= 400, listed
    with pytest.raises(lro.ConfigError):
        listed_extract_tool({"output_dir": out_dir, "mcp": {"extract_tool_definition": "tiny"}})
