//! Structured queries through `Offloader::extract`: results on a corpus of memories, verb
//! rules, warnings, the jq command, and output cut to what fits.

use lro_core::{
    ErrorCode, ExtractLimits, ExtractRequest, MemoryHost, OffloadConfig, OffloadRequest, Offloader,
};
use serde_json::{Value, json};

fn memories(n: usize) -> Vec<Value> {
    let namespaces = [
        "_semantic/decisions",
        "_episodic/sessions",
        "projects/atlas",
    ];
    let types = ["semantic", "episodic", "procedural"];
    let topics = ["caching", "storage", "Cache eviction"];
    let tags = [
        json!(["cache", "perf"]),
        json!(["ops"]),
        json!(["cache"]),
        json!([]),
    ];
    (0..n)
        .map(|i| {
            json!({
                "id": format!("m{i:05}"),
                "memory_type": types[i % 3],
                "title": format!("Decision {i} about {}", topics[i % 3]),
                "namespace": namespaces[i % 3],
                "tags": tags[i % 4],
                "created": format!("2026-01-{:02}T00:00:00Z", 1 + i % 28),
                "content": "x".repeat(200),
                "provenance": {"confidence": (i % 10) as f64 / 10.0 + 0.05},
            })
        })
        .collect()
}

fn offloader(limits: ExtractLimits) -> Offloader<MemoryHost> {
    let config = OffloadConfig {
        extract: limits,
        ..OffloadConfig::default()
    };
    Offloader::new(config, MemoryHost::new()).unwrap()
}

fn offload(lro: &Offloader<MemoryHost>, records: &[Value], detail: &str) -> String {
    let request =
        OffloadRequest::from_json(&json!({"operation": "recall", "detail": detail})).unwrap();
    lro.offload(&json!(records), &request)
        .unwrap()
        .offloaded()
        .expect("offloaded")
        .file_path
        .clone()
}

fn extract(lro: &Offloader<MemoryHost>, file: &str, request: Value) -> lro_core::ExtractResponse {
    let request: ExtractRequest = serde_json::from_value(request.clone()).unwrap();
    lro.extract(file, &request).unwrap()
}

fn error(lro: &Offloader<MemoryHost>, file: &str, request: Value) -> (ErrorCode, String) {
    let parsed: ExtractRequest = serde_json::from_value(request.clone()).unwrap();
    let err = lro.extract(file, &parsed).expect_err(&request.to_string());
    (err.code(), err.message().to_owned())
}

fn ids(results: &[Value]) -> Vec<&str> {
    results.iter().map(|r| r["id"].as_str().unwrap()).collect()
}

