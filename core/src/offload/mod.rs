//! Offloading: decide inline vs offload, write the JSONL file, build the descriptor, fall
//! back to an inline truncated result when the write fails; and cleanup of expired files.
//!
//! This file is the [`Offloader`]'s public API for all of it; each step is a module of its
//! own, in the order a result goes through them:
//! - `request`: what the caller asks ([`OffloadRequest`]);
//! - `prepared`: the result set made ready to write, whichever way it arrived (a `Value`,
//!   JSON text, lines a binding wrote);
//! - `text`: results given as text (a JSON object, a tool's text), laid out straight into
//!   lines without a `Value` tree;
//! - `write`: the file (name, directory, header, records), then `descriptor` or
//!   `fallback`;
//! - `outcome`: what the caller gets back ([`Outcome`]).

pub(crate) mod descriptor;
pub(crate) mod fallback;
pub mod outcome;
pub(crate) mod prepared;
pub mod request;
pub(crate) mod text;
pub(crate) mod write;

use std::borrow::Cow;

use serde_json::Value;

use crate::cleanup::{self, CleanupReport};
use crate::error::{ErrorCode, LroError, Result};
use crate::host::Host;
use crate::json::read;
use crate::jsonl::{Body, MifChunks};
use crate::payload::RecordKind;
use crate::shape::text_layout::{TEXT_PART_MIN, read_record};
use crate::shape::{Format, TextRead, read_text};

use fallback::{inline, inline_lines};
use prepared::{is_tree, offloads, prepare, prepare_json, prepare_lines, prepared_lines};
use write::materialize;

pub use crate::offloader::{MaybeShared, Offloader, SharedEstimator, SharedEventSink};
pub use outcome::{InlineResult, Outcome};
#[cfg(feature = "extract")]
pub(crate) use prepared::Prepared;
pub use prepared::{sample, score_range};
pub(crate) use request::check_operation;
pub use request::{OffloadRequest, from_json_value};

impl<H: Host> Offloader<H> {
    /// Offloads `value` (an array, an object holding an array, text, ...) when its estimated
    /// tokens exceed the threshold; otherwise returns it inline.
    pub fn offload(&self, value: &Value, request: &OffloadRequest) -> Result<Outcome> {
        self.offload_read(value, request, 0)
    }

    /// Writes `value` as an offload file whatever its size, and returns its descriptor: a
    /// result someone asked to keep (an `lro_extract` output saved for the next tool), so
    /// neither the threshold nor `enabled` decides, and a failed write is an error rather
    /// than the inline fallback (there is no inline answer to fall back to).
    pub fn offload_saved(
        &self,
        value: &Value,
        request: &OffloadRequest,
    ) -> Result<crate::descriptor::OffloadResponse> {
        let prepared = prepare(self, value, request)?;
        match materialize(self, prepared, request) {
            Outcome::Offloaded(response) => Ok(*response),
            // The host's error (which may name local paths) went to the OffloadWriteFailed
            // event, as for any failed offload.
            Outcome::Inline(_) => Err(LroError::new(
                ErrorCode::Io,
                "the offload file could not be written",
            )),
        }
    }

    /// [`Offloader::offload`] of a value read from a JSON text that named `duplicate_keys`
    /// keys twice (merged in `value`: the outcome says so).
    #[doc(hidden)]
    pub fn offload_read(
        &self,
        value: &Value,
        request: &OffloadRequest,
        duplicate_keys: usize,
    ) -> Result<Outcome> {
        let mut prepared = prepare(self, value, request)?;
        prepared.duplicate_keys += duplicate_keys;
        if !offloads(self, &prepared, request) {
            return Ok(Outcome::Inline(inline(self, value, &prepared, request)));
        }
        Ok(materialize(self, prepared, request))
    }

