"""Shared fixtures: a fresh, canonical output directory per test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import lro  # noqa: E402


@pytest.fixture
def out_dir(tmp_path: Path) -> str:
    """An empty output directory, resolved (no symlinks), as the core reports paths."""
    d = tmp_path / "out"
    d.mkdir()
    return os.path.realpath(d)


@pytest.fixture
def config(out_dir: str) -> lro.Config:
    """Defaults, writing to ``out_dir``."""
    return lro.Config(output_dir=out_dir)
