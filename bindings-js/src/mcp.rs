//! What both JS builds export about MCP, from lro-mcp: the `lro_extract` tool, the offload
//! files' resource scheme and the JSON-RPC code of a failed resource request.

use lro_core::ErrorCode;
use lro_mcp::extract_tool as tool;
use lro_mcp::resources;
use serde_json::{Value, json};

/// The `lro_extract` tool: `{ name, description, inputSchema }` (`extractTool()`).
pub fn extract_tool() -> Value {
    json!({
        "name": tool::TOOL_NAME,
        "description": tool::TOOL_DESCRIPTION,
        "inputSchema": tool::tool_input_schema(),
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
