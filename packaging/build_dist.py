"""`make dist`: the artifacts a registry would serve, written to dist/.

- Python: an abi3 wheel for CPython 3.9+ tagged manylinux2014 (glibc 2.17) for x86_64, linked
  by zig (PyPI `ziglang`) so that it runs on distributions older than this machine, its tag
  checked by `auditwheel show`; and the sdist, which builds where Rust is present.
- Node: the layout napi-rs packages have on npm: the main package `lro` (JS, d.ts, loader)
  whose `optionalDependencies` name the platform package `lro-linux-x64-gnu` (the addon for
  glibc 2.17 or newer), both as `npm pack` tarballs.
- WebAssembly: the wasm-bindgen package `lro-wasm` (node, web and bundler targets) as an npm
  tarball, and the WASI P2 component file.
- The `lro` command line for x86_64 Linux, glibc 2.17 or newer, as a tar.gz with its README
  and licences.
Every artifact's size is printed; `dist/SHA256SUMS` lists them. Native code is linked with
`cargo zigbuild` (PyPI `cargo-zigbuild`) against glibc 2.17: the script checks the symbol
versions each binary needs with objdump.

    make dist          # builds the wasm artifacts and the tools first
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
STAGE = ROOT / "target" / "dist-stage"
TOOLS = Path(sys.executable).parent  # the dist venv: maturin, zig, cargo-zigbuild, auditwheel
TARGET = "x86_64-unknown-linux-gnu"
GLIBC = "2.17"
VERSION = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
LICENSES = ["LICENSE-MIT", "LICENSE-APACHE"]
ENV = {**os.environ, "PATH": f"{TOOLS}{os.pathsep}{os.environ['PATH']}"}


def run(*cmd: str | Path, cwd: Path = ROOT) -> str:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=ENV, check=True, stdout=subprocess.PIPE, text=True)
    return done.stdout


def newest_glibc(binary: Path) -> tuple[int, ...]:
    """The newest glibc symbol version `binary` needs."""
    symbols = run("objdump", "-T", binary)
    versions = {tuple(int(p) for p in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", symbols)}
    return max(versions)


def check_glibc(binary: Path) -> None:
    newest = newest_glibc(binary)
    wanted = tuple(int(p) for p in GLIBC.split("."))
    if newest > wanted:
        sys.exit(f"{binary.name} needs glibc {'.'.join(map(str, newest))}, more than {GLIBC}")
    print(f"  {binary.name}: newest glibc symbol {'.'.join(map(str, newest))} (<= {GLIBC})")


def zigbuild(package: str) -> Path:
    """Builds `package` in release for TARGET linked against glibc GLIBC; its target dir."""
    run("cargo", "zigbuild", "--release", "--target", f"{TARGET}.{GLIBC}", "-p", package)
    return ROOT / "target" / TARGET / "release"


def fresh(directory: Path) -> Path:
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


def copy_licences(to: Path) -> None:
    for name in LICENSES:
        shutil.copy(ROOT / name, to / name)


def npm_pack(package_dir: Path) -> None:
    run("npm", "pack", "--pack-destination", DIST, "--loglevel=error", cwd=package_dir)


def python() -> None:
    run("maturin", "build", "--release", "--zig", "--compatibility", "manylinux2014", "--target", TARGET,
        "--out", DIST, cwd=ROOT / "bindings-python")
    run("maturin", "sdist", "--out", DIST, cwd=ROOT / "bindings-python")
    wheel = next(DIST.glob(f"lro-{VERSION}-cp39-abi3-manylinux*.whl"))
    shown = run("auditwheel", "show", wheel)
    if "manylinux_2_17_x86_64" not in " ".join(shown.split()):
        sys.exit(f"auditwheel does not place {wheel.name} on manylinux_2_17_x86_64:\n{shown}")
    print(f"  auditwheel: {wheel.name} is consistent with manylinux_2_17_x86_64")


def cli() -> None:
    binary = zigbuild("lro-cli") / "lro"
    check_glibc(binary)
    name = f"lro-{VERSION}-{TARGET}"
    stage = fresh(STAGE / name)
    shutil.copy(binary, stage / "lro")
    run("strip", stage / "lro")
    shutil.copy(ROOT / "README.md", stage / "README.md")
    copy_licences(stage)
    with tarfile.open(DIST / f"{name}.tar.gz", "w:gz") as archive:
        archive.add(stage, arcname=name)


def node() -> None:
    source = ROOT / "bindings-node"
    manifest = json.loads((source / "package.json").read_text())
    platform_name = f"{manifest['name']}-linux-x64-gnu"
    addon = f"{manifest['napi']['binaryName']}.linux-x64-gnu.node"

    # The platform package: the addon alone, installed only where os/cpu/libc match.
    library = zigbuild("lro-node") / "liblro_node.so"
    check_glibc(library)
    platform = fresh(STAGE / "npm" / "linux-x64-gnu")
    shutil.copy(library, platform / addon)
    run("strip", platform / addon)
    copy_licences(platform)
    (platform / "README.md").write_text(
        (ROOT / "packaging" / "templates" / "node-platform-README.md").read_text().format(
            name=platform_name, main=manifest["name"], glibc=GLIBC)
    )
    (platform / "package.json").write_text(json.dumps({
        "name": platform_name,
        "version": manifest["version"],
        "description": f"The {manifest['name']} native addon for Linux x64 (glibc {GLIBC} or newer): "
                       f"install {manifest['name']}, which depends on this package",
        "license": manifest["license"],
        "main": addon,
        "files": [addon, "README.md", *LICENSES],
        "os": ["linux"],
        "cpu": ["x64"],
        "libc": ["glibc"],
        "engines": manifest["engines"],
    }, indent=2) + "\n")

    # The main package: JS, types and the loader, which requires the platform package when no
    # addon sits beside it (napi-rs's generated index.js).
    main = fresh(STAGE / "npm" / "main")
    for name in manifest["files"]:
        if name != "*.node":
            shutil.copy(source / name, main / name)
    copy_licences(main)
    published = {key: value for key, value in manifest.items() if key not in ("scripts", "devDependencies", "napi")}
    published["files"] = [name for name in manifest["files"] if name != "*.node"] + LICENSES
    published["optionalDependencies"] = {platform_name: manifest["version"]}
    (main / "package.json").write_text(json.dumps(published, indent=2) + "\n")
    npm_pack(platform)
    npm_pack(main)


def wasm() -> None:
    source = ROOT / "bindings-wasm"
    manifest = json.loads((source / "js" / "package.json").read_text())
    stage = fresh(STAGE / "lro-wasm")
    shutil.copytree(source / "js" / "pkg" / "node", stage / "pkg" / "node")
    shutil.copytree(source / "js" / "pkg" / "web", stage / "pkg" / "web")
    # The bundler target (webpack, Vite, Rollup with wasm ESM integration): generated here
    # only, from the module `make build-wasm` compiled, and size-optimized the same way.
    raw = ROOT / "target" / "wasm" / "js" / "wasm32-unknown-unknown" / "wasm-js" / "lro_wasm.wasm"
    bundler = stage / "pkg" / "bundler"
    run("wasm-bindgen", "--target", "bundler", "--remove-name-section", "--remove-producers-section",
        "--out-dir", bundler, raw)
    optimized = bundler / "lro_wasm_bg.wasm"
    flags = os.environ["WASM_OPT_FLAGS"].split()
    run(source / "node_modules" / ".bin" / "wasm-opt", *flags, "-o", optimized, optimized)
    # The entries and types (`make build-wasm-js` copied the Node addon's API types and MCP
    # helpers beside them), as the manifest lists them.
    for name in manifest["files"]:
        if not name.endswith("/") and name != "README.md":
            shutil.copy(source / "js" / name, stage / name)
    shutil.copy(source / "README.md", stage / "README.md")
    copy_licences(stage)
    manifest["files"] = [*manifest["files"], "pkg/bundler/", *LICENSES]
    # The bundler build initializes itself on import: the API's types without `init`.
    manifest["exports"]["./bundler"] = {"types": "./api.d.ts", "default": "./pkg/bundler/lro_wasm.js"}
    manifest["exports"]["./web"] = {"types": "./index.d.ts", "default": "./pkg/web/lro_wasm.js"}
    (stage / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    npm_pack(stage)
    shutil.copy(source / "component" / "dist" / "lro.component.wasm", DIST / f"lro-{VERSION}.component.wasm")


def main() -> None:
    fresh(DIST)
    for step in (python, cli, node, wasm):
        print(f"== {step.__name__}", flush=True)
        step()
    sums = []
    print(f"\n{'artifact':58} {'bytes':>12}")
    for artifact in sorted(DIST.iterdir()):
        data = artifact.read_bytes()
        sums.append(f"{hashlib.sha256(data).hexdigest()}  {artifact.name}\n")
        print(f"{artifact.name:58} {len(data):>12,}")
    (DIST / "SHA256SUMS").write_text("".join(sums))


if __name__ == "__main__":
    main()
