//! Keys named twice in an MCP result read from its text are counted, in the file's header,
//! the descriptor's warning and the text the model reads, however the result holds its data
//! (text blocks, JSON inside a string, structured content, above and below the size at which
//! the result is read from its text rather than parsed).

use lro_core::jsonl::parse_header;
use lro_core::{OffloadConfig, Offloader, StdHost};
use lro_mcp::{InterceptedText, ToolCallContext, intercept_tool_result_text};
use serde_json::json;

/// An offloader writing to `dir` with the descriptor `profile`.
fn offloader_in(dir: &tempfile::TempDir, profile: &str) -> Offloader<StdHost> {
    let config: OffloadConfig = serde_json::from_value(json!({
        "output_dir": dir.path().to_string_lossy(),
        "threshold_tokens": 50,
        "descriptor": profile,
    }))
    .unwrap();
    Offloader::new(config, StdHost::new()).unwrap()
}

#[test]
fn duplicate_keys_in_mcp_results_read_from_their_text_are_counted() {
    let records: Vec<String> = (0..3000)
        .map(|i| match i % 100 {
            0 => format!(r#"{{"id": {i}, "id": {i}}}"#),
            _ => format!(r#"{{"id": {i}, "name": "record number {i}"}}"#),
        })
        .collect();
    let array = format!("[{}]", records.join(","));
    let block = |text: &str| json!({"type": "text", "text": text});
    let big: String = format!(
        "[{}]",
        records
            .iter()
            .cycle()
            .take(30_000)
            .cloned()
            .collect::<Vec<_>>()
            .join(",")
    );
    // Over TEXT_RESULT_MIN: the result is read from its text, not parsed.
    assert!(big.len() > 1 << 20);
    for (case, result, expected) in [
        (
            "one text block",
            json!({"content": [block(&array)]}).to_string(),
            30,
        ),
        (
            "JSON inside a JSON string",
            json!({"content": [block(&serde_json::to_string(&array).unwrap())]}).to_string(),
            30,
        ),
        (
            "two text blocks",
            json!({"content": [block(&array), block(&array)]}).to_string(),
            60,
        ),
        (
            "structured content",
            format!(r#"{{"content": [], "structuredContent": {{"items": {array}}}}}"#),
            30,
        ),
        (
            "structured content over 1 MiB",
            format!(r#"{{"content": [], "structuredContent": {{"items": {big}}}}}"#),
            300,
        ),
        (
            "JSON in a string of structured content",
            json!({"content": [], "structuredContent": {"text": array}}).to_string(),
            30,
        ),
        (
            "JSON in a string of structured content over 1 MiB",
            json!({"content": [], "structuredContent": {"text": big}}).to_string(),
            300,
        ),
        (
            "two text blocks over 1 MiB",
            json!({"content": [block(&big), block(&array)]}).to_string(),
            330,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let lro = offloader_in(&dir, "full");
        let context = ToolCallContext {
            tool_name: "tool".to_owned(),
            ..ToolCallContext::default()
        };
        let InterceptedText::Rewritten(intercepted) =
            intercept_tool_result_text(&lro, &result, &context).unwrap()
        else {
            panic!("{case}: offloaded");
        };
        let response = intercepted.response.expect("a descriptor");
        let text = std::fs::read_to_string(&response.file_path).unwrap();
        let header = parse_header(text.lines().next().unwrap()).unwrap();
        assert_eq!(header.duplicate_keys, expected, "{case}");
        let warning = response.warning.expect("a warning");
        assert!(
            warning.starts_with(&format!("{expected} duplicate")),
            "{case}: {warning}"
        );
        // The descriptor the model reads says it too.
        assert!(
            intercepted.result.to_string().contains("duplicate key"),
            "{case}"
        );
    }
}
