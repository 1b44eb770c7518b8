//! Replicas sharing a volume: eight processes offload and clean up in one directory at the
//! same time, thousands of files between them. Every file is complete and parseable, no two
//! offloads get one name, cleanup never removes a file younger than its time-to-live, no
//! file disappears without a cleanup reporting it, and no temp file is left behind.
//!
//! The test binary runs itself eight times over (the `replica` test, which does nothing
//! unless `LRO_TEST_REPLICA` says which replica it is), as real processes, not threads:
//! each has its own ULID generator, clock reads and directory cache.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};

use lro_core::{Host, OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost};
use serde_json::{Value, json};

const REPLICAS: usize = 8;
const OFFLOADS_EACH: usize = 300;
const TTL_SECONDS: u64 = 1;
/// Lines a replica prints for the parent start with this (libtest prints its own lines too).
const TAG: &str = "LRO-REPLICA ";

/// The records replica `r` offloads in its `i`th call: sizes vary, and every 60th call is
/// about 1 MB, so some writes are long while other replicas list and clean up.
fn records(r: usize, i: usize) -> Value {
    let count = if i % 60 == 59 {
        4000
    } else {
        20 + (i % 7) * 15
    };
    Value::Array(
        (0..count)
            .map(|n| json!({"replica": r, "call": i, "n": n, "text": format!("record {n} of call {i} {}", "x".repeat(n % 200))}))
            .collect(),
    )
}

/// One replica: offloads, with a cleanup every tenth call, and reports each to the parent.
#[test]
fn replica() {
    let Ok(spec) = std::env::var("LRO_TEST_REPLICA") else {
        return;
    };
    let (r, dir) = spec.split_once(':').unwrap();
    let r: usize = r.parse().unwrap();
    let config = OffloadConfig {
        output_dir: dir.to_owned(),
        threshold_tokens: 100,
        ttl_seconds: TTL_SECONDS,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    for i in 0..OFFLOADS_EACH {
        match lro
            .offload(&records(r, i), &OffloadRequest::new("recall"))
            .unwrap()
        {
            Outcome::Offloaded(d) => println!("{TAG}offloaded {r} {i} {}", d.file_path),
            Outcome::Inline(inline) => panic!("replica {r} call {i}: {:?}", inline.warning),
        }
        if i % 10 == 9 {
            let report = lro.cleanup().unwrap();
            let after = StdHost::new().now_millis();
            assert!(report.errors.is_empty(), "{:?}", report.errors);
            for removed in report.removed {
                println!("{TAG}removed {after} {}", removed.file_path);
            }
        }
    }
}

/// The ULID timestamp in an offload file name: when it was created, in milliseconds.
fn created_millis(path: &str) -> u64 {
    let name = Path::new(path).file_name().unwrap().to_str().unwrap();
    let ulid = name.trim_end_matches(".jsonl").rsplit('-').next().unwrap();
    ulid::Ulid::from_string(ulid).unwrap().timestamp_ms()
}

#[test]
fn eight_replicas_offload_and_clean_up_in_one_directory() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..REPLICAS)
        .map(|r| {
            Command::new(&exe)
                .arg(crate::support::test_name(module_path!(), "replica"))
                .args(["--exact", "--nocapture", "--test-threads", "1"])
                .env("LRO_TEST_REPLICA", format!("{r}:{}", dir.path().display()))
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .unwrap()
        })
        .collect();
    // (replica, call) -> path, and path -> when the cleanup that removed it had finished.
    let mut offloaded: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut removed: BTreeMap<String, u64> = BTreeMap::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "a replica failed: {}",
            output.status
        );
        for line in String::from_utf8(output.stdout).unwrap().lines() {
            // libtest's "test replica ... " may start the first line.
            let Some(report) = line.split_once(TAG).map(|(_, report)| report) else {
                continue;
            };
            let words: Vec<&str> = report.split(' ').collect();
            match words[..] {
                ["offloaded", r, i, path] => {
                    let previous =
                        offloaded.insert(path.to_owned(), (r.parse().unwrap(), i.parse().unwrap()));
                    assert!(previous.is_none(), "two offloads were given {path}");
                }
                ["removed", after, path] => {
                    let previous = removed.insert(path.to_owned(), after.parse().unwrap());
                    assert!(previous.is_none(), "{path} was removed twice");
                }
                _ => panic!("unexpected report {line:?}"),
            }
        }
    }
    assert_eq!(
        offloaded.len(),
        REPLICAS * OFFLOADS_EACH,
        "no name collision"
    );
    let ttl_millis = TTL_SECONDS * 1000;
    for (path, after) in &removed {
        assert!(
            offloaded.contains_key(path),
            "cleanup removed {path}, which no one wrote"
        );
        let created = created_millis(path);
        assert!(
            created + ttl_millis <= *after,
            "{path} was removed {} ms after it was created, within its {TTL_SECONDS} s TTL",
            after.saturating_sub(created)
        );
    }
    assert!(
        !removed.is_empty(),
        "the run is long enough for cleanups to remove files"
    );
    let mut kept = 0;
    for (path, (r, i)) in &offloaded {
        if removed.contains_key(path) {
            assert!(!Path::new(path).exists(), "{path} was reported removed");
            continue;
        }
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{path} disappeared without a cleanup reporting it: {e}"));
        let mut lines = text.lines();
        let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        let expected = records(*r, *i);
        let expected = expected.as_array().unwrap();
        assert_eq!(header["count"], expected.len(), "{path}");
        let body: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(
            body == *expected,
            "{path} does not hold replica {r}'s call {i}"
        );
        kept += 1;
    }
    let names: BTreeSet<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), kept, "only offload files are left: {names:?}");
    eprintln!(
        "{} files written by {REPLICAS} processes, {} removed by their cleanups, {kept} kept",
        offloaded.len(),
        removed.len()
    );
}
