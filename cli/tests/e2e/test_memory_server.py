"""`lro proxy` in front of @modelcontextprotocol/server-memory (npm), driven by the official
MCP Python client over stdio: a knowledge graph of 400 entities and 300 relations, built
through the proxy, comes back from read_graph as ONE file with a section per array (entities,
then relations) plus a descriptor within the budget, and lro_extract answers from it."""

import anyio
import pytest

from conftest import descriptor_of, npm_server, proxied
from offload_checks import (DESCRIPTOR_SECTIONS, EXTRACT_SECTION, HEADER_SECTIONS, SECTION_COUNT,
                            SECTION_FIRST_LINE, SECTION_NAME, assert_same_multiset, check_section_recipes)
from real_server_checks import OffloadChecks, answer, offload_file, search_hits
from real_servers import MemoryGraph


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return MemoryGraph(tmp_path_factory.mktemp("memory"))


@pytest.fixture(scope="module")
def run(scenario, tmp_path_factory):
    return scenario.run(tmp_path_factory.mktemp("lro"))


class TestReadGraph(OffloadChecks):
    def test_tools_list_gains_lro_extract_and_loses_output_schemas(self, run):
        tools = {tool.name: tool for tool in run.small_results["tools"].tools}
        # Named after the server ("memory-server"), never the plain lro_extract.
        extract = list(tools)[-1]
        assert extract.startswith("lro_extract_") and "lro_extract" not in tools and "read_graph" in tools
        assert tools["read_graph"].outputSchema is None, "removed by the proxy on purpose"
        schema = tools[extract].inputSchema
        assert schema["required"] == ["file_path"]
        assert {"file_path", "recipe", "query", "params", "lines", "search"} <= set(schema["properties"])

    def test_lro_extract_offers_a_section(self, run):
        tools = {tool.name: tool for tool in run.small_results["tools"].tools}
        assert EXTRACT_SECTION in tools[list(tools)[-1]].inputSchema["properties"]

    def test_a_small_result_stays_inline(self, run, scenario):
        small = run.small_results["open_nodes"]
        assert small.structuredContent["entities"] == [scenario.entities[7]]

    def test_one_file_with_a_section_per_array_in_key_order(self, run, scenario):
        descriptor = descriptor_of(run.result)
        file = offload_file(run)
        expected = [
            {SECTION_NAME: "entities", SECTION_FIRST_LINE: 2, SECTION_COUNT: len(scenario.entities)},
            {SECTION_NAME: "relations", SECTION_FIRST_LINE: 2 + len(scenario.entities), SECTION_COUNT: len(scenario.relations)},
        ]
        found = [{k: entry.get(k) for k in (SECTION_NAME, SECTION_FIRST_LINE, SECTION_COUNT)}
                 for entry in file.header.get(HEADER_SECTIONS) or []]
        assert found == expected, file.header
        assert [{k: s.get(k) for k in (SECTION_NAME, SECTION_FIRST_LINE, SECTION_COUNT)}
                for s in descriptor.get(DESCRIPTOR_SECTIONS) or []] == expected
        assert file.format == "json"
        # Nothing of the graph stays inline: read_graph has no scalar field around its arrays.
        assert not descriptor.get("envelope"), descriptor.get("envelope")

    def test_every_entity_and_relation_is_in_the_file_once_verbatim(self, run, scenario):
        file = offload_file(run)
        assert_same_multiset(file.records, scenario.entities + scenario.relations, "graph records")
        assert file.section("entities").records == scenario.entities
        assert file.section("relations").records == scenario.relations
        # Verbatim: in the server's key order too.
        assert [list(r) for r in file.records] == [list(r) for r in scenario.entities + scenario.relations]

    def test_each_recipe_reads_one_section(self, run):
        check_section_recipes(descriptor_of(run.result), offload_file(run).sections())

    def test_lro_extract_answers_from_the_whole_file(self, run, scenario):
        assert answer(run, "teams") == [e["name"] for e in scenario.entities if e["entityType"] == "team"]

    def test_lro_extract_answers_from_one_section(self, run, scenario):
        assert len(scenario.probe_relations()) >= 3
        assert answer(run, "relations_of_probe") == scenario.probe_relations()
        assert answer(run, "entity_by_name") == [scenario.entities[123]]
        assert answer(run, "first_relations") == scenario.relations[:5]
        assert search_hits(run, "reports_to") == [r for r in scenario.relations if r["relationType"] == "reports_to"]


def test_lro_extract_errors_name_their_code(tmp_path):
    async def session_run():
        env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
        async with proxied([npm_server("mcp-server-memory")], tmp_path / "lro", env=env) as session:
            result = await session.call_tool(session.extract_tool, {"file_path": str(tmp_path / "memory.jsonl"), "recipe": 1})
            assert result.isError
            assert result.content[0].text.startswith("error[path_denied]")

    anyio.run(session_run)
