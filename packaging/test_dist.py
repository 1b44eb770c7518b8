"""`make test-dist`: installs every artifact in dist/ the way its users would, on a machine
with no Rust toolchain and no C compiler, and runs examples/ against what was installed.

Each step runs with a minimal environment: HOME is a fresh directory, and PATH holds only a
directory of links to the interpreters and the few tools the step needs (python3, node, npm,
npx, sh, env, and coreutils), never cargo, rustc, maturin, cc, gcc, clang or zig. The script
first proves that none of those can be found. Packages not built here (the `mcp` SDK, wasmtime,
the TypeScript compiler, jco) come from PyPI and npm as for any user. Last, the sdist is
built with pip where Rust is present (this machine's own environment), as its users would.

    make test-dist     # builds dist/ first
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
EXAMPLES = ROOT / "examples"
# What a machine without a toolchain still has; each resolved on this machine's PATH.
TOOLS = ["python3", "node", "npm", "npx", "sh", "bash", "env", "cat", "ls", "mkdir", "rm", "cp", "mv", "tar", "gzip",
         "uname", "dirname", "basename", "sed", "grep", "chmod"]
FORBIDDEN = ["cargo", "rustc", "rustup", "maturin", "cc", "gcc", "g++", "clang", "zig", "ld"]
# Certificates and index settings the sandbox's network needs (no tool comes with them).
PASSED_ON = ["SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT", "NODE_EXTRA_CA_CERTS",
             "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "npm_config_registry"]

WORK = Path(tempfile.mkdtemp(prefix="lro-test-dist-"))
BIN = WORK / "bin"
HOME = WORK / "home"


def one(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    if len(found) != 1:
        sys.exit(f"expected one dist/{pattern}, found {[p.name for p in found]} (run make dist)")
    return found[0]


def env(*extra_path: Path) -> dict[str, str]:
    path = os.pathsep.join([*(str(p) for p in extra_path), str(BIN)])
    passed = {key: os.environ[key] for key in PASSED_ON if key in os.environ}
    return {"HOME": str(HOME), "PATH": path, "LANG": "C.UTF-8", **passed}


def run(*cmd: str | Path, cwd: Path = WORK, extra_path: tuple[Path, ...] = ()) -> str:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env(*extra_path), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(done.stdout, end="", flush=True)
    if done.returncode:
        sys.exit(f"failed ({done.returncode}): {' '.join(str(c) for c in cmd)}")
    return done.stdout


def isolate() -> None:
    BIN.mkdir()
    HOME.mkdir()
    for tool in TOOLS:
        # python3: this interpreter itself, not a version manager's shim script.
        found = sys.executable if tool == "python3" else shutil.which(tool)
        if found is None:
            sys.exit(f"{tool} is needed to run the install tests")
        (BIN / tool).symlink_to(found)
    probe = "import shutil, sys; found = {t: shutil.which(t) for t in sys.argv[1:]}; print(found); " \
            "sys.exit(any(found.values()))"
    run("python3", "-c", probe, *FORBIDDEN)
    print(f"no toolchain on PATH ({', '.join(FORBIDDEN)}: none found)")


def python_wheel() -> None:
    venv = WORK / "venv"
    run("python3", "-m", "venv", venv)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    # --only-binary: were the wheel unusable here, pip must fail, not build the sdist.
    run(*pip, "--only-binary", ":all:", one("lro-*-abi3-manylinux*.whl"), "mcp==2.3.0", "wasmtime==50.0.1")
    run(venv / "bin" / "python", "-c", "import lro, json; print('lro', lro.__version__, lro.__file__)")
    run(venv / "bin" / "python", EXAMPLES / "python-mcp-server" / "client.py")
    run(venv / "bin" / "python", EXAMPLES / "wasi-python" / "host.py", one("lro-*.component.wasm"))


def npm_project(name: str, example: Path | None = None) -> Path:
    project = WORK / name
    if example is None:
        project.mkdir()
        (project / "package.json").write_text(json.dumps({"name": name, "private": True, "type": "module"}))
    else:
        shutil.copytree(example, project, ignore=shutil.ignore_patterns("node_modules", "dist", "lro", "package-lock.json"))
    return project


def npm_install(project: Path, *specs: str | Path) -> None:
    run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *specs, cwd=project)


def node_addon() -> None:
    project = npm_project("typescript-mcp-server", EXAMPLES / "typescript-mcp-server")
    manifest = json.loads((project / "package.json").read_text())
    del manifest["dependencies"]["lro"]  # the example's checkout link: the tarballs instead
    (project / "package.json").write_text(json.dumps(manifest, indent=2))
    # Both tarballs, as npm would fetch them from the registry: the main package's optional
    # dependency is satisfied by the platform package installed beside it.
    npm_install(project, one("lro-linux-x64-gnu-*.tgz"), one("lro-[0-9]*.tgz"))
    installed = sorted(p.name for p in (project / "node_modules" / "lro").iterdir())
    assert not any(name.endswith(".node") for name in installed), installed
    addon = project / "node_modules" / "lro-linux-x64-gnu"
    assert any(p.suffix == ".node" for p in addon.iterdir()), "the platform package holds the addon"
    run("npx", "--no-install", "tsc", cwd=project)
    run("node", "dist/client.js", cwd=project)


def wasm_package() -> None:
    project = npm_project("wasm-package")
    npm_install(project, one("lro-wasm-*.tgz"))
    (project / "check.mjs").write_text(WASM_CHECK)
    run("node", "check.mjs", cwd=project)
    bundler = project / "node_modules" / "lro-wasm" / "pkg" / "bundler" / "lro_wasm_bg.wasm"
    assert bundler.stat().st_size > 0, "the bundler target ships its module"


WASM_CHECK = """
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import init, { offload, extract } from 'lro-wasm'

