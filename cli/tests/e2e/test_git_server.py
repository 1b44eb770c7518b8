"""`lro proxy` in front of mcp-server-git (PyPI, its own venv .venv-git, mcp 2.x): git_log of a
generated repository of a few hundred commits with fixed authors (one non-ASCII) and dates.
The log is plain text: one record per line, the header says so, and the recipes are text
recipes (regular expressions, ranges, counts, context), never a sort by line number."""

import re

import pytest

from conftest import descriptor_of
from offload_checks import assert_same_multiset
from real_server_checks import OffloadChecks, answer, offload_file, search_hits
from real_servers import GitHistory


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    return GitHistory(tmp_path_factory.mktemp("git"))


@pytest.fixture(scope="module")
def run(scenario, tmp_path_factory):
    return scenario.run(tmp_path_factory.mktemp("lro"))


class TestGitLog(OffloadChecks):
    def test_the_log_is_read_as_text(self, run):
        assert offload_file(run).format == "text"

    def test_every_line_of_the_log_is_in_the_file_once(self, run, scenario):
        file = offload_file(run)
        expected = [{"line": n, "text": text} for n, text in enumerate(scenario.expected_lines(), 1)]
        assert_same_multiset(file.records, expected, "log lines")
        assert file.records == expected
        for sha in scenario.hashes:
            assert sum(r["text"] == f"Commit: {sha}" for r in file.records) == 1, sha

    def test_recipes_are_text_recipes(self, run):
        recipes = descriptor_of(run.result)["jq_recipes"]
        for recipe in recipes:
            assert "sort_by(.line" not in recipe["command"], recipe
            assert not re.search(r"\b(sort|top|largest|smallest)\b.*\bline\b", recipe["description"], re.I), recipe
        commands = [recipe["command"] for recipe in recipes]
        assert any("test(" in c and "length" not in c for c in commands), "a regular-expression search"
        assert any(".line >=" in c and ".line <=" in c for c in commands), "a range of lines"
        assert any("test(" in c and "length" in c for c in commands), "a count of matching lines"
        assert any("range(" in c and "test(" in c for c in commands), "the lines around a match"

    def test_lro_extract_finds_the_commits_of_one_author(self, run, scenario):
        file = offload_file(run)
        author_lines = answer(run, "author_lines")
        assert len(author_lines) == scenario.author_commits() > 0
        # The line before each `Author:` line names the commit: exactly that author's commits.
        by_line = {r["line"]: r["text"] for r in file.records}
        found = sorted(by_line[n - 1].removeprefix("Commit: ") for n in author_lines)
        expected = sorted(sha for sha, c in zip(scenario.hashes, scenario.history) if c["author"][0] == scenario.AUTHOR)
        assert found == expected
        assert [hit["text"] for hit in search_hits(run, "author_search")] == [f"Author: {scenario.AUTHOR}"] * len(expected)
