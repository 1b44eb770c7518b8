"""Two replicas share nothing but the bucket: `lro` processes write, extract and clean up
offloads under s3://bucket/prefix, and boto3 checks what is in the store."""

import json
import subprocess
import time

from conftest import (
    closed_port,
    key_of,
    memories,
    namespace_counts,
    offload_with_cli,
    run_lro,
    shell_env,
    ulid,
)


def test_a_file_written_by_one_replica_is_extracted_by_another(s3, s3_dir):
    records = memories(200)
    descriptor = offload_with_cli(s3_dir, records, "--detail", "full")
    assert descriptor["offloaded"] is True
    file_path = descriptor["file_path"]
    assert file_path.startswith(f"{s3_dir}/atlatl-recall-") and file_path.endswith(".jsonl")

    # In the store: one object, header then the records as given (full detail).
    bucket, key = key_of(file_path)
    head = s3.head_object(Bucket=bucket, Key=key)
    assert head["ContentType"] == "application/x-ndjson"
    lines = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode().splitlines()
    assert head["ContentLength"] == sum(len(line) + 1 for line in lines)
    header = json.loads(lines[0])
    assert header["type"] == "lro_header" and header["count"] == 200 and header["detail"] == "full"
    assert [json.loads(line) for line in lines[1:]] == records

    # Another process, another replica: extraction by recipe, by query, by a relative name.
    counts = run_lro("extract", file_path, "--output-dir", s3_dir, "--recipe", "6").stdout
    got = {row["namespace"]: row["count"] for row in json.loads(counts)}
    assert got == namespace_counts(records)
    ids = run_lro("extract", key.rsplit("/", 1)[1], "--output-dir", s3_dir, "--query", 'select(.title | test("Decision 19[0-9]:")) | .id')
    assert ids.stdout.decode().split() == [json.dumps(f"mem-{i:06d}") for i in range(190, 200)]


def test_shell_recipes_fetch_the_object_with_the_aws_cli(s3_dir):
    records = memories(120)
    descriptor = offload_with_cli(s3_dir, records)
    file_path = descriptor["file_path"]
    for number, recipe in enumerate(descriptor["jq_recipes"], start=1):
        command = recipe["command"]
        assert command.startswith(f"aws s3 cp {file_path} - | tail -n +2 | jq"), command
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, env=shell_env(), timeout=60)
        assert done.returncode == 0, (number, command, done.stderr.decode())
        if number == 6:
            assert {r["namespace"]: r["count"] for r in json.loads(done.stdout)} == namespace_counts(records)
        if number == 1:
            native = run_lro("extract", file_path, "--output-dir", s3_dir, "--recipe", "1").stdout
            assert done.stdout == native and len(native.splitlines()) == 120


def test_cleanup_removes_only_expired_offloads(s3, s3_dir):
    bucket, prefix = key_of(s3_dir)
    now = int(time.time() * 1000)
    expired = [f"atlatl-recall-{ulid(now - 7_200_000 - i, i)}.jsonl" for i in range(5)]
    fresh = [f"atlatl-search-{ulid(now - 60_000, i)}.jsonl" for i in range(3)]
    others = ["notes.jsonl", f"other-recall-{ulid(now - 7_200_000, 1)}.jsonl", f"sub/atlatl-recall-{ulid(now - 7_200_000, 2)}.jsonl"]
    for name in expired + fresh + others:
        s3.put_object(Bucket=bucket, Key=f"{prefix}/{name}", Body=b'{"type":"lro_header"}\n')

    report = json.loads(run_lro("cleanup", "--output-dir", s3_dir, "--ttl-seconds", "3600", "--events").stdout)
    assert sorted(r["file_path"] for r in report["removed"]) == sorted(f"{s3_dir}/{n}" for n in expired)
    assert report["kept"] == 3 and report["errors"] == []
    left = s3.list_objects_v2(Bucket=bucket, Prefix=f"{prefix}/")["Contents"]
    assert sorted(o["Key"].removeprefix(f"{prefix}/") for o in left) == sorted(fresh + others)


def test_an_unreachable_store_gives_the_inline_fallback_and_an_event(s3_dir):
    env = {
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{closed_port()}",
        "ATLATL_PROMPT__OFFLOAD__STORE__TIMEOUT_MS": "300",
        "ATLATL_PROMPT__OFFLOAD__STORE__RETRIES": "1",
    }
    done = run_lro("offload", "--output-dir", s3_dir, "--events", stdin=json.dumps(memories(200)).encode(), env=env)
    outcome = json.loads(done.stdout)
    assert outcome["offloaded"] is False and outcome["truncated"] is True
    assert outcome["total_count"] == 200 and 0 < outcome["count"] < 200
    assert "could not write" in outcome["warning"] and "after 2 attempts" in outcome["warning"]
    events = [json.loads(line) for line in done.stderr.decode().splitlines() if line.startswith("{")]
    assert [e["event"] for e in events] == ["OffloadWriteFailed"]
    assert events[0]["file_path"].startswith(f"{s3_dir}/atlatl-recall-")


def test_a_missing_object_is_not_found(s3_dir):
    missing = f"{s3_dir}/atlatl-recall-{ulid(int(time.time() * 1000))}.jsonl"
    done = run_lro("extract", missing, "--output-dir", s3_dir, "--recipe", "1", check=False)
    assert done.returncode == 66  # lro extract's code for not_found
    assert "error[not_found]" in done.stderr.decode() and missing in done.stderr.decode()


def test_a_bad_s3_uri_is_a_configuration_error(s3_dir):
    done = run_lro("cleanup", "--output-dir", "s3://No_Such_Bucket/x", check=False)
    assert done.returncode == 78 and "error[invalid_config]" in done.stderr.decode()
    done = run_lro("cleanup", "--output-dir", s3_dir, env={"AWS_ACCESS_KEY_ID": ""}, check=False)
    assert done.returncode == 78 and "AWS_ACCESS_KEY_ID" in done.stderr.decode()
