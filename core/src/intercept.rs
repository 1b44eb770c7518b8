//! The MCP side: decide on a `tools/call` result and rewrite it.
//!
//! The interceptor works on the serialized `CallToolResult` (never on service types):
//! - its data is `structuredContent` when present, else the text content, read as
//!   [`crate::shape`] reads strings (JSON, JSON inside a JSON string, a Python literal, a
//!   table, or lines of text); several text blocks that each hold data (a list returned one
//!   item per block) are one record each;
//! - above the threshold the data is offloaded and the result becomes a valid
//!   `CallToolResult` whose `content` holds one text block, the descriptor as compact JSON
//!   (its `resource_uri` names the file as an MCP resource, [`crate::resources`]), then the
//!   tool's own non-text blocks; `isError` and `_meta` are kept. No `structuredContent` and
//!   no `resource_link` block by default: with `mcp.structured_content` the descriptor is
//!   also `structuredContent`, with `mcp.resource_link` a `resource_link` block to the file
//!   ends the content (frameworks choke on or duplicate both: LangChain's Chat Completions
//!   adapter aborts on the link, LlamaIndex shows the descriptor twice);
//! - a client that announced `clientInfo.proxy: true` gets the result untouched (its own
//!   proxy offloads locally), and so do a tool that declared an `outputSchema` (the
//!   descriptor would violate it; the `lro proxy` removes `outputSchema` from `tools/list`
//!   on purpose so that it may offload those tools too) and a tool `mcp.never_offload`
//!   names (which keeps its `outputSchema`);
//! - a failed write gives the inline truncated result plus a warning text item.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::descriptor::OffloadResponse;
use crate::error::Result;
use crate::host::Host;
use crate::offload::{OffloadRequest, Offloader, Outcome};
use crate::shape::text_layout::TEXT_PART_MIN;
use crate::shape::{TextRead, read_text};

/// What is known about the call whose result is intercepted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolCallContext {
    /// The tool's name (gives the operation: `recall_memories` -> `recall`, ...).
    pub tool_name: String,
    /// The call's arguments (`detail` and `query` are read from them).
    pub arguments: Option<Value>,
    /// The client announced `clientInfo.proxy: true`.
    pub client_is_proxy: bool,
    /// The tool declared an `outputSchema`.
    pub output_schema_declared: bool,
    /// The extract tool's name as the surface lists it (`lro_extract_memory`): the
    /// descriptor and its guidance name it. `None`: the configured name, else `lro_extract`.
    pub extract_tool: Option<String>,
}

impl ToolCallContext {
    /// Reads a context from JSON, mapping mistakes to `invalid_argument`.
    pub fn from_json(value: &Value) -> Result<Self> {
        crate::offload::from_json_value(value, "tool call context")
    }
}

/// What the interceptor did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterceptAction {
    /// Offloaded: the result now carries the descriptor.
    Offloaded,
    /// Below the threshold or LRO disabled: untouched.
    Inline,
    /// Skipped on purpose (proxy client, declared output schema, no content).
    Bypassed,
    /// The write failed: truncated inline result with a warning.
    Truncated,
}

/// The rewritten result and what happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intercepted {
    /// The `CallToolResult` to send to the client.
    pub result: Value,
    /// What the interceptor did.
    pub action: InterceptAction,
    /// The descriptor, when offloaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<OffloadResponse>,
}

/// The LRO operation name for a tool: the specification's names for memory tools, the
/// tool name (made file-name safe) otherwise.
pub fn operation_for_tool(tool_name: &str) -> String {
    match tool_name {
        "recall_memories" | "recall" => "recall".to_owned(),
        "inject_context" | "inject" => "inject".to_owned(),
        "list_memories" | "list" => "list".to_owned(),
        "search_memories" | "search" => "search".to_owned(),
        other => {
            let safe: String = other
                .chars()
                .take(64)
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if safe.is_empty() {
                "tool".to_owned()
            } else {
                safe
            }
        }
    }
}

