//! `lro extract` with structured queries, and output that degrades gracefully: uncapped by
//! default, capped on request with what fits printed and exit status 3.

use serde_json::{Value, json};

use crate::support::run::lro;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Full memories with a long content, as a recall at full detail returns them.
fn offload_full(dir: &str, n: usize) -> String {
    let types = ["semantic", "episodic"];
    let namespaces = [
        "_semantic/decisions",
        "projects/atlas",
        "_episodic/sessions",
    ];
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("m{i:05}"), "memory_type": types[i % 2],
                   "namespace": namespaces[i % 3],
                   "title": format!("Decision {i} on caching"), "tags": if i % 4 == 0 { json!(["cache", "perf"]) } else { json!(["ops"]) },
                   "created": format!("2026-{:02}-{:02}T00:00:00Z", 1 + i % 12, 1 + i % 28),
                   "content": "A long explanation of the decision. ".repeat(20),
                   "provenance": {"confidence": (i % 100) as f64 / 100.0}})
        })
        .collect();
    let out = lro(
        &[
            "offload",
            "--operation",
            "recall",
            "--detail",
            "full",
            "--output-dir",
            dir,
        ],
        serde_json::to_string(&items).unwrap(),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    descriptor["file_path"].as_str().unwrap().to_owned()
}

#[test]
fn structured_queries_print_records_numbers_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let file = offload_full(d, 300);

    let out = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--where",
            r#"{"namespace": {"$regex": "^_semantic"}, "tags": "cache", "provenance.confidence": {"$gte": 0.5}}"#,
            "--fields",
            "id,provenance.confidence",
            "--sort",
            "-provenance.confidence",
            "--limit",
            "3",
        ],
        "",
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            json!({"id": "m00096", "provenance": {"confidence": 0.96}}),
            json!({"id": "m00192", "provenance": {"confidence": 0.92}}),
            json!({"id": "m00288", "provenance": {"confidence": 0.88}})
        ]
    );

    let count = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--where",
            r#"{"tags": "cache"}"#,
            "--count",
        ],
        "",
        &[],
    );
    assert_eq!(text(&count.stdout), "75\n");
    let groups = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--group-by",
            "memory_type",
        ],
        "",
        &[],
    );
    assert_eq!(text(&groups.stdout).lines().count(), 1, "one JSON value");
    let groups: Value = serde_json::from_slice(&groups.stdout).unwrap();
    assert_eq!(
        groups,
        json!([{"memory_type": "episodic", "count": 150}, {"memory_type": "semantic", "count": 150}])
    );
    let stats = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--stats",
            "provenance.confidence",
            "--where",
            r#"{"id": "m00005"}"#,
        ],
        "",
        &[],
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&stats.stdout).unwrap()["max"],
        0.05
    );

    let missing = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--where",
            r#"{"confidance": 1}"#,
        ],
        "",
        &[],
    );
    assert!(missing.status.success());
    assert!(missing.stdout.is_empty());
    assert!(
        text(&missing.stderr).contains("warning: no record has the field \"confidance\""),
        "{}",
        text(&missing.stderr)
    );

    let bad = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--where",
            r#"{"tags": {"$has": 1}}"#,
        ],
        "",
        &[],
    );
    assert_eq!(bad.status.code(), Some(65));
    assert!(
        text(&bad.stderr).contains("error[invalid_query]: where.tags.$has"),
        "{}",
        text(&bad.stderr)
    );
    let both = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--count",
            "--group-by",
            "tags",
        ],
        "",
        &[],
    );
    assert_eq!(both.status.code(), Some(2), "clap refuses two aggregates");
}

#[test]
fn the_command_line_prints_everything_unless_capped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // 2,000 full memories sorted by date: one array of about 2 MB, over the agents' 1 MiB cap.
    let file = offload_full(d, 2000);
    let all = lro(
        &["extract", &file, "--recipe", "8", "--output-dir", d],
        "",
        &[],
    );
    assert!(all.status.success(), "{}", text(&all.stderr));
    let sorted: Value = serde_json::from_slice(&all.stdout).unwrap();
    assert_eq!(sorted.as_array().unwrap().len(), 2000);
    assert!(all.stdout.len() > 1 << 20);

    let capped = lro(
        &[
            "extract",
            &file,
            "--recipe",
            "8",
            "--output-dir",
            d,
            "--max-output-bytes",
            "100000",
        ],
        "",
        &[],
    );
    assert_eq!(capped.status.code(), Some(3), "{}", text(&capped.stderr));
    let leading: Value = serde_json::from_slice(&capped.stdout).unwrap();
    let kept = leading.as_array().unwrap();
    assert!(!kept.is_empty() && capped.stdout.len() <= 100_001);
    assert_eq!(kept[0], sorted[0]);
    let stderr = text(&capped.stderr);
    assert!(
        stderr.contains(&format!("{} item(s) of 2000 returned", kept.len())),
        "{stderr}"
    );

    let records = lro(
        &[
            "extract",
            &file,
            "--output-dir",
            d,
            "--where",
            r#"{"tags": "ops"}"#,
            "--fields",
            "id",
            "--max-output-records",
            "5",
        ],
        "",
        &[],
    );
    assert_eq!(records.status.code(), Some(3));
    assert_eq!(text(&records.stdout).lines().count(), 5);
    assert!(
        text(&records.stderr).contains("5 item(s) of 1500 returned"),
        "{}",
        text(&records.stderr)
    );
}
