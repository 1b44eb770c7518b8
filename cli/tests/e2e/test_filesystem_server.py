"""`lro proxy` in front of @modelcontextprotocol/server-filesystem (npm): directory_tree of a
generated tree of several hundred files in nested directories. The server returns the tree as
JSON text, and as structuredContent {"content": "<the same JSON text>"}: the proxy reads the
JSON inside the string and flattens the nested `children` arrays into one record per node,
with its path from the root and its depth, so "every .ts file" is one filter."""

import pytest

from conftest import descriptor_of
from offload_checks import assert_same_multiset, tree_of
from real_server_checks import OffloadChecks, answer, offload_file
from real_servers import FileTree


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return FileTree(tmp_path_factory.mktemp("filesystem"))


@pytest.fixture(scope="module")
def run(scenario, tmp_path_factory):
    return scenario.run(tmp_path_factory.mktemp("lro"))


class TestDirectoryTree(OffloadChecks):
    def test_the_generated_tree_is_large_and_nested(self, scenario):
        files = [p for p, kind in scenario.entries.items() if kind == "file"]
        assert len(files) >= 400 and max(p.count("/") for p in files) >= 4

    def test_a_small_call_stays_inline(self, run):
        listing = run.small_results["list_directory"]
        assert not (listing.structuredContent or {}).get("offloaded")
        assert "[DIR] src" in listing.content[0].text

    def test_the_tree_is_flattened_from_children(self, run):
        file = offload_file(run)
        tree = tree_of(file)
        assert tree.key == "children"
        assert file.format == "json"
        for record in file.records:
            assert "children" not in record, record
            assert set(record) == {"name", "type", tree.path_field, tree.depth_field}, record

    def test_every_node_is_in_the_file_once_with_its_path_and_depth(self, run, scenario):
        file = offload_file(run)
        tree = tree_of(file)
        found = [{"path": r[tree.path_field], "type": r["type"]} for r in file.records]
        expected = [{"path": path, "type": kind} for path, kind in scenario.entries.items()]
        assert_same_multiset(found, expected, "tree nodes")
        for record in file.records:
            path = record[tree.path_field]
            assert record["name"] == path.rsplit("/", 1)[-1], record
            assert record[tree.depth_field] == path.count("/"), record  # 0 for a root entry

    def test_lro_extract_answers_from_the_tree(self, run, scenario):
        descriptor_of(run.result)
        assert sorted(answer(run, "typescript_files")) == scenario.typescript_files()
        assert sorted(answer(run, "directories")) == sorted(p for p, k in scenario.entries.items() if k == "directory")
