"""Offloaded results as MCP resources through `lro proxy`, read by the official MCP Python
client (`ClientSession`):
- in front of @modelcontextprotocol/server-memory (one resource of its own, the graph): the
  link in an offloaded result, resources/list (pages with cursors over 230 more offload
  files), resources/read of the file and of its records, the templates, lro_extract by URI,
  list_changed after an offload, errors for bad URIs, and the server's own resource beside;
- in front of @modelcontextprotocol/server-filesystem, which has no resources capability:
  the proxy gives it one and answers every resource request;
- in front of @modelcontextprotocol/server-everything, which has its own resources,
  templates and subscriptions: they list, read and subscribe through the proxy exactly as
  without it, beside the offload files."""

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp import types
from mcp.shared.exceptions import McpError

import source_data
from conftest import answer_values, descriptor_of, lro_binary, npm_server, proxied
from real_servers import direct_session

URI_PREFIX = "lro://offloads/"
MIME_TYPE = "application/jsonl"


class Notifications:
    """The server's notifications, as the session's message handler receives them."""

    def __init__(self):
        self.methods = []

    async def __call__(self, message):
        if isinstance(message, types.ServerNotification):
            self.methods.append(message.root.method)

    async def wait_for(self, method, count=1):
        with anyio.fail_after(30):
            while self.methods.count(method) < count:
                await anyio.sleep(0.02)


async def all_pages(list_page):
    """Every item of a paginated list, and the size of each page."""
    items, sizes, cursor = [], [], None
    while True:
        page = await list_page(cursor)
        got = page.resources if hasattr(page, "resources") else page.resourceTemplates
        items.extend(got)
        sizes.append(len(got))
        cursor = page.nextCursor
        if cursor is None:
            return items, sizes


def link_of(result) -> types.ResourceLink:
    """The result's link to its file (the memory run asks for it with --resource-link)."""
    links = [block for block in result.content if block.type == "resource_link"]
    assert len(links) == 1, result.content
    assert str(links[0].uri) == json.loads(result.content[0].text)["resource_uri"]
    return links[0]


def uri_of(result) -> str:
    """The offload file's URI, as the descriptor names it (`resource_uri`)."""
    assert not any(block.type == "resource_link" for block in result.content), "no link by default"
    return json.loads(result.content[0].text)["resource_uri"]


def offload_with_the_cli(output_dir: Path, count: int):
    """Offload files another LRO wrote into the same directory (a replica, an earlier run)."""
    records = json.dumps([{"id": i, "note": f"bulk record number {i} of the batch"} for i in range(300)])
    for _ in range(count):
        subprocess.run([lro_binary(), "offload", "--operation", "bulk", "--output-dir", str(output_dir)],
                       input=records, text=True, check=True, capture_output=True)


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory):
    entities, relations = source_data.graph(400, 300)
    memory = tmp_path_factory.mktemp("memory")
    output_dir = tmp_path_factory.mktemp("lro")
    seen = {"entities": entities, "relations": relations, "output_dir": output_dir}
    notes = Notifications()

    async def session_run():
        env = {"MEMORY_FILE_PATH": str(memory / "memory.jsonl")}
        # With the link and structuredContent (the options' path, against a real server).
        extra = ["--resource-link", "--structured-content"]
        async with proxied([npm_server("mcp-server-memory")], output_dir, extra, env=env, message_handler=notes) as session:
            seen["capabilities"] = session.get_server_capabilities()
            seen["before"] = await session.list_resources()
            calls = [("create_entities", {"entities": entities[start:start + 100]}) for start in range(0, len(entities), 100)]
            calls += [("create_relations", {"relations": relations[start:start + 100]}) for start in range(0, len(relations), 100)]
            offloads = 0
            for name, arguments in calls:
                created = await session.call_tool(name, arguments)
                assert not created.isError
                # server-memory answers with what it created: 100 entities are offloaded too.
                offloads += any(block.type == "resource_link" for block in created.content)
            result = await session.call_tool("read_graph", {})
            seen["result"] = result
            seen["offloads"] = offloads + 1
            # The client listed resources above: it hears of every new file.
            await notes.wait_for("notifications/resources/list_changed", seen["offloads"])
            uri = link_of(result).uri
            seen["listed"] = await session.list_resources()
            seen["file"] = await session.read_resource(uri)
            seen["records"] = await session.read_resource(f"{uri}/records")
            seen["templates"] = await session.list_resource_templates()
            seen["teams"] = await session.call_tool(session.extract_tool, {"file_path": str(uri), "section": "entities",
                                                                   "where": {"entityType": "team"}, "count": True})
            seen["graph"] = await session.read_resource("memory://knowledge-graph")
            errors = {}
            for name, bad in [("traversal", "lro://offloads/../../etc/passwd"),
                              ("not an offload", "lro://offloads/notes.txt"),
                              ("missing", "lro://offloads/atlatl-read_graph-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl")]:
                with pytest.raises(McpError) as caught:
                    await session.read_resource(bad)
                errors[name] = caught.value.error.code
            seen["errors"] = errors
            # 230 more files from other writers: the list comes in pages.
            offload_with_the_cli(output_dir, 230)
            seen["pages"] = await all_pages(lambda cursor: session.list_resources(cursor))
            seen["notifications"] = list(notes.methods)
        return seen

    return anyio.run(session_run)