    /// [`Offloader::offload`] on serialized JSON: the fast path for results that arrive as
    /// text (MCP tool results, Python `str`/`bytes`, JS strings). A JSON array is turned
    /// into lines without building a `Value` tree, and so are the large parts of an object
    /// ([`crate::shape::text_layout`]); the result is the same as parsing the text and calling
    /// [`Offloader::offload`].
    pub fn offload_json(&self, json: &[u8], request: &OffloadRequest) -> Result<Outcome> {
        // A leading byte-order mark is an encoding's signature, not content (RFC 8259 lets
        // a reader ignore it).
        let json = json.strip_prefix("\u{feff}".as_bytes()).unwrap_or(json);
        // The canonical scan declines on a key named twice: when it vouched for the text
        // there is none; the object's text layout counts those of the parts it parses. The
        // `Value` read here keeps the last value of such a key: they are counted (those of
        // JSON inside strings by the layout), to be reported (crate::json::dupes).
        let mut duplicate_keys = 0;
        if self.config.enabled {
            if let Some(prepared) = prepare_json(self, json, request)? {
                if offloads(self, &prepared, request) {
                    return Ok(materialize(self, prepared, request));
                }
            } else {
                if let Some(outcome) = text::offload_object_text(self, json, request)? {
                    return Ok(outcome);
                }
                duplicate_keys = crate::json::dupes::count(json);
            }
        }
        // Inline results (small by definition), other shapes and unusual text: the tree.
        let value: Value = match crate::json::parse::from_slice(json) {
            Ok(value) => value,
            // Lone surrogates: an array's element with one becomes a text record, the
            // others stay records; elsewhere each is kept as the text of its escape
            // (crate::shape::odd).
            Err(e) => std::str::from_utf8(json)
                .ok()
                .and_then(|text| {
                    crate::shape::value_with_lone_surrogates(crate::json::read::trim(text))
                })
                .ok_or_else(|| {
                    LroError::new(
                        ErrorCode::InvalidInput,
                        format!("input is not valid JSON: {e}"),
                    )
                })?,
        };
        self.offload_read(&value, request, duplicate_keys)
    }

    /// [`Offloader::offload_json`] on a JSON array of MIF memories given in pieces (see
    /// [`MifChunks`], made for this request's operation and detail); `None` when the pieces
    /// did not hold MIF memories only: the caller then offloads the records whole.
    pub fn offload_chunks(
        &self,
        chunks: MifChunks,
        request: &OffloadRequest,
    ) -> Result<Option<Outcome>> {
        check_operation(&request.operation)?;
        let detail = chunks.detail();
        let Some(body) = chunks.finish() else {
            return Ok(None);
        };
        let prepared = prepared_lines(self, RecordKind::Mif(detail), body);
        if offloads(self, &prepared, request) {
            return Ok(Some(materialize(self, prepared, request)));
        }
        Ok(Some(inline_lines(self, &prepared, request)))
    }

    /// [`Offloader::offload`] on records a binding already wrote one per line, in the
    /// form [`Body::of_values`] writes (compact, serde_json's spelling, unique keys): a
    /// binding that serializes its own objects (Python dicts, say) skips the text scan.
    pub fn offload_lines(&self, lines: Body, request: &OffloadRequest) -> Result<Outcome> {
        let prepared = prepare_lines(self, lines, request)?;
        if prepared.kind == RecordKind::Raw && is_tree(&prepared.body) {
            // Trees are flattened on the `Value` path.
            let records: Vec<Value> = (0..prepared.count())
                .map(|i| prepared.body.value(i))
                .collect();
            return self.offload(&Value::Array(records), request);
        }
        if offloads(self, &prepared, request) {
            return Ok(materialize(self, prepared, request));
        }
        Ok(inline_lines(self, &prepared, request))
    }

    /// The `inject_context` rule: the *pre-budget* result set decides. Above the threshold
    /// the full set is offloaded and `formatted` is discarded; otherwise `formatted` (the
    /// budgeted prompt text) is returned inline as `results`.
    pub fn offload_inject(
        &self,
        formatted: &str,
        pre_budget: &Value,
        request: &OffloadRequest,
    ) -> Result<Outcome> {
        let prepared = prepare(self, pre_budget, request)?;
        if !offloads(self, &prepared, request) {
            return Ok(Outcome::Inline(InlineResult {
                offloaded: false,
                estimated_tokens: prepared.tokens,
                estimate: prepared.estimate.clone(),
                count: prepared.count(),
                results: Value::from(formatted),
                next_cursor: request.next_cursor.clone(),
                truncated: false,
                total_count: None,
                warning: None,
                threshold_tokens: self.reported_threshold(request),
            }));
        }
        Ok(materialize(self, prepared, request))
    }

    /// Offloads tool *text*: a JSON array goes through the text path (no `Value` tree), any
    /// other text is read as [`crate::shape`] reads strings (JSON, a Python literal, a table,
    /// or one record per line), a large one from its text too (`crate::shape::text_layout`).
    pub fn offload_text(&self, text: &str, request: &OffloadRequest) -> Result<Outcome> {
        self.offload_text_parts(text, request, TEXT_PART_MIN)
    }

