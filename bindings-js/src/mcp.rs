//! What both JS builds export about MCP, from lro-mcp: the `lro_extract` tool, the offload
//! files' resource scheme, the JSON-RPC code of a failed resource request, and the result
//! handles of a tool call resolved.

use std::sync::atomic::AtomicBool;

use lro_core::{ErrorCode, Host, Offloader, ToolDefinition};
use lro_mcp::extract_tool as tool;
use lro_mcp::{handles, resources};
use serde_json::{Value, json};

/// The `lro_extract` tool in `form` (the configuration's `mcp.extractToolDefinition`):
/// `{ name, description, inputSchema }` (`extractTool(config?)`).
pub fn extract_tool(form: ToolDefinition) -> Value {
    json!({
        "name": tool::TOOL_NAME,
        "description": tool::tool_description(form),
        "inputSchema": tool::tool_input_schema(form),
    })
}

/// The offload files as MCP resources: the URI prefix, the media type and the two
/// `resources/templates/list` entries (`resourceScheme()`).
pub fn resource_scheme() -> Value {
    json!({
        "uriPrefix": resources::URI_PREFIX,
        "mimeType": resources::MIME_TYPE,
        "templates": resources::resource_templates(),
    })
}

/// The JSON-RPC error code a failed resource request answers with, for an error `code`:
/// `not_found` -32002, `path_denied` and `invalid_argument` -32602, others (and a code that
/// is not one of the core's) -32603 (`resourceErrorCode()`).
pub fn resource_error_code(code: &str) -> i64 {
    ErrorCode::ALL
        .into_iter()
        .find(|c| c.as_str() == code)
        .map_or(-32603, resources::jsonrpc_error_code)
}

/// The result handles in one `tools/call`'s `arguments` resolved before the tool runs
/// (`resolveToolCall()`): `null` when they hold none (the tool is called with them as
/// given), `{ arguments }` with every handle replaced by its data, or, when one cannot be
/// resolved, `{ result, code, argument }`: the `isError` `CallToolResult` every surface
/// answers instead of calling the tool (`handles::resolve_call`'s), its code, and the
/// handle's place (a JSON pointer without its `/`).
pub fn resolve_tool_call<H: Host>(lro: &Offloader<H>, arguments: &Value) -> Value {
    // Nothing cancels a JS call once it runs; resolution is bounded by the extraction's
    // time limit and `extract.handleMaxBytes`.
    match handles::resolve(lro, arguments, &AtomicBool::new(false)) {
        Ok(None) => Value::Null,
        Ok(Some(resolved)) => json!({ "arguments": resolved }),
        Err(err) => json!({
            "result": err.to_call_result(),
            "code": err.code().as_str(),
            "argument": err.path,
        }),
    }
}
