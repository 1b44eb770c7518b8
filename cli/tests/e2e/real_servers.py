"""The real MCP servers of the end-to-end tests, each as a scenario: the server's command, the
data generated for it (the source of truth), the calls that load the data, the large call whose
result the proxy offloads, and the lro_extract questions asked of the file.

Used by the tests (test_*_server.py) and by measure_real_servers.py (the figures of the issue's
before/after table), so both see exactly the same calls."""

import ast
import json
import os
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import source_data
from conftest import HERE, load_graph, npm_server, proxied
from offload_checks import EXTRACT_SECTION

DB_VENV = HERE / ".venv-db"
GIT_VENV = HERE / ".venv-git"


def venv_server(venv: Path, name: str) -> str:
    path = venv / "bin" / name
    if not path.exists():
        raise AssertionError(f"{path} is missing: run `make setup-proxy` (it creates {venv.name})")
    return str(path)


def text_of(result) -> str:
    assert not result.isError, result
    return "".join(block.text for block in result.content if getattr(block, "text", None) is not None)


@asynccontextmanager
async def direct_session(server: list, env: dict):
    """A session with the server itself, no proxy: what the client would get without LRO."""
    params = StdioServerParameters(command=server[0], args=server[1:], env={**os.environ, **env})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@dataclass(repr=False)
class Run:
    """What one session gave: the large call's result and the answers to questions."""
    result: Any
    answers: dict = field(default_factory=dict)  # question name -> lro_extract CallToolResult
    small_results: dict = field(default_factory=dict)  # name -> a small call's CallToolResult


class Scenario:
    """A real server, its data and its calls. Subclasses fill in the blanks."""
    title = ""
    env: dict = {}
    # The proxy's guidance template: "shell" (jq recipes) for most; one scenario keeps the
    # proxy's default, "native" (lro_extract), so both are seen on a real server.
    guidance = "shell"

    def server(self) -> list:
        raise NotImplementedError

    async def prepare(self, session, run: Run):
        """Loads the generated data through the proxy (and makes small calls worth checking)."""

    async def large_call(self, session):
        raise NotImplementedError

    def questions(self, file_path: str) -> dict:
        """lro_extract arguments by question name (every recipe, "recipe N", is asked too)."""
        return {}

    def run(self, output_dir: Path, guidance=None, direct=False) -> Run:
        """One session through `lro proxy --guidance GUIDANCE` (the scenario's own by default),
        or straight to the server when `direct`."""
        def connect():
            if direct:
                return direct_session(self.server(), self.env)
            extra = ["--guidance", guidance or self.guidance]
            return proxied(self.server(), output_dir, extra=extra, env=self.env)

        async def session_run():
            async with connect() as session:
                run = Run(None)
                await self.prepare(session, run)
                run.result = await self.large_call(session)
                descriptor = offloaded_descriptor(run.result)
                if descriptor.get("offloaded") is True:
                    path = descriptor["file_path"]
                    recipes = {f"recipe {n}": {"file_path": path, "recipe": n} for n in range(1, 11)}
                    for name, arguments in {**recipes, **self.questions(path)}.items():
                        run.answers[name] = await session.call_tool(session.extract_tool, arguments)
                return run

        return anyio.run(session_run)


