#!/usr/bin/env python3
"""Every integration test file is a module of its crate's one test binary.

A crate whose integration tests are one binary (`autotests = false` and `tests/main.rs` in its
Cargo.toml) compiles only what `tests/main.rs` declares: a file `tests/NAME.rs` or a directory
`tests/NAME/mod.rs` without its `mod NAME;` line there would never be built nor run, silently.
This lists such files (and `mod` lines naming no file), and exits 1 if there are any.

    python3 tests/architecture/test_modules.py
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOD = re.compile(r"^\s*mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", re.M)


def one_binary_crates() -> list[Path]:
    """The directories of the packages whose integration tests are `tests/main.rs` alone."""
    manifests = subprocess.run(
        ["git", "ls-files", "*Cargo.toml"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    crates = []
    for manifest in manifests:
        text = (ROOT / manifest).read_text()
        if re.search(r"^autotests\s*=\s*false", text, re.M) and 'path = "tests/main.rs"' in text:
            crates.append((ROOT / manifest).parent)
    return crates


def problems(crate: Path) -> list[str]:
    tests = crate / "tests"
    declared = set(MOD.findall((tests / "main.rs").read_text()))
    files = {path.stem: path for path in tests.glob("*.rs") if path.name != "main.rs"}
    files |= {path.parent.name: path for path in tests.glob("*/mod.rs")}
    present = set(files)
    where = tests.relative_to(ROOT)
    found = [
        f"{files[name].relative_to(ROOT)}: no `mod {name};` in {where}/main.rs"
        for name in sorted(present - declared)
    ]
    found += [f"{where}/main.rs: `mod {name};` names no file" for name in sorted(declared - present)]
    return found


def main() -> int:
    found = [problem for crate in one_binary_crates() for problem in problems(crate)]
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
