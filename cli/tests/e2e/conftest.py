"""Shared fixtures of the `lro proxy` end-to-end tests: the official MCP Python client drives
the proxy over stdio, in front of third-party MCP servers (npm) and a streamable-HTTP server.

The `lro` binary is $LRO_BIN, else the workspace's target/release/lro (`make test-proxy`
builds it)."""

import json
import os
import re
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
NODE_BIN = HERE / "node_modules" / ".bin"


def lro_binary() -> str:
    binary = Path(os.environ.get("LRO_BIN", ROOT / "target" / "release" / "lro"))
    if not binary.exists():
        pytest.fail(f"{binary} is missing: run `cargo build --release -p lro-cli` (or `make test-proxy`)")
    return str(binary)


def npm_server(name: str) -> str:
    path = NODE_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `npm ci` in {HERE}")
    return str(path)


# These checks compare whole answers with the servers' data, so the proxies they start answer
# without the extract tool's answer bound (`extract.answer_max_*`); the bound is the subject of
# the Rust proxy tests and of the agent-framework tests (tests/frameworks).
os.environ.setdefault("ATLATL_PROMPT__OFFLOAD__EXTRACT__ANSWER_MAX_BYTES", str(1 << 30))
os.environ.setdefault("ATLATL_PROMPT__OFFLOAD__EXTRACT__ANSWER_MAX_TOKENS", str(1 << 28))


@asynccontextmanager
async def proxied(server: list, output_dir: Path, extra=(), env=None, message_handler=None):
    """An initialized ClientSession talking to `lro proxy ... -- SERVER...` over stdio
    (`message_handler` receives the server's notifications)."""
    params = StdioServerParameters(
        command=lro_binary(),
        args=["proxy", "--output-dir", str(output_dir), *extra, "--", *server],
        env={**os.environ, **(env or {})},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=message_handler) as session:
            init = await session.initialize()
            #: The proxy's extract tool, named after the server (`lro_extract_<server>`).
            session.extract_tool = extract_tool_for(init.serverInfo.name)
            yield session


def extract_tool_for(server_name) -> str:
    """The extract tool's name for a server named `server_name` (the proxy's rule, written
    again here: lowercased, each run of other characters one `_`, at most 64 characters)."""
    suffix = re.sub(r"[^a-z0-9]+", "_", (server_name or "").lower()).strip("_")
    name = f"lro_extract_{suffix}"[:64].rstrip("_")
    return name if suffix else "lro_extract"


def descriptor_of(result) -> dict:
    """The offload descriptor of a CallToolResult: its text block (asserts it was offloaded;
    structuredContent, with --structured-content only, is the same descriptor)."""
    assert not result.isError, result
    descriptor = json.loads(result.content[0].text) if result.content and result.content[0].type == "text" else None
    assert isinstance(descriptor, dict) and descriptor.get("offloaded") is True, f"not offloaded: {str(result)[:500]}"
    assert result.structuredContent in (None, descriptor)
    assert len(descriptor["jq_recipes"]) == 10
    assert Path(descriptor["file_path"]).is_file()
    return descriptor


def answer_values(result) -> list:
    """The values of an extract answer, read back from its text: one result per line (JSON,
    or a raw string from recipe #1), `warning:` and `equivalent jq:` lines skipped. A cut answer fails the test:
    these questions ask for what fits the answer bound."""
    assert not result.isError, result.content[0].text
    assert result.structuredContent is None, "the text is the whole answer"
    values = []
    for line in result.content[0].text.splitlines():
        assert not line.startswith("[truncated]"), f"answer cut: {line}"
        if line.startswith(("warning: ", "equivalent jq: ")) or line == "(no results)":
            continue
        try:
            values.append(json.loads(line))
        except ValueError:
            values.append(line)
    return values


async def extract(session, **arguments) -> list:
    """Calls the proxy's extract tool and returns its result values."""
    return answer_values(await session.call_tool(session.extract_tool, arguments))


async def load_graph(session, entities: list, relations: list):
    """Creates a knowledge graph in server-memory, a hundred entities (then relations) a call."""
    for start in range(0, len(entities), 100):
        created = await session.call_tool("create_entities", {"entities": entities[start:start + 100]})
        assert not created.isError, created
    for start in range(0, len(relations), 100):
        created = await session.call_tool("create_relations", {"relations": relations[start:start + 100]})
        assert not created.isError, created


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_server(request):
    """A FastMCP streamable-HTTP server on loopback; yields its URL."""
    json_response = getattr(request, "param", False)
    port = free_port()
    env = {**os.environ, "PORT": str(port), "JSON_RESPONSE": "1" if json_response else ""}
    proc = subprocess.Popen([sys.executable, str(HERE / "servers" / "http_server.py")], env=env)
    deadline = time.time() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail("the streamable-HTTP test server did not start")
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
