"""Every configuration key of the core's table, set through each way Python has (keyword
arguments, ``replace``, a dict ``config=``, the environment mapping, TOML text) to a valid value
other than its default and read back; a refused value raises ``ConfigError`` naming the key.
The keys come from ``lro.config_keys()``, so a new key is tested here without a new line."""

import json
import re
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


def test_the_stub_names_every_keyword_argument():
    stub = (Path(lro.__file__).parent / "_lro.pyi").read_text()
    new = re.search(r"class Config:.*?def __new__\((.*?)\) -> \"Config\":", stub, re.S)
    assert new is not None
    for key in KEYS:
        # A section's keys go in its dict, checked by the core.
        assert f"\n        {key['name'].split('.')[0]}: " in new.group(1), key["name"]
