//! Offloading a large result given as text, without its `Value` tree: a JSON object (a
//! tool's structured content as a proxy receives it, a Python `str` of a dict), or a tool's
//! text, read as [`crate::shape`] reads strings. [`TextLayout`] writes the records straight
//! to the file's lines; the outcome is the one [`Offloader::offload`] gives for the `Value`.
//!
//! Small texts (up to [`TEXT_PART_MIN`] bytes) keep the `Value` path, which is as fast for
//! them; so does anything the text layout declines.

use serde_json::Value;

use crate::error::Result;
use crate::host::Host;
use crate::json::read;
use crate::offload::fallback::inline;
use crate::offload::outcome::Outcome;
use crate::offload::prepared::{offloads, prepared_layout};
use crate::offload::request::{OffloadRequest, check_operation};
use crate::offload::write::materialize;
use crate::offloader::Offloader;
use crate::shape::text_layout::{TEXT_PART_MIN, TextLayout};

/// [`Offloader::offload`] of the large JSON object `json` holds (the caller's fallback
/// for other texts: `None`).
pub(crate) fn offload_object_text<H: Host>(
    lro: &Offloader<H>,
    json: &[u8],
    request: &OffloadRequest,
) -> Result<Option<Outcome>> {
    let Ok(text) = std::str::from_utf8(json) else {
        return Ok(None);
    };
    if json.len() <= TEXT_PART_MIN || !read::trim(text).starts_with('{') {
        return Ok(None);
    }
    offload_json_text(lro, text, request, TEXT_PART_MIN)
}

/// [`Offloader::offload`] of the value the JSON text `json` holds, read by
/// [`TextLayout::of_json`] with parts up to `min_text` bytes parsed. `None` when the
/// layout declines (or LRO is off): the caller takes the `Value` path.
pub(crate) fn offload_json_text<H: Host>(
    lro: &Offloader<H>,
    json: &str,
    request: &OffloadRequest,
    min_text: usize,
) -> Result<Option<Outcome>> {
    offload_laid_out(
        lro,
        request,
        || TextLayout::of_json(json, min_text),
        // Below the threshold the result is small: its value is returned as it is.
        || crate::json::parse::from_str(json).ok(),
    )
}

/// [`Offloader::offload`] of `Value::String(text)`: the text read as
/// [`crate::shape::read_text`] reads it, by [`TextLayout::of_text`]. `None` when the
/// layout declines (or LRO is off).
pub(crate) fn offload_text_layout<H: Host>(
    lro: &Offloader<H>,
    text: &str,
    request: &OffloadRequest,
    min_text: usize,
) -> Result<Option<Outcome>> {
    offload_laid_out(
        lro,
        request,
        || TextLayout::of_text(text, min_text),
        || Some(Value::String(text.to_owned())),
    )
}

/// The offload of a result `lay_out` reads from its text; when it stays inline, the
/// value `original` gives is the inline result (`None` from either: the `Value` path).
fn offload_laid_out<H: Host>(
    lro: &Offloader<H>,
    request: &OffloadRequest,
    lay_out: impl FnOnce() -> Option<TextLayout>,
    original: impl FnOnce() -> Option<Value>,
) -> Result<Option<Outcome>> {
    if !lro.config.enabled {
        return Ok(None);
    }
    check_operation(&request.operation)?;
    let Some(layout) = lay_out() else {
        return Ok(None);
    };
    let prepared = prepared_layout(lro, layout, request);
    if offloads(lro, &prepared, request) {
        return Ok(Some(materialize(lro, prepared, request)));
    }
    let Some(value) = original() else {
        return Ok(None);
    };
    Ok(Some(Outcome::Inline(inline(
        lro, &value, &prepared, request,
    ))))
}

/// [`Offloader::offload`] of the array of records written one per line in `records`
/// (compact, serde_json's spelling, as [`crate::jsonl::Body::of_values`] writes them),
/// when they are offloaded. `None` when they form a tree or stay inline (or LRO is
/// off): the caller then takes the `Value` path, which needs the records as they were.
/// Their texts named `duplicate_keys` keys twice, which the outcome reports.
pub(crate) fn offload_record_lines<H: Host>(
    lro: &Offloader<H>,
    records: crate::jsonl::Body,
    request: &OffloadRequest,
    duplicate_keys: usize,
) -> Result<Option<Outcome>> {
    if !lro.config.enabled {
        return Ok(None);
    }
    check_operation(&request.operation)?;
    let Some(layout) = TextLayout::of_records(records) else {
        return Ok(None);
    };
    let mut prepared = prepared_layout(lro, layout, request);
    prepared.duplicate_keys += duplicate_keys;
    Ok(offloads(lro, &prepared, request).then(|| materialize(lro, prepared, request)))
}
