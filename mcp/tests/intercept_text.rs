//! The interceptor on text against the interceptor on `Value`s: the same action, the same
//! rewritten result and the same files, for every result, however its parts are read.

use std::path::PathBuf;

use lro_core::config::OffloadConfig;
use lro_core::error::ErrorCode;
use lro_core::host::MemoryHost;
use lro_core::offload::{OffloadRequest, Offloader};
use lro_core::shape::TEXT_PART_MIN;
use lro_json::strategy::{arb_data, arb_record, render};
use lro_mcp::intercept_text::intercept_text_parts;
use lro_mcp::{
    InterceptAction, InterceptedText, ToolCallContext, intercept_tool_result,
    intercept_tool_result_text,
};
use proptest::prelude::*;
use serde_json::{Value, json};

fn offloader(threshold: u32, failing: bool) -> Offloader<MemoryHost> {
    let config = OffloadConfig {
        threshold_tokens: threshold,
        ..OffloadConfig::default()
    };
    let host = MemoryHost::new();
    host.set_fail_writes(failing);
    Offloader::new(config, host).unwrap()
}

fn files(lro: &Offloader<MemoryHost>) -> Vec<(PathBuf, Vec<u8>)> {
    let host = lro.host();
    host.paths()
        .into_iter()
        .map(|p| {
            let bytes = host.file(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// Two offloaders with the same (deterministic) host, so that file names agree too.
struct Pair {
    by_value: Offloader<MemoryHost>,
    by_text: Offloader<MemoryHost>,
}

impl Pair {
    fn new(threshold: u32, failing: bool) -> Self {
        Self {
            by_value: offloader(threshold, failing),
            by_text: offloader(threshold, failing),
        }
    }

    fn same_files(&self) {
        assert_eq!(files(&self.by_value), files(&self.by_text));
    }
}

/// `intercept_tool_result_text` of `text` with parts above `min_text` read from their text
/// is `intercept_tool_result` of its `Value`; returns what it did.
fn agrees_on_result(
    text: &str,
    context: &ToolCallContext,
    pair: &Pair,
    min_text: usize,
) -> Option<InterceptAction> {
    let got = intercept_text_parts(&pair.by_text, text, context, min_text);
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        // Not a Value: the text path may still read what it needs, and must not panic.
        return None;
    };
    let expected = intercept_tool_result(&pair.by_value, &value, context);
    let action = match (expected, got) {
        (Ok(expected), Ok(InterceptedText::Rewritten(got))) => {
            assert_eq!(*got, expected, "rewritten {text}");
            got.action
        }
        (Ok(expected), Ok(InterceptedText::Unchanged(action))) => {
            assert_eq!(expected.action, action, "{text}");
            assert_eq!(expected.result, value, "unchanged {text}");
            action
        }
        (Err(expected), Err(got)) => {
            assert_eq!(expected.code(), got.code());
            return None;
        }
        (expected, got) => panic!("{text}: by value {expected:?}, by text {got:?}"),
    };
    pair.same_files();
    Some(action)
}

fn context(tool: &str, arguments: Value) -> ToolCallContext {
    ToolCallContext {
        tool_name: tool.to_owned(),
        arguments: Some(arguments),
        ..ToolCallContext::default()
    }
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// The `CallToolResult`s servers send for `data`: as one text block (JSON text or the
/// string itself), as structured content beside it, one block per item, with other
/// content, `isError` and `_meta`.
fn results_for(data: &Value, style: usize) -> Vec<Value> {
    let text = match data {
        Value::String(text) => text.clone(),
        other => render(other, style),
    };
    let mut results = vec![
        json!({"content": [text_block(&text)]}),
        json!({"content": [text_block(&text)], "structuredContent": data, "isError": false}),
        json!({"content": [text_block(&text), {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
               "_meta": {"k": [1]}, "structuredContent": null}),
        json!({"content": [{"type": "text"}, {"type": "text", "text": 5}, text_block(&text)], "isError": true}),
    ];
    if let Value::Array(items) = data {
        let blocks: Vec<Value> = items
            .iter()
            .map(|i| text_block(&render(i, style)))
            .collect();
        results.push(json!({"content": blocks}));
        results.push(json!({"content": blocks, "structuredContent": {"result": data}}));
        let mut mixed = blocks.clone();
        mixed.push(text_block("plain words"));
        results.push(json!({"content": mixed}));
    }
    results
}

#[test]
fn a_fastmcp_dict_result_is_read_from_its_text() {
    // FastMCP returns a dict as its indented JSON in one text block, without structured
    // content: the shape of the proxy's memory benchmark.
    let items: Vec<Value> = (0..3000)
        .map(|i| json!({"id": format!("r{i}"), "kind": if i % 2 == 0 { "alpha" } else { "beta" }, "label": format!("record number {i}"), "score": i % 97}))
        .collect();
    let data = json!({"total": items.len(), "items": items});
    let result = json!({"content": [text_block(&render(&data, 1))], "isError": false});
    let text = render(&result, 0);
    assert!(text.len() > TEXT_PART_MIN);
    let pair = Pair::new(1600, false);
    let action = agrees_on_result(
        &text,
        &context("big_records", json!({})),
        &pair,
        TEXT_PART_MIN,
    );
    assert_eq!(action, Some(InterceptAction::Offloaded));
    let InterceptedText::Rewritten(got) =
        intercept_tool_result_text(&pair.by_text, &text, &context("big_records", json!({})))
            .unwrap()
    else {
        panic!("not rewritten")
    };
    let descriptor: Value =
        serde_json::from_str(got.result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(descriptor["summary"]["count"], 3000);
    assert_eq!(descriptor["envelope"], json!({"total": 3000}));
    assert_eq!(descriptor["sections"][0]["name"], "items");
}

#[test]
fn decisions_before_reading_the_data() {
    let data: Vec<Value> = (0..2000)
        .map(|i| json!({"id": i, "name": format!("n{i}")}))
        .collect();
    let text = render(
        &json!({"content": [text_block(&render(&json!(data), 0))]}),
        0,
    );
    let pair = Pair::new(100, false);
    let proxy = ToolCallContext {
        client_is_proxy: true,
        ..context("t", json!({}))
    };
    assert_eq!(
        agrees_on_result(&text, &proxy, &pair, TEXT_PART_MIN),
        Some(InterceptAction::Bypassed)
    );
    let declared = ToolCallContext {
        output_schema_declared: true,
        ..context("t", json!({}))
    };
    assert_eq!(
        agrees_on_result(&text, &declared, &pair, TEXT_PART_MIN),
        Some(InterceptAction::Bypassed)
    );
    let off = Offloader::new(
        OffloadConfig {
            enabled: false,
            ..OffloadConfig::default()
        },
        MemoryHost::new(),
    )
    .unwrap();
    assert_eq!(
        intercept_tool_result_text(&off, &text, &context("t", json!({}))).unwrap(),
        InterceptedText::Unchanged(InterceptAction::Inline)
    );
    // Not an object, not JSON.
    let array = render(&json!(data), 0);
    assert_eq!(
        agrees_on_result(&array, &context("t", json!({})), &pair, TEXT_PART_MIN),
        Some(InterceptAction::Bypassed)
    );
    let broken = format!("{}x", &text[..text.len() - 1]);
    let err =
        intercept_tool_result_text(&pair.by_text, &broken, &context("t", json!({}))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
}

#[test]
fn keys_given_twice_take_the_value_path() {
    let pair = Pair::new(10, false);
    let data = render(&json!([{"a": 1}, {"a": 2}, {"a": 3}]), 0);
    let block = serde_json::to_string(&text_block(&data)).unwrap();
    for text in [
        format!(r#"{{"content": [{block}], "content": []}}"#),
        format!(
            r#"{{"content": [{{"type": "image", "type": "text", "text": {}}}]}}"#,
            serde_json::to_string(&data).unwrap()
        ),
        format!(
            r#"{{"content": [{block}], "structuredContent": {{"a": [1, 2], "a": [{{"b": 1}}]}}}}"#
        ),
    ] {
        assert!(
            agrees_on_result(&text, &context("t", json!({})), &pair, 0).is_some(),
            "{text}"
        );
    }
}

#[test]
fn a_failed_write_truncates_alike() {
    let pair = Pair::new(50, true);
    let items: Vec<Value> = (0..200)
        .map(|i| json!({"id": i, "v": "x".repeat(i % 7)}))
        .collect();
    for data in [
        json!({"items": items, "n": 1}),
        json!(items),
        json!("line\n".repeat(300)),
    ] {
        for result in results_for(&data, 1) {
            let text = render(&result, 0);
            let action = agrees_on_result(&text, &context("t", json!({})), &pair, 0);
            assert!(
                matches!(
                    action,
                    Some(InterceptAction::Truncated | InterceptAction::Bypassed)
                ),
                "{action:?} {text}"
            );
        }
    }
}

#[test]
fn detail_and_query_come_from_the_arguments() {
    let pair = Pair::new(10, false);
    let memories: Vec<Value> = (0..30)
        .map(|i| json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": "n", "content": "c", "title": "t"}))
        .collect();
    for data in [json!({"memories": memories}), json!(memories)] {
        for result in results_for(&data, 2) {
            let text = render(&result, 1);
            let call = context("recall_memories", json!({"detail": "medium", "query": "q"}));
            agrees_on_result(&text, &call, &pair, 0);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn text_interceptor_is_the_value_interceptor(
        data in arb_data(),
        style in 0usize..3,
        threshold in prop::sample::select(vec![10u32, 1600]),
        min_text in prop::sample::select(vec![0usize, 48, 300]),
    ) {
        let pair = Pair::new(threshold, false);
        for result in results_for(&data, style) {
            agrees_on_result(&render(&result, style), &context("search", json!({"query": "x"})), &pair, min_text);
        }
    }

    #[test]
    fn record_blocks_are_the_values_blocks(records in prop::collection::vec(arb_record(), 2..6), style in 0usize..3) {
        let pair = Pair::new(10, false);
        let blocks: Vec<Value> = records.iter().map(|r| text_block(&render(r, style))).collect();
        agrees_on_result(&render(&json!({"content": blocks}), style), &context("t", json!({})), &pair, 0);
    }
}

/// Every conformance vector of the interceptor and of offloading, through the text path
/// with every part read from its text: the same outcome and files as the `Value` path.
#[test]
fn conformance_vectors_agree_through_the_text_path() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let vector: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let mut config = vector["config"].clone();
        if !config.is_object() {
            continue;
        }
        config["output_dir"] = json!("/tmp/vectors");
        let Ok(config) = OffloadConfig::from_json(&config) else {
            continue;
        };
        let pair = || pair_of(&config);
        let input = &vector["input"];
        match vector["call"].as_str() {
            Some("intercept") => {
                let Ok(context) = ToolCallContext::from_json(&input["context"]) else {
                    continue;
                };
                for style in 0..3 {
                    let text = render(&input["result"], style);
                    assert!(
                        agrees_on_result(&text, &context, &pair(), 0).is_some(),
                        "{text}"
                    );
                }
                checked += 1;
            }
            Some("offload" | "extract") => {
                let Ok(request) = OffloadRequest::from_json(&vector["request"]) else {
                    continue;
                };
                for style in 0..3 {
                    let pair = pair();
                    let text = render(input, style);
                    let expected = pair.by_value.offload(input, &request).map(|o| o.to_value());
                    let got = match pair.by_text.offload_json_text(&text, &request, 0) {
                        Ok(Some(outcome)) => Ok(outcome.to_value()),
                        Ok(None) => pair.by_text.offload(input, &request).map(|o| o.to_value()),
                        Err(err) => Err(err),
                    };
                    assert_eq!(
                        got.map_err(|e| e.code()),
                        expected.map_err(|e| e.code()),
                        "{text}"
                    );
                    pair.same_files();
                    if let Value::String(text) = input {
                        let pair = pair_of(&config);
                        let expected = pair.by_value.offload(input, &request).map(|o| o.to_value());
                        let got = pair
                            .by_text
                            .offload_text_parts(text, &request, 0)
                            .map(|o| o.to_value());
                        assert_eq!(
                            got.map_err(|e| e.code()),
                            expected.map_err(|e| e.code()),
                            "{text}"
                        );
                        pair.same_files();
                    }
                }
                checked += 1;
            }
            _ => {}
        }
    }
    assert!(checked > 40, "only {checked} vectors checked");
}

fn pair_of(config: &OffloadConfig) -> Pair {
    Pair {
        by_value: Offloader::new(config.clone(), MemoryHost::new()).unwrap(),
        by_text: Offloader::new(config.clone(), MemoryHost::new()).unwrap(),
    }
}

/// A result is offloaded by its larger part: a large text beside a small `structuredContent`
/// (`{}`, one key) is offloaded, the structured part kept as it came, by both reading paths.
/// The interceptor sized a result by its `structuredContent` alone, so a server could send
/// any text inline beside a `{}` (found by an outside attack). Both parts small: untouched.
#[test]
fn a_large_text_beside_a_small_structured_content_is_offloaded() {
    let lines: Vec<String> = (0..3000)
        .map(|i| format!("log line {i} of the tool"))
        .collect();
    let large = lines.join("\n");
    for structured in [json!({}), json!({"k": 1})] {
        for min_text in [64, TEXT_PART_MIN] {
            let pair = Pair::new(1600, false);
            let result = json!({"content": [text_block(&large)], "structuredContent": structured});
            let text = render(&result, 0);
            let action = agrees_on_result(&text, &context("logs", json!({})), &pair, min_text);
            assert_eq!(action, Some(InterceptAction::Offloaded), "{structured}");
            let got = intercept_tool_result(&pair.by_value, &result, &context("logs", json!({})))
                .unwrap();
            assert_eq!(got.result["structuredContent"], structured);
            let descriptor: Value =
                serde_json::from_str(got.result["content"][0]["text"].as_str().unwrap()).unwrap();
            assert_eq!(descriptor["summary"]["count"], 3000);
        }
    }
    let small = json!({"content": [text_block("a few words")], "structuredContent": {"k": 1}});
    let pair = Pair::new(1600, false);
    let action = agrees_on_result(&render(&small, 0), &context("t", json!({})), &pair, 64);
    assert_eq!(action, Some(InterceptAction::Inline));
}
