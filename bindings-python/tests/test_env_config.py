"""One configuration story: without a configuration, every entry point uses the
defaults with the ``ATLATL_PROMPT__OFFLOAD__*`` environment on top, as ``lro offload`` does;
a configuration the caller built is used as built."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import pytest
from mif import memories

import lro

PREFIX = "ATLATL_PROMPT__OFFLOAD__"
SMALL = [{"id": "m1", "memory_type": "semantic", "namespace": "_semantic", "title": "one memory"}]


@pytest.fixture
def env_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An output directory named only by the environment, set after ``lro`` was imported."""
    d = tmp_path / "from-env"
    d.mkdir()
    monkeypatch.setenv(PREFIX + "OUTPUT_DIR", str(d))
    return os.path.realpath(d)


def test_a_new_user_sets_the_environment_and_offload_writes_there(tmp_path: Path) -> None:
    # As the issue tried it: the variable set before Python starts, no Config anywhere.
    out = tmp_path / "lro-files"
    script = (
        "import json, lro\n"
        "records = [{'id': f'm{i}', 'memory_type': 'semantic', 'namespace': '_s', 'title': 'x' * 40}"
        " for i in range(500)]\n"
        "print(json.dumps(lro.offload(records, operation='recall')))\n"
    )
    env = {**os.environ, PREFIX + "OUTPUT_DIR": str(out)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    response = json.loads(done.stdout)
    assert response["offloaded"]
    assert Path(response["file_path"]).parent == Path(os.path.realpath(out))


def test_module_functions_read_the_environment_at_each_call(env_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    response = lro.offload(memories(200), operation="recall")
    assert response["offloaded"] and os.path.dirname(response["file_path"]) == env_dir
    # extract confines reads to the output directory: the environment's, here too.
    assert lro.extract(response["file_path"], count=True)["results"] == [200]
    wire = {"content": [{"type": "text", "text": json.dumps(memories(200))}]}
    intercepted = lro.intercept_tool_result(wire, "recall_memories")
    assert intercepted["action"] == "offloaded"
    assert os.path.dirname(intercepted["response"]["file_path"]) == env_dir
    injected = lro.offload_inject("budgeted text", memories(200))
    assert os.path.dirname(injected["file_path"]) == env_dir
    # A variable set later counts from the next call on.
    monkeypatch.setenv(PREFIX + "TTL_SECONDS", "0")
    removed = lro.cleanup()["removed"]
    assert len(removed) == 3 and os.listdir(env_dir) == []
    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "5")
    assert lro.offload(SMALL)["offloaded"]
    assert lro.offload(SMALL, on_event=lambda event: None)["offloaded"]


def test_offloader_without_config_reads_the_environment_when_built(
    env_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "5")
    offloader = lro.Offloader()
    assert offloader.config.threshold_tokens == 5 and offloader.output_dir == env_dir
    assert offloader.config == lro.Config.from_env()
    assert offloader.offload(SMALL)["offloaded"]
    # Built once: a later change of the environment is not this offloader's.
    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "100000")
    assert offloader.offload(SMALL)["offloaded"]
    # A dict with no value set is no configuration either.
    assert lro.Offloader({"threshold_tokens": None}).config.threshold_tokens == 100000


def test_an_explicit_config_ignores_the_environment(env_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "5")
    monkeypatch.setenv(PREFIX + "FILE_PREFIX", "fromenv")
    assert lro.Offloader(lro.Config()).config == lro.Config()
    assert not lro.offload(SMALL, config=lro.Config())["offloaded"]
    explicit_dir = tempfile.mkdtemp()
    try:
        response = lro.offload(memories(200), config={"output_dir": explicit_dir})
        assert os.path.dirname(response["file_path"]) == os.path.realpath(explicit_dir)
        assert os.path.basename(response["file_path"]).startswith("atlatl-recall-")
        assert os.listdir(env_dir) == []
    finally:
        lro.cleanup(config={"output_dir": explicit_dir, "ttl_seconds": 0})
        os.rmdir(explicit_dir)
    # The environment over explicit values, when asked for.
    layered = lro.Config(threshold_tokens=800, ttl_seconds=60).with_env()
    assert (layered.threshold_tokens, layered.ttl_seconds, layered.output_dir) == (5, 60, env_dir)
    assert lro.Config.from_env().file_prefix == "fromenv"


