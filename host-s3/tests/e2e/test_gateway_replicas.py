"""Two `lro proxy --listen` replicas over one s3:// output directory, with one token file, as
behind a round-robin load balancer, driven by the official MCP Python client: an offload made
through one replica is listed, read and extracted through the other by the same principal
(its prefix, s3://BUCKET/PREFIX/p-HASH, is the same on both), and never by another."""

import json
import os
import subprocess
import sys
import threading
from contextlib import AsyncExitStack, contextmanager

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import MOCK_SERVER, lro_binary, key_of

LISTENING = "lro proxy: listening on "
ALICE = "alice-replica-token-0123"
BOB = "bob-replica-token-4567"


@contextmanager
def replica(s3_dir: str, tokens: str):
    """One gateway on a free loopback port: its URL. Its stderr is drained by a thread."""
    proc = subprocess.Popen(
        [lro_binary(), "proxy", "--listen", "127.0.0.1:0", "--output-dir", s3_dir,
         "--auth-tokens", tokens, "--", sys.executable, str(MOCK_SERVER)],
        env=dict(os.environ), stderr=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stderr:
            if LISTENING in line:
                url = line.split(LISTENING, 1)[1].strip()
                break
        assert url, "the gateway never said where it listens"
        threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
        yield url
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0


async def session_at(url: str, token: str, stack: AsyncExitStack) -> ClientSession:
    client = await stack.enter_async_context(
        httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60))
    read, write, _ = await stack.enter_async_context(streamable_http_client(url, http_client=client))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def offload_uris(listed) -> list:
    return [str(r.uri) for r in listed.resources if str(r.uri).startswith("lro://offloads/")]


def test_a_principal_offloads_through_one_replica_and_reads_through_the_other(s3, s3_dir, tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{ALICE} alice\n{BOB} bob\n")
    tokens.chmod(0o600)

    async def scenario(one: str, two: str):
        async with AsyncExitStack() as stack:
            writer = await session_at(one, ALICE, stack)
            result = await writer.call_tool("memories", {"count": 300})
            assert not result.isError, result
            descriptor = json.loads(result.content[0].text)
            path, uri = descriptor["file_path"], descriptor["resource_uri"]
            assert path.startswith(f"{s3_dir}/p-"), path
            bucket, key = key_of(path)
            assert len(s3.get_object(Bucket=bucket, Key=key)["Body"].read().splitlines()) == 301

            reader = await session_at(two, ALICE, stack)
            assert offload_uris(await reader.list_resources()) == [uri]
            read = await reader.read_resource(uri)
            assert len(read.contents[0].text.splitlines()) == 301
            extract = descriptor["extract_tool"]
            answer = await reader.call_tool(extract, {"file_path": path, "recipe": 6})
            assert not answer.isError, answer.content[0].text
            rows = json.loads(answer.content[0].text)
            assert sum(r["count"] for r in rows) == 300

            other = await session_at(two, BOB, stack)
            assert offload_uris(await other.list_resources()) == []
            denied = await other.call_tool(extract, {"file_path": path, "recipe": 6})
            assert denied.isError, denied.content[0].text

    with replica(s3_dir, str(tokens)) as one, replica(s3_dir, str(tokens)) as two:
        anyio.run(scenario, one, two)
