"""Every configuration key of the core's table, set through each way Python has (keyword
arguments, ``replace``, a dict ``config=``, the environment mapping, TOML text) to a valid value
other than its default and read back; a refused value raises ``ConfigError`` naming the key.
The keys come from ``lro.config_keys()``, so a new key is tested here without a new line."""

import json
import os
from pathlib import Path
from typing import Any, Dict

import pytest

import lro

KEYS = lro.config_keys()


def keywords(name: str, value: Any) -> Dict[str, Any]:
    """The keyword arguments that set the key ``name`` (a section's key goes in its dict)."""
    section, _, leaf = name.rpartition(".")
    return {section: {leaf: value}} if section else {name: value}


def shown(config: "lro.Config", name: str) -> Any:
    value: Any = config.to_dict()
    for part in name.split("."):
        value = value[part]
    return value


def as_text(value: Any) -> str:
    """The value as an environment variable holds it."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join(value)
    return json.dumps(value)


def test_the_table_lists_every_key_once():
    names = [key["name"] for key in KEYS]
    assert len(names) == len(set(names)) >= 20
    assert {"enabled", "extract.max_output_bytes", "store.retries", "mcp.never_offload"} <= set(names)


@pytest.mark.parametrize("key", KEYS, ids=lambda key: key["name"])
def test_every_key_is_set_by_every_python_source(key):
    name, sample = key["name"], key["sample"]
    assert sample != key["default"]
    assert shown(lro.Config(), name) == key["default"]
    assert shown(lro.Config(**keywords(name, sample)), name) == sample
    assert shown(lro.Config().replace(**keywords(name, sample)), name) == sample
    assert shown(lro.Offloader(config=keywords(name, sample)).config, name) == sample
    assert shown(lro.Config.from_env({key["env"]: as_text(sample)}), name) == sample
    leaf = name.rpartition(".")[2]
    toml = f"[{key['toml']}]\n{leaf} = {json.dumps(sample)}\n"
    assert shown(lro.Config.from_toml(toml), name) == sample


@pytest.mark.parametrize("key", KEYS, ids=lambda key: key["name"])
def test_a_bad_value_of_every_key_is_a_config_error_naming_it(key):
    name = key["name"]
    with pytest.raises(lro.ConfigError) as caught:
        lro.Config(**keywords(name, key["bad"]))
    assert caught.value.code == "invalid_config"
    assert f"prompt.offload.{name}" in str(caught.value)


#: The stub's keyword arguments of ``Config``, between these lines.
STUB = Path(__file__).resolve().parent.parent / "python" / "lro" / "_lro.pyi"
START = "        # keywords: written from lro.config_keys() by tests/test_config_keys.py\n"
END = "        # end of keywords\n"

#: The Python type of a key's values, by the table's JSON type.
PY_TYPES = {"boolean": "bool", "integer": "int", "number": "float", "string": "str", "array": "List[str]"}
#: Keys that also take an ``os.PathLike`` (config.rs reads it as a path).
PATH_KEYS = {"output_dir"}


def stub_keywords() -> str:
    """The keyword arguments of ``Config.__new__`` as the stub declares them: each key without
    a section with its type, each section once as a mapping of its keys' type (``Any`` when
    they differ)."""
    keywords: Dict[str, Any] = {}
    for key in KEYS:
        section, _, _ = key["name"].rpartition(".")
        if section:
            keywords.setdefault(section, set()).add(PY_TYPES[key["type"]])
        elif key["name"] in PATH_KEYS:
            keywords[key["name"]] = 'Union[str, "os.PathLike[str]", None]'
        else:
            keywords[key["name"]] = f"Optional[{PY_TYPES[key['type']]}]"
    lines = []
    for name, kind in keywords.items():
        if isinstance(kind, set):
            kind = f"Optional[Mapping[str, {kind.pop() if len(kind) == 1 else 'Any'}]]"
        lines.append(f"        {name}: {kind} = None,\n")
    # Not a row of the table: the per-tool rules, a dict of rules by pattern (config.rs).
    lines.append("        tools: Optional[Mapping[str, Mapping[str, Any]]] = None,\n")
    return "".join(lines)


def test_the_stub_lists_the_keyword_arguments_of_the_table():
    text = STUB.read_text()
    head, rest = text.split(START)
    _, tail = rest.split(END)
    wanted = f"{head}{START}{stub_keywords()}{END}{tail}"
    if os.environ.get("LRO_WRITE_DOCS"):
        STUB.write_text(wanted)
        return
    assert text == wanted, (
        "python/lro/_lro.pyi is out of date: run LRO_WRITE_DOCS=1 pytest tests/test_config_keys.py"
    )
    # The installed package carries the same stub.
    assert (Path(lro.__file__).parent / "_lro.pyi").read_text() == text


def test_an_unknown_keyword_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match=r"^Config\.__new__\(\) got an unexpected keyword argument 'treshold_tokens'$"):
        lro.Config(treshold_tokens=5)
    with pytest.raises(TypeError, match="takes 0 positional arguments"):
        lro.Config(5)  # type: ignore[misc]


def test_the_repr_lists_every_key():
    shown = repr(lro.Config(threshold_tokens=5, output_dir="/x", mcp={"never_offload": ["a"]}))
    assert shown.startswith('Config(enabled=True, threshold_tokens=5, estimator="chars4", ttl_seconds=3600, output_dir="/x", ')
    assert "adaptive_ratio=0.1, " in shown and "extract={'max_read_bytes': 1073741824, " in shown
    assert "store={'timeout_ms': 5000, 'retries': 2" in shown
    assert "'extract_tool_name': None, 'extract_tool_definition': \"short\", 'never_offload': [\"a\"]" in shown
    assert shown.endswith("})")
    for key in KEYS:
        assert key["name"].rpartition(".")[2] in shown, key["name"]