THE_GRAPH = "memory://knowledge-graph"


class TestInFrontOfServerMemory:
    def test_the_servers_capability_keeps_subscribe(self, memory_run):
        resources = memory_run["capabilities"].resources
        assert resources.listChanged is True and resources.subscribe is True
        assert [str(r.uri) for r in memory_run["before"].resources] == [THE_GRAPH]

    def test_the_offloaded_result_links_its_file(self, memory_run):
        result = memory_run["result"]
        descriptor = descriptor_of(result)
        link = link_of(result)
        name = Path(descriptor["file_path"]).name
        assert str(link.uri) == URI_PREFIX + name
        assert link.name == name
        assert link.mimeType == MIME_TYPE
        assert result.content[-1] == link, "after the descriptor's text"

    def test_the_list_describes_the_file(self, memory_run):
        descriptor = descriptor_of(memory_run["result"])
        listed = memory_run["listed"]
        assert listed.nextCursor is None
        assert len(listed.resources) == memory_run["offloads"] + 1
        resource, graph = listed.resources[0], listed.resources[-1]
        assert str(graph.uri) == THE_GRAPH, "the server's own resource follows the offload files"
        assert str(resource.uri) == str(link_of(memory_run["result"]).uri), "newest first"
        assert resource.mimeType == MIME_TYPE
        assert resource.size == Path(descriptor["file_path"]).stat().st_size
        assert resource.title == "read_graph: 700 records"
        assert "sections: entities (400), relations (300)" in resource.description

    def test_reading_it_back_equals_the_file(self, memory_run):
        path = Path(descriptor_of(memory_run["result"])["file_path"])
        [contents] = memory_run["file"].contents
        assert contents.text == path.read_text(encoding="utf-8")
        assert contents.mimeType == MIME_TYPE
        [records] = memory_run["records"].contents
        assert records.text == path.read_text(encoding="utf-8").split("\n", 1)[1]
        lines = [json.loads(line) for line in records.text.splitlines()]
        assert lines == memory_run["entities"] + memory_run["relations"]

    def test_templates_name_both_forms(self, memory_run):
        templates = [t.uriTemplate for t in memory_run["templates"].resourceTemplates]
        assert templates == ["lro://offloads/{file}", "lro://offloads/{file}/records"]

    def test_lro_extract_takes_the_uri(self, memory_run):
        teams = memory_run["teams"]
        expected = sum(1 for e in memory_run["entities"] if e["entityType"] == "team")
        assert answer_values(teams) == [expected]

    def test_the_servers_own_resource_reads_through_the_proxy(self, memory_run):
        [contents] = memory_run["graph"].contents
        graph = json.loads(contents.text)
        assert graph["entities"] == memory_run["entities"] and graph["relations"] == memory_run["relations"]

    def test_bad_uris_are_errors(self, memory_run):
        assert memory_run["errors"] == {"traversal": -32602, "not an offload": -32602, "missing": -32002}

    def test_many_files_come_in_pages_newest_first(self, memory_run):
        items, sizes = memory_run["pages"]
        files = sorted(p.name for p in memory_run["output_dir"].iterdir())
        names = [r.name for r in items if str(r.uri).startswith(URI_PREFIX)]
        assert sorted(names) == files and len(files) == memory_run["offloads"] + 230
        assert [str(r.uri) for r in items].count(THE_GRAPH) == 1, "the server's resource, once"
        assert sizes == [101, 100, len(files) - 200]
        ulids = [name.rsplit("-", 1)[1] for name in names]
        assert ulids == sorted(ulids, reverse=True)

    def test_list_changed_after_each_offload(self, memory_run):
        # The client listed resources first: one notification per file the proxy wrote (the
        # 230 files of the command line were not the proxy's).
        assert memory_run["offloads"] >= 2
        assert memory_run["notifications"].count("notifications/resources/list_changed") == memory_run["offloads"]


@pytest.fixture(scope="module")
def filesystem_run(tmp_path_factory):
    allowed = tmp_path_factory.mktemp("files")
    root = allowed / "tree"
    source_data.file_tree(root)
    output_dir = tmp_path_factory.mktemp("lro")

    async def session_run():
        seen = {}
        async with proxied([npm_server("mcp-server-filesystem"), str(allowed)], output_dir) as session:
            seen["capabilities"] = session.get_server_capabilities()
            seen["result"] = await session.call_tool("directory_tree", {"path": str(root)})
            seen["listed"] = await session.list_resources()
            seen["templates"] = await session.list_resource_templates()
            seen["file"] = await session.read_resource(uri_of(seen["result"]))
            with pytest.raises(McpError) as caught:
                await session.read_resource(f"file://{root}/pkg_3")
            seen["other"] = caught.value.error
        return seen

    return anyio.run(session_run)


