"""What the model receives for server-memory's `read_graph` (400 entities, 300 relations) in
each framework: direct, through `lro proxy` and through the Python helper (the README's
"frameworks" table), and for the extract tool's count of the offloaded graph. Each figure is
the length in characters of the text the scripted model received for that one tool result,
through the framework's own MCP client and model adapter (its wrapping included).

    LRO_BIN=... .venv/bin/python measure.py test_langchain.py test_openai_agents.py ...

(`make measure-frameworks` runs it in both venvs, the second with --rows-only.) A run that fails prints its error instead."""

import importlib
import sys
import tempfile
from pathlib import Path

import harness
from checks import FrameworkSuite

KINDS = ("direct", "proxy", "helper")


def suites(module_files):
    for file in module_files:
        module = importlib.import_module(Path(file).stem)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, FrameworkSuite) and value.__name__.startswith("Test"):
                yield value()


def measure(suite, kind, count=False):
    """The characters the model received for read_graph through `kind`, or (`count`) for the
    extract tool's count of the offload scenario."""
    with tempfile.TemporaryDirectory(prefix="lro-measure-") as tmp:
        tmp = Path(tmp)
        script, step = (suite.offload_script(), 2) if count else (suite.direct_script(), 0)
        try:
            run = suite.run_agent(tmp, [harness.memory_server(tmp, kind)], script)
            return f"{len(run.received.result_of(step)):,}"
        except Exception as err:  # the table says what broke instead of a figure
            return f"error: {type(err).__name__}: {str(err).splitlines()[0][:80]}"


def main(args):
    files = [a for a in args if a != "--rows-only"]
    if "--rows-only" not in args:  # a second venv's rows continue the first one's table
        print("| framework | `read_graph` direct | through `lro proxy` | through the Python helper "
              "| a count through `lro proxy` |")
        print("|---|---|---|---|---|")
    for suite in suites(files):
        figures = [measure(suite, kind) for kind in KINDS] + [measure(suite, "proxy", count=True)]
        print(f"| {suite.framework} | " + " | ".join(figures) + " |", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main(sys.argv[1:] or sys.exit(__doc__))
