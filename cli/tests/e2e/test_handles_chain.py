"""A result passed on by reference, through `lro proxy`, between two real servers: a graph of
300 entities of four types (and 200 relations) in @modelcontextprotocol/server-memory is read
(`read_graph`, offloaded), one entity type is kept with `lro_extract` `save: true` (a new
offload file, answered with its descriptor), and @modelcontextprotocol/server-filesystem's
`write_file` gets `content` as a result handle (`{"$lro": resource_uri, "as": "jsonl"}`),
which the filesystem server's proxy replaces with the records before the call reaches it.
The two proxies share one output directory, so the second reads what the first wrote.

The written file must hold exactly the kept entities. The tokens the client exchanged over
the chain are printed beside the same chain without LRO (read_graph inline, the records typed
back into write_file), the figures README gives; a bad handle is answered by the proxy and
never reaches the server."""

import json
from pathlib import Path

import anyio
import pytest
from mcp import types

import source_data
from conftest import load_graph, npm_server, proxied
from offload_checks import compact, estimated_tokens
from real_servers import direct_session

ENTITIES, RELATIONS = 300, 200
KEPT_TYPE = "team"


class Ledger:
    """The tokens of a chain: what the client received (each result's text blocks: a model
    reads those; server-memory sends the graph a second time as structuredContent, which is
    left out, so the inline figure is the lower one) and what it sent (each call's
    arguments, which a model writes)."""

    def __init__(self):
        self.received = 0
        self.sent = 0

    async def call(self, session, name: str, arguments: dict):
        result = await session.call_tool(name, arguments)
        self.received += estimated_tokens(text_blocks(result))
        self.sent += estimated_tokens(compact(arguments))
        return result

    @property
    def total(self) -> int:
        return self.received + self.sent


class ListChanged:
    """Counts `notifications/resources/list_changed` from the server (the proxy)."""

    def __init__(self):
        self.count = 0

    async def __call__(self, message):
        if isinstance(message, types.ServerNotification) and \
                message.root.method == "notifications/resources/list_changed":
            self.count += 1

    async def wait_for(self, count: int):
        with anyio.fail_after(30):
            while self.count < count:
                await anyio.sleep(0.02)


def text_blocks(result) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


class Chain:
    """Both chains over the same generated graph, each with its own memory file and target."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.entities, self.relations = source_data.graph(ENTITIES, RELATIONS)
        self.kept = [e for e in self.entities if e["entityType"] == KEPT_TYPE]
        self.files = tmp / "files"
        self.files.mkdir()
        self.output_dir = tmp / "lro"
        self.with_lro = Ledger()
        self.inline = Ledger()
        self.saved = None
        self.refused = None
        self.list_changed = ListChanged()

    def memory(self, name: str):
        return [npm_server("mcp-server-memory")], {"MEMORY_FILE_PATH": str(self.tmp / f"{name}.jsonl")}

    def filesystem(self):
        return [npm_server("mcp-server-filesystem"), str(self.files)]

    async def through_lro(self):
        server, env = self.memory("memory-lro")
        async with proxied(server, self.output_dir, env=env, message_handler=self.list_changed) as memory, \
                proxied(self.filesystem(), self.output_dir) as files:
            await load_graph(memory, self.entities, self.relations)
            # A client that has listed resources hears of each new offload file.
            await memory.list_resources()
            graph = await self.with_lro.call(memory, "read_graph", {})
            await self.list_changed.wait_for(1)
            descriptor = json.loads(graph.content[0].text)
            assert descriptor["offloaded"] is True, graph
            saved = await self.with_lro.call(memory, memory.extract_tool, {
                "file_path": descriptor["resource_uri"], "section": "entities",
                "where": json.dumps({"entityType": KEPT_TYPE}), "save": True})
            assert not saved.isError, saved.content[0].text
            self.saved = json.loads(saved.content[0].text)
            # The saved file is an offload like any other: announced too.
            await self.list_changed.wait_for(2)
            written = await self.with_lro.call(files, "write_file", {
                "path": str(self.files / "kept-lro.jsonl"),
                "content": {"$lro": self.saved["resource_uri"], "as": "jsonl"}})
            assert not written.isError, written.content[0].text
            # A handle outside the output directory: answered by the proxy, never written.
            self.refused = await files.call_tool("write_file", {
                "path": str(self.files / "refused.txt"), "content": {"$lro": "/etc/passwd", "as": "text"}})

    async def without_lro(self):
        server, env = self.memory("memory-inline")
        async with direct_session(server, env) as memory, direct_session(self.filesystem(), {}) as files:
            await load_graph(memory, self.entities, self.relations)
            graph = await self.inline.call(memory, "read_graph", {})
            # What a model does without handles: reads the graph, picks the records, types
            # them back out as write_file's content.
            read = json.loads(graph.content[0].text)
            kept = [e for e in read["entities"] if e["entityType"] == KEPT_TYPE]
            typed = "".join(compact(e) + "\n" for e in kept)
            written = await self.inline.call(files, "write_file", {"path": str(self.files / "kept-inline.jsonl"), "content": typed})
            assert not written.isError, written


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    chain = Chain(tmp_path_factory.mktemp("handles"))
    anyio.run(chain.through_lro)
    anyio.run(chain.without_lro)
    return chain


def written_records(path: Path) -> list:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_the_saved_extraction_is_an_offload_of_the_kept_type(chain):
    assert chain.saved["offloaded"] is True
    assert chain.saved["summary"]["count"] == len(chain.kept) == ENTITIES // 4
    assert chain.saved["resource_uri"].startswith("lro://offloads/")


def test_the_saved_file_is_announced_like_any_offload(chain):
    assert chain.list_changed.count == 2


def test_write_file_wrote_exactly_the_kept_records(chain):
    assert written_records(chain.files / "kept-lro.jsonl") == chain.kept
    # The same bytes the inline chain typed.
    assert (chain.files / "kept-lro.jsonl").read_bytes() == (chain.files / "kept-inline.jsonl").read_bytes()


def test_a_bad_handle_is_answered_by_the_proxy_and_never_reaches_the_server(chain):
    assert chain.refused.isError
    text = chain.refused.content[0].text
    assert text.startswith("error[path_denied]: argument `content`"), text
    assert not (chain.files / "refused.txt").exists()


def test_the_chain_costs_a_fraction_of_the_inline_one(chain, capsys):
    lro, inline = chain.with_lro, chain.inline
    with capsys.disabled():
        print(f"\nread_graph ({ENTITIES} entities, {RELATIONS} relations) -> keep {len(chain.kept)} "
              f"'{KEPT_TYPE}' entities -> write_file, estimated tokens:")
        print(f"  through lro proxy (handles): received {lro.received:>6}, sent {lro.sent:>6}, total {lro.total:>6}")
        print(f"  inline (typed back):         received {inline.received:>6}, sent {inline.sent:>6}, total {inline.total:>6}")
    assert lro.total * 5 < inline.total
