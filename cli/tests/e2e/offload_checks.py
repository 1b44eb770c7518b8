"""What every real-server test checks on an offloaded result, in one place: the response the
client receives (size, token budget), the offload file read back (header, sections, records),
and the descriptor's recipes run under the system jq.

The names of the file layout (header keys `sections`, `first_line`, `tree`, `format`; the
descriptor's `sections`; lro_extract's `section`) live here only, so a rename is one line."""

import json
import math
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# The response an agent receives for an offloaded result stays under this many estimated
# tokens (a descriptor budget, whatever the input).
RESPONSE_BUDGET_TOKENS = 2000
# Debian's jq 1.6: the oldest jq the recipes must run under.
SYSTEM_JQ = "/usr/bin/jq"

HEADER_SECTIONS = "sections"
SECTION_NAME = "name"
SECTION_FIRST_LINE = "first_line"
SECTION_COUNT = "count"
SECTION_TREE = "tree"
TREE_KEY = "key"  # the recurring array key the tree was flattened from
TREE_PATH_FIELD, TREE_DEPTH_FIELD = "path_field", "depth_field"  # the names used, when not the default
DEFAULT_PATH_FIELD, DEFAULT_DEPTH_FIELD = "path", "depth"
HEADER_FORMAT = "format"
DESCRIPTOR_SECTIONS = "sections"
EXTRACT_SECTION = "section"


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def response_text(result) -> str:
    """Everything the client receives as text: every content block's text, the resource
    link LRO adds as its compact JSON, then the compact JSON of `structuredContent`. (Other
    blocks a tool returned, such as images, pass through and are not the budget's.)"""
    parts = [
        block.text if getattr(block, "text", None) is not None
        else compact(block.model_dump(mode="json", by_alias=True, exclude_none=True))
        for block in result.content
        if getattr(block, "text", None) is not None or block.type == "resource_link"
    ]
    if result.structuredContent is not None:
        parts.append(compact(result.structuredContent))
    return "".join(parts)


def estimated_tokens(text: str) -> int:
    """ceil(ASCII chars / 4), plus one token per non-ASCII char (the budget's estimate: never
    less than the core's, which counts Latin letters at a quarter too)."""
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    return math.ceil((len(text) - non_ascii) / 4) + non_ascii


@dataclass
class ResponseFigures:
    """The size of what the client received for one call."""
    utf8_bytes: int
    chars: int
    tokens: int  # ceil(chars / 4), the plain estimate of the before/after table
    budget_tokens: int  # estimated_tokens(): what the budget is checked against

    @classmethod
    def of(cls, result) -> "ResponseFigures":
        text = response_text(result)
        return cls(len(text.encode("utf-8")), len(text), math.ceil(len(text) / 4), estimated_tokens(text))


@dataclass
class Section:
    name: str
    first_line: int  # 1-based line number in the file of the section's first record
    count: int
    records: list
    entry: dict  # the header's entry, as written (tree details and such)


@dataclass
class OffloadFile:
    """An offload file read back: line 1 is the header, every other line one record."""
    path: str
    header: dict
    records: list
    lines: list = field(repr=False)

    @classmethod
    def read(cls, path: str) -> "OffloadFile":
        lines = Path(path).read_text(encoding="utf-8").split("\n")
        assert lines[-1] == "", "the file ends with a newline"
        lines = lines[:-1]
        header = json.loads(lines[0])
        assert header["type"] == "lro_header", header
        return cls(path, header, [json.loads(line) for line in lines[1:]], lines)

    @property
    def format(self) -> str:
        return self.header.get(HEADER_FORMAT) or "json"

    def sections(self) -> list:
        """The header's sections, each with its records; checks that they tile the file."""
        entries = self.header.get(HEADER_SECTIONS)
        assert entries, f"the header lists no sections: {self.header}"
        sections, expected_first = [], 2
        for entry in entries:
            first, count = entry[SECTION_FIRST_LINE], entry[SECTION_COUNT]
            assert first == expected_first, f"sections are contiguous, in order: {entries}"
            sections.append(Section(entry[SECTION_NAME], first, count, self.records[first - 2:first - 2 + count], entry))
            expected_first = first + count
        assert expected_first - 2 == len(self.records), f"the sections cover every record: {entries}"
        return sections

    def section(self, name: str) -> Section:
        found = [s for s in self.sections() if s.name == name]
        assert len(found) == 1, f"one section {name!r} in {self.header.get(HEADER_SECTIONS)}"
        return found[0]