/// The offload request of a tool call: the operation from the tool's name, `detail` and
/// `query` from its arguments.
pub(crate) fn request_for(context: &ToolCallContext) -> OffloadRequest {
    let args = context.arguments.as_ref();
    OffloadRequest {
        operation: operation_for_tool(&context.tool_name),
        detail: args.and_then(|a| a.get("detail")?.as_str()?.parse().ok()),
        query: args
            .and_then(|a| a.get("query")?.as_str())
            .map(str::to_owned),
        extract_tool: context.extract_tool.clone(),
        ..OffloadRequest::default()
    }
}

fn untouched(result: &Value, action: InterceptAction) -> Intercepted {
    Intercepted {
        result: result.clone(),
        action,
        response: None,
    }
}

fn text_item(text: String) -> Value {
    json!({"type": "text", "text": text})
}

impl<H: Host> Offloader<H> {
    /// Whether results of this call pass untouched whatever their size: the client
    /// offloads itself, the tool declared an `outputSchema`, or `mcp.never_offload` names it.
    pub fn bypasses(&self, context: &ToolCallContext) -> bool {
        context.client_is_proxy
            || context.output_schema_declared
            || self.config.mcp.never_offloads(&context.tool_name)
    }

    /// Decides on a `tools/call` result and returns the result to send on.
    pub fn intercept_tool_result(
        &self,
        result: &Value,
        context: &ToolCallContext,
    ) -> Result<Intercepted> {
        self.intercept_read(result, context, 0)
    }

    /// [`Offloader::intercept_tool_result`] of a result read from a JSON text whose
    /// `structuredContent` named `duplicate_keys` keys twice (merged in `result`: an
    /// offload of it says so).
    pub(crate) fn intercept_read(
        &self,
        result: &Value,
        context: &ToolCallContext,
        duplicate_keys: usize,
    ) -> Result<Intercepted> {
        let Value::Object(fields) = result else {
            return Ok(untouched(result, InterceptAction::Bypassed));
        };
        if self.bypasses(context) {
            return Ok(untouched(result, InterceptAction::Bypassed));
        }
        if !self.config.enabled {
            return Ok(untouched(result, InterceptAction::Inline));
        }
        let content: &[Value] = fields
            .get("content")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let is_text = |item: &&Value| item.get("type").and_then(Value::as_str) == Some("text");
        let texts: Vec<&str> = content
            .iter()
            .filter(is_text)
            .filter_map(|i| i.get("text")?.as_str())
            .collect();
        let request = request_for(context);
        let outcome = match fields.get("structuredContent") {
            Some(structured) if !structured.is_null() => {
                self.offload_read(structured, &request, duplicate_keys)?
            }
            _ if texts.is_empty() => return Ok(untouched(result, InterceptAction::Bypassed)),
            _ => self.offload_text_blocks(&texts, &request)?,
        };
        let others: Vec<Value> = content.iter().filter(|i| !is_text(i)).cloned().collect();
        Ok(self
            .rewrite(fields, outcome, others)
            .unwrap_or_else(|| untouched(result, InterceptAction::Inline)))
    }

