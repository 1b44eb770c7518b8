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
import re
import sys
import threading
import time
import urllib.error
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

sys.path.append(str(HERE / "servers"))
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

    def post(self, path: str, body=None) -> dict:
        request = urllib.request.Request(f"{self.issuer}{path}", method="POST", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
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


def run(scenario, seconds=60):
    """Runs an async scenario, failing it after `seconds` (the proxy waits 300 s for an
    authorization that does not come)."""
    async def bounded():
        with anyio.fail_after(seconds):
            await scenario()
    anyio.run(bounded)


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


def check_no_secret_logged(server: Server, stderr_path: Path):
    """No token the server issued, and no client secret, is on the proxy's stderr."""
    logged = stderr_path.read_text()
    secrets = server.stats()["secrets"]
    assert secrets
    leaked = [secret for secret in secrets if secret in logged]
    assert not leaked, f"{len(leaked)} tokens or client secrets are on the proxy's stderr"


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

    run(scenario)


def test_large_result_offloaded_through_oauth(server, tmp_path):
    """First use: the proxy registers, has the authorization URL opened, takes the code at its
    loopback redirect, and from then on calls the server with the token; the large result lands
    in a local file, every record; the small one comes inline. A second run with the same store
    uses the cached token: nothing new on the server."""
    store, stderr_path = tmp_path / "oauth", tmp_path / "proxy.stderr"
    expected = tickets(3000)

    async def first_run():
        async with proxied(lro_binary(), proxy_args(server, store, tmp_path / "out"), stderr_path) as session:
            small = await session.call_tool("get_ticket", {"ticket_id": "TCK-00042"})
            assert not small.isError and json.loads(small.content[0].text) == expected[42]

            big = await session.call_tool("list_tickets", {"count": 3000})
            descriptor = descriptor_of(big)
            assert descriptor["summary"]["count"] == 3000
            assert descriptor["file_path"].startswith(str((tmp_path / "out").resolve()))
            assert OffloadFile.read(descriptor["file_path"]).records == expected
            urgent_billing = await extract(session, file_path=descriptor["file_path"],
                                           query='select(.priority == 3 and .tags == ["billing"]) | .id')
            assert urgent_billing == [t["id"] for t in expected if t["priority"] == 3 and t["tags"] == ["billing"]]

    async def second_run():
        async with proxied(lro_binary(), proxy_args(server, store, tmp_path / "out"), stderr_path) as session:
            assert ticket_records(await session.call_tool("list_tickets", {"count": 5})) == expected[:5]

    before = server.stats()
    run(first_run)
    assert server.counted_since(before) == {"registrations": 1, "authorizations": 1,
                                            "code_grants": 1, "refresh_grants": 0}
    assert server.stats()["refused"] > before["refused"], "the server's 401 began it"
    check_store_is_private(store)

    before = server.stats()
    run(second_run)
    assert server.counted_since(before) == {"registrations": 0, "authorizations": 0,
                                            "code_grants": 0, "refresh_grants": 0}
    assert server.stats()["refused"] == before["refused"], "the cached token was sent from the start"
    check_no_secret_logged(server, stderr_path)


def test_expired_and_revoked_tokens_mid_session(server, tmp_path):
    """The token stops working while the session is open: an expired one is refreshed (no new
    authorization), and once every token is revoked the proxy authorizes again with the client
    it registered. The calls succeed throughout."""
    store, stderr_path = tmp_path / "oauth", tmp_path / "proxy.stderr"

    async def scenario():
        async with proxied(lro_binary(), proxy_args(server, store, tmp_path / "out"), stderr_path) as session:
            assert ticket_records(await session.call_tool("list_tickets", {"count": 2})) == tickets(2)

            before = server.stats()
            assert server.post("/testing/expire")["expired"] >= 1
            assert ticket_records(await session.call_tool("list_tickets", {"count": 3})) == tickets(3)
            assert server.counted_since(before) == {"registrations": 0, "authorizations": 0,
                                                    "code_grants": 0, "refresh_grants": 1}

            before = server.stats()
            assert server.post("/testing/revoke-all")["revoked"] >= 2
            assert ticket_records(await session.call_tool("list_tickets", {"count": 4})) == tickets(4)
            assert server.counted_since(before) == {"registrations": 0, "authorizations": 1,
                                                    "code_grants": 1, "refresh_grants": 0}

    run(scenario)
    check_store_is_private(store)
    check_no_secret_logged(server, stderr_path)


def test_token_refreshed_before_it_expires(server, tmp_path):
    """Tokens that live 30 s, within the proxy's one-minute margin: the next run refreshes the
    cached one before using it, so the MCP server refuses nothing."""
    store, stderr_path = tmp_path / "oauth", tmp_path / "proxy.stderr"

    async def scenario():
        async with proxied(lro_binary(), proxy_args(server, store, tmp_path / "out"), stderr_path) as session:
            assert ticket_records(await session.call_tool("list_tickets", {"count": 2})) == tickets(2)

    server.post("/testing/ttl", {"seconds": 30})
    try:
        run(scenario)
        before = server.stats()
        run(scenario)
    finally:
        server.post("/testing/ttl", {"seconds": 3600})
    counted = server.counted_since(before)
    assert counted["refresh_grants"] >= 1 and counted["authorizations"] == 0, counted
    assert server.stats()["refused"] == before["refused"], "a 401 came before the refresh"
    check_no_secret_logged(server, stderr_path)


def test_authorization_url_on_stderr_for_a_person(server, tmp_path):
    """Without --oauth-open the proxy prints the authorization URL on stderr (a terminal, an
    SSH session); the person here reads it there and opens it."""
    read_end, write_end = os.pipe()
    lines, opened = [], []

    def person():
        with os.fdopen(read_end) as stderr:
            for line in stderr:
                lines.append(line)
                for url in re.findall(r"https?://\S+/authorize\?\S+", line):
                    # urllib follows the approval's redirect to the proxy's callback, as a browser.
                    with urllib.request.urlopen(url) as answer:
                        opened.append(answer.status)

    reader = threading.Thread(target=person)
    reader.start()
    args = ["proxy", "--url", server.url, "--output-dir", str(tmp_path / "out"), "--oauth-store", str(tmp_path / "oauth")]

    async def scenario():
        params = StdioServerParameters(command=lro_binary(), args=args)
        with os.fdopen(write_end, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                assert ticket_records(await session.call_tool("list_tickets", {"count": 2})) == tickets(2)

    before = server.stats()
    run(scenario)
    reader.join(timeout=30)
    assert opened == [200], "".join(lines)
    assert server.counted_since(before)["authorizations"] == 1
    (tmp_path / "proxy.stderr").write_text("".join(lines))
    check_no_secret_logged(server, tmp_path / "proxy.stderr")


def test_pre_registered_client(server, tmp_path):
    """--oauth-client-id / --oauth-client-secret: the client the server's administrator
    registered (its redirect URI fixed, hence --oauth-redirect-port); no dynamic registration."""
    store, stderr_path = tmp_path / "oauth", tmp_path / "proxy.stderr"
    args = proxy_args(server, store, tmp_path / "out", "--oauth-client-id", PRE_CLIENT_ID,
                      "--oauth-client-secret", PRE_CLIENT_SECRET,
                      "--oauth-redirect-port", str(server.redirect_port))

    async def scenario():
        async with proxied(lro_binary(), args, stderr_path) as session:
            assert ticket_records(await session.call_tool("list_tickets", {"count": 2})) == tickets(2)

    before = server.stats()
    run(scenario)
    assert server.counted_since(before) == {"registrations": 0, "authorizations": 1,
                                            "code_grants": 1, "refresh_grants": 0}
    check_no_secret_logged(server, stderr_path)


README = HERE.parents[2] / "README.md"
README_MARKER = "<!-- mcp-config: oauth"
README_URL = "https://mcp.example.com/mcp"


def readme_oauth_config() -> dict:
    """The `mcpServers` block that follows the README's `<!-- mcp-config: oauth ... -->` marker."""
    text = README.read_text()
    assert text.count(README_MARKER) == 1, f"one {README_MARKER} marker in README.md"
    after = text[text.index(README_MARKER):].split("\n", 1)[1]
    assert after.startswith("```json\n"), "the marker is followed by a json block"
    return json.loads(after[len("```json\n"):after.index("\n```")])


def test_readme_client_configuration_starts(server, tmp_path):
    """The README's configuration, started as a client application starts it: its command
    looked up on PATH, its args as written but for the server's URL, MCP over stdio. The
    browser `open` would start is curl here (a script of that name, first on PATH); the store is
    the default one, under a HOME of the test's own."""
    servers = readme_oauth_config()["mcpServers"]
    assert len(servers) == 1
    (config,) = servers.values()
    assert config["command"] == "lro" and README_URL in config["args"]
    args = [server.url if arg == README_URL else arg for arg in config["args"]]
    opener = args[args.index("--oauth-open") + 1]

    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    bin_dir.mkdir()
    home.mkdir()
    (bin_dir / "lro").symlink_to(lro_binary())
    (bin_dir / opener).write_text(f'#!/bin/sh\nexec {OPEN_WITH_CURL} "$@"\n')
    (bin_dir / opener).chmod(0o755)
    env = {key: value for key, value in os.environ.items() if not key.startswith("XDG_")}
    env.update(PATH=f"{bin_dir}:{os.environ['PATH']}", HOME=str(home),
               ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR=str(tmp_path / "out"))
    stderr_path = tmp_path / "proxy.stderr"

    async def scenario():
        params = StdioServerParameters(command=config["command"], args=args, env=env)
        with stderr_path.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                assert (await session.initialize()).serverInfo.name == "ticket-desk"
                big = await session.call_tool("list_tickets", {"count": 3000})
                assert OffloadFile.read(descriptor_of(big)["file_path"]).records == tickets(3000)

    before = server.stats()
    run(scenario)
    assert server.counted_since(before)["authorizations"] == 1
    stores = {path.parent for path in home.rglob("*") if path.is_file()}
    assert len(stores) == 1, f"the default store, under HOME: {stores}"
    check_store_is_private(stores.pop())
    check_no_secret_logged(server, stderr_path)
