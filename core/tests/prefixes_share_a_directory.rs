//! Two prefixes in one output directory, one of them the other's start (`team` and
//! `team-a`): `team-a-data-{ulid}.jsonl` reads as prefix `team`'s operation `a-data` and as
//! prefix `team-a`'s operation `data`. Each prefix's cleanup removes its own files only, and
//! each reads its own files only, whichever way the names read: the file's header says
//! whose it is.

use std::path::Path;

use lro_core::{ErrorCode, ExtractRequest, OffloadConfig, OffloadRequest, Offloader, StdHost};
use serde_json::{Value, json};

fn offloader(dir: &Path, prefix: &str) -> Offloader<StdHost> {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        file_prefix: prefix.to_owned(),
        threshold_tokens: 10,
        // Every file has expired: only whose it is decides what cleanup removes.
        ttl_seconds: 0,
        ..OffloadConfig::default()
    };
    Offloader::new(config, StdHost::new()).unwrap()
}

/// The file name of an offload of `operation` by `lro`.
fn offload(lro: &Offloader<StdHost>, operation: &str) -> String {
    let rows: Vec<Value> = (0..50)
        .map(|i| json!({"k": i, "name": format!("row {i}")}))
        .collect();
    let outcome = lro
        .offload(&Value::Array(rows), &OffloadRequest::new(operation))
        .unwrap();
    let path = &outcome.offloaded().unwrap().file_path;
    Path::new(path)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A stale temporary file (two hours old) named for `prefix` and `operation`, holding `text`.
fn stale_temp(dir: &Path, prefix: &str, operation: &str, n: u32, text: &str) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let ulid = ulid::Ulid::from_parts(now - 7_200_000, u128::from(n));
    let name = format!("{prefix}-{operation}-{ulid}.jsonl.tmp-{n}");
    std::fs::write(dir.join(&name), text).unwrap();
    name
}

fn header(operation: &str) -> String {
    format!("{{\"type\":\"lro_header\",\"operation\":\"{operation}\",\"count\":1}}\n{{}}\n")
}

#[test]
fn cleanup_removes_only_its_own_prefix_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (team, team_a) = (offloader(dir, "team"), offloader(dir, "team-a"));
    let team_a_data = offload(&team, "a-data");
    let team_data = offload(&team, "data");
    let a_data = offload(&team_a, "data");
    let a_x = offload(&team_a, "x");
    assert!(team_a_data.starts_with("team-a-data-") && a_data.starts_with("team-a-data-"));
    // Temporary files of dead writes: whose the header says, or no header yet.
    let a_temp = stale_temp(dir, "team-a", "data", 1, &header("data"));
    let team_temp = stale_temp(dir, "team", "a-data", 2, &header("a-data"));
    let headless = stale_temp(dir, "team-a", "data", 3, "{\"type\":\"lro_hea");
    // Not an LRO file at all, named like both: neither prefix's to remove.
    let stranger = "team-a-data-01JH5X3Q7Y0000000000000000.jsonl";
    std::fs::write(dir.join(stranger), "not an offload file\n").unwrap();

    let report = team.cleanup().unwrap();
    let mut removed: Vec<String> = report
        .removed
        .iter()
        .map(|r| {
            Path::new(&r.file_path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    removed.sort();
    let mut expected = vec![team_a_data.clone(), team_data.clone()];
    expected.sort();
    assert_eq!(removed, expected, "{report:?}");
    assert_eq!(report.kept, 0, "{report:?}");
    let mut left = vec![
        a_data.clone(),
        a_x.clone(),
        a_temp.clone(),
        stranger.to_owned(),
    ];
    left.sort();
    assert_eq!(
        names(dir),
        left,
        "team's temp {team_temp} and the headless {headless} go"
    );

    let report = team_a.cleanup().unwrap();
    assert_eq!(report.removed.len(), 2, "{report:?}");
    assert_eq!(names(dir), vec![stranger.to_owned()]);
}

#[test]
fn each_prefix_reads_only_its_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (team, team_a) = (offloader(dir, "team"), offloader(dir, "team-a"));
    let team_file = offload(&team, "a-data");
    let team_a_file = offload(&team_a, "data");
    let count = ExtractRequest {
        count: Some(true),
        ..ExtractRequest::default()
    };
    for (lro, own, other) in [
        (&team, &team_file, &team_a_file),
        (&team_a, &team_a_file, &team_file),
    ] {
        for name in [own.clone(), format!("lro://offloads/{own}")] {
            let answer = lro.extract(&name, &count).unwrap();
            assert_eq!(answer.results, vec![json!(50)], "{name}");
        }
        for name in [other.clone(), format!("lro://offloads/{other}")] {
            let err = lro.extract(&name, &count).unwrap_err();
            assert_eq!(err.code(), ErrorCode::PathDenied, "{name}: {err}");
        }
    }
}