await init()
const config = { outputDir: mkdtempSync(join(tmpdir(), 'lro-wasm-')) }
const rows = Array.from({ length: 800 }, (_, i) => ({ id: i, team: ['red', 'blue'][i % 2], note: `row ${i} of the report` }))
const outcome = offload(rows, { operation: 'report' }, config)
assert.equal(outcome.offloaded, true)
const answer = extract(outcome.file_path, { where: { team: 'blue' }, count: true }, config)
assert.deepEqual(answer.results, [400])
console.log(`lro-wasm: ${outcome.summary.count} rows offloaded to ${outcome.file_path}, 400 blue: ok`)
"""


def wasi_node() -> None:
    project = npm_project("wasi-node", EXAMPLES / "wasi-node")
    npm_install(project)
    shutil.copy(one("lro-*.component.wasm"), project / "lro.component.wasm")
    run("npx", "--no-install", "jco", "transpile", "lro.component.wasm", "--name", "lro", "-o", "lro", cwd=project)
    run("node", "host.mjs", "lro", cwd=project)


def cli_binary() -> None:
    archive = one("lro-*-x86_64-unknown-linux-gnu.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(WORK, filter="data")
    bin_dir = WORK / archive.name.removesuffix(".tar.gz")
    run("lro", "--version", extra_path=(bin_dir,))
    demo = run("lro", "demo", extra_path=(bin_dir,))
    assert "offloaded" in demo.lower(), demo
    # The client configurations, started as a client would (lro from the archive on PATH),
    # with the official client from the wheel's venv; npx fetches the servers from npm.
    config = EXAMPLES / "mcp-client-config"
    run(WORK / "venv" / "bin" / "python", config / "check.py", config / "claude-code.mcp.json",
        config / "cursor.mcp.json", cwd=WORK, extra_path=(bin_dir,))


def sdist_with_rust() -> None:
    """The sdist, where Rust is present (this machine's own environment): pip builds it with
    maturin from PyPI and the cargo on PATH."""
    venv = WORK / "venv-sdist"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = venv / "bin" / "python"
    sdist = one("lro-[0-9]*[0-9].tar.gz")  # lro-0.1.0.tar.gz, not the binary's archive
    print(f"+ pip install {sdist.name} (builds with cargo, a few minutes)", flush=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", sdist], check=True)
    probe = "import lro; r = lro.offload([{'id': i, 'text': 'x' * 40} for i in range(400)], operation='probe'); " \
            "assert r['offloaded'], r; print('sdist build: lro', lro.__version__, 'offloads', r['summary']['count'])"
    subprocess.run([python, "-c", probe], check=True)


def main() -> None:
    print(f"installing from {DIST} in {WORK}")
    isolate()
    for step in (python_wheel, node_addon, wasm_package, wasi_node, cli_binary, sdist_with_rust):
        print(f"== {step.__name__}", flush=True)
        step()
    shutil.rmtree(WORK, ignore_errors=True)
    print("test-dist: every artifact installed and ran without a toolchain")


if __name__ == "__main__":
    main()
