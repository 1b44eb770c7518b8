#!/usr/bin/env python3
"""The `lro` binary, the Python wheel and the Node addon share one release compilation.

They are built by three cargo commands (cargo, maturin, napi), and cargo picks a dependency's
features per command: a dependency the three share but with other features is compiled once
per feature set, and so is everything above it (a proc macro's `syn` features once gave the
whole core three builds). packaging/unify asks for the union. This check lists every
dependency the three share whose features differ, and exits 1 if there is one.
"""

import subprocess
import sys

PACKAGES = ("lro-cli", "lro-python", "lro-node")


def features(package: str, target: str) -> dict[str, set[str]]:
    """Each dependency of `package` (name and version) with its features, as cargo resolves
    them for that package alone (normal and build dependencies, proc macros included)."""
    out = subprocess.run(
        ["cargo", "tree", "-p", package, "--target", target, "-e", "normal,build",
         "--prefix", "none", "--format", "{p}|{f}"],
        check=True, capture_output=True, text=True,
    ).stdout
    found: dict[str, set[str]] = {}
    for line in out.splitlines():
        name, _, feats = line.partition("|")
        name = name.removesuffix(" (*)").split(" (")[0].strip()
        feats = feats.removesuffix(" (*)").strip()
        found.setdefault(name, set()).update(f for f in feats.split(",") if f)
    return found


def main() -> int:
    target = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    target = next(l.split(": ", 1)[1] for l in target.splitlines() if l.startswith("host: "))
    trees = {p: features(p, target) for p in PACKAGES}
    shared = set.intersection(*(set(t) for t in trees.values()))
    differ = []
    for dep in sorted(shared):
        union = set.union(*(trees[p][dep] for p in PACKAGES))
        missing = {p: sorted(union - trees[p][dep]) for p in PACKAGES if union - trees[p][dep]}
        if missing:
            differ.append((dep, sorted(union), missing))
    for dep, union, missing in differ:
        print(f"{dep}: features differ ({missing}); ask for {union} in packaging/unify/Cargo.toml")
    print(f"{len(shared)} dependencies shared by {', '.join(PACKAGES)}; {len(differ)} with other features")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
