#!/usr/bin/env python3
"""Where a wasm module's bytes are: its functions' code by crate, its data, its largest items.

    python3 bytes.py MODULE.wasm [--top N] [--crate NAME ...]

MODULE.wasm must keep its name section (`make bytes-wasm` builds the wasm-bindgen module so:
wasm-bindgen --keep-debug, then wasm-opt -Oz -g, the shipped module's passes with the names
kept). A function counts for the first crate of its name that is not std's (`core`, `alloc`,
`std`): `<serde_json::de::Deserializer<R>>::parse_str` is serde_json's,
`core::ptr::drop_in_place::<lro_core::X>` lro-core's. Generic code instantiated for another
crate's types is that crate's, so a share is the code that crate's use of the others costs.
With `--crate`, the functions of those crates, largest first.

Python's standard library only: the wasm binary format is read directly (sections, the code
section's bodies, the name section's function names).
"""

import argparse
import collections
import re
import sys

STD_CRATES = {"core", "alloc", "std"}
# `serde_json[a1bedc1f0eefedf7]::de` in rustc's names: a crate is a name with its hash.
CRATE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\[[0-9a-f]+\]::")
HASH = re.compile(r"\[[0-9a-f]+\]")

SECTION_IMPORT, SECTION_CODE, SECTION_DATA, SECTION_CUSTOM = 2, 10, 11, 0
IMPORT_FUNCTION, IMPORT_TABLE, IMPORT_MEMORY, IMPORT_GLOBAL, IMPORT_TAG = 0, 1, 2, 3, 4
NAMES_FUNCTIONS = 1


def leb128(data, at):
    """An unsigned LEB128 integer at `at`: (value, offset after it)."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def skip_name(data, at):
    length, at = leb128(data, at)
    return at + length


def skip_limits(data, at):
    flags, at = leb128(data, at)
    _, at = leb128(data, at)
    if flags & 1:
        _, at = leb128(data, at)
    return at


def imported_functions(data, at):
    """How many functions a module imports (they come first in the function index space)."""
    count, at = leb128(data, at)
    functions = 0
    for _ in range(count):
        at = skip_name(data, skip_name(data, at))
        kind = data[at]
        at += 1
        if kind == IMPORT_FUNCTION:
            _, at = leb128(data, at)
            functions += 1
        elif kind == IMPORT_TABLE:
            at = skip_limits(data, at + 1)
        elif kind == IMPORT_MEMORY:
            at = skip_limits(data, at)
        elif kind == IMPORT_GLOBAL:
            at += 2
        elif kind == IMPORT_TAG:
            _, at = leb128(data, at + 1)
        else:
            raise ValueError(f"unknown import kind {kind}")
    return functions


def function_names(data, at, end):
    """The name section's function names, by function index."""
    names = {}
    while at < end:
        subsection = data[at]
        size, at = leb128(data, at + 1)
        if subsection == NAMES_FUNCTIONS:
            count, pos = leb128(data, at)
            for _ in range(count):
                index, pos = leb128(data, pos)
                length, pos = leb128(data, pos)
                names[index] = data[pos : pos + length].decode("utf-8", "replace")
                pos += length
        at += size
    return names


def read_module(path):
    """(function sizes in order, their names by index, imported functions, data bytes)."""
    data = open(path, "rb").read()
    if data[:4] != b"\0asm":
        raise ValueError(f"{path} is not a wasm module")
    at, bodies, names, imports, data_bytes = 8, [], {}, 0, 0
    while at < len(data):
        section = data[at]
        size, at = leb128(data, at + 1)
        end = at + size
        if section == SECTION_IMPORT:
            imports = imported_functions(data, at)
        elif section == SECTION_CODE:
            count, pos = leb128(data, at)
            for _ in range(count):
                length, body = leb128(data, pos)
                bodies.append(body - pos + length)
                pos = body + length
        elif section == SECTION_DATA:
            data_bytes += size
        elif section == SECTION_CUSTOM:
            name_end = skip_name(data, at)
            if data[at:name_end].endswith(b"name"):
                names = function_names(data, name_end, end)
        at = end
    return bodies, names, imports, data_bytes


def crate_of(name):
    """The first crate in `name` that is not std's (std's own code: that crate)."""
    crates = CRATE.findall(name)
    return next((c for c in crates if c not in STD_CRATES), crates[0] if crates else "?")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module")
    parser.add_argument("--top", type=int, default=25, help="largest functions listed (25)")
    parser.add_argument("--crate", action="append", default=[], help="list this crate's functions")
    args = parser.parse_args()
    bodies, names, imports, data_bytes = read_module(args.module)
    if not names:
        sys.exit(f"{args.module} has no function names: build it with its name section kept")
    functions = [(size, names.get(imports + i, "?")) for i, size in enumerate(bodies)]
    if args.crate:
        for size, name in sorted(functions, reverse=True):
            if crate_of(name) in args.crate:
                print(f"{size:9,}  {HASH.sub('', name)[:160]}")
        return
    shares, counts = collections.Counter(), collections.Counter()
    for size, name in functions:
        shares[crate_of(name)] += size
        counts[crate_of(name)] += 1
    code = sum(shares.values())
    print(f"code {code:,} bytes in {len(functions):,} functions; data {data_bytes:,} bytes\n")
    print(f"{'bytes':>9}  {'share':>6}  {'functions':>9}  crate")
    for crate, size in shares.most_common():
        if size >= 1000:
            print(f"{size:9,}  {size / code:6.1%}  {counts[crate]:9}  {crate}")
    print(f"\nthe {args.top} largest functions")
    for size, name in sorted(functions, reverse=True)[: args.top]:
        print(f"{size:9,}  {HASH.sub('', name)[:160]}")


if __name__ == "__main__":
    main()
