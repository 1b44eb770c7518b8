"""What every framework test shares: the MCP servers (through `lro proxy`, through the Python
helper, or direct), the scripted model server and its scripts, and the reading of its log
(what the model received).

The `lro` binary is $LRO_BIN, else the workspace's target/release/lro (`make test-frameworks`
builds it). The npm servers are the proxy end-to-end tests' (cli/tests/e2e/node_modules)."""

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import data

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NODE_BIN = ROOT / "cli" / "tests" / "e2e" / "node_modules" / ".bin"
SCRIPTED_MODEL = HERE / "scripted_model.py"
HELPER_SERVER = HERE / "helper_server.py"

# The question each agent is asked; the scripted model ignores it, a reader of the logs does not.
PROMPT = f"How many entities of type {data.ENTITY_TYPE} does the knowledge graph hold?"
# A model name the adapters accept (some look up a context window by name); the scripted
# model answers to any.
MODEL_NAME = "gpt-4o-mini"
API_KEY = "sk-scripted-model"
# What the model may receive for the offloaded read_graph, at most (the direct run's is ~90,000).
DESCRIPTOR_MAX_CHARS = 6000
# The direct run's read_graph, at least: the graph is large, which is why it is offloaded.
DIRECT_MIN_CHARS = 40000
# server-everything's `echo` of this many characters: one large text record.
ECHO_CHARS = 60000

# --- the MCP servers ----------------------------------------------------------------------


def lro_binary() -> str:
    binary = Path(os.environ.get("LRO_BIN", ROOT / "target" / "release" / "lro"))
    if not binary.exists():
        raise AssertionError(f"{binary} is missing: run `cargo build --release -p lro-cli` (or `make test-frameworks`)")
    return str(binary)


def npm_server(name: str) -> str:
    path = NODE_BIN / name
    if not path.exists():
        raise AssertionError(f"{path} is missing: run `make setup-proxy` (npm ci in cli/tests/e2e)")
    return str(path)


@dataclass
class McpServer:
    """A stdio MCP server as every framework's stdio client takes it."""
    name: str  # a label for the framework's client (LangChain's and LlamaIndex's keys)
    command: str
    args: list
    env: dict = field(default_factory=dict)

    def full_env(self) -> dict:
        """The environment to start it with (frameworks that take `env` replace the whole one)."""
        return {**os.environ, **self.env}


def memory_server(tmp: Path, kind: str) -> McpServer:
    """server-memory holding the test graph: `kind` "proxy" (behind `lro proxy`), "direct"
    (no LRO) or "helper" (the Python helper serving the same graph, lro.mcp)."""
    memory_file = data.write_memory_file(tmp / "memory" / "memory.jsonl")
    env = {"MEMORY_FILE_PATH": str(memory_file)}
    if kind == "direct":
        return McpServer("memory", npm_server("mcp-server-memory"), [], env)
    if kind == "proxy":
        return McpServer("memory", lro_binary(), ["proxy", "--output-dir", str(tmp / "lro"), "--",
                                                  npm_server("mcp-server-memory")], env)
    if kind == "helper":
        return McpServer("memory", sys.executable, [str(HELPER_SERVER)], {"LRO_TEST_OUTPUT_DIR": str(tmp / "lro")})
    raise ValueError(f"unknown server kind {kind!r}")


def everything_proxy(tmp: Path) -> McpServer:
    """@modelcontextprotocol/server-everything behind `lro proxy` (its `echo` gives the large result)."""
    return McpServer("everything", lro_binary(), ["proxy", "--output-dir", str(tmp / "lro"), "--",
                                                  npm_server("mcp-server-everything")])


# --- the scripts ---------------------------------------------------------------------------

WHERE = json.dumps({"entityType": data.ENTITY_TYPE})
EXTRACT = "*lro_extract*"


def offload_script(extract=EXTRACT) -> dict:
    """Read the graph (offloaded), filter it with `where` and `fields`, count, answer."""
    return {"steps": [
        {"call": [{"tool": "read_graph", "args": {}}]},
        {"call": [{"tool": extract, "args": {"file_path": "{file_path}", "where": WHERE, "fields": "name"}}]},
        {"call": [{"tool": extract, "args": {"file_path": "{file_path}", "where": WHERE, "count": True}}]},
        {"answer": "The graph holds {last} entities of type " + data.ENTITY_TYPE + "."},
    ]}


def direct_script() -> dict:
    """Read the graph (no LRO: the whole graph comes back), answer."""
    return {"steps": [{"call": [{"tool": "read_graph", "args": {}}]}, {"answer": "Read the graph."}]}