class MemoryGraph(Scenario):
    """@modelcontextprotocol/server-memory: a graph built through the proxy, then read_graph."""
    ENTITIES, RELATIONS = 400, 300
    title = f"server-memory `read_graph` ({ENTITIES} entities, {RELATIONS} relations)"
    guidance = "native"
    # A hub: the source of several relations and the target of one (see source_data.graph).
    PROBE = source_data.entity_name(8)

    def __init__(self, tmp: Path):
        self.entities, self.relations = source_data.graph(self.ENTITIES, self.RELATIONS)
        self.env = {"MEMORY_FILE_PATH": str(tmp / "memory.jsonl")}

    def server(self):
        return [npm_server("mcp-server-memory")]

    async def prepare(self, session, run):
        run.small_results["tools"] = await session.list_tools()
        await load_graph(session, self.entities, self.relations)
        run.small_results["open_nodes"] = await session.call_tool("open_nodes", {"names": [self.entities[7]["name"]]})

    async def large_call(self, session):
        return await session.call_tool("read_graph", {})

    def probe_relations(self) -> list:
        return [r for r in self.relations if self.PROBE in (r["from"], r["to"])]

    def questions(self, file_path):
        return {
            "relations_of_probe": {"file_path": file_path, EXTRACT_SECTION: "relations",
                                   "query": "select(.from == $name or .to == $name)", "params": {"name": self.PROBE}},
            "entity_by_name": {"file_path": file_path, EXTRACT_SECTION: "entities",
                               "query": "select(.name == $name)", "params": {"name": "entity-0123"}},
            "teams": {"file_path": file_path, "query": 'select(.entityType == "team") | .name'},
            "first_relations": {"file_path": file_path, EXTRACT_SECTION: "relations", "lines": {"start": 0, "end": 5}},
            "reports_to": {"file_path": file_path, EXTRACT_SECTION: "relations",
                           "search": {"pattern": '"reports_to"', "max_results": 1000}},
        }


class FileTree(Scenario):
    """@modelcontextprotocol/server-filesystem: directory_tree of a generated nested tree."""
    title = "server-filesystem `directory_tree` ({files} files, {dirs} directories)"

    def __init__(self, tmp: Path):
        self.allowed = tmp
        self.root = tmp / "tree"
        self.entries = source_data.file_tree(self.root)
        files = sum(kind == "file" for kind in self.entries.values())
        self.title = self.title.format(files=files, dirs=len(self.entries) - files)

    def server(self):
        return [npm_server("mcp-server-filesystem"), str(self.allowed)]

    async def prepare(self, session, run):
        run.small_results["list_directory"] = await session.call_tool("list_directory", {"path": str(self.root / "pkg_3")})

    async def large_call(self, session):
        return await session.call_tool("directory_tree", {"path": str(self.root)})

    def typescript_files(self) -> list:
        return sorted(p for p, kind in self.entries.items() if kind == "file" and p.endswith(".ts"))

    def questions(self, file_path):
        return {
            "typescript_files": {"file_path": file_path,
                                 "query": 'select(.type == "file" and (.name | endswith(".ts"))) | .path'},
            "directories": {"file_path": file_path, "query": 'select(.type == "directory") | .path'},
        }


class SalesTable(Scenario):
    """A sales table in a SQL server, loaded with INSERTs through the proxy, read back whole."""
    ROWS = 3000
    REGION = "emea"
    columns = source_data.SALES_COLUMNS

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.rows = source_data.sales_rows(self.ROWS)

    def expected_value(self, column: str, value):
        return value

    def expected_rows(self) -> list:
        """The rows as the server's client would read them (column order kept)."""
        return [{c: self.expected_value(c, row[c]) for c in self.columns} for row in self.rows]

    def region_ids(self) -> list:
        return [row["id"] for row in self.rows if row["region"] == self.REGION]

    def select_all(self) -> str:
        return f"SELECT {', '.join(self.columns)} FROM sales ORDER BY id"


class SqliteSales(SalesTable):
    """mcp-server-sqlite (PyPI, mcp<2): read_query answers with repr() of a list of dicts."""
    title = f"mcp-server-sqlite `read_query` ({SalesTable.ROWS} rows)"

    def server(self):
        return [venv_server(DB_VENV, "mcp-server-sqlite"), "--db-path", str(self.tmp / "sales.sqlite")]

    def expected_value(self, column, value):
        return int(value) if column == "paid" else value  # SQLite keeps booleans as 0 / 1

    async def prepare(self, session, run):
        created = await session.call_tool("create_table", {"query": (
            "CREATE TABLE sales (id INTEGER PRIMARY KEY, customer TEXT, region TEXT, amount REAL, note TEXT, paid BOOLEAN)")})
        assert text_of(created) == "Table created successfully", text_of(created)
        for statement in source_data.insert_statements("sales", self.rows, self.columns):
            inserted = text_of(await session.call_tool("write_query", {"query": statement}))
            assert ast.literal_eval(inserted)[0]["affected_rows"] == statement.count("), (") + 1, inserted[:300]

    async def large_call(self, session):
        return await session.call_tool("read_query", {"query": self.select_all()})

    def questions(self, file_path):
        return {"region_ids": {"file_path": file_path, "query": "select(.region == $region) | .id",
                               "params": {"region": self.REGION}}}


