//! The MCP side: decide on a `tools/call` result and rewrite it.
//!
//! The interceptor works on the serialized `CallToolResult` (never on service types):
//! - its data is `structuredContent` when present, else the text content, read as
//!   [`lro_core::shape`] reads strings (JSON, JSON inside a JSON string, a Python literal, a
//!   table, or lines of text); several text blocks that each hold data (a list returned one
//!   item per block) are one record each; a text over the threshold beside a small
//!   `structuredContent` is offloaded itself (`text_beside`);
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
//!   on purpose so that it may offload those tools too), a tool `mcp.never_offload`
//!   names (which keeps its `outputSchema`) and one whose rule (`[prompt.offload.tools]`, or
//!   the call's own) says `mode = "never"`; the rule's other keys shape the request
//!   ([`OffloadRequest::with_rule`]);
//! - a failed write gives the inline truncated result plus a warning text item.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use lro_core::OffloadConfig;
use lro_core::config::{OffloadMode, ToolRule};
use lro_core::descriptor::OffloadResponse;
use lro_core::error::Result;
use lro_core::host::Host;
use lro_core::offload::{OffloadRequest, Offloader, Outcome};

/// What is known about the call whose result is intercepted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolCallContext {
    /// The tool's name: the configuration's rules match it, and it gives the operation
    /// (`recall_memories` -> `recall`, ...) unless `operation` does.
    pub tool_name: String,
    /// The operation that names the files and the summary, when the surface names it
    /// itself (a decorator's `operation=`); a rule's `operation` still wins.
    pub operation: Option<String>,
    /// The call's arguments (`detail` and `query` are read from them).
    pub arguments: Option<Value>,
    /// The client announced `clientInfo.proxy: true`.
    pub client_is_proxy: bool,
    /// The tool declared an `outputSchema`.
    pub output_schema_declared: bool,
    /// The extract tool's name as the surface lists it (`lro_extract_memory`): the
    /// descriptor and its guidance name it. `None`: the configured name, else `lro_extract`.
    pub extract_tool: Option<String>,
    /// This call's rule, in place of the configuration's rule for the tool (the call is
    /// more specific than any pattern).
    pub rule: Option<ToolRule>,
}

impl ToolCallContext {
    /// Reads a context from JSON, mapping mistakes to `invalid_argument`.
    pub fn from_json(value: &Value) -> Result<Self> {
        lro_core::offload::from_json_value(value, "tool call context")
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

/// The rule that applies to a call: its own, else the configuration's most specific rule
/// for the tool.
pub fn rule_for<'a>(
    config: &'a OffloadConfig,
    context: &'a ToolCallContext,
) -> Option<&'a ToolRule> {
    context
        .rule
        .as_ref()
        .or_else(|| config.tool_rule(&context.tool_name).map(|(_, rule)| rule))
}