@dataclass
class Tree:
    """How a flattened tree was written: the key it was flattened from and the added fields."""
    key: str
    path_field: str
    depth_field: str


def tree_of(file: OffloadFile) -> Tree:
    """The tree entry of the file's (only) section, or of the header itself."""
    entries = [e for e in file.header.get(HEADER_SECTIONS) or [] if SECTION_TREE in e]
    entry = entries[0][SECTION_TREE] if entries else file.header.get(SECTION_TREE)
    assert isinstance(entry, dict), f"the header does not say the file was flattened: {file.header}"
    return Tree(entry[TREE_KEY], entry.get(TREE_PATH_FIELD, DEFAULT_PATH_FIELD),
                entry.get(TREE_DEPTH_FIELD, DEFAULT_DEPTH_FIELD))


def descriptor_sections(descriptor: dict) -> list:
    return descriptor.get(DESCRIPTOR_SECTIONS) or []


def check_response_budget(result) -> ResponseFigures:
    figures = ResponseFigures.of(result)
    assert figures.budget_tokens <= RESPONSE_BUDGET_TOKENS, (
        f"the response is {figures.budget_tokens} estimated tokens ({figures.utf8_bytes} bytes), "
        f"over the {RESPONSE_BUDGET_TOKENS}-token budget")
    return figures


def run_recipes_under_system_jq(descriptor: dict) -> list:
    """Runs every recipe command as a shell would, with `jq` resolving to Debian's jq 1.6;
    returns their outputs. Every one must exit 0 and print no jq error."""
    assert Path(SYSTEM_JQ).is_file(), f"{SYSTEM_JQ} is missing (`make setup-base` installs it)"
    # `jq` in a recipe is whatever the PATH finds first: Debian's, here.
    env = {**os.environ, "PATH": f"{Path(SYSTEM_JQ).parent}:/bin"}
    version = subprocess.run(["jq", "--version"], env=env, capture_output=True, text=True).stdout.strip()
    assert version == "jq-1.6", f"the recipes are checked under jq 1.6, found {version}"
    outputs, failures = [], []
    for number, recipe in enumerate(descriptor["jq_recipes"], 1):
        run = subprocess.run(["bash", "-c", recipe["command"]], env=env, capture_output=True, text=True, timeout=120)
        if run.returncode != 0 or "jq: error" in run.stderr:
            failures.append(f"recipe {number} ({recipe['description']}): exit {run.returncode}: {run.stderr.strip()[:300]}")
        outputs.append(run.stdout)
    assert not failures, "\n".join(failures)
    return outputs


def recipe_line_range(recipe: dict):
    """The (first, last) line numbers a sectioned recipe reads (`sed -n 'A,Bp' FILE | jq ...`),
    or None for a whole-file recipe (`tail -n +2 FILE | jq ...`)."""
    command = recipe["command"]
    if command.startswith("tail -n +2 "):
        return None
    assert command.startswith("sed -n '"), f"a recipe reads the whole file or one section's lines: {command}"
    first, last = command[len("sed -n '"):].split("p'", 1)[0].split(",")
    return int(first), int(last)


def check_section_recipes(descriptor: dict, sections: list):
    """In a file of several sections, each recipe belongs to one section: its description
    starts with the section's name and its command reads exactly that section's lines; and
    every section has recipes of its own."""
    by_name = {s.name: s for s in sections}
    covered = set()
    for recipe in descriptor["jq_recipes"]:
        name = recipe["description"].split(":", 1)[0]
        assert name in by_name, f"recipe not named after a section: {recipe}"
        section = by_name[name]
        assert recipe_line_range(recipe) == (section.first_line, section.first_line + section.count - 1), recipe
        covered.add(name)
    assert covered == set(by_name), f"sections without a recipe: {set(by_name) - covered}"


def counted(values) -> dict:
    """A multiset of JSON values (dicts and lists compared by their canonical JSON)."""
    tally = {}
    for value in values:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        tally[key] = tally.get(key, 0) + 1
    return tally


def assert_same_multiset(found, expected, what: str):
    """Every expected value exactly once, and nothing else."""
    found_tally, expected_tally = counted(found), counted(expected)
    missing = [k for k, n in expected_tally.items() if found_tally.get(k, 0) < n]
    invented = [k for k, n in found_tally.items() if expected_tally.get(k, 0) < n]
    assert not missing and not invented, (
        f"{what}: {len(missing)} missing (e.g. {missing[:3]}), {len(invented)} not in the source (e.g. {invented[:3]})")
