//! Loops that call no definition and build no value stop at the time limit, a cancelled
//! extraction stops, and a section named by a long key is found by the label its descriptor
//! shows.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lro_core::{ExtractLimits, ExtractRequest, OffloadRequest, Offloader, StdHost};
use serde_json::{Map, Value, json};

use crate::support::{offloaded, query};

fn setup(dir: &Path, timeout_ms: u64, data: &Value) -> (Offloader<StdHost>, String) {
    let limits = ExtractLimits {
        timeout_ms,
        ..ExtractLimits::default()
    };
    offloaded(dir, limits, data)
}

fn records() -> Value {
    Value::Array(
        (0..20)
            .map(|i| json!({"id": i, "title": format!("t{i}")}))
            .collect(),
    )
}

/// Each ran for minutes (1e12 steps) before: they now end at the 500 ms limit, cut.
#[test]
fn loops_that_build_nothing_end_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), 500, &records());
    for filter in [
        "select(.id == 1) | [range(1e6)] | .[] as $a | .[] | empty",
        // `empty`, not a value: a value each step meets max_output_records long before the
        // time limit in an optimized build.
        "select(.id == 1) | [range(1e6)] | .[] as $a | .[] as $b | empty",
        "select(.id == 1) | [range(1e6)] | .[] as $a | .[] | .[]?",
        "select(.id == 1) | [range(1e6)] | combinations(2) | empty",
        "select(.id == 1) | [range(1e6)] | [.[] | .[]?] | length",
    ] {
        let started = Instant::now();
        let response = lro.extract(&file, &query(filter)).unwrap();
        assert!(response.truncated, "{filter}");
        assert!(
            response
                .limit
                .as_deref()
                .is_some_and(|l| l.contains("timeout_ms")),
            "{filter}: {:?}",
            response.limit
        );
        // Generous for a debug build on a loaded machine.
        assert!(started.elapsed() < Duration::from_secs(60), "{filter}");
    }
}

/// The rewrites that tick (iterations, `as` bodies, `empty`) change no result.
#[test]
fn ticked_filters_give_what_jq_gives() {
    let dir = tempfile::tempdir().unwrap();
    let data = json!([{"id": 1, "a": [{"x": 1}, {"x": 2}], "k": "x", "o": {"p": [1, 2]}},
                      {"id": 2, "a": [], "k": "x", "o": {}}]);
    let (lro, file) = setup(dir.path(), 10_000, &data);
    for (filter, expected) in [
        ("select(.id == 1) | .a[][.k]", json!([1, 2])),
        (
            "select(.id == 1) | [path(.a[].x)]",
            json!([[["a", 0, "x"], ["a", 1, "x"]]]),
        ),
        (
            "select(.id == 1) | .a[].x |= . + 1 | .a",
            json!([[{"x": 2}, {"x": 3}]]),
        ),
        ("select(.id == 1) | .o[][]", json!([1, 2])),
        (".a[]? as $v | $v.x", json!([1, 2])),
        ("select(.id == 1) | [.a[] | empty]", json!([[]])),
        ("select(.id == 2) | (.o[] |= 1) | .o", json!([{}])),
    ] {
        let response = lro.extract(&file, &query(filter)).unwrap();
        assert_eq!(Value::Array(response.results), expected, "{filter}");
    }
}

#[test]
fn a_cancelled_extraction_stops() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), 600_000, &records());
    let cancel = AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|scope| {
        let running =
            scope.spawn(|| lro.extract_cancellable(&file, &query("last(range(0;1;0))"), &cancel));
        cancel.store(true, Ordering::SeqCst);
        let response = running.join().unwrap().unwrap();
        assert!(response.truncated);
    });
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_section_is_found_by_its_full_name_and_by_its_shown_label() {
    let dir = tempfile::tempdir().unwrap();
    let data: Map<String, Value> = (0..3)
        .map(|i| {
            let items: Vec<Value> = (0..20).map(|j| json!({"n": i * 100 + j})).collect();
            (format!("k{i}_{}", "x".repeat(20_000)), Value::Array(items))
        })
        .collect();
    let (lro, _) = setup(dir.path(), 10_000, &records());
    let descriptor = lro
        .offload(&Value::Object(data), &OffloadRequest::new("recall"))
        .unwrap()
        .offloaded()
        .unwrap()
        .clone();
    let file = descriptor.file_path.clone();
    let shown = descriptor.sections[1].label().to_owned();
    assert!(
        shown.chars().count() <= 48 && shown.ends_with("…#2"),
        "{shown}"
    );
    for name in [shown, format!("k1_{}", "x".repeat(20_000))] {
        let request = ExtractRequest {
            section: Some(name),
            ..query(".n")
        };
        let response = lro.extract(&file, &request).unwrap();
        assert_eq!(response.results.first(), Some(&json!(100)));
        assert_eq!(response.count, 20);
    }
    let missing = ExtractRequest {
        section: Some("k9".to_owned()),
        ..query(".n")
    };
    let err = lro.extract(&file, &missing).unwrap_err();
    // The error lists the shown labels, not 60 KB of names.
    assert!(err.message().len() < 1000, "{}", err.message().len());
}
