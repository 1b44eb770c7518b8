//! What lro-mcp's integration tests share: a tool's result offloaded through the interceptor.

use lro_core::Offloader;
use lro_mcp::ToolCallContext;
use serde_json::{Value, json};

/// Offloads the result of tool `tool` whose one text block is `text` (a tool's JSON result,
/// as MCP carries it) through the interceptor; the offload file's path, read from the
/// descriptor (`structuredContent` when the result has it, else its text block).
pub fn offload_text<H: lro_core::Host>(lro: &Offloader<H>, tool: &str, text: &str) -> String {
    let context = ToolCallContext {
        tool_name: tool.to_owned(),
        ..ToolCallContext::default()
    };
    let outcome = lro_mcp::intercept_tool_result(
        lro,
        &json!({"content": [{"type": "text", "text": text}]}),
        &context,
    )
    .unwrap();
    let structured = &outcome.result["structuredContent"];
    let descriptor: Value = if structured.is_object() {
        structured.clone()
    } else {
        serde_json::from_str(outcome.result["content"][0]["text"].as_str().unwrap()).unwrap()
    };
    descriptor["file_path"]
        .as_str()
        .expect("offloaded")
        .to_owned()
}
