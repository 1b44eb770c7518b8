//! The MCP side on a result given as JSON text: [`intercept_tool_result_text`] decides what
//! [`crate::intercept_tool_result`] decides for the result's `Value`, without building that
//! `Value`.
//!
//! A proxy holds a `tools/call` result as the bytes of a JSON-RPC message. Parsed into a
//! `Value` to read a few fields, a 56 MB result of small records took 750 MB. Here the
//! result is read in one pass over its text, each part read over by serde_json without
//! being built ([`read::read_object`]): the content items' `type`, the text blocks (each
//! decoded once, and only when it is the data), `structuredContent`, `isError` and `_meta`.
//! The data is offloaded from its text (`lro_core::shape::text_layout`); a result that stays as it
//! is comes back [`InterceptedText::Unchanged`], and the caller forwards the bytes it has.
//! Results up to [`TEXT_RESULT_MIN`] bytes are parsed, as before.

use serde_json::{Map, Value};

use lro_core::error::{ErrorCode, LroError, Result};
use lro_core::host::Host;
use lro_core::json::read;
use lro_core::offload::Offloader;
use lro_core::shape::TEXT_PART_MIN;

use crate::intercept::{
    InterceptAction, Intercepted, ToolCallContext, bypasses, intercept_read, request_for, rewrite,
    text_beside,
};

/// Results whose text is at most this long are parsed into a `Value`: one parse is faster
/// than reading over the text for the envelope and again for the data (by about 0.1 ms on
/// 90 KB), and their tree stays within a few megabytes.
pub const TEXT_RESULT_MIN: usize = 1 << 20;

/// What [`intercept_tool_result_text`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum InterceptedText {
    /// Send the result as it was given, byte for byte: below the threshold, LRO off, or
    /// bypassed (the action says which).
    Unchanged(InterceptAction),
    /// Send this result instead: offloaded, or truncated after a failed write.
    Rewritten(Box<Intercepted>),
}

/// The fields of a `CallToolResult` the interceptor reads, as their JSON text: of a key
/// given twice, the last, as its `Value` keeps.
#[derive(Default)]
struct Envelope<'a> {
    /// The items of `content` (none when it is not an array).
    items: Vec<Item<'a>>,
    structured: Option<&'a str>,
    is_error: Option<&'a str>,
    meta: Option<&'a str>,
}

/// A content item: its text, and for an object, the text of its `type` and `text` fields.
struct Item<'a> {
    text: &'a str,
    kind: Option<&'a str>,
    block: Option<&'a str>,
}

/// Reads a `CallToolResult` in one pass over its text: each part is read over once, by
/// serde_json, without being built. `None` when the text is not one JSON object.
fn read_envelope(result: &str) -> Option<Envelope<'_>> {
    let mut envelope = Envelope::default();
    let rest = read::read_object(result, |key, value| {
        if key == "content" {
            envelope.items.clear();
            if value.starts_with('[') {
                return read::read_array(value, |item| {
                    let (item, rest) = read_item(item)?;
                    envelope.items.push(item);
                    Some(rest)
                });
            }
        }
        let (text, rest) = read::split_value(value)?;
        match key.as_str() {
            "structuredContent" => envelope.structured = Some(text),
            "isError" => envelope.is_error = Some(text),
            "_meta" => envelope.meta = Some(text),
            _ => {}
        }
        Some(rest)
    })?;
    read::trim(rest).is_empty().then_some(envelope)
}

/// The content item at the start of `text`, and the text after it.
fn read_item(text: &str) -> Option<(Item<'_>, &str)> {
    if !text.starts_with('{') {
        let (value, rest) = read::split_value(text)?;
        let item = Item {
            text: value,
            kind: None,
            block: None,
        };
        return Some((item, rest));
    }
    let (mut kind, mut block) = (None, None);
    let rest = read::read_object(text, |key, value| {
        let (value, rest) = read::split_value(value)?;
        match key.as_str() {
            "type" => kind = Some(value),
            "text" => block = Some(value),
            _ => {}
        }
        Some(rest)
    })?;
    let item = Item {
        text: &text[..text.len() - rest.len()],
        kind,
        block,
    };
    Some((item, rest))
}

/// The text blocks (as JSON strings) and the other items, as `intercept_tool_result` sorts
/// them; `None` when an item the result keeps is not a `Value` after all.
fn content_items<'a>(items: &[Item<'a>]) -> Option<(Vec<&'a str>, Vec<Value>)> {
    let (mut texts, mut others) = (Vec::new(), Vec::new());
    for item in items {
        if item.kind.and_then(read::decode_str).as_deref() == Some("text") {
            // A text item without a string `text` is neither data nor kept.
            if let Some(block) = item.block.filter(|b| b.starts_with('"')) {
                texts.push(block);
            }
            continue;
        }
        others.push(lro_core::json::parse::from_str(item.text).ok()?);
    }
    Some((texts, others))
}