def two_servers_script(memory_extract: str, everything_extract: str) -> dict:
    """Offload one result of each server, and ask each server's extract tool about its own."""
    return {"steps": [
        {"call": [{"tool": "read_graph", "args": {}}]},
        {"call": [{"tool": memory_extract, "args": {"file_path": "{file_path}", "where": WHERE, "count": True}}]},
        {"call": [{"tool": "echo", "args": {"message": echo_message()}}]},
        {"call": [{"tool": everything_extract, "args": {"file_path": "{file_path}", "chars": "0:1000"}}]},
        {"answer": "Both read."},
    ]}


def echo_message() -> str:
    words = (f"word-{i:05d}" for i in range(ECHO_CHARS // 11 + 1))
    return " ".join(words)[:ECHO_CHARS]


# --- the scripted model --------------------------------------------------------------------


class ScriptedModel:
    """tests/frameworks/scripted_model.py in a subprocess, for one agent run:

        with ScriptedModel(tmp, script) as model:
            ...framework pointed at model.base_url...
        model.requests()  # what each request held
    """

    def __init__(self, tmp: Path, script: dict, name: str = "model"):
        self.script_path = tmp / f"{name}-script.json"
        self.log_path = tmp / f"{name}-log.jsonl"
        self.script_path.write_text(json.dumps(script), encoding="utf-8")
        self.process = None
        self.base_url = None

    def __enter__(self):
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPTED_MODEL), "--script", str(self.script_path), "--log", str(self.log_path)],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()  # waits for the server to listen
        match = re.fullmatch(r"listening (http://\S+)\n", line)
        if not match:
            self.process.kill()
            raise AssertionError(f"the scripted model did not start: {line!r}")
        self.base_url = match.group(1)
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()
        self.process.stdout.close()

    def requests(self) -> list:
        if not self.log_path.exists():
            return []
        return [json.loads(line) for line in self.log_path.read_text(encoding="utf-8").splitlines()]


# --- what the model received ---------------------------------------------------------------

# A descriptor, in JSON or as a Python repr (how some frameworks print a dict).
_DESCRIPTOR_MARK = re.compile(r"""["']offloaded["']\s*:\s*(?:true|True)""")


@dataclass
class Received:
    """What the model received over one agent run: the final request's tool results and
    observations (every earlier one is in it: a conversation only grows)."""
    requests: list

    def __post_init__(self):
        assert self.requests, "the framework never called the model"
        # Requests the script could not answer (a tool it names was not offered).
        self.errors = [r["error"] for r in self.requests if "error" in r]
        answered = [r for r in self.requests if "reply" in r]
        self.final = answered[-1] if answered else self.requests[-1]

    @property
    def tool_results(self) -> list:
        return self.final["tool_results"]

    @property
    def texts(self) -> list:
        """Every text the model received from tools: tool results, then observations (the
        user messages by which a smolagents agent reports a call)."""
        return [r["text"] for r in self.tool_results] + self.final["observations"]

    def tools_offered(self) -> list:
        return self.final["tools"]

    def result_of(self, step: int) -> str:
        """The text the model received for the tool call it made at `step` (0-based)."""
        calls = self.requests_at(step)["reply"]
        ids = _call_ids(calls)
        found = [r["text"] for r in self.tool_results if r["call_id"] in ids]
        if found:
            return "\n".join(found)
        # Frameworks that report calls as observations (smolagents) answer step N in the
        # observation N of the conversation.
        observations = self.final["observations"]
        assert step < len(observations), f"no result for step {step}: {self.final}"
        return observations[step]

    def requests_at(self, step: int) -> dict:
        for request in self.requests:
            if request["step"] == step and "reply" in request:
                return request
        raise AssertionError(f"no request answered step {step}")

    def descriptor_count(self) -> int:
        return sum(len(_DESCRIPTOR_MARK.findall(t)) for t in self.texts)

    def parts_naming(self, needle: str) -> int:
        return sum(needle in t for t in self.texts)


def _call_ids(reply: dict) -> set:
    if "choices" in reply:
        return {c["id"] for c in reply["choices"][0]["message"].get("tool_calls") or []}
    return {item["call_id"] for item in reply.get("output", []) if item.get("type") == "function_call"}


def file_path_in(text: str) -> str:
    for pattern in (r'"file_path"\s*:\s*"((?:[^"\\]|\\.)*)"', r"'file_path'\s*:\s*'((?:[^'\\]|\\.)*)'"):
        match = re.search(pattern, text)
        if match:
            return json.loads('"%s"' % match.group(1))
    raise AssertionError(f"no file_path in {text[:500]!r}")
