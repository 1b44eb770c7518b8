//! The MCP side on a result given as JSON text: [`Offloader::intercept_tool_result_text`]
//! decides what [`Offloader::intercept_tool_result`] decides for the result's `Value`,
//! without building that `Value`.
//!
//! A proxy holds a `tools/call` result as the bytes of a JSON-RPC message. Parsed into a
//! `Value` to read a few fields, a 56 MB result of small records took 750 MB. Here the
//! result is read with serde borrowing the text of its parts: the content items' `type`,
//! the text blocks (each decoded once, and only when it is the data), `structuredContent`,
//! `isError` and `_meta`. The data is offloaded from its text ([`crate::shape::raw`]); a
//! result that stays as it is comes back [`InterceptedText::Unchanged`], and the caller
//! forwards the bytes it has. Results up to [`TEXT_PART_MIN`] bytes are parsed, as before,
//! and so is any result whose envelope this reading cannot vouch for (a key given twice).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, LroError, Result};
use crate::host::Host;
use crate::intercept::{InterceptAction, Intercepted, ToolCallContext, request_for};
use crate::json::raw;
use crate::jsonl::Body;
use crate::offload::{OffloadRequest, Offloader, Outcome};
use crate::shape::raw::{TEXT_PART_MIN, read_record};

/// What [`Offloader::intercept_tool_result_text`] decided.
#[derive(Debug, Clone, PartialEq)]
pub enum InterceptedText {
    /// Send the result as it was given, byte for byte: below the threshold, LRO off, or
    /// bypassed (the action says which).
    Unchanged(InterceptAction),
    /// Send this result instead: offloaded, or truncated after a failed write.
    Rewritten(Box<Intercepted>),
}

/// The fields of a `CallToolResult` the interceptor reads, as their JSON text.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(
        borrow,
        default,
        rename = "structuredContent",
        deserialize_with = "present"
    )]
    structured: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "isError", deserialize_with = "present")]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "_meta", deserialize_with = "present")]
    meta: Option<&'a RawValue>,
}

/// A field that is there, `null` included (an `Option` alone reads `null` as absent).
fn present<'de, D: Deserializer<'de>>(
    reader: D,
) -> std::result::Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(reader).map(Some)
}

impl<H: Host> Offloader<H> {
    /// [`Offloader::intercept_tool_result`] on a `CallToolResult` given as JSON text (what
    /// a proxy receives): the same decision and the same rewritten result, for a fraction
    /// of the memory on large results, whose data is read from the text. A result that is
    /// not rewritten is [`InterceptedText::Unchanged`]: forward the text as it is. A text
    /// that is not JSON is `invalid_input`.
    pub fn intercept_tool_result_text(
        &self,
        result: &str,
        context: &ToolCallContext,
    ) -> Result<InterceptedText> {
        self.intercept_text_parts(result, context, TEXT_PART_MIN)
    }

    /// [`Offloader::intercept_tool_result_text`], parts longer than `min_text` read from
    /// their text.
    pub(crate) fn intercept_text_parts(
        &self,
        result: &str,
        context: &ToolCallContext,
        min_text: usize,
    ) -> Result<InterceptedText> {
        let result = raw::trim(result);
        if result.len() <= min_text {
            return self.intercept_parsed(result, context);
        }
        if !result.starts_with('{') {
            // Not a CallToolResult: left alone, as its `Value` would be.
            return if raw::is_value(result) {
                Ok(InterceptedText::Unchanged(InterceptAction::Bypassed))
            } else {
                Err(not_json())
            };
        }
        let Ok(envelope) = serde_json::from_str::<Envelope<'_>>(result) else {
            return self.intercept_parsed(result, context);
        };
        if context.client_is_proxy || context.output_schema_declared {
            return Ok(InterceptedText::Unchanged(InterceptAction::Bypassed));
        }
        if !self.config.enabled {
            return Ok(InterceptedText::Unchanged(InterceptAction::Inline));
        }
        // Everything the rewritten result keeps is read before anything is written.
        let content = envelope.content.unwrap_or_default();
        let Some((texts, others)) = content_items(content) else {
            return self.intercept_parsed(result, context);
        };
        let mut kept = Map::new();
        for (key, field) in [("isError", envelope.is_error), ("_meta", envelope.meta)] {
            if let Some(field) = field {
                let Ok(value) = serde_json::from_str(field.get()) else {
                    return self.intercept_parsed(result, context);
                };
                kept.insert(key.to_owned(), value);
            }
        }
        if envelope.structured.is_some() {
            // Only whether it is there counts (see `rewrite`).
            kept.insert("structuredContent".to_owned(), Value::Null);
        }
        let request = request_for(context);
        let outcome = match envelope.structured.map(RawValue::get) {
            Some(structured) if structured != "null" => {
                match self.offload_json_text(structured, &request, min_text)? {
                    Some(outcome) => outcome,
                    None => self.offload(&parse(structured)?, &request)?,
                }
            }
            _ if texts.is_empty() => {
                return Ok(InterceptedText::Unchanged(InterceptAction::Bypassed));
            }
            _ => self.offload_text_blocks_from(&texts, &request, min_text)?,
        };
        Ok(match self.rewrite(&kept, outcome, others) {
            Some(intercepted) => InterceptedText::Rewritten(Box::new(intercepted)),
            None => InterceptedText::Unchanged(InterceptAction::Inline),
        })
    }

    /// The `Value` path, for small results and envelopes read only as a `Value`.
    fn intercept_parsed(&self, result: &str, context: &ToolCallContext) -> Result<InterceptedText> {
        let intercepted = self.intercept_tool_result(&parse(result)?, context)?;
        Ok(match intercepted.action {
            InterceptAction::Offloaded | InterceptAction::Truncated => {
                InterceptedText::Rewritten(Box::new(intercepted))
            }
            action => InterceptedText::Unchanged(action),
        })
    }

    /// The rule of `offload_text_blocks` on text blocks given as JSON strings: several
    /// blocks that each hold a value are one record each; otherwise their text, joined, is
    /// read as [`Offloader::offload_text`] reads it.
    fn offload_text_blocks_from(
        &self,
        texts: &[&str],
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Outcome> {
        if texts.len() > 1 {
            let mut records = Body::default();
            let all_values = texts.iter().all(|text| {
                raw::decode_str(text)
                    .and_then(|content| read_record(&content))
                    .map(|record| records.push_line_with(|out| out.extend_from_slice(&record)))
                    .is_some()
            });
            if all_values {
                if let Some(outcome) = self.offload_record_lines(records, request)? {
                    return Ok(outcome);
                }
            }
            // Mixed blocks, a tree, or records that stay inline: the rule on the texts.
            let decoded: Option<Vec<_>> = texts.iter().map(|t| raw::decode_str(t)).collect();
            let decoded = decoded.ok_or_else(not_json)?;
            let decoded: Vec<&str> = decoded.iter().map(AsRef::as_ref).collect();
            return self.offload_text_blocks(&decoded, request);
        }
        let joined = raw::decode_str(texts[0]).ok_or_else(not_json)?;
        self.offload_text_parts(&joined, request, min_text)
    }
}

