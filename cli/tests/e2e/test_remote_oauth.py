"""`lro proxy --url` in front of an OAuth-protected streamable-HTTP server (servers/oauth_server.py:
the official Python SDK's authorization server and FastMCP resource server, on two loopback
origins). The official Python client drives the proxy over stdio; the authorization URL is
"opened" by curl, which follows the server's at-once approval back to the proxy's loopback
redirect, as a browser would.

What is counted is counted on the server (registrations, authorizations, grants), never taken
from the proxy's word."""

import json
import os
import stat
import subprocess
import sys
import time
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from conftest import HERE, descriptor_of, extract, extract_tool_for, free_port, lro_binary
from mcp import ClientSession, StdioServerParameters
from mcp.client.auth import OAuthClientProvider
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from offload_checks import OffloadFile

sys.path.insert(0, str(HERE / "servers"))
from oauth_server import tickets  # noqa: E402  (the server's own records, to compare the file with)

OPEN_WITH_CURL = "curl -sL -o /dev/null"
PRE_CLIENT_ID, PRE_CLIENT_SECRET = "ticket-desk-cli", "a-pre-registered-secret"


class Server:
    """The running server: its MCP URL and its authorization server's counters."""

    def __init__(self, url: str, issuer: str, redirect_port: int):
        self.url, self.issuer, self.redirect_port = url, issuer, redirect_port

    def stats(self) -> dict:
        with urllib.request.urlopen(f"{self.issuer}/testing/stats") as answer:
            return json.load(answer)

    def post(self, path: str) -> dict:
        with urllib.request.urlopen(urllib.request.Request(f"{self.issuer}{path}", method="POST")) as answer:
            return json.load(answer)

    def counted_since(self, before: dict) -> dict:
        now = self.stats()
        return {key: now[key] - before[key]
                for key in ("registrations", "authorizations", "code_grants", "refresh_grants")}


@pytest.fixture(scope="module")
def server():
    port, as_port, redirect_port = free_port(), free_port(), free_port()
    env = {**os.environ, "PORT": str(port), "AS_PORT": str(as_port),
           "PRE_CLIENT_ID": PRE_CLIENT_ID, "PRE_CLIENT_SECRET": PRE_CLIENT_SECRET,
           "REDIRECT_URI": f"http://127.0.0.1:{redirect_port}/callback"}
    proc = subprocess.Popen([sys.executable, str(HERE / "servers" / "oauth_server.py")], env=env)
    issuer = f"http://127.0.0.1:{as_port}"
    deadline = time.time() + 30
    while True:
        try:
            # Both origins answer: the stats route is the authorization server's, the 401 the MCP server's.
            urllib.request.urlopen(f"{issuer}/testing/stats").close()
            urllib.request.urlopen(f"http://127.0.0.1:{port}/mcp")
        except urllib.error.HTTPError as error:
            if error.code == 401:
                break
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            pytest.fail("the OAuth test server did not start")
        time.sleep(0.1)
    yield Server(f"http://127.0.0.1:{port}/mcp", issuer, redirect_port)
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@asynccontextmanager
async def proxied(command: str, args: list, stderr_path: Path, env=None):
    """An initialized ClientSession talking to COMMAND ARGS over stdio, the proxy's stderr kept
    in `stderr_path`."""
    params = StdioServerParameters(command=command, args=args, env={**os.environ, **(env or {})})
    with stderr_path.open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                session.extract_tool = extract_tool_for(init.serverInfo.name)
                yield session


def proxy_args(server: Server, store: Path, output_dir: Path, *extra) -> list:
    return ["proxy", "--url", server.url, "--output-dir", str(output_dir),
            "--oauth-open", OPEN_WITH_CURL, "--oauth-store", str(store), *extra]


def ticket_records(result) -> list:
    """The tickets of an inline list_tickets answer (FastMCP wraps a list in {"result": ...})."""
    assert not result.isError, result
    return result.structuredContent["result"]


def check_store_is_private(store: Path):
    files = [path for path in store.rglob("*") if path.is_file()]
    assert files, f"nothing cached in {store}"
    for directory in [store, *(path for path in store.rglob("*") if path.is_dir())]:
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, f"{directory} is not 0700"
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, f"{path} is not 0600"


def check_no_token_logged(server: Server, stderr_path: Path):
    logged = stderr_path.read_text()
    issued = server.stats()["issued_access_tokens"]
    assert issued
    leaked = [token for token in issued if token in logged]
    assert not leaked, "an access token is on the proxy's stderr"


def test_the_server_is_a_working_oauth_deployment(server):
    """The official SDK's own OAuth client gets through: a failure below is the proxy's, not
    the server's."""

    class Memory:
        tokens = client = None

        async def get_tokens(self): return self.tokens
        async def set_tokens(self, tokens: OAuthToken): self.tokens = tokens
        async def get_client_info(self): return self.client
        async def set_client_info(self, info: OAuthClientInformationFull): self.client = info

    redirect = {}

    async def approve(url: str):
        # The server approves at once: its answer is the redirect to the client's callback.
        async with httpx.AsyncClient() as http:
            answer = await http.get(url)
        assert answer.status_code == 302, answer.text
        redirect.update(httpx.URL(answer.headers["location"]).params)

    async def callback():
        return redirect["code"], redirect.get("state")

    async def scenario():
        before = server.stats()
        auth = OAuthClientProvider(
            server.url,
            OAuthClientMetadata(client_name="sdk-check", redirect_uris=["http://127.0.0.1:1/callback"]),
            Memory(), redirect_handler=approve, callback_handler=callback)
        async with httpx.AsyncClient(auth=auth) as http, streamable_http_client(server.url, http_client=http) as (
                read, write, _), ClientSession(read, write) as session:
            await session.initialize()
            assert ticket_records(await session.call_tool("list_tickets", {"count": 3})) == tickets(3)
        assert server.counted_since(before) == {"registrations": 1, "authorizations": 1,
                                                "code_grants": 1, "refresh_grants": 0}

    anyio.run(scenario)
