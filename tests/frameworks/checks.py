"""The assertions every framework's agent loop must pass,
as a base class: a framework's test module subclasses `FrameworkSuite` and writes `run`, its
agent loop (the framework's own MCP client and model adapter, pointed at the scripted model).

Each run is one real agent loop: the model (scripted) reads the graph, which LRO offloads;
filters the offloaded file with the extract tool (`where`, `fields`); counts; answers. The
tests assert on what the model received (the scripted model's log), on the final answer, and
on what the framework logged or warned while it ran."""

import json
import logging
import warnings
from contextlib import contextmanager
from pathlib import Path

import data
import harness
from harness import DESCRIPTOR_MAX_CHARS, DIRECT_MIN_CHARS, Received, ScriptedModel


class RunRecord:
    """One agent run: the final answer, what the model received, and what was logged/warned."""

    def __init__(self, answer, received, logged, warned, errors):
        self.errors = errors
        self.answer = answer
        self.received = received
        self.logged = logged
        self.warned = warned


@contextmanager
def captured():
    """Every log record at WARNING or above and every Python warning raised inside."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep(level=logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield records, caught
    finally:
        root.removeHandler(handler)


class FrameworkSuite:
    """Subclasses set `framework` and write `run(servers, base_url) -> str`: the agent loop
    with the framework's MCP integration over `servers` (harness.McpServer) and its model
    adapter on `base_url`, returning the final answer as text."""

    framework = ""

    def run(self, servers, base_url):
        raise NotImplementedError

    # Hooks for frameworks whose agents speak differently (smolagents): the scripts, and the
    # text of one tool result inside what the model received.

    def offload_script(self) -> dict:
        return harness.offload_script()

    def direct_script(self) -> dict:
        return harness.direct_script()

    def two_servers_script(self, memory_extract: str, everything_extract: str) -> dict:
        return harness.two_servers_script(memory_extract, everything_extract)

    def tool_text(self, received: Received, step: int) -> str:
        return received.result_of(step)

    def framework_errors(self) -> list:
        """Errors the framework recorded without logging them (smolagents' step errors)."""
        return []

    # --- running ------------------------------------------------------------------------

    def run_agent(self, tmp: Path, servers, script) -> RunRecord:
        with ScriptedModel(tmp, script) as model, captured() as (records, caught):
            answer = self.run(servers, model.base_url)
        logged = [f"{r.name}: {r.getMessage()}" for r in records]
        warned = [f"{w.category.__name__}: {w.message}" for w in caught
                  if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))]
        return RunRecord(str(answer), Received(model.requests()), logged, warned, self.framework_errors())

    # --- the checks -----------------------------------------------------------------------
    # Each check adds what is wrong to `problems` (a list of sentences) rather than stopping
    # at the first: a failing run reports everything the model got wrong at once.

    def check_quiet(self, run: RunRecord, problems: list):
        if run.received.errors:
            # The run went off script: what follows would only repeat it.
            raise AssertionError("\n".join([f"the scripted model could not answer: {run.received.errors}",
                                            f"{self.framework} recorded errors: {run.errors}", *problems]))
        if run.logged:
            problems.append(f"{self.framework} logged warnings: {run.logged}")
        if run.warned:
            problems.append(f"{self.framework} warned: {run.warned}")
        if run.errors:
            problems.append(f"{self.framework} recorded errors: {run.errors}")

    def check_offloaded_read(self, received: Received, step: int, problems: list, descriptors: int = 1):
        """The offloaded result the model received at `step`: one descriptor, small, and
        the only text that names the file."""
        text = self.tool_text(received, step)
        found = received.descriptor_count()
        if found != descriptors:
            problems.append(f"the model received {found} descriptors, not {descriptors}: {brief(received.texts)}")
        received_chars = len(received.result_of(step))  # all of it, the framework's wrapping too
        if received_chars >= DESCRIPTOR_MAX_CHARS:
            problems.append(f"the offloaded result reached the model as {received_chars} chars: {brief([text])}")
        file_name = Path(harness.file_path_in(text)).name
        naming = received.parts_naming(file_name)
        if naming != 1:
            problems.append(f"{naming} tool results name the offload file (only the descriptor should): "
                            f"{brief([t for t in received.texts if file_name in t])}")
        # Decision 1: the descriptor alone, no resource_link block by default (its URI is in the
        # descriptor): the text is one JSON document and nothing else.
        stripped = text.strip()
        try:
            descriptor, end = json.JSONDecoder().raw_decode(stripped)
        except ValueError:
            problems.append(f"the offloaded result is not the descriptor's JSON: {brief([text])}")
        else:
            if not isinstance(descriptor, dict) or descriptor.get("offloaded") is not True:
                problems.append(f"the offloaded result is not a descriptor: {brief([text])}")
                return
            if stripped[end:].strip():
                problems.append(f"besides the descriptor, the model received: {brief([stripped[end:].strip()])}")
            # Decisions 1 and 2: the descriptor carries the file's URI and names the extract
            # tool as this agent was offered it.
            if not str(descriptor.get("resource_uri", "")).startswith("lro://offloads/"):
                problems.append(f"the descriptor has no resource_uri: {descriptor.get('resource_uri')!r}")
            if descriptor.get("extract_tool") not in received.tools_offered():
                problems.append(f"the descriptor names the extract tool {descriptor.get('extract_tool')!r}, "
                                f"not one the agent was offered: {received.tools_offered()}")

    def check_count(self, text: str, problems: list):
        expected = str(data.expected()["count"])
        if text not in (expected, f"{expected}\n"):
            problems.append(f"the count reached the model as {brief([text])}, not the bare number {expected}")

    def check_offload_scenario(self, run: RunRecord):
        expected = data.expected()
        problems = []
        self.check_quiet(run, problems)
        self.check_offloaded_read(run.received, 0, problems)
        filtered = self.tool_text(run.received, 1)
        missing = [n for n in expected["names"] if n not in filtered]
        if missing:
            problems.append(f"the filter's answer lacks {len(missing)} names: {brief([filtered])}")
        if "equivalent jq" in filtered:
            problems.append("the filter's answer carries the equivalent jq")
        self.check_count(self.tool_text(run.received, 2), problems)
        if str(expected["count"]) not in run.answer:
            problems.append(f"the final answer lacks the count: {run.answer!r}")
        assert not problems, "\n".join(problems)

    # --- the tests ------------------------------------------------------------------------

    def test_through_proxy(self, tmp_path):
        run = self.run_agent(tmp_path, [harness.memory_server(tmp_path, "proxy")], self.offload_script())
        self.check_offload_scenario(run)

    def test_through_python_helper(self, tmp_path):
        run = self.run_agent(tmp_path, [harness.memory_server(tmp_path, "helper")], self.offload_script())
        self.check_offload_scenario(run)

    def test_two_proxies_in_one_agent(self, tmp_path):
        servers = [harness.memory_server(tmp_path, "proxy"), harness.everything_proxy(tmp_path)]
        script = self.two_servers_script("*lro_extract*memory*", "*lro_extract*everything*")
        run = self.run_agent(tmp_path, servers, script)
        extract_tools = [t for t in run.received.tools_offered() if "lro_extract" in t]
        assert len(extract_tools) == 2 == len(set(extract_tools)), run.received.tools_offered()
        problems = []
        self.check_quiet(run, problems)
        self.check_offloaded_read(run.received, 0, problems, descriptors=2)
        self.check_count(self.tool_text(run.received, 1), problems)
        self.check_offloaded_read(run.received, 2, problems, descriptors=2)
        chars = self.tool_text(run.received, 3)
        if "word-00000" not in chars or chars.startswith("error"):
            problems.append(f"server-everything's extract tool did not answer: {brief([chars])}")
        if len(chars) >= DESCRIPTOR_MAX_CHARS:
            problems.append(f"server-everything's extract answer is {len(chars)} chars: it undid the offload")
        assert not problems, "\n".join(problems)

    def test_direct_the_model_receives_the_whole_graph(self, tmp_path):
        run = self.run_agent(tmp_path, [harness.memory_server(tmp_path, "direct")], self.direct_script())
        text = self.tool_text(run.received, 0)
        assert len(text) > DIRECT_MIN_CHARS, len(text)
        assert "entity-0399" in text


def brief(texts: list, width: int = 240) -> str:
    """Texts cut for a failure message: their length and their start."""
    return "; ".join(f"[{len(t)} chars] {t[:width]!r}" for t in texts)
