//! The descriptor's budget, whatever the input: an offloaded MCP result (its text block, its
//! `structuredContent` and its resource link) stays within 2,000 estimated tokens, for the shapes real tools
//! return and the awkward ones they might: many arrays, wide records, hundreds of fields,
//! huge field names, deep nesting, long strings, text, CJK; with a preview of the first
//! records asked for (`preview_records`) and without.

use lro_core::descriptor::DESCRIPTOR_BUDGET_TOKENS;
use lro_core::{HeuristicEstimator, OffloadConfig, Offloader, StdHost, TokenEstimator};
use lro_mcp::{InterceptAction, ToolCallContext, intercept_tool_result};
use serde_json::{Map, Value, json};

/// Estimated tokens of what a client receives: every text block, the resource link as its
/// JSON, and the structured content (other blocks a tool returned pass through uncounted).
fn response_tokens(result: &Value) -> usize {
    let estimator = HeuristicEstimator;
    let texts: usize = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| match item["text"].as_str() {
            Some(text) => estimator.estimate(text),
            None if item["type"] == "resource_link" => estimator.estimate(&item.to_string()),
            None => 0,
        })
        .sum();
    let structured = result
        .get("structuredContent")
        .map_or(0, |s| estimator.estimate(&s.to_string()));
    texts + structured
}

fn memory(i: usize) -> Value {
    json!({
        "id": format!("mem-{i:05}"), "memory_type": "semantic", "namespace": format!("projects/p{}", i % 7),
        "title": format!("Decision {i} about caching"), "content": "c".repeat(400), "tags": ["a", "b"],
        "created": "2026-01-01T00:00:00Z", "modified": "2026-01-02T00:00:00Z", "status": "active",
        "summary": "s", "entities": [{"name": "x"}], "relationships": [], "provenance": {"confidence": 0.9},
        "temporal": {"valid_from": "2026-01-01"}, "extensions": {"x-team": "platform"}
    })
}