#[test]
fn filters_shape_and_aggregate_memories() {
    let lro = offloader(ExtractLimits::default());
    let records = memories(60);
    let file = offload(&lro, &records, "full");

    // Three predicates: a regex, array containment, a numeric bound on a nested field.
    let r = extract(
        &lro,
        &file,
        json!({"where": {
            "namespace": {"$regex": "^_semantic"}, "tags": "cache", "provenance.confidence": {"$gte": 0.5}
        }}),
    );
    let want: Vec<String> = (0..60)
        .filter(|i| i % 3 == 0 && [0, 2].contains(&(i % 4)) && (i % 10) >= 5)
        .map(|i| format!("m{i:05}"))
        .collect();
    assert_eq!(ids(&r.results), want);
    assert!(!r.truncated && r.warnings.is_empty());
    assert!(
        r.jq.as_deref()
            .unwrap()
            .starts_with(&format!("tail -n +2 {file} | jq -c '"))
    );

    let r = extract(
        &lro,
        &file,
        json!({"where": {"memory_type": "episodic"}, "fields": ["id", "provenance.confidence"], "sort": {"created": -1, "id": 1}, "skip": 1, "limit": 3}),
    );
    assert_eq!(r.results.len(), 3);
    assert_eq!(
        r.results[0].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["id", "provenance"]
    );
    let created = |id: &str| {
        records.iter().find(|m| m["id"] == id).unwrap()["created"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let dates: Vec<String> = ids(&r.results).into_iter().map(created).collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");

    assert_eq!(
        extract(
            &lro,
            &file,
            json!({"where": {"tags": {"$size": 0}}, "count": true})
        )
        .results,
        [json!(15)]
    );
    assert_eq!(
        extract(&lro, &file, json!({"count": true, "skip": 50, "limit": 20})).results,
        [json!(10)]
    );
    assert_eq!(
        extract(&lro, &file, json!({"group_by": "tags"})).results,
        [
            json!([{"tags": "cache", "count": 30}, {"tags": null, "count": 15}, {"tags": "ops", "count": 15}, {"tags": "perf", "count": 15}])
        ]
    );
    assert_eq!(
        extract(&lro, &file, json!({"distinct": "memory_type"})).results,
        [json!(["episodic", "procedural", "semantic"])]
    );
    let stats = extract(
        &lro,
        &file,
        json!({"stats": "provenance.confidence", "where": {"memory_type": "semantic"}}),
    );
    assert_eq!(stats.results[0]["count"], 20);
    let confidence = |i: usize| records[i]["provenance"]["confidence"].clone();
    assert_eq!(stats.results[0]["min"], confidence(0));
    assert_eq!(stats.results[0]["max"], confidence(9));

    // An object argument sent as its JSON text (some MCP clients do) works the same.
    let as_text = extract(
        &lro,
        &file,
        json!({"where": "{\"tags\": \"ops\"}", "count": true}),
    );
    assert_eq!(as_text.results, [json!(15)]);
}

#[test]
fn unknown_fields_warn_with_the_closest_names() {
    let lro = offloader(ExtractLimits::default());
    let file = offload(&lro, &memories(60), "full");
    let r = extract(
        &lro,
        &file,
        json!({"where": {"confidence": {"$gt": 0.5}, "namepsace": "projects/atlas"}}),
    );
    assert!(r.results.is_empty());
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("\"provenance.confidence\""),
        "{:?}",
        r.warnings
    );
    assert!(
        r.warnings[1].contains("closest field names: \"namespace\""),
        "{:?}",
        r.warnings
    );
    // A field that some record has is no warning, even when nothing matches.
    let r = extract(&lro, &file, json!({"where": {"namespace": "nowhere"}}));
    assert!(r.results.is_empty() && r.warnings.is_empty());
    // Records left unread (a read limit) might have it: no claim then.
    let lro = offloader(ExtractLimits {
        max_read_bytes: 3000,
        ..ExtractLimits::default()
    });
    let file = offload(&lro, &memories(60), "full");
    let r = extract(&lro, &file, json!({"where": {"confidence": {"$gt": 0.5}}}));
    assert!(r.truncated && r.warnings.is_empty(), "{r:?}");
}

#[test]
fn verbs_and_malformed_queries_are_typed_errors() {
    let lro = offloader(ExtractLimits::default());
    let file = offload(&lro, &memories(60), "light");
    for (request, code, needle) in [
        (
            json!({"where": {}, "recipe": 1}),
            ErrorCode::InvalidArgument,
            "exactly one",
        ),
        (
            json!({"limit": 3, "query": "."}),
            ErrorCode::InvalidArgument,
            "exactly one",
        ),
        (
            json!({"count": true, "distinct": "tags"}),
            ErrorCode::InvalidArgument,
            "at most one",
        ),
        (
            json!({"fields": ["id"], "count": true}),
            ErrorCode::InvalidArgument,
            "fields",
        ),
        (
            json!({"where": {}, "params": {"a": "b"}}),
            ErrorCode::InvalidArgument,
            "params",
        ),
        (
            json!({"where": {"tags": {"$contains": "x"}}}),
            ErrorCode::InvalidQuery,
            "where.tags.$contains: unknown operator",
        ),
        (
            json!({"where": {"title": {"$regex": "(?<=a)b"}}}),
            ErrorCode::InvalidQuery,
            "where.title.$regex",
        ),
        (
            json!({"where": "{not json"}),
            ErrorCode::InvalidQuery,
            "where: not a JSON",
        ),
        (
            json!({"where": 3}),
            ErrorCode::InvalidQuery,
            "where: a filter document",
        ),
        (
            json!({"sort": {"created": "desc"}}),
            ErrorCode::InvalidArgument,
            "sort",
        ),
        (
            json!({"group_by": "a..b"}),
            ErrorCode::InvalidArgument,
            "group_by",
        ),
    ] {
        let (got, message) = error(&lro, &file, request.clone());
        assert_eq!(got, code, "{request}: {message}");
        assert!(message.contains(needle), "{request}: {message}");
    }
    let bad: Result<ExtractRequest, _> = serde_json::from_value(json!({"limit": -1}));
    assert!(bad.is_err(), "a negative limit is not a u64");
}

#[test]
fn cut_results_say_what_was_returned_out_of_what() {
    let lro = offloader(ExtractLimits {
        max_output_records: 7,
        ..ExtractLimits::default()
    });
    let file = offload(&lro, &memories(200), "light");
    let r = extract(&lro, &file, json!({"where": {"tags": "cache"}}));
    assert_eq!(
        (r.results.len(), r.truncated, r.returned, r.total),
        (7, true, Some(7), Some(100))
    );
    assert_eq!(r.limit.as_deref(), Some("max_output_records (7)"));
    assert!(
        r.hint
            .as_deref()
            .unwrap()
            .contains("7 item(s) of 100 returned"),
        "{:?}",
        r.hint
    );
    let sorted = extract(
        &lro,
        &file,
        json!({"where": {"tags": "cache"}, "sort": "-created", "limit": 50}),
    );
    assert_eq!((sorted.results.len(), sorted.total), (7, Some(50)));

    // One large array (a slurping recipe, an aggregate) keeps its leading items.
    let lro = offloader(ExtractLimits {
        max_output_bytes: 2_000,
        ..ExtractLimits::default()
    });
    let file = offload(&lro, &memories(200), "full");
    let r = lro
        .extract(
            &file,
            &ExtractRequest {
                recipe: Some(8),
                ..ExtractRequest::default()
            },
        )
        .unwrap();
    assert!(r.truncated);
    assert_eq!(r.results.len(), 1);
    let items = r.results[0].as_array().unwrap();
    assert!(!items.is_empty() && items.len() < 200);
    assert_eq!((r.returned, r.total), (Some(items.len() as u64), Some(200)));
    assert!(serde_json::to_string(&r.results[0]).unwrap().len() <= 2_000);
    let r = extract(&lro, &file, json!({"distinct": "title"}));
    assert_eq!(r.total, Some(200));
    assert!(r.results[0].as_array().unwrap().len() < 200);
}

#[test]
fn workers_give_the_sequential_result() {
    // Over the first batch (256 KiB), records are read on worker threads.
    let lro = offloader(ExtractLimits::default());
    let records = memories(4000);
    let file = offload(&lro, &records, "full");
    let r = extract(
        &lro,
        &file,
        json!({"where": {"provenance.confidence": {"$lt": 0.2}, "namespace": "projects/atlas"}, "fields": "id"}),
    );
    let want: Vec<String> = (0..4000)
        .filter(|i| i % 10 < 2 && i % 3 == 2)
        .map(|i| format!("m{i:05}"))
        .collect();
    assert_eq!(ids(&r.results), want);
    let r = extract(
        &lro,
        &file,
        json!({"where": {"tags": "ops"}, "sort": {"created": 1}, "skip": 10, "limit": 5, "fields": ["id", "created"]}),
    );
    let mut ops: Vec<(String, String)> = (0..4000)
        .filter(|i| i % 4 == 1)
        .map(|i| {
            (
                records[i]["created"].as_str().unwrap().to_owned(),
                format!("m{i:05}"),
            )
        })
        .collect();
    ops.sort_by(|a, b| a.0.cmp(&b.0));
    let want: Vec<&str> = ops[10..15].iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(ids(&r.results), want);
    assert_eq!(
        extract(
            &lro,
            &file,
            json!({"where": {"title": {"$regex": "cache", "$options": "i"}}, "count": true})
        )
        .results,
        [json!(4000 / 3)]
    );
}

#[test]
fn the_native_guidance_shows_a_where_that_matches() {
    let config = OffloadConfig {
        guidance: lro_core::GuidanceMode::Native,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, MemoryHost::new()).unwrap();
    let kinds = ["person", "place", "team"];
    let raw: Vec<Value> = (0..200)
        .map(|i| json!({"name": format!("entity-{i}"), "kind": kinds[i % 3], "labels": ["a", "b"]}))
        .collect();
    for (records, detail) in [
        (memories(60), "light"),
        (memories(60), "full"),
        (raw, "raw"),
    ] {
        let request = if detail == "raw" {
            OffloadRequest::new("read_graph")
        } else {
            OffloadRequest::from_json(&json!({"operation": "recall", "detail": detail})).unwrap()
        };
        let outcome = lro.offload(&json!(records), &request).unwrap();
        let descriptor = outcome.offloaded().unwrap();
        let line = descriptor
            .guidance
            .lines()
            .find(|l| l.contains("where="))
            .unwrap_or_else(|| panic!("{}", descriptor.guidance));
        let args = &line[line.find("where=").unwrap() + 6..line.rfind(')').unwrap()];
        let (filter, fields) = args.split_once(", fields=").unwrap();
        let response = extract(
            &lro,
            &descriptor.file_path,
            json!({"where": serde_json::from_str::<Value>(filter).unwrap(), "fields": serde_json::from_str::<Value>(fields).unwrap()}),
        );
        assert!(
            !response.results.is_empty() && response.warnings.is_empty(),
            "{line}"
        );
    }
}