    /// The result that replaces an offloaded or truncated one (`None`: the result stays as
    /// it is): `others` are its content items that are not text; `fields`, the original
    /// result's, give its `isError`, `_meta` and whether it had `structuredContent`.
    pub(crate) fn rewrite(
        &self,
        fields: &Map<String, Value>,
        outcome: Outcome,
        others: Vec<Value>,
    ) -> Option<Intercepted> {
        let mut rewritten = Map::new();
        match outcome {
            Outcome::Inline(inline) if !inline.truncated => None,
            Outcome::Inline(inline) => {
                let text = match &inline.results {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                // The host's error text differs between platforms (and may name local paths):
                // it goes to the OffloadWriteFailed event, not into what the model reads.
                let warning = format!(
                    "LRO could not write the offload file; this result is truncated to the first {} of {} records.",
                    inline.count,
                    inline.total_count.unwrap_or(inline.count)
                );
                let mut items = vec![text_item(text), text_item(warning)];
                items.extend(others);
                rewritten.insert("content".into(), Value::Array(items));
                if fields.contains_key("structuredContent") {
                    rewritten.insert("structuredContent".into(), inline.results);
                }
                Some(self.finish(fields, rewritten, InterceptAction::Truncated, None))
            }
            Outcome::Offloaded(response) => {
                let descriptor = response.to_value();
                // Compact: every byte of indentation would count against the descriptor's
                // budget (twice with `mcp.structured_content`).
                let text = descriptor.to_string();
                let mut items = vec![text_item(text)];
                items.extend(others);
                if self.config.mcp.resource_link {
                    // After the descriptor's text and the tool's other blocks: the file as
                    // an MCP resource, for a client that attaches or reads resources.
                    items.push(crate::resources::resource_link(&response.file_path));
                }
                rewritten.insert("content".into(), Value::Array(items));
                if self.config.mcp.structured_content {
                    rewritten.insert("structuredContent".into(), descriptor);
                }
                Some(self.finish(
                    fields,
                    rewritten,
                    InterceptAction::Offloaded,
                    Some(*response),
                ))
            }
        }
    }

    /// Offloads the text blocks of a result: several blocks that each hold data are one
    /// record each; otherwise their text, joined, is read as [`Offloader::offload_text`] does.
    /// (`intercept_text` has the same rule on text it has not parsed.)
    pub(crate) fn offload_text_blocks(
        &self,
        texts: &[&str],
        request: &OffloadRequest,
    ) -> Result<Outcome> {
        if texts.len() > 1 {
            // Each block's JSON read as a `Value` keeps the last value of a key named twice:
            // counted, to be reported.
            let mut duplicate_keys = 0;
            let values: Option<Vec<Value>> = texts
                .iter()
                .map(|text| match read_text(text) {
                    TextRead::Value(value, format) => {
                        if format == crate::shape::Format::Json {
                            duplicate_keys += crate::json::dupes::in_text(text);
                        }
                        Some(value)
                    }
                    _ => None,
                })
                .collect();
            if let Some(values) = values {
                return self.offload_read(&Value::Array(values), request, duplicate_keys);
            }
        }
        self.offload_text(&texts.join("\n"), request)
    }

    /// Offloads tool *text*: a JSON array goes through the text path (no `Value` tree), any
    /// other text is read as [`crate::shape`] reads strings (JSON, a Python literal, a table,
    /// or one record per line), a large one from its text too ([`crate::shape::text_layout`]).
    pub fn offload_text(&self, text: &str, request: &OffloadRequest) -> Result<Outcome> {
        self.offload_text_parts(text, request, TEXT_PART_MIN)
    }

    /// [`Offloader::offload_text`], texts longer than `min_text` read from their text.
    pub(crate) fn offload_text_parts(
        &self,
        text: &str,
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Outcome> {
        if text.trim_start().starts_with('[') {
            match self.offload_json(text.as_bytes(), request) {
                Err(err) if err.code() == crate::error::ErrorCode::InvalidInput => {}
                outcome => return outcome,
            }
        }
        if text.len() > min_text {
            if let Some(outcome) = self.offload_text_layout(text, request, min_text)? {
                return Ok(outcome);
            }
        }
        self.offload(&Value::String(text.to_owned()), request)
    }

    fn finish(
        &self,
        original: &Map<String, Value>,
        mut rewritten: Map<String, Value>,
        action: InterceptAction,
        response: Option<OffloadResponse>,
    ) -> Intercepted {
        for key in ["isError", "_meta"] {
            if let Some(v) = original.get(key) {
                rewritten.insert(key.into(), v.clone());
            }
        }
        Intercepted {
            result: Value::Object(rewritten),
            action,
            response,
        }
    }
}
