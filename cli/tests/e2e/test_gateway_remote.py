"""`lro proxy --listen --url`: the gateway in front of a remote streamable-HTTP server (the
official Python SDK's FastMCP, servers/http_server.py), driven by the SDK's own
streamable-HTTP client. Each session gets its own remote session (per-session) or all share
one (shared); either way results are offloaded into the caller's session (an answer whose
stream the remote closed early too), progress reaches the caller's stream, the remote server
sees the proxy's clientInfo, and a session's DELETE does not wait for the remote's calls in
flight."""

import json
from contextlib import AsyncExitStack

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from conftest import descriptor_of, extract
from test_gateway_http import offload_uris, session_at, start_gateway


@pytest.fixture(params=["per-session", "shared"])
def remote_gateway(request, http_server, tmp_path):
    """The gateway on a free loopback port in front of `http_server`; yields its URL."""
    url, proc = start_gateway(
        ["--output-dir", str(tmp_path / "lro"), "--upstream", request.param, "--url", http_server,
         "--header", "X-Test: gateway"])
    yield url
    proc.terminate()
    assert proc.wait(timeout=60) == 0


def test_remote_sessions_offload_and_hear_their_progress(remote_gateway, tmp_path):
    async def scenario():
        async with AsyncExitStack() as stack:
            sessions = [await session_at(remote_gateway, stack) for _ in range(2)]
            for n, session in enumerate(sessions):
                who = await session.call_tool("whoami", {})
                assert json.loads(who.content[0].text)["proxy"] is True

                # The second session's tool closes its call's stream before answering: the
                # answer comes on the stream the gateway resumes with Last-Event-ID.
                tool = "interrupted" if n else "list_items"
                big = await session.call_tool(tool, {"count": 1000 + n})
                descriptor = descriptor_of(big)
                assert descriptor["summary"]["count"] == 1000 + n
                assert descriptor["file_path"].startswith(str((tmp_path / "lro").resolve()))
                skus = await extract(session, file_path=descriptor["file_path"], query=".sku")
                assert len(skus) == 1000 + n
                # Its offload is its own: the other session lists only its own.
                assert offload_uris(await session.list_resources()) == [descriptor["resource_uri"]]

            # Both call at once and each hears its own progress (the same token in both
            # sessions, as the SDK numbers them per session).
            heard = {0: [], 1: []}

            async def call(n):
                async def on_progress(value, total, message):
                    heard[n].append(value)

                done = await sessions[n].call_tool("progress", {}, progress_callback=on_progress)
                assert done.content[0].text == "done"

            async with anyio.create_task_group() as group:
                for n in heard:
                    group.start_soon(call, n)
            assert heard == {0: [1, 2], 1: [1, 2]}

    anyio.run(scenario)


def test_a_sessions_end_does_not_wait_for_the_remotes_calls(remote_gateway):
    async def scenario():
        async with streamable_http_client(remote_gateway) as (read, write, session_id):
            async with ClientSession(read, write) as session:
                await session.initialize()
                begun = anyio.Event()
                failed = []

                async def on_progress(value, total, message):
                    begun.set()

                async def call():
                    try:
                        await session.call_tool("wait", {"seconds": 120}, progress_callback=on_progress)
                    except McpError as error:
                        failed.append(error.error.message)

                async with anyio.create_task_group() as group:
                    group.start_soon(call)
                    await begun.wait()
                    # The call is at the remote: the DELETE is answered at once all the same
                    # (the client's own timeout is far below the remote's two minutes).
                    async with httpx.AsyncClient(timeout=20) as client:
                        deleted = await client.delete(remote_gateway, headers={"Mcp-Session-Id": session_id()})
                    assert deleted.status_code == 200, deleted.text
                assert len(failed) == 1 and "ended the session" in failed[0], failed

    anyio.run(scenario)
