"""Structured queries through `lro proxy`, as a model sends them: the official MCP Python client,
@modelcontextprotocol/server-memory (npm) behind the proxy, and `lro_extract` with a MongoDB
filter document over the offloaded graph (one section per array: entities, relations)."""

import anyio

from conftest import answer_values, descriptor_of, extract, npm_server, proxied

ENTITIES = 300
RELATIONS = 60


def entity(i: int) -> dict:
    return {
        "name": f"entity-{i:04d}",
        "entityType": ["person", "project", "service", "team"][i % 4],
        "observations": [f"observation {j} about entity {i}: owns the cache layer {i % 9}" for j in range(2)],
    }


def test_a_model_queries_the_offloaded_graph_with_a_filter_document(tmp_path):
    async def scenario():
        env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
        async with proxied([npm_server("mcp-server-memory")], tmp_path / "lro", env=env) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            # The short definition (the default) lists the structured query's arguments and
            # names them in the tool's description, without one per argument.
            listed = tools[session.extract_tool]
            assert {"where", "fields", "sort", "skip", "limit", "count", "group_by"} <= set(listed.inputSchema["properties"])
            assert "MongoDB filter as JSON text" in listed.description

            for start in range(0, ENTITIES, 100):
                created = await session.call_tool("create_entities", {"entities": [entity(i) for i in range(start, start + 100)]})
                assert not created.isError, created
            relations = [
                {"from": f"entity-{i:04d}", "to": f"entity-{(i * 7) % ENTITIES:04d}", "relationType": ["depends_on", "owns"][i % 2]}
                for i in range(RELATIONS)
            ]
            assert not (await session.call_tool("create_relations", {"relations": relations})).isError

            descriptor = descriptor_of(await session.call_tool("read_graph", {}))
            path = descriptor["file_path"]

            teams = await extract(
                session,
                file_path=path,
                section="entities",
                where={"entityType": "team", "observations": {"$regex": "layer 8$"}},
                fields=["name"],
                sort={"name": -1},
                limit=3,
            )
            want = [f"entity-{i:04d}" for i in range(ENTITIES - 1, -1, -1) if i % 4 == 3 and i % 9 == 8][:3]
            assert teams == [{"name": name} for name in want]

            groups = await extract(session, file_path=path, section="entities", group_by="entityType")
            assert groups == [[{"entityType": t, "count": ENTITIES // 4} for t in ["person", "project", "service", "team"]]]

            owned = await extract(session, file_path=path, section="relations", where={"relationType": "owns"}, count=True)
            assert owned == [RELATIONS // 2]

            # A misspelled field: no records, and a warning naming the field the records have.
            result = await session.call_tool(session.extract_tool, {"file_path": path, "section": "entities", "where": {"entitytype": "team"}, "explain": True})
            assert answer_values(result) == []
            assert 'closest field names: "entityType"' in result.content[0].text
            assert "equivalent jq: sed -n " in result.content[0].text

            bad = await session.call_tool(session.extract_tool, {"file_path": path, "where": {"name": {"$like": "x"}}})
            assert bad.isError and "error[invalid_query]: where.name.$like" in bad.content[0].text

    anyio.run(scenario)
