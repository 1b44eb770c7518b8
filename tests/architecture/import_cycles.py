#!/usr/bin/env python3
"""Import circles between the modules of each Rust crate in the workspace.

A module imports another when one of its paths names it: `use crate::a::b`, `use super::x`,
`self::y`, a braced group (`use super::{a, b::c}`) or a path written inline in code
(`crate::extract::run::f()`). Declaring a child (`mod x;`) is not an import; re-exporting
from it (`pub use x::Y`) is. Every strongly connected set of two or more modules is a circle:
modules that cannot be read, moved or tested one without the other.

    python3 tests/architecture/import_cycles.py            # print circles, exit 1 if any
    python3 tests/architecture/import_cycles.py --count    # print only their number

Crates are found from the `[lib]`/`[[bin]]` roots of each package (`src/lib.rs`,
`src/main.rs`); tests, benches and examples are separate crates and are not read.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{)?")
LINE_COMMENT = re.compile(r"//[^\n]*")
INLINE_MOD = re.compile(r"\bmod\s+[A-Za-z_][A-Za-z0-9_]*\s*\{")


def crate_roots() -> list[Path]:
    """`src/lib.rs` and `src/main.rs` of every package tracked by git, but for the published
    crates kept patched under a `patches/` directory: their layout is their authors'."""
    files = subprocess.run(
        ["git", "ls-files", "*Cargo.toml"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    roots = []
    for manifest in files:
        if "patches" in Path(manifest).parts:
            continue
        src = (ROOT / manifest).parent / "src"
        roots += [root for root in (src / "lib.rs", src / "main.rs") if root.exists()]
    return roots


def modules(root: Path) -> dict[tuple[str, ...], Path]:
    """Every module file of the crate rooted at `root`, by module path."""
    found = {(): root}
    stack = [((), root)]
    while stack:
        path, file = stack.pop()
        text = LINE_COMMENT.sub("", file.read_text())
        directory = file.parent if file.name in ("lib.rs", "main.rs", "mod.rs") else file.with_suffix("")
        for name in re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", text, re.M):
            for candidate in (directory / f"{name}.rs", directory / name / "mod.rs"):
                if candidate.exists():
                    found[path + (name,)] = candidate
                    stack.append((path + (name,), candidate))
                    break
    return found


def braced(text: str, start: int) -> list[str]:
    """The top-level items of the `{...}` group opening at `text[start]`."""
    depth, item, items = 0, "", []
    for ch in text[start:]:
        if ch == "{":
            depth += 1
            if depth == 1:
                continue
        elif ch == "}":
            depth -= 1
            if depth == 0:
                items.append(item)
                break
        if ch == "," and depth == 1:
            items.append(item)
            item = ""
        else:
            item += ch
    return [re.split(r"\s+as\s+|::\{|\{", i.strip())[0] for i in items if i.strip()]


def resolve(module: tuple[str, ...], is_dir: bool, head: str, tail: list[str]) -> list[str]:
    """The absolute path a relative `crate`/`super`/`self` path names."""
    if head == "crate":
        return tail
    base = list(module) if is_dir else list(module)
    if head == "self":
        return base + tail if is_dir else base + tail
    # `super` in a directory module (mod.rs) is its parent; in a file module too: the
    # module's own path minus its last segment.
    while tail and tail[0] == "super":
        tail = tail[1:]
        base = base[:-1]
    return base[:-1] + tail


def inline_depths(text: str) -> list[tuple[int, int]]:
    """The spans of the inline modules (`mod tests { ... }`) of a file."""
    spans = []
    for match in INLINE_MOD.finditer(text):
        depth, end = 0, len(text)
        for i in range(match.end() - 1, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        spans.append((match.end(), end))
    return spans


def edges(found: dict[tuple[str, ...], Path]) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    graph = {m: set() for m in found}
    for module, file in found.items():
        text = LINE_COMMENT.sub("", file.read_text())
        is_dir = file.name in ("lib.rs", "main.rs", "mod.rs")
        spans = inline_depths(text)
        for match in PATH.finditer(text):
            head, rest, brace = match.group(1), match.group(2), match.group(3)
            tails = [rest.split("::")[1:]]
            if brace:
                tails = [tails[0] + item.split("::") for item in braced(text, match.end() - 1)]
            # Inside an inline module, `self` is that module and each `super` first climbs
            # out of the inline modules around the path: still inside one, the path names an
            # item of this same file.
            inline = sum(1 for start, end in spans if start <= match.start() < end)
            for tail in tails:
                if head == "self" and (inline or not is_dir):
                    continue  # an inline module of the same file
                if head == "super" and inline:
                    climbs = 1 + sum(1 for t in tail[:] if t == "super")
                    if climbs <= inline:
                        continue
                    tail = ["super"] * (climbs - inline - 1) + [t for t in tail if t != "super"]
                target = resolve(module, is_dir, head, [t for t in tail if t and t != "self"])
                # The longest prefix that is a module file.
                while tuple(target) not in found and target:
                    target = target[:-1]
                target = tuple(target)
                if target != module and target in found:
                    # An ancestor is only imported for its own items, a path through it to a
                    # descendant imports the descendant (already resolved above).
                    graph[module].add(target)
    return graph


def circles(graph):
    """Tarjan's strongly connected components of two or more modules."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    total = []
    for root in crate_roots():
        found = modules(root)
        for component in circles(edges(found)):
            names = [str(found[m].relative_to(ROOT)) for m in component]
            total.append(names)
    if "--count" in sys.argv:
        print(len(total))
    else:
        for names in total:
            print("circle: " + " <-> ".join(names))
        print(f"{len(total)} import circle(s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