    /// [`Offloader::offload_text`], texts longer than `min_text` read from their text.
    #[doc(hidden)]
    pub fn offload_text_parts(
        &self,
        text: &str,
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Outcome> {
        if text.trim_start().starts_with('[') {
            match self.offload_json(text.as_bytes(), request) {
                Err(err) if err.code() == ErrorCode::InvalidInput => {}
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

    /// Offloads the text blocks of one tool result (an MCP `CallToolResult`'s `text`
    /// items): several blocks that each hold data are one record each (a list returned one
    /// item per block); otherwise their text, joined by newlines, is read as
    /// [`Offloader::offload_text`] reads it.
    pub fn offload_text_blocks(&self, texts: &[&str], request: &OffloadRequest) -> Result<Outcome> {
        if texts.len() > 1 {
            // Each block's JSON read as a `Value` keeps the last value of a key named twice:
            // counted, to be reported.
            let mut duplicate_keys = 0;
            let values: Option<Vec<Value>> = texts
                .iter()
                .map(|text| match read_text(text) {
                    TextRead::Value(value, format) => {
                        if format == Format::Json {
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

    /// [`Offloader::offload_text_blocks`] on text blocks given as JSON strings (quoted and
    /// escaped, as a result's text holds them), texts longer than `min_text` read from their
    /// text. A block that is not a JSON string is `invalid_input`.
    #[doc(hidden)]
    pub fn offload_text_block_strings(
        &self,
        texts: &[&str],
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Outcome> {
        if texts.len() > 1 {
            let mut records = Body::default();
            let mut duplicate_keys = 0;
            let all_values = texts.iter().all(|text| {
                decode_block(text)
                    .and_then(|content| read_record(&content))
                    .map(|(record, repeated)| {
                        duplicate_keys += repeated;
                        records.push_line_with(|out| out.extend_from_slice(&record));
                    })
                    .is_some()
            });
            if all_values {
                if let Some(outcome) =
                    self.offload_record_lines(records, request, duplicate_keys)?
                {
                    return Ok(outcome);
                }
            }
            // Mixed blocks, a tree, or records that stay inline: the rule on the texts.
            let decoded: Option<Vec<_>> = texts.iter().map(|t| decode_block(t)).collect();
            let decoded = decoded.ok_or_else(not_json)?;
            let decoded: Vec<&str> = decoded.iter().map(AsRef::as_ref).collect();
            return self.offload_text_blocks(&decoded, request);
        }
        let joined = decode_block(texts[0]).ok_or_else(not_json)?;
        self.offload_text_parts(&joined, request, min_text)
    }

    /// Deletes expired offload files in the output directory. A missing directory is an
    /// empty report, not an error.
    pub fn cleanup(&self) -> Result<CleanupReport> {
        cleanup::run(self)
    }

    /// The descriptor of the file written from `prepared` at `file_path` (extraction's
    /// `describe` rebuilds it from a file's header).
    #[cfg(feature = "extract")]
    pub(crate) fn describe(
        &self,
        prepared: &Prepared<'_>,
        request: &OffloadRequest,
        file_path: String,
    ) -> crate::descriptor::OffloadResponse {
        descriptor::describe(self, prepared, request, file_path)
    }

    /// [`Offloader::offload`] of the value the JSON text `json` holds, parts up to
    /// `min_text` bytes parsed; `None` when the text layout declines.
    #[doc(hidden)]
    pub fn offload_json_text(
        &self,
        json: &str,
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Option<Outcome>> {
        text::offload_json_text(self, json, request, min_text)
    }

    /// [`Offloader::offload`] of `Value::String(text)`, laid out from the text; `None`
    /// when the layout declines.
    pub(crate) fn offload_text_layout(
        &self,
        text: &str,
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Option<Outcome>> {
        text::offload_text_layout(self, text, request, min_text)
    }

    /// [`Offloader::offload`] of records written one per line, when they are offloaded;
    /// `None` otherwise (the caller takes the `Value` path).
    pub(crate) fn offload_record_lines(
        &self,
        records: Body,
        request: &OffloadRequest,
        duplicate_keys: usize,
    ) -> Result<Option<Outcome>> {
        text::offload_record_lines(self, records, request, duplicate_keys)
    }
}

/// The content of a text block given as its JSON string; a lone surrogate in it (which no
/// string can hold) is kept as the six characters of its escape, as everywhere
/// (crate::shape::odd). `None` for a text that is not a JSON string.
fn decode_block(text: &str) -> Option<Cow<'_, str>> {
    read::decode_str(text).or_else(|| {
        let escaped = crate::json::parse::escape_lone_surrogates(text)?;
        read::decode_str(&escaped).map(|content| Cow::Owned(content.into_owned()))
    })
}

fn not_json() -> LroError {
    LroError::new(ErrorCode::InvalidInput, "the tool result is not valid JSON")
}