class DuckdbSales(SalesTable):
    """mcp-server-duckdb (PyPI, mcp<2): query answers with repr() of a list of tuples."""
    title = f"mcp-server-duckdb `query` ({SalesTable.ROWS} rows)"

    def server(self):
        return [venv_server(DB_VENV, "mcp-server-duckdb"), "--db-path", str(self.tmp / "sales.duckdb")]

    def expected_rows(self) -> list:
        return [[row[c] for c in self.columns] for row in self.rows]  # tuples become arrays

    async def prepare(self, session, run):
        created = text_of(await session.call_tool("query", {"query": (
            "CREATE TABLE sales (id INTEGER, customer VARCHAR, region VARCHAR, amount DOUBLE, note VARCHAR, paid BOOLEAN)")}))
        assert created == "[]", created
        for statement in source_data.insert_statements("sales", self.rows, self.columns):
            inserted = text_of(await session.call_tool("query", {"query": statement}))
            assert ast.literal_eval(inserted) == [(statement.count("), (") + 1,)], inserted[:300]

    async def large_call(self, session):
        return await session.call_tool("query", {"query": self.select_all()})

    def questions(self, file_path):
        region = self.columns.index("region")
        return {"region_ids": {"file_path": file_path, "query": f"select(.[{region}] == $region) | .[0]",
                               "params": {"region": self.REGION}}}


class GitHistory(Scenario):
    """mcp-server-git (PyPI, mcp 2): git_log of a generated repository."""
    COMMITS = 300
    title = f"mcp-server-git `git_log` ({COMMITS} commits)"
    AUTHOR = source_data.AUTHORS[1][0]  # non-ASCII name

    def __init__(self, tmp: Path):
        self.repo = tmp / "repo"
        self.history = source_data.commits(self.COMMITS)
        self.hashes = source_data.git_repository(self.repo, self.history)

    def server(self):
        return [venv_server(GIT_VENV, "mcp-server-git"), "--repository", str(self.repo)]

    async def large_call(self, session):
        return await session.call_tool("git_log", {"repo_path": str(self.repo), "max_count": 10 * self.COMMITS})

    def expected_lines(self) -> list:
        """The text split as the file records it: at each newline, a final one starting no line."""
        text = source_data.git_log_text(self.history, self.hashes)
        return text.removesuffix("\n").split("\n")

    def author_commits(self) -> int:
        return sum(1 for commit in self.history if commit["author"][0] == self.AUTHOR)

    def questions(self, file_path):
        return {
            "author_lines": {"file_path": file_path, "query": 'select(.text == "Author: " + $name) | .line',
                             "params": {"name": self.AUTHOR}},
            "author_search": {"file_path": file_path,
                              "search": {"pattern": f"Author: {self.AUTHOR}", "max_results": 10 * self.COMMITS}},
        }


SCENARIOS = {"memory": MemoryGraph, "filesystem": FileTree, "sqlite": SqliteSales,
             "duckdb": DuckdbSales, "git": GitHistory}


def offloaded_descriptor(result) -> dict:
    """The descriptor an offloaded result holds (its text block), or {} for any other result."""
    try:
        descriptor = json.loads(result.content[0].text)
    except (AttributeError, IndexError, TypeError, ValueError):
        return {}
    return descriptor if isinstance(descriptor, dict) and descriptor.get("offloaded") is True else {}