/// Shapes, each large enough to be offloaded.
fn shapes() -> Vec<(&'static str, Value)> {
    let many_arrays: Map<String, Value> = (0..60)
        .map(|i| {
            let items: Vec<Value> = (0..20)
                .map(|j| json!({"id": j, "group": format!("g{}", j % 3), "value": j * i}))
                .collect();
            (format!("collection_{i:02}"), Value::Array(items))
        })
        .collect();
    let twenty_arrays: Map<String, Value> = (0..20)
        .map(|i| {
            let items: Vec<Value> = (0..30)
                .map(|j| json!({"name": format!("item-{j}"), "kind": format!("k{}", j % 4)}))
                .collect();
            (format!("list_{i}"), Value::Array(items))
        })
        .collect();
    let wide: Vec<Value> = (0..50)
        .map(|r| {
            Value::Object(
                (0..300)
                    .map(|f| (format!("field_number_{f:03}"), json!(r * f)))
                    .collect(),
            )
        })
        .collect();
    let long_names: Vec<Value> = (0..40)
        .map(|r| {
            Value::Object(
                (0..6)
                    .map(|f| (format!("{}{f}", "n".repeat(2000)), json!(format!("v{r}"))))
                    .collect(),
            )
        })
        .collect();
    let long_values: Vec<Value> = (0..30)
        .map(|r| json!({"kind": format!("kind-{}", r % 2), "text": "é long value ".repeat(500), "id": r}))
        .collect();
    let mut deep = json!({"leaf": "x".repeat(3000)});
    for level in 0..60 {
        deep = json!({format!("level{level}"): deep, "pad": level});
    }
    let deep_records: Vec<Value> = (0..20).map(|_| deep.clone()).collect();
    let wide_envelope: Map<String, Value> = (0..200)
        .map(|i| (format!("meta_{i}"), json!(format!("value {i}"))))
        .chain([(
            "items".to_owned(),
            json!((0..200).map(|i| json!({"id": i})).collect::<Vec<_>>()),
        )])
        .collect();
    let cjk: Vec<Value> = (0..100)
        .map(|i| json!({"名前": format!("項目{i}"), "説明": "キャッシュ戦略と保存形式".repeat(5)}))
        .collect();
    // Section names are the data's keys (the red team's 30 keys of 20 KB made 327 KB).
    let long_sections: Map<String, Value> = (0..30)
        .map(|i| {
            let items: Vec<Value> = (0..50)
                .map(|j| json!({"a": j, "b": "y".repeat(30)}))
                .collect();
            (
                format!("k{i:02}_{}", "x".repeat(20_000)),
                Value::Array(items),
            )
        })
        .collect();
    let unicode_sections: Map<String, Value> = (0..80)
        .map(|i| {
            let items: Vec<Value> = (0..10).map(|j| json!({"id": j})).collect();
            (
                format!("{i}{}", "名前é\u{1F600}".repeat(300)),
                Value::Array(items),
            )
        })
        .collect();
    let nested_sections = json!({"a".repeat(5000): {"b".repeat(5000): (0..300).map(|i| json!({"id": i, "t": "x".repeat(40)})).collect::<Vec<_>>(),
                                                     "c".repeat(5000): (0..300).map(|i| json!({"id": i, "u": "y".repeat(20)})).collect::<Vec<_>>()}});
    let long_namespaces: Vec<Value> = (0..300)
        .map(|i| {
            let mut m = memory(i);
            m["namespace"] = json!(format!("{}{}", i % 9, "ns/".repeat(3000)));
            m
        })
        .collect();
    let tree = json!([{"name": "root", "children": (0..300).map(|i| json!({"name": format!("f{i}.ts"), "children": []})).collect::<Vec<_>>()}]);
    vec![
        (
            "full MIF memories",
            json!((0..500).map(memory).collect::<Vec<_>>()),
        ),
        ("60 arrays", Value::Object(many_arrays)),
        ("20 arrays", Value::Object(twenty_arrays)),
        ("300 fields per record", json!(wide)),
        ("2000-character field names", json!(long_names)),
        ("long string values", json!(long_values)),
        ("60 levels of nesting", json!(deep_records)),
        (
            "200 small fields around an array",
            Value::Object(wide_envelope),
        ),
        ("CJK", json!(cjk)),
        (
            "30 sections named by 20 KB keys",
            Value::Object(long_sections),
        ),
        (
            "80 sections of long unicode names",
            Value::Object(unicode_sections),
        ),
        ("nested sections of 5 KB keys", nested_sections),
        ("MIF memories with 9 KB namespaces", json!(long_namespaces)),
        ("a tree", tree),
        (
            "text",
            json!("2026-11-24 ERROR the cache layer failed to respond in time\n".repeat(400)),
        ),
        (
            "keys named twice, 100,000 of them",
            json!(format!(
                "[{}]",
                (0..20_000)
                    .map(|i| format!(r#"{{"id": {i}, "id": {i}, "id": {i}, "a": 1, "a": 2, "b": 1, "b": 2, "c": 3, "c": 4}}"#))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ),
        (
            "a Python literal",
            json!(format!(
                "[{}]",
                (0..500)
                    .map(|i| format!("{{'id': {i}, 'region': 'emea', 'note': None}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        ),
    ]
}

#[test]
fn every_shape_fits_the_budget_as_structured_content_and_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    // The largest result: the descriptor as text and as structuredContent, and the link.
    config.mcp.structured_content = true;
    config.mcp.resource_link = true;
    // The budget holds for paths up to NOMINAL_PATH_BYTES: /tmp/.tmpXXXXXX/ and a file name.
    assert!(config.output_dir.len() < 20);
    let mut worst = Vec::new();
    // A preview as large as can be asked for fills what room there is: once, with the
    // shell guidance (the vectors' previews run under both).
    for (guidance, preview) in [("shell", 0), ("native", 0), ("shell", 1000)] {
        let config = OffloadConfig {
            guidance: serde_json::from_value(json!(guidance)).unwrap(),
            preview_records: preview,
            ..config.clone()
        };
        let lro = Offloader::new(config, StdHost::new()).unwrap();
        for (name, data) in shapes() {
            let text = match &data {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            for result in [
                json!({"content": [{"type": "text", "text": text}]}),
                json!({"content": [{"type": "text", "text": "see structured"}], "structuredContent": data}),
            ] {
                if result.get("structuredContent").is_some() && !data.is_object() {
                    continue; // structuredContent is an object in MCP
                }
                // MIF memories at each detail level (the medium descriptor is the largest).
                for detail in ["light", "medium", "full"] {
                    if detail != "light" && !name.contains("MIF") {
                        continue;
                    }
                    let context = ToolCallContext {
                        tool_name: "query".into(),
                        arguments: Some(json!({"detail": detail})),
                        ..ToolCallContext::default()
                    };
                    let out = intercept_tool_result(&lro, &result, &context).unwrap();
                    assert_eq!(out.action, InterceptAction::Offloaded, "{name}");
                    let link = out.result["content"].as_array().unwrap().last().unwrap();
                    assert_eq!(link["type"], "resource_link", "{name}");
                    let tokens = response_tokens(&out.result);
                    worst.push((tokens, name, guidance, detail, preview));
                    if preview > 0 {
                        // A preview is shown, maybe cut (it says so), never lost silently.
                        let shown = &out.result["structuredContent"]["preview"];
                        assert!(shown["records"].is_array(), "{name}: {shown}");
                    }
                    assert!(
                        tokens <= 2 * DESCRIPTOR_BUDGET_TOKENS,
                        "{name} ({guidance}, {detail}, preview {preview}): {tokens} tokens\n{}",
                        serde_json::to_string_pretty(&out.result["structuredContent"]).unwrap()
                    );
                }
            }
        }
    }
    worst.sort();
    eprintln!("responses: {worst:?}");
}

/// Estimated tokens of a descriptor as compact JSON, its file path counted as 64 bytes (the
/// length the budgets are reckoned with, whatever directory the test got).
fn nominal_tokens(descriptor: &Value) -> usize {
    let path = descriptor["file_path"].as_str().unwrap();
    let text = descriptor
        .to_string()
        .replace(path, &"p".repeat(lro_core::descriptor::NOMINAL_PATH_BYTES));
    HeuristicEstimator.estimate(&text)
}

/// What each profile must hold, and its budget.
fn check_profile(profile: &str, descriptor: &Value, what: &str) -> usize {
    let tokens = nominal_tokens(descriptor);
    let keys: Vec<&str> = descriptor
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        // Reported when the call gave context_remaining_tokens.
        // Reported when the result's JSON named keys twice.
        .filter(|k| *k != "threshold_tokens" && *k != "warning")
        .collect();
    match profile {
        "compact" => {
            assert!(
                tokens <= lro_core::descriptor::COMPACT_BUDGET_TOKENS,
                "{what}: compact descriptor of {tokens} tokens\n{descriptor:#}"
            );
            for key in ["offloaded", "summary", "file_path", "recipes", "guidance"] {
                assert!(keys.contains(&key), "{what}: no {key} in {descriptor:#}");
            }
            let recipes = descriptor["recipes"].as_array().unwrap();
            assert_eq!(recipes.len(), 10, "{what}");
            for (i, line) in recipes.iter().enumerate() {
                let line = line.as_str().unwrap();
                assert!(line.starts_with(&format!("{}. ", i + 1)), "{what}: {line}");
                assert!(!line.contains('\n'), "{what}: {line}");
            }
        }
        "pointer" => {
            assert!(
                tokens <= lro_core::descriptor::POINTER_BUDGET_TOKENS,
                "{what}: pointer descriptor of {tokens} tokens\n{descriptor:#}"
            );
            assert_eq!(
                keys,
                [
                    "offloaded",
                    "file_path",
                    "resource_uri",
                    "count",
                    "guidance"
                ],
                "{what}"
            );
            assert!(!descriptor["guidance"].as_str().unwrap().contains('\n'));
        }
        other => panic!("unknown profile {other}"),
    }
    tokens
}

#[test]
fn every_shape_fits_the_compact_and_pointer_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let mut worst = Vec::new();
    // A preview as large as can be asked for fills what room there is: once, with the
    // shell guidance (the vectors' previews run under both).
    for (guidance, preview) in [("shell", 0), ("native", 0), ("shell", 1000)] {
        for profile in ["compact", "pointer"] {
            let config = OffloadConfig::from_json(&json!({
                "output_dir": dir.path().to_string_lossy(),
                "guidance": guidance,
                "descriptor": profile,
                "preview_records": preview,
            }))
            .unwrap();
            let lro = Offloader::new(config, StdHost::new()).unwrap();
            for (name, data) in shapes() {
                let text = match &data {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let result = json!({"content": [{"type": "text", "text": text}]});
                let context = ToolCallContext {
                    tool_name: "query".into(),
                    ..ToolCallContext::default()
                };
                let out = intercept_tool_result(&lro, &result, &context).unwrap();
                assert_eq!(out.action, InterceptAction::Offloaded, "{name}");
                let descriptor: &Value =
                    &serde_json::from_str(out.result["content"][0]["text"].as_str().unwrap())
                        .unwrap();
                let what = format!("{name} ({guidance}, {profile}, preview {preview})");
                if preview > 0 && profile == "compact" {
                    assert!(descriptor["preview"]["records"].is_array(), "{what}");
                }
                if name.starts_with("keys named twice") {
                    // The warning is never given up, and fits every budget.
                    let warning = descriptor["warning"].as_str().unwrap_or_default();
                    assert!(
                        warning.starts_with("100000 duplicate"),
                        "{what}: {descriptor}"
                    );
                    // So would the largest count there can be.
                    let mut largest = descriptor.clone();
                    largest["warning"] = json!(match profile {
                        "pointer" => lro_core::descriptor::duplicate_keys_note(usize::MAX),
                        _ => lro_core::descriptor::duplicate_keys_warning(usize::MAX),
                    });
                    check_profile(profile, &largest, &what);
                }
                worst.push((check_profile(profile, descriptor, &what), what));
                // The text block is the same descriptor.
                let text: Value =
                    serde_json::from_str(out.result["content"][0]["text"].as_str().unwrap())
                        .unwrap();
                assert_eq!(&text, descriptor);
            }
        }
    }
    worst.sort();
    eprintln!("compact and pointer descriptors: {worst:?}");
}

/// Every conformance vector's offloaded result, described by each profile, fits its budget.
#[test]
fn every_vector_result_fits_the_compact_and_pointer_budgets() {
    let vectors = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut checked = 0;
    let mut largest = (0, String::new());
    // The largest result of all (inline tokens), with its three descriptors' costs.
    let mut biggest: (usize, String, Vec<usize>) = (0, String::new(), Vec::new());
    for entry in std::fs::read_dir(vectors).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let call = vector["call"].as_str().unwrap_or_default();
        if !["offload", "extract"].contains(&call)
            || vector.pointer("/expect/error").is_some()
            || vector.pointer("/setup").is_some()
        {
            continue;
        }
        for guidance in ["shell", "native"] {
            for profile in ["compact", "pointer"] {
                let dir = tempfile::tempdir().unwrap();
                let mut config = vector["config"].clone();
                if !config.is_object() {
                    config = json!({});
                }
                config["output_dir"] = json!(dir.path().to_string_lossy());
                config["guidance"] = json!(guidance);
                config["descriptor"] = json!(profile);
                let lro =
                    Offloader::new(OffloadConfig::from_json(&config).unwrap(), StdHost::new())
                        .unwrap();
                let mut request = lro_core::OffloadRequest::from_json(&vector["request"]).unwrap();
                request.descriptor = None; // the configured profile under test
                let outcome = lro.offload(&vector["input"], &request).unwrap();
                if outcome.offloaded().is_none() {
                    continue;
                }
                let name = vector["name"].as_str().unwrap();
                let tokens = check_profile(
                    profile,
                    &outcome.to_value(),
                    &format!("{name} ({guidance}, {profile})"),
                );
                if profile == "compact" && tokens > largest.0 {
                    largest = (tokens, format!("{name} ({guidance})"));
                }
                let full = outcome.offloaded().unwrap();
                let inline = full.summary.estimated_tokens;
                if guidance == "shell" && inline >= biggest.0 {
                    if inline > biggest.0 || biggest.1 != name {
                        let mut full_only = full.clone();
                        full_only.brief = None;
                        biggest = (
                            inline,
                            name.to_owned(),
                            vec![nominal_tokens(&full_only.to_value())],
                        );
                    }
                    biggest.2.push(tokens);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} offloaded vector results");
    eprintln!("{checked} descriptors; the largest compact one: {largest:?}");
    eprintln!("the largest result (inline tokens, vector, [full, compact, pointer]): {biggest:?}");
}