/// [`crate::intercept_tool_result`] on a `CallToolResult` given as JSON text (what a proxy
/// receives): the same decision and the same rewritten result, for a fraction of the memory
/// on large results, whose data is read from the text. A result that is not rewritten is
/// [`InterceptedText::Unchanged`]: forward the text as it is. A text that is not JSON is
/// `invalid_input`.
pub fn intercept_tool_result_text<H: Host>(
    lro: &Offloader<H>,
    result: &str,
    context: &ToolCallContext,
) -> Result<InterceptedText> {
    if result.len() <= TEXT_RESULT_MIN {
        return intercept_parsed(lro, result, context);
    }
    intercept_text_parts(lro, result, context, TEXT_PART_MIN)
}

/// [`intercept_tool_result_text`], parts longer than `min_text` read from their text.
#[doc(hidden)]
pub fn intercept_text_parts<H: Host>(
    lro: &Offloader<H>,
    result: &str,
    context: &ToolCallContext,
    min_text: usize,
) -> Result<InterceptedText> {
    let result = read::trim(result);
    if result.len() <= min_text {
        return intercept_parsed(lro, result, context);
    }
    if !result.starts_with('{') {
        // Not a CallToolResult: left alone, as its `Value` would be.
        return if read::is_value(result) {
            Ok(InterceptedText::Unchanged(InterceptAction::Bypassed))
        } else {
            Err(not_json())
        };
    }
    let Some(envelope) = read_envelope(result) else {
        return intercept_parsed(lro, result, context);
    };
    if bypasses(lro, context) {
        return Ok(InterceptedText::Unchanged(InterceptAction::Bypassed));
    }
    if !lro.config().enabled {
        return Ok(InterceptedText::Unchanged(InterceptAction::Inline));
    }
    // Everything the rewritten result keeps is read before anything is written.
    let Some((texts, others)) = content_items(&envelope.items) else {
        return intercept_parsed(lro, result, context);
    };
    let mut kept = Map::new();
    for (key, field) in [("isError", envelope.is_error), ("_meta", envelope.meta)] {
        if let Some(field) = field {
            let Ok(value) = serde_json::from_slice(field.as_bytes()) else {
                return intercept_parsed(lro, result, context);
            };
            kept.insert(key.to_owned(), value);
        }
    }
    if envelope.structured.is_some() {
        // Only whether it is there counts (see `rewrite`).
        kept.insert("structuredContent".to_owned(), Value::Null);
    }
    let request = request_for(lro.config(), context);
    let mut kept_structured = None;
    let outcome = match envelope.structured {
        Some(structured) if structured != "null" => {
            // The layout counts keys named twice in the parts it parses; read as a `Value`
            // instead, they are counted here (lro_core::json::dupes).
            let outcome = match lro.offload_json_text(structured, &request, min_text)? {
                Some(outcome) => outcome,
                None => {
                    let duplicate_keys = lro_core::json::dupes::count(structured.as_bytes());
                    lro.offload_read(&parse(structured)?, &request, duplicate_keys)?
                }
            };
            match text_beside(outcome, !texts.is_empty(), || {
                lro.offload_text_block_strings(&texts, &request, min_text)
            })? {
                (outcome, true) => {
                    kept_structured = Some(parse(structured)?);
                    outcome
                }
                (outcome, false) => outcome,
            }
        }
        _ if texts.is_empty() => {
            return Ok(InterceptedText::Unchanged(InterceptAction::Bypassed));
        }
        _ => lro.offload_text_block_strings(&texts, &request, min_text)?,
    };
    Ok(
        match rewrite(lro, &kept, outcome, others, kept_structured) {
            Some(intercepted) => InterceptedText::Rewritten(Box::new(intercepted)),
            None => InterceptedText::Unchanged(InterceptAction::Inline),
        },
    )
}

/// The `Value` path, for small results and envelopes read only as a `Value`.
fn intercept_parsed<H: Host>(
    lro: &Offloader<H>,
    result: &str,
    context: &ToolCallContext,
) -> Result<InterceptedText> {
    let value = parse(result)?;
    let structured = value.get("structuredContent").is_some_and(|s| !s.is_null());
    let duplicate_keys = if structured {
        structured_duplicates(result)
    } else {
        0
    };
    let intercepted = intercept_read(lro, &value, context, duplicate_keys)?;
    Ok(match intercepted.action {
        InterceptAction::Offloaded | InterceptAction::Truncated => {
            InterceptedText::Rewritten(Box::new(intercepted))
        }
        action => InterceptedText::Unchanged(action),
    })
}

/// Keys named twice in one object in the text of the structured content of the
/// `CallToolResult` `result` (which its `Value` merged), as the text path counts them: the
/// envelope's own keys are not data.
#[doc(hidden)]
pub fn structured_duplicates(result: &str) -> usize {
    match read_envelope(read::trim(result)) {
        Some(envelope) => envelope
            .structured
            .map_or(0, |text| lro_core::json::dupes::count(text.as_bytes())),
        None => lro_core::json::dupes::count(result.as_bytes()),
    }
}

/// `text` read as JSON; a lone surrogate (which no string holds) is kept as the text of its
/// escape, so that one such escape does not leave a large result unread and inline.
fn parse(text: &str) -> Result<Value> {
    lro_core::json::parse::from_str_keeping_lone_surrogates(text).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!("the tool result is not valid JSON: {e}"),
        )
    })
}

fn not_json() -> LroError {
    LroError::new(ErrorCode::InvalidInput, "the tool result is not valid JSON")
}