/// The offload request of a tool call: the operation from the tool's name, `detail` and
/// `query` from its arguments, then the tool's rule ([`rule_for`]).
#[doc(hidden)]
pub fn request_for(config: &OffloadConfig, context: &ToolCallContext) -> OffloadRequest {
    let args = context.arguments.as_ref();
    let request = OffloadRequest {
        operation: context
            .operation
            .clone()
            .unwrap_or_else(|| operation_for_tool(&context.tool_name)),
        detail: args.and_then(|a| a.get("detail")?.as_str()?.parse().ok()),
        query: args
            .and_then(|a| a.get("query")?.as_str())
            .map(str::to_owned),
        extract_tool: context.extract_tool.clone(),
        ..OffloadRequest::default()
    };
    match rule_for(config, context) {
        Some(rule) => request.with_rule(rule),
        None => request,
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

/// Whether results of this call pass untouched whatever their size: the client offloads
/// itself, the tool declared an `outputSchema`, `mcp.never_offload` names it, or its rule's
/// `mode` is `never`.
pub fn bypasses<H: Host>(lro: &Offloader<H>, context: &ToolCallContext) -> bool {
    let config = lro.config();
    context.client_is_proxy
        || context.output_schema_declared
        || config.mcp.never_offloads(&context.tool_name)
        || rule_for(config, context).is_some_and(|rule| rule.mode == Some(OffloadMode::Never))
}

/// Decides on a `tools/call` result and returns the result to send on.
pub fn intercept_tool_result<H: Host>(
    lro: &Offloader<H>,
    result: &Value,
    context: &ToolCallContext,
) -> Result<Intercepted> {
    intercept_read(lro, result, context, 0)
}

/// [`intercept_tool_result`] of a result read from a JSON text whose `structuredContent`
/// named `duplicate_keys` keys twice (merged in `result`: an offload of it says so).
#[doc(hidden)]
pub fn intercept_read<H: Host>(
    lro: &Offloader<H>,
    result: &Value,
    context: &ToolCallContext,
    duplicate_keys: usize,
) -> Result<Intercepted> {
    let Value::Object(fields) = result else {
        return Ok(untouched(result, InterceptAction::Bypassed));
    };
    if bypasses(lro, context) {
        return Ok(untouched(result, InterceptAction::Bypassed));
    }
    if !lro.config().enabled {
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
    let request = request_for(lro.config(), context);
    let mut kept_structured = None;
    let outcome = match fields.get("structuredContent") {
        Some(structured) if !structured.is_null() => {
            let outcome = lro.offload_read(structured, &request, duplicate_keys)?;
            match text_beside(outcome, !texts.is_empty(), || {
                lro.offload_text_blocks(&texts, &request)
            })? {
                (outcome, true) => {
                    kept_structured = Some(structured.clone());
                    outcome
                }
                (outcome, false) => outcome,
            }
        }
        _ if texts.is_empty() => return Ok(untouched(result, InterceptAction::Bypassed)),
        _ => lro.offload_text_blocks(&texts, &request)?,
    };
    let others: Vec<Value> = content.iter().filter(|i| !is_text(i)).cloned().collect();
    Ok(rewrite(lro, fields, outcome, others, kept_structured)
        .unwrap_or_else(|| untouched(result, InterceptAction::Inline)))
}

/// The outcome of a result whose `structuredContent` gave `structured`: when that stays
/// inline, its text blocks (there are some: `has_text`) are offloaded by `offload_texts` if
/// they are large on their own, and the second value says so. A result is offloaded by its
/// larger part: else a server could send any text inline beside a `{}` (an outside attack
/// found it). The small `structuredContent` then stays in the result, as it came.
pub(crate) fn text_beside(
    structured: Outcome,
    has_text: bool,
    offload_texts: impl FnOnce() -> Result<Outcome>,
) -> Result<(Outcome, bool)> {
    match structured {
        Outcome::Inline(inline) if !inline.truncated && has_text => match offload_texts()? {
            offloaded @ Outcome::Offloaded(_) => Ok((offloaded, true)),
            _ => Ok((Outcome::Inline(inline), false)),
        },
        outcome => Ok((outcome, false)),
    }
}

/// The result that replaces an offloaded or truncated one (`None`: the result stays as it
/// is): `others` are its content items that are not text; `fields`, the original result's,
/// give its `isError`, `_meta` and whether it had `structuredContent`; `kept_structured` is
/// a `structuredContent` kept as it came (its text was offloaded, not it).
pub(crate) fn rewrite<H: Host>(
    lro: &Offloader<H>,
    fields: &Map<String, Value>,
    outcome: Outcome,
    others: Vec<Value>,
    kept_structured: Option<Value>,
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
            Some(finish(fields, rewritten, InterceptAction::Truncated, None))
        }
        Outcome::Offloaded(response) => {
            let descriptor = response.to_value();
            // Compact: every byte of indentation would count against the descriptor's
            // budget (twice with `mcp.structured_content`).
            let text = descriptor.to_string();
            let mut items = vec![text_item(text)];
            items.extend(others);
            if lro.config().mcp.resource_link {
                // After the descriptor's text and the tool's other blocks: the file as an
                // MCP resource, for a client that attaches or reads resources.
                items.push(lro_core::files::resource_link(&response.file_path));
            }
            rewritten.insert("content".into(), Value::Array(items));
            if lro.config().mcp.structured_content {
                rewritten.insert("structuredContent".into(), descriptor);
            } else if let Some(structured) = kept_structured {
                // Small beside the text that was offloaded ([`text_beside`]): kept.
                rewritten.insert("structuredContent".into(), structured);
            }
            Some(finish(
                fields,
                rewritten,
                InterceptAction::Offloaded,
                Some(*response),
            ))
        }
    }
}

fn finish(
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