/// The items of `content`, read in the envelope's one pass: an object item as its fields'
/// text (what decides whether it is a text block), any other item as its `Value`. Content
/// that is not an array has no items, as `intercept_tool_result` reads it.
#[derive(Default)]
struct Content<'a>(Vec<ContentItem<'a>>);

enum ContentItem<'a> {
    Fields(Vec<(String, &'a RawValue)>),
    Value(Value),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(reader: D) -> std::result::Result<Self, D::Error> {
        struct Items<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Items<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("content")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Content<'a>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<ContentItem<'a>>()? {
                    items.push(item);
                }
                Ok(Content(items))
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Content<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Content<'a>, E> {
                Ok(Content::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Content<'a>, E> {
                Ok(Content::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Content<'a>, E> {
                Ok(Content::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Content<'a>, E> {
                Ok(Content::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<Content<'a>, E> {
                Ok(Content::default())
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Content<'a>, E> {
                Ok(Content::default())
            }
        }
        reader.deserialize_any(Items(PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ContentItem<'a> {
    fn deserialize<D: Deserializer<'de>>(reader: D) -> std::result::Result<Self, D::Error> {
        struct Item<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Item<'a> {
            type Value = ContentItem<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a content item")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<ContentItem<'a>, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    fields.push((key, map.next_value::<&'a RawValue>()?));
                }
                Ok(ContentItem::Fields(fields))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<ContentItem<'a>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Value>()? {
                    items.push(item);
                }
                Ok(ContentItem::Value(Value::Array(items)))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<ContentItem<'a>, E> {
                Ok(ContentItem::Value(Value::Bool(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<ContentItem<'a>, E> {
                Ok(ContentItem::Value(Value::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<ContentItem<'a>, E> {
                Ok(ContentItem::Value(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<ContentItem<'a>, E> {
                Ok(ContentItem::Value(Value::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<ContentItem<'a>, E> {
                Ok(ContentItem::Value(Value::from(v)))
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<ContentItem<'a>, E> {
                Ok(ContentItem::Value(Value::Null))
            }
        }
        reader.deserialize_any(Item(PhantomData))
    }
}

/// The text blocks (as JSON strings) and the other items of `content`, as
/// `intercept_tool_result` sorts them; `None` when a field the result keeps is not a
/// `Value` after all.
fn content_items(content: Content<'_>) -> Option<(Vec<&str>, Vec<Value>)> {
    let (mut texts, mut others) = (Vec::new(), Vec::new());
    for item in content.0 {
        let fields = match item {
            ContentItem::Value(value) => {
                others.push(value);
                continue;
            }
            ContentItem::Fields(fields) => fields,
        };
        // A key given twice counts as its `Value` has it: the last one.
        let field = |name: &str| {
            fields
                .iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.get())
        };
        if field("type").and_then(raw::decode_str).as_deref() == Some("text") {
            // A text item without a string `text` is neither data nor kept.
            if let Some(text) = field("text").filter(|t| t.starts_with('"')) {
                texts.push(text);
            }
            continue;
        }
        let mut object = Map::new();
        for (key, value) in fields {
            object.insert(key, serde_json::from_str(value.get()).ok()?);
        }
        others.push(Value::Object(object));
    }
    Some((texts, others))
}

fn parse(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!("the tool result is not valid JSON: {e}"),
        )
    })
}

fn not_json() -> LroError {
    LroError::new(ErrorCode::InvalidInput, "the tool result is not valid JSON")
}

#[cfg(test)]
mod tests;