@pytest.mark.parametrize(
    "variable, value",
    [("THRESHOLD_TOKENS", "lots"), ("TTL_SECONDS", "-5"), ("GUIDANCE", "loud"), ("THRESHOLD", "3")],
)
def test_a_bad_environment_value_is_a_config_error_of_the_call(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PREFIX + variable, value)
    calls = [
        lambda: lro.offload(SMALL),
        lambda: lro.extract("/nowhere.jsonl", recipe=1),
        lambda: lro.cleanup(),
        lambda: lro.Offloader(),
        lambda: lro.Config.from_env(),
        lambda: lro.Config().with_env(),
    ]
    for call in calls:
        with pytest.raises(lro.ConfigError) as caught:
            call()
        assert caught.value.code == "invalid_config"
        assert str(caught.value).startswith(PREFIX + variable + ": "), caught.value
    # An explicit configuration does not read the environment, so its calls still work.
    assert not lro.offload(SMALL, config=lro.Config())["offloaded"]


def test_environment_bytes_that_are_not_utf8(monkeypatch: pytest.MonkeyPatch) -> None:
    # os.environ holds undecodable bytes as lone surrogates; the process gets the bytes.
    monkeypatch.setenv("LRO_TEST_UNRELATED", "caf\udce9")
    assert not lro.offload(SMALL)["offloaded"]
    assert lro.Config.from_env(os.environ) == lro.Config()
    monkeypatch.setenv(PREFIX + "OUTPUT_DIR", "/tmp/caf\udce9")
    for call in (lambda: lro.offload(SMALL), lambda: lro.Config.from_env(os.environ)):
        with pytest.raises(lro.ConfigError) as caught:
            call()
        assert caught.value.code == "invalid_config"
        assert "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR" in str(caught.value) and "UTF-8" in str(caught.value)


def test_the_official_sdk_helper_reads_the_environment(env_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.server.mcpserver import MCPServer

    from lro.mcp import LroTools

    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "5")
    server = MCPServer("env")
    tools = LroTools(server)
    # The extract tool's name, after the server, is written into the configuration.
    assert tools.extract_tool_name == "lro_extract_env"
    assert tools.offloader.config == lro.Config(guidance="native").with_env().replace(mcp={"extract_tool_name": "lro_extract_env"})

    @tools.tool()
    def lookup(key: str) -> Dict[str, Any]:
        """A result of a few tokens: above a threshold of 5."""
        return {"key": key, "value": "forty-two, as always"}

    result = asyncio.run(server.call_tool("lookup", {"key": "k"}))
    descriptor = json.loads(result.content[0].text)
    assert descriptor["offloaded"] and os.path.dirname(descriptor["file_path"]) == env_dir
    assert "lro_extract_env(file_path=" in descriptor["guidance"]
    # The environment's guidance wins over the helpers' native default, as in `lro proxy`.
    monkeypatch.setenv(PREFIX + "GUIDANCE", "shell")
    assert LroTools(MCPServer("shell")).offloader.config.guidance == "shell"
    # A configuration given is used as given.
    explicit = LroTools(MCPServer("explicit"), {"threshold_tokens": 900}).offloader.config
    assert (explicit.threshold_tokens, explicit.output_dir, explicit.guidance) == (900, "", "native")
    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "lots")
    with pytest.raises(lro.ConfigError, match="ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS"):
        LroTools(MCPServer("bad"))


def test_the_fastmcp_middleware_reads_the_environment(env_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastmcp import Client, FastMCP

    from lro.fastmcp import LroMiddleware

    monkeypatch.setenv(PREFIX + "THRESHOLD_TOKENS", "5")
    events: List[Dict[str, Any]] = []
    server = FastMCP("env", middleware=[LroMiddleware(on_event=events.append)])

    @server.tool
    def lookup(key: str) -> Dict[str, Any]:
        """A result of a few tokens: above a threshold of 5."""
        return {"key": key, "value": "forty-two, as always"}

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool("lookup", {"key": "k"})

    descriptor = json.loads(asyncio.run(call()).content[0].text)
    assert descriptor["offloaded"] and os.path.dirname(descriptor["file_path"]) == env_dir
    assert "lro_extract(file_path=" in descriptor["guidance"]
    assert [e["event"] for e in events] == ["OffloadCreated"]
    assert LroMiddleware({"threshold_tokens": 900}).offloader.config.output_dir == ""
    monkeypatch.setenv(PREFIX + "ENABLED", "maybe")
    with pytest.raises(lro.ConfigError, match="ATLATL_PROMPT__OFFLOAD__ENABLED"):
        LroMiddleware()
