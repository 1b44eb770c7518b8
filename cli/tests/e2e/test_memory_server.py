"""`lro proxy` in front of @modelcontextprotocol/server-memory (npm), driven by the official
MCP Python client over stdio: a knowledge graph of 400 entities, built through the proxy, comes
back from read_graph as a file plus a descriptor, and lro_extract finds the right records."""

import json

import anyio

from conftest import descriptor_of, extract, npm_server, proxied

ENTITIES = 400


def entity(i: int) -> dict:
    return {
        "name": f"entity-{i:04d}",
        "entityType": ["person", "project", "service", "team"][i % 4],
        "observations": [f"observation {j} about entity {i}: owns the cache layer {i % 9}" for j in range(3)],
    }


def test_read_graph_is_offloaded_and_lro_extract_returns_the_right_records(tmp_path):
    async def scenario():
        env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
        async with proxied([npm_server("mcp-server-memory")], tmp_path / "lro", env=env) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert "lro_extract" in tools and "read_graph" in tools
            assert tools["read_graph"].outputSchema is None, "removed by the proxy on purpose"
            schema = tools["lro_extract"].inputSchema
            assert schema["required"] == ["file_path"]
            assert {"file_path", "recipe", "query", "params"} <= set(schema["properties"])

            for start in range(0, ENTITIES, 100):
                created = await session.call_tool("create_entities", {"entities": [entity(i) for i in range(start, start + 100)]})
                assert not created.isError, created
            relations = [{"from": f"entity-{i:04d}", "to": f"entity-{i + 1:04d}", "relationType": "depends_on"} for i in range(0, 40)]
            assert not (await session.call_tool("create_relations", {"relations": relations})).isError

            # A small result stays inline, untouched.
            small = await session.call_tool("open_nodes", {"names": ["entity-0007"]})
            assert small.structuredContent["entities"][0]["name"] == "entity-0007"

            graph = await session.call_tool("read_graph", {})
            descriptor = descriptor_of(graph)
            assert descriptor["summary"]["count"] == ENTITIES
            assert "lro_extract(file_path=" in descriptor["guidance"]
            assert descriptor["envelope"]["array_field"] == "entities"
            path = descriptor["file_path"]

            found = await extract(session, file_path=path, query='select(.name == $name)', params={"name": "entity-0123"})
            assert found == [entity(123)]

            teams = await extract(session, file_path=path, query='select(.entityType == "team") | .name')
            assert teams == [f"entity-{i:04d}" for i in range(3, ENTITIES, 4)]

            hits = await extract(session, file_path=path, search={"pattern": "cache layer 8\\b"})
            assert len(hits) == len([i for i in range(ENTITIES) if i % 9 == 8])

            # Every recipe of the descriptor runs natively.
            for number in range(1, 11):
                result = await session.call_tool("lro_extract", {"file_path": path, "recipe": number})
                assert not result.isError, (number, result.content[0].text)

            # The file holds exactly the server's data, one entity per line after the header.
            lines = open(path, encoding="utf-8").read().splitlines()
            assert json.loads(lines[0])["type"] == "lro_header"
            assert [json.loads(line) for line in lines[1:]] == [entity(i) for i in range(ENTITIES)]

    anyio.run(scenario)


def test_lro_extract_errors_name_their_code(tmp_path):
    async def scenario():
        env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
        async with proxied([npm_server("mcp-server-memory")], tmp_path / "lro", env=env) as session:
            result = await session.call_tool("lro_extract", {"file_path": str(tmp_path / "memory.jsonl"), "recipe": 1})
            assert result.isError
            assert result.content[0].text.startswith("error[path_denied]")

    anyio.run(scenario)
