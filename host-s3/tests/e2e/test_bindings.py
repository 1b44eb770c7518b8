"""The Python wheel and the Node addon as replicas: each selects the object store from
`output_dir = "s3://..."`, and each extracts what the other wrote."""

import json
import subprocess

import pytest

from conftest import ROOT, key_of, memories, namespace_counts

NODE_ADDON = ROOT / "bindings-node"


@pytest.fixture(scope="module")
def lro():
    try:
        import lro as module
    except ImportError:
        pytest.fail("the lro wheel is not installed in this venv: run `make test-s3` (it installs target/wheels-python)")
    return module


def node(script: str, *args: str) -> dict:
    """Runs `script` under Node with the addon as `lro` and the arguments as `args`; returns
    the JSON it prints."""
    if not any(NODE_ADDON.glob("*.node")):
        pytest.fail(f"the Node addon is not built in {NODE_ADDON}: run `make build-node`")
    done = subprocess.run(
        ["node", "-e", f"const lro = require({json.dumps(str(NODE_ADDON))}); const args = process.argv.slice(1); {script}", *args],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_python_writes_node_reads(lro, s3, s3_dir):
    records = memories(150)
    outcome = lro.offload(records, operation="recall", detail="medium", config={"output_dir": s3_dir})
    assert outcome["offloaded"] is True
    path = outcome["file_path"]
    assert path.startswith(f"{s3_dir}/atlatl-recall-")
    bucket, key = key_of(path)
    assert s3.head_object(Bucket=bucket, Key=key)["ContentLength"] > 0

    counts = node("console.log(JSON.stringify(lro.extract(args[0], { recipe: 6 }, { outputDir: args[1] })))", path, s3_dir)
    assert {r["namespace"]: r["count"] for r in counts["results"][0]} == namespace_counts(records)
    missing = path.replace(key.rsplit("-", 1)[1], "01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl")
    error = node("try { lro.extract(args[0], { recipe: 1 }, { outputDir: args[1] }) } catch (e) { console.log(JSON.stringify({ code: e.code })) }", missing, s3_dir)
    assert error == {"code": "not_found"}


def test_node_writes_python_reads_and_cleans_up(lro, s3_dir):
    records = memories(90)
    outcome = node(
        "console.log(JSON.stringify(lro.offload(JSON.parse(args[0]), { operation: 'search' }, { outputDir: args[1], store: { timeoutMs: 2000, retries: 1 } })))",
        json.dumps(records),
        s3_dir,
    )
    assert outcome["offloaded"] is True
    path = outcome["file_path"]
    assert path.startswith(f"{s3_dir}/atlatl-search-")

    offloader = lro.Offloader(lro.Config(output_dir=s3_dir, ttl_seconds=0, store={"timeout_ms": 2000}))
    assert offloader.extract(path, recipe=4)["count"] == 90
    removed = offloader.cleanup()["removed"]
    assert [r["file_path"] for r in removed] == [path]
    with pytest.raises(lro.PathError) as error:
        offloader.extract(path, recipe=4)
    assert error.value.code == "not_found"


def test_a_store_error_falls_back_in_python_too(lro, s3_dir):
    events = []
    config = lro.Config(output_dir=s3_dir.replace("lro-test", "lro-missing-bucket"), store={"retries": 0})
    outcome = lro.Offloader(config, on_event=events.append).offload(memories(200), operation="recall")
    assert outcome["offloaded"] is False and outcome["truncated"] is True
    assert "NoSuchBucket" in outcome["warning"]
    assert [e["event"] for e in events] == ["OffloadWriteFailed"]
