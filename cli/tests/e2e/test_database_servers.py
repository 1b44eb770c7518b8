"""`lro proxy` in front of mcp-server-sqlite (`read_query`) and mcp-server-duckdb (`query`),
both from PyPI in their own venv (.venv-db, mcp 1.x). A sales table of a few thousand rows
holding both quotes, backslashes, control characters, a no-break space and non-ASCII text
(accents, CJK, emoji) is loaded with INSERTs through the proxy and read back whole. Both
servers answer with Python's repr(): a list of dicts (SQLite) or of tuples (DuckDB). The file
must hold one record per row, an object for a dict and an array for a tuple, exactly the
values inserted."""

import pytest

from conftest import descriptor_of
from offload_checks import assert_same_multiset
from real_server_checks import OffloadChecks, answer, offload_file
from real_servers import DuckdbSales, SqliteSales


@pytest.fixture(scope="module", params=[SqliteSales, DuckdbSales], ids=["sqlite", "duckdb"])
def scenario(request, tmp_path_factory):
    return request.param(tmp_path_factory.mktemp(request.param.__name__))


@pytest.fixture(scope="module")
def run(scenario, tmp_path_factory):
    return scenario.run(tmp_path_factory.mktemp("lro"))


class TestQueryResult(OffloadChecks):
    def test_the_rows_hold_hard_strings(self, scenario):
        notes = "".join(row["note"] or "" for row in scenario.rows)
        for needle in ["'", '"', "\\", "\n", "\t", "\u00a0", "é", "東", "🚀"]:
            assert needle in notes, needle
        assert any(row["note"] is None for row in scenario.rows)

    def test_the_python_literal_is_read_as_records(self, run):
        file = offload_file(run)
        assert file.format == "python_literal", file.header
        assert len(file.records) > 1

    def test_every_row_is_in_the_file_once_verbatim(self, run, scenario):
        file = offload_file(run)
        expected = scenario.expected_rows()
        assert_same_multiset(file.records, expected, "rows")
        assert file.records == expected  # in the query's order
        if isinstance(expected[0], dict):  # column order kept
            assert [list(r) for r in file.records] == [list(r) for r in expected]

    def test_lro_extract_answers_from_the_rows(self, run, scenario):
        descriptor_of(run.result)
        assert answer(run, "region_ids") == scenario.region_ids()
        assert 0 < len(scenario.region_ids()) < scenario.ROWS