class TestInFrontOfServerFilesystem:
    """server-filesystem declares no resources: the proxy's capability and answers are all."""

    def test_the_proxy_gives_it_a_resources_capability(self, filesystem_run):
        resources = filesystem_run["capabilities"].resources
        assert resources is not None and resources.listChanged is True

    def test_the_proxy_answers_list_templates_and_read(self, filesystem_run):
        descriptor = descriptor_of(filesystem_run["result"])
        [resource] = filesystem_run["listed"].resources
        assert str(resource.uri) == uri_of(filesystem_run["result"])
        assert [t.uriTemplate for t in filesystem_run["templates"].resourceTemplates] == [
            "lro://offloads/{file}", "lro://offloads/{file}/records"]
        [contents] = filesystem_run["file"].contents
        assert contents.text == Path(descriptor["file_path"]).read_text(encoding="utf-8")

    def test_any_other_uri_is_not_found(self, filesystem_run):
        assert filesystem_run["other"].code == -32002


@pytest.fixture(scope="module")
def everything_run(tmp_path_factory):
    server = [npm_server("mcp-server-everything"), "stdio"]
    output_dir = tmp_path_factory.mktemp("lro")

    async def own_view(session):
        resources, _ = await all_pages(lambda cursor: session.list_resources(cursor))
        templates, _ = await all_pages(lambda cursor: session.list_resource_templates(cursor))
        static = next(r for r in resources if str(r.uri).startswith("demo://resource/static/"))
        return {
            "resources": [r.model_dump(mode="json", exclude_none=True) for r in resources],
            "templates": [t.model_dump(mode="json", exclude_none=True) for t in templates],
            "static": (await session.read_resource(static.uri)).model_dump(mode="json"),
            "dynamic": (await session.read_resource("demo://resource/dynamic/text/3")).model_dump(mode="json"),
            "subscribed": await session.subscribe_resource(static.uri),
        }

    async def session_run():
        seen = {}
        async with direct_session(server, {}) as session:
            seen["direct"] = await own_view(session)
        async with proxied(server, output_dir) as session:
            message = "\n".join(f"line {i}: the cache layer answered in {i % 97} ms" for i in range(600))
            seen["echo"] = await session.call_tool("echo", {"message": message})
            seen["links"] = await session.call_tool("get-resource-links", {"count": 3})
            seen["proxied"] = await own_view(session)
            uri = uri_of(seen["echo"])
            seen["file"] = await session.read_resource(uri)
        return seen

    return anyio.run(session_run)


class TestInFrontOfServerEverything:
    def test_its_own_resources_list_as_without_the_proxy(self, everything_run):
        direct, proxied_view = everything_run["direct"], everything_run["proxied"]
        assert direct["resources"], "server-everything lists resources"
        ours = [r for r in proxied_view["resources"] if r["uri"].startswith(URI_PREFIX)]
        theirs = [r for r in proxied_view["resources"] if not r["uri"].startswith(URI_PREFIX)]
        assert theirs == direct["resources"]
        assert len(ours) == 1 and ours[0]["mimeType"] == MIME_TYPE

    def test_its_templates_follow_lros(self, everything_run):
        direct, proxied_view = everything_run["direct"], everything_run["proxied"]
        assert direct["templates"]
        assert proxied_view["templates"][2:] == direct["templates"]
        assert [t["uriTemplate"] for t in proxied_view["templates"][:2]] == [
            "lro://offloads/{file}", "lro://offloads/{file}/records"]

    def test_its_resources_read_and_subscribe_as_without_the_proxy(self, everything_run):
        direct, proxied_view = everything_run["direct"], everything_run["proxied"]
        assert proxied_view["static"] == direct["static"]
        assert proxied_view["dynamic"]["contents"][0]["uri"] == direct["dynamic"]["contents"][0]["uri"]
        assert proxied_view["dynamic"]["contents"][0]["text"].startswith("Resource 3")
        assert proxied_view["subscribed"] == direct["subscribed"]

    def test_its_own_resource_links_pass_through(self, everything_run):
        links = [b for b in everything_run["links"].content if b.type == "resource_link"]
        assert len(links) == 3 and all(str(b.uri).startswith("demo://") for b in links)

    def test_a_large_echo_is_offloaded_and_read_back(self, everything_run):
        result = everything_run["echo"]
        descriptor = descriptor_of(result)
        [contents] = everything_run["file"].contents
        assert contents.text == Path(descriptor["file_path"]).read_text(encoding="utf-8")
        assert descriptor["summary"]["count"] == 600
