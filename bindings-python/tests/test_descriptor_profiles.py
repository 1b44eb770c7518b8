"""Descriptor profiles (``descriptor=``), ``describe=True`` and the adaptive threshold
(``context_remaining_tokens``), through the module functions, ``Offloader`` and ``Config``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import pytest
from mif import memories

import lro

POINTER_KEYS = {"offloaded", "file_path", "resource_uri", "count", "guidance"}


def full_descriptor_of(path: str, config: lro.Config) -> Dict[str, Any]:
    """The one result of ``describe=True``."""
    described = lro.extract(path, describe=True, config=config)
    assert described["count"] == 1 and described["truncated"] is False
    result: Dict[str, Any] = described["results"][0]
    return result


def test_per_call_pointer_then_describe_gives_the_full_descriptor(config: lro.Config) -> None:
    records = memories(200)
    pointer = lro.offload(records, "recall", descriptor="pointer", config=config)
    assert set(pointer) == POINTER_KEYS
    assert pointer["offloaded"] is True and pointer["count"] == 200
    full = full_descriptor_of(pointer["file_path"], config)
    assert len(full["jq_recipes"]) == 10 and full["file_path"] == pointer["file_path"]
    assert full["summary"]["count"] == 200 and "line_schema" in full
    # The same records described by the full profile at offload time: the same descriptor,
    # but for the file's name.
    direct = lro.offload(records, "recall", descriptor="full", config=config)
    # The same file: its name (in the path and in resource_uri) swapped.
    same_file = json.dumps(direct).replace(Path(direct["file_path"]).name, Path(pointer["file_path"]).name)
    assert json.loads(same_file) == full


def test_offloader_and_inject_take_the_profile(config: lro.Config) -> None:
    offloader = lro.Offloader(config)
    pointer = offloader.offload(memories(200), descriptor="pointer")
    assert set(pointer) == POINTER_KEYS
    described = offloader.extract(pointer["file_path"], describe=True)["results"][0]
    assert len(described["jq_recipes"]) == 10
    injected = offloader.offload_inject("formatted", memories(200), descriptor="compact")
    assert injected["offloaded"] is True and len(injected["recipes"]) == 10
    assert "jq_recipes" not in injected and "line_schema" not in injected
    assert set(lro.offload_inject("formatted", memories(200), descriptor="pointer", config=config)) == POINTER_KEYS


def test_the_configured_profile_and_a_per_call_override(out_dir: str) -> None:
    config = lro.Config(output_dir=out_dir, descriptor="compact")
    assert config.descriptor == "compact" and config.to_dict()["descriptor"] == "compact"
    assert "descriptor=\"compact\"" in repr(config)
    compact = lro.offload(memories(200), config=config)
    assert set(compact) >= {"summary", "file_path", "recipes", "guidance"} and "jq_recipes" not in compact
    assert len(lro.offload(memories(200), descriptor="full", config=config)["jq_recipes"]) == 10
    assert lro.Config(descriptor="Pointer").descriptor == "pointer"
    assert lro.Config().descriptor == "full"


def test_context_remaining_tokens_lowers_the_threshold(out_dir: str) -> None:
    config = lro.Config(output_dir=out_dir)
    records = memories(20)
    small = lro.offload(records, config=config)
    assert small["offloaded"] is False and "threshold_tokens" not in small
    assert small["estimated_tokens"] > 200
    # 10% of 2,000 tokens left: a threshold of 200, which the same records exceed.
    adapted = lro.offload(records, context_remaining_tokens=2000, descriptor="pointer", config=config)
    assert adapted["offloaded"] is True and adapted["threshold_tokens"] == 200
    # Plenty left: the configured threshold applies, and is reported.
    roomy = lro.Offloader(config).offload(records, context_remaining_tokens=10**9)
    assert roomy["offloaded"] is False and roomy["threshold_tokens"] == 1600
    ratio = lro.Config(output_dir=out_dir, adaptive_ratio=0.5)
    assert ratio.adaptive_ratio == 0.5
    assert lro.offload(records, context_remaining_tokens=2000, config=ratio)["threshold_tokens"] == 1000


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda c: lro.offload(memories(200), descriptor="tiny", config=c), "invalid_argument"),
        (lambda c: lro.offload(memories(2), context_remaining_tokens=-1, config=c), "invalid_argument"),
        (lambda c: lro.Config(descriptor="tiny"), "invalid_config"),
        (lambda c: lro.Config(adaptive_ratio=0), "invalid_config"),
        (lambda c: lro.Config(adaptive_ratio=1.5), "invalid_config"),
        (lambda c: c.replace(adaptive_ratio="half"), "invalid_config"),
    ],
)
def test_bad_profiles_and_ratios_raise_the_core_codes(call: Any, code: str, config: lro.Config) -> None:
    with pytest.raises(lro.LroError) as caught:
        call(config)
    assert caught.value.code == code and type(caught.value) is lro.CODE_CLASSES[code]


def test_describe_takes_no_other_verb_or_section(config: lro.Config) -> None:
    path = lro.offload(memories(200), config=config)["file_path"]
    for extra in ({"recipe": 1}, {"section": "records"}):
        with pytest.raises(lro.ExtractionError) as caught:
            lro.extract(path, describe=True, config=config, **extra)
        assert caught.value.code == "invalid_argument"
