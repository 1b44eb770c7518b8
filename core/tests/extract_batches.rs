//! Record-by-record filters over files of many batches (run on worker threads where the
//! machine has them) give exactly the sequential result: outputs in record order, the first
//! failing record reported, nothing after `halt` or a limit, the time limit kept.

use std::io::Write;
use std::path::Path;

use lro_core::{ErrorCode, ExtractLimits, ExtractRequest, Offloader, StdHost};
use serde_json::{Value, json};

use crate::support::{offloaded, query};

/// Records of about 300 bytes: 4,000 of them are some twenty batches of 64 KiB.
const RECORDS: usize = 4000;

fn memories(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| {
                json!({"id": format!("m{i}"), "memory_type": (["semantic", "episodic"][i % 2]),
                       "namespace": format!("_semantic/ns{}", i % 7),
                       "title": format!("Memory number {i} about caching, with a title long enough to fill a line"),
                       "tags": [format!("t{}", i % 13), "architecture"], "status": "active",
                       "created": "2025-06-01T10:00:00Z", "modified": "2025-10-01T00:00:00Z"})
            })
            .collect(),
    )
}

fn setup(dir: &Path, limits: ExtractLimits) -> (Offloader<StdHost>, String) {
    let (lro, file) = offloaded(dir, limits, &memories(RECORDS));
    assert!(
        std::fs::metadata(&file).unwrap().len() > 1 << 20,
        "the file spans many batches"
    );
    (lro, file)
}

fn unlimited() -> ExtractLimits {
    ExtractLimits {
        max_output_records: 1 << 40,
        max_output_bytes: 1 << 40,
        timeout_ms: 600_000,
        ..ExtractLimits::default()
    }
}

fn ids(range: std::ops::Range<usize>) -> Vec<Value> {
    range.map(|i| json!(format!("m{i}"))).collect()
}

#[test]
fn outputs_come_in_record_order() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), unlimited());
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert_eq!(r.results, ids(0..RECORDS));
    assert_eq!((r.truncated, r.records_read), (false, RECORDS as u64));
    // Several outputs per record, and records with none.
    let r = lro
        .extract(
            &file,
            &query("select(.id | ltrimstr(\"m\") | tonumber % 3 == 0) | .id, .tags[0]"),
        )
        .unwrap();
    let expected: Vec<Value> = (0..RECORDS)
        .filter(|i| i % 3 == 0)
        .flat_map(|i| [json!(format!("m{i}")), json!(format!("t{}", i % 13))])
        .collect();
    assert_eq!(r.results, expected);
    // A recipe after its sample of the first records.
    let request: ExtractRequest =
        serde_json::from_value(json!({"recipe": 3, "params": {"keyword": "number 3[0-9]*7 "}}))
            .unwrap();
    let r = lro.extract(&file, &request).unwrap();
    let expected: Vec<usize> = (0..RECORDS)
        .filter(|i| {
            let s = i.to_string();
            s.starts_with('3') && s.ends_with('7')
        })
        .collect();
    let got: Vec<&str> = r
        .results
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    let want: Vec<String> = expected.iter().map(|i| format!("m{i}")).collect();
    assert_eq!(got, want);
}

#[test]
fn the_first_failing_record_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), unlimited());
    let fail_at = |n: usize| {
        format!("if .id == \"m{n}\" or .id == \"m3900\" then error(\"boom\") else .id end")
    };
    let err = lro.extract(&file, &query(&fail_at(2500))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::QueryFailed);
    // Line 1 is the header: record m2500 is on line 2502.
    assert!(err.to_string().contains("line 2502"), "{err}");
    // A failure after the output limit is never reached, as in a sequential run.
    let (lro, file) = setup(
        dir.path(),
        ExtractLimits {
            max_output_records: 2000,
            ..unlimited()
        },
    );
    let r = lro.extract(&file, &query(&fail_at(2500))).unwrap();
    assert_eq!((r.count, r.truncated), (2000, true));
    assert_eq!(r.results, ids(0..2000));
}

#[test]
fn a_bad_line_deep_in_the_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), unlimited());
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    writeln!(f, "{{\"id\": \"late\", broken").unwrap();
    drop(f);
    let err = lro.extract(&file, &query(".id")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(
        err.to_string().contains(&format!("line {}", RECORDS + 2)),
        "{err}"
    );
    // Slurping recipes parse the batches in parallel: the same error.
    let slurping = ExtractRequest {
        recipe: Some(6),
        ..ExtractRequest::default()
    };
    let err = lro.extract(&file, &slurping).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(
        err.to_string().contains(&format!("line {}", RECORDS + 2)),
        "{err}"
    );
}

#[test]
fn slurping_recipes_see_every_record_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), unlimited());
    let recipe = |n: u8| ExtractRequest {
        recipe: Some(n),
        ..ExtractRequest::default()
    };
    let counts = lro.extract(&file, &recipe(6)).unwrap().results;
    let expected: Vec<Value> = (0..7)
        .map(|ns| json!({"namespace": format!("_semantic/ns{ns}"), "count": (0..RECORDS).filter(|i| i % 7 == ns).count()}))
        .collect();
    assert_eq!(counts, vec![Value::Array(expected)]);
    // Sorting by an equal key keeps file order (a stable sort over every record, in order).
    let sorted = lro.extract(&file, &recipe(8)).unwrap().results;
    let sorted_ids: Vec<&str> = sorted[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let file_order: Vec<String> = (0..RECORDS).map(|i| format!("m{i}")).collect();
    assert_eq!(sorted_ids, file_order);
}

#[test]
fn halt_and_limits_stop_the_output_where_a_sequential_run_would() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), unlimited());
    let r = lro
        .extract(&file, &query("if .id == \"m2345\" then halt else .id end"))
        .unwrap();
    assert_eq!((r.results.clone(), r.truncated), (ids(0..2345), false));

    let (lro, file) = setup(
        dir.path(),
        ExtractLimits {
            max_output_records: 1500,
            ..unlimited()
        },
    );
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert_eq!(r.results, ids(0..1500));
    assert_eq!(r.limit.as_deref(), Some("max_output_records (1500)"));

    // "m0".."m9" take 4 bytes, "m10".."m99" 5, "m100".."m999" 6: 40 + 450 + 600 = 1090.
    let (lro, file) = setup(
        dir.path(),
        ExtractLimits {
            max_output_bytes: 1090,
            ..unlimited()
        },
    );
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert_eq!(r.results, ids(0..200));
    assert_eq!(r.limit.as_deref(), Some("max_output_bytes (1090)"));
}

#[test]
fn endless_filters_stop_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(
        dir.path(),
        ExtractLimits {
            timeout_ms: 100,
            ..unlimited()
        },
    );
    for endless in [
        "repeat(1) | empty",
        "if .id == \"m3000\" then last(range(1e18)) else .id end",
        "def f: f; f",
    ] {
        let started = std::time::Instant::now();
        let r = lro.extract(&file, &query(endless)).unwrap();
        assert!(r.truncated, "{endless}: {r:?}");
        assert_eq!(r.limit.as_deref(), Some("timeout_ms (100 ms)"), "{endless}");
        assert!(
            started.elapsed().as_secs() < 10,
            "{endless} took {:?}",
            started.elapsed()
        );
    }
}
