"""Shared by the object-store end-to-end tests (`make test-s3`): the loopback S3 server that
with_moto.py started, boto3 to look at the objects, and the `lro` binary, the Python wheel and
the Node addon as the replicas that write and read them."""

import json
import os
import subprocess
import time
import uuid
from collections import Counter
from pathlib import Path

import boto3
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
VENV_BIN = Path(os.sys.executable).parent
MOCK_SERVER = ROOT / "cli" / "tests" / "e2e" / "servers" / "mock_server.py"

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(millis: int, random: int = 0) -> str:
    """A ULID with this timestamp (what cleanup reads as the file's creation time)."""
    value = (millis << 80) | (random & ((1 << 80) - 1))
    return "".join(CROCKFORD[(value >> (5 * i)) & 31] for i in reversed(range(26)))


def memory(i: int) -> dict:
    return {
        "id": f"mem-{i:06d}",
        "memory_type": ["semantic", "episodic", "procedural"][i % 3],
        "title": f"Decision {i}: caching strategy for service {i % 17}",
        "content": f"We moved service {i % 17} to a write-through cache after incident {i}.",
        "created": "2026-03-14T09:26:53Z",
        "namespace": ["_semantic/decisions", "_episodic/sessions", "projects/atlas", "_procedural/runbooks"][i % 4],
        "tags": ["architecture", f"t{i % 5}"],
        "status": "active",
        "provenance": {"confidence": (i % 10) / 10, "trust_level": "verified"},
    }


def memories(n: int) -> list:
    return [memory(i) for i in range(n)]


def namespace_counts(records: list) -> dict:
    return dict(Counter(r["namespace"] for r in records))


@pytest.fixture(scope="session")
def bucket() -> str:
    name = os.environ.get("LRO_TEST_S3_BUCKET")
    if not name:
        pytest.fail("run these tests with the loopback S3 server: make test-s3 (host-s3/tests/e2e/with_moto.py -- pytest)")
    return name


@pytest.fixture(scope="session")
def s3(bucket):
    return boto3.client("s3")


@pytest.fixture
def s3_dir(bucket) -> str:
    """A prefix of its own for each test: s3://BUCKET/e2e-HEX."""
    return f"s3://{bucket}/e2e-{uuid.uuid4().hex[:12]}"


def key_of(uri: str) -> tuple:
    bucket, _, key = uri.removeprefix("s3://").partition("/")
    return bucket, key


def lro_binary() -> str:
    binary = Path(os.environ.get("LRO_BIN", ROOT / "target" / "release" / "lro"))
    if not binary.exists():
        pytest.fail(f"{binary} is missing: run `cargo build --release -p lro-cli` (or `make test-s3`)")
    return str(binary)


def run_lro(*args, stdin: bytes = b"", env=None, check=True) -> subprocess.CompletedProcess:
    """One `lro` process: one replica."""
    done = subprocess.run(
        [lro_binary(), *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    if check:
        assert done.returncode == 0, done.stderr.decode()
    return done


def offload_with_cli(s3_dir: str, records: list, *extra) -> dict:
    done = run_lro("offload", "--output-dir", s3_dir, *extra, stdin=json.dumps(records).encode())
    return json.loads(done.stdout)


def shell_env() -> dict:
    """The environment an agent's shell would have: the AWS CLI on PATH, the same AWS_*."""
    return {**os.environ, "PATH": f"{VENV_BIN}:{os.environ['PATH']}"}


def closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
