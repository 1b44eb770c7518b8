"""Per-tool rules from every Python source: ``Config(tools=...)``, TOML, the environment, and
per call (``mode``/``threshold`` of ``offload``, ``rule`` of ``intercept_tool_result``)."""

import json

import pytest

import lro

ROWS = [{"id": f"row-{i}", "name": f"item {i}", "size": i * 7} for i in range(30)]


def result(data):
    return {"content": [{"type": "text", "text": json.dumps(data)}]}


def test_rules_from_keywords_toml_and_environment_are_one_rule(tmp_path):
    wanted = {"fs_*": {"mode": "never"}, "search": {"threshold": 200, "descriptor": "pointer"}}
    built = lro.Config(tools=wanted)
    toml = lro.Config.from_toml(
        '[prompt.offload.tools."fs_*"]\nmode = "never"\n'
        '[prompt.offload.tools.search]\nthreshold = 200\ndescriptor = "pointer"\n'
    )
    env = lro.Config.from_env(
        {"ATLATL_PROMPT__OFFLOAD__TOOLS__A": "fs_*:mode=never;search:threshold=200,descriptor=pointer"}
    )
    for config in (built, toml, env):
        assert config.tools == wanted
        assert config.to_dict()["tools"] == wanted
    assert "tools={" in repr(built) and "tools" not in repr(lro.Config())


@pytest.mark.parametrize(
    ("build", "says"),
    [
        (lambda: lro.Config(tools={"a b": {"mode": "never"}}), 'invalid tool pattern "a b"'),
        (lambda: lro.Config(tools={"x": {"mood": "never"}}), 'prompt.offload.tools."x".mood'),
        (lambda: lro.Config(tools={"x": {"mode": "sometimes"}}), 'prompt.offload.tools."x".mode'),
        (lambda: lro.Config.from_env({"ATLATL_PROMPT__OFFLOAD__TOOLS__X": "x:threshold=-1"}), "ATLATL_PROMPT__OFFLOAD__TOOLS__X"),
    ],
)
def test_bad_rules_are_config_errors_naming_where_they_are(build, says):
    with pytest.raises(lro.ConfigError) as caught:
        build()
    assert caught.value.code == "invalid_config"
    assert says in str(caught.value)


def test_a_rule_decides_for_the_tools_it_matches(tmp_path):
    config = {"output_dir": str(tmp_path), "tools": {"fs_*": {"mode": "never"}, "get_?": {"mode": "always"}}}
    never = lro.intercept_tool_result(result(ROWS), "fs_read", config={**config, "threshold_tokens": 10})
    assert never["action"] == "bypassed" and never["result"] == result(ROWS)
    always = lro.intercept_tool_result(result(ROWS[:1]), "get_x", config=config)
    assert always["action"] == "offloaded"
    assert lro.intercept_tool_result(result(ROWS[:1]), "get_xy", config=config)["action"] == "inline"


def test_a_call_gives_its_own_mode_threshold_or_rule(tmp_path):
    config = {"output_dir": str(tmp_path)}
    assert lro.offload(ROWS[:1], config=config, mode="always")["offloaded"] is True
    assert lro.offload(ROWS, config={**config, "threshold_tokens": 10}, mode="never")["offloaded"] is False
    assert lro.offload(ROWS, config=config, threshold=50)["offloaded"] is True
    ruled = {**config, "tools": {"fs_read": {"mode": "always"}}}
    call = lro.intercept_tool_result(result(ROWS[:1]), "fs_read", config=ruled, rule={"mode": "never"})
    assert call["action"] == "bypassed"
    with pytest.raises(lro.ExtractionError) as caught:
        lro.intercept_tool_result(result(ROWS), "fs_read", config=config, rule={"mode": "sometimes"})
    assert caught.value.code == "invalid_argument" and "rule.mode" in str(caught.value)
    with pytest.raises(lro.LroError) as bad_mode:
        lro.offload(ROWS, config=config, mode="sometimes")
    assert bad_mode.value.code == "invalid_argument"


def test_the_server_helper_matches_rules_by_the_listed_tool_name(tmp_path):
    """``LroTools`` tools: the rules match the name a tool is listed by (``recall_memories``),
    not its operation (``recall``); the decorator's ``operation`` names the file unless the
    rule names one."""
    pytest.importorskip("mcp")
    try:
        from mcp.server.mcpserver import MCPServer as Server
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server
    from lro.mcp import LroTools

    tools = LroTools(
        Server("rows"),
        {
            "output_dir": str(tmp_path),
            "threshold_tokens": 10,
            "tools": {"recall_*": {"mode": "never"}, "get_row": {"mode": "always", "operation": "row"}},
        },
    )

    def recall_memories():
        return ROWS

    def get_row():
        return ROWS[:1]

    def fetch_orders():
        return ROWS

    def file_of(answer):
        return json.loads(answer.content[0].text)["file_path"].rsplit("/", 1)[1]

    assert tools.offload()(recall_memories)() == ROWS
    assert file_of(tools.offload("one")(get_row)()).startswith("atlatl-row-")
    assert file_of(tools.offload("orders")(fetch_orders)()).startswith("atlatl-orders-")
    listed = tools.offload(tool_name="recall_memories")(lambda: ROWS)
    assert listed() == ROWS


def test_the_server_helper_registers_a_never_offloaded_tool_as_it_is(tmp_path):
    """A tool a ``mode = "never"`` rule matches keeps its ``outputSchema``, as one
    ``mcp.never_offload`` names does; the other tools lose theirs (a descriptor would not
    match it)."""
    pytest.importorskip("mcp")
    import asyncio

    try:
        from mcp.server.mcpserver import MCPServer as Server
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server
    from lro.mcp import LroTools

    from pydantic import BaseModel

    class Rows(BaseModel):
        rows: list

    server = Server("rows")
    tools = LroTools(server, {"output_dir": str(tmp_path), "tools": {"recall_*": {"mode": "never"}}})

    @tools.tool()
    def recall_rows() -> Rows:
        return Rows(rows=ROWS)

    @tools.tool()
    def list_rows() -> Rows:
        return Rows(rows=ROWS)

    listed = {t.name: t for t in asyncio.run(server.list_tools())}
    assert listed["recall_rows"].output_schema is not None
    assert listed["list_rows"].output_schema is None
