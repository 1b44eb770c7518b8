//! Offloading a large result given as text, without its `Value` tree: a JSON object (a
//! tool's structured content as a proxy receives it, a Python `str` of a dict), or a tool's
//! text, read as [`crate::shape`] reads strings. [`TextLayout`] writes the records straight
//! to the file's lines; the outcome is the one [`Offloader::offload`] gives for the `Value`.
//!
//! Small texts (up to [`TEXT_PART_MIN`] bytes) keep the `Value` path, which is as fast for
//! them; so does anything the text layout declines.

use serde_json::Value;

use crate::descriptor::SectionInfo;
use crate::error::{ErrorCode, LroError, Result};
use crate::host::Host;
use crate::json::raw;
use crate::jsonl::Body;
use crate::offload::{OffloadRequest, Offloader, Outcome, Prepared, check_operation};
use crate::shape::raw::{TEXT_PART_MIN, TextLayout, read_record};
use crate::shape::{Format, TextRead, read_text};

impl<H: Host> Offloader<H> {
    /// Offloads tool *text*: a JSON array goes through the text path (no `Value` tree), any
    /// other text is read as [`crate::shape`] reads strings (JSON, a Python literal, a table,
    /// or one record per line), a large one from its text too ([`crate::shape::raw`]).
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
                raw::decode_str(text)
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
            let decoded: Option<Vec<_>> = texts.iter().map(|t| raw::decode_str(t)).collect();
            let decoded = decoded.ok_or_else(not_json)?;
            let decoded: Vec<&str> = decoded.iter().map(AsRef::as_ref).collect();
            return self.offload_text_blocks(&decoded, request);
        }
        let joined = raw::decode_str(texts[0]).ok_or_else(not_json)?;
        self.offload_text_parts(&joined, request, min_text)
    }

    /// [`Offloader::offload`] of the large JSON object `json` holds (the caller's fallback
    /// for other texts: `None`).
    pub(crate) fn offload_object_text(
        &self,
        json: &[u8],
        request: &OffloadRequest,
    ) -> Result<Option<Outcome>> {
        let Ok(text) = std::str::from_utf8(json) else {
            return Ok(None);
        };
        if json.len() <= TEXT_PART_MIN || !raw::trim(text).starts_with('{') {
            return Ok(None);
        }
        self.offload_json_text(text, request, TEXT_PART_MIN)
    }

    /// [`Offloader::offload`] of the value the JSON text `json` holds, read by
    /// [`TextLayout::of_json`] with parts up to `min_text` bytes parsed. `None` when the
    /// layout declines (or LRO is off): the caller takes the `Value` path.
    #[doc(hidden)]
    pub fn offload_json_text(
        &self,
        json: &str,
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Option<Outcome>> {
        self.offload_laid_out(
            request,
            || TextLayout::of_json(json, min_text),
            // Below the threshold the result is small: its value is returned as it is.
            || serde_json::from_str::<Value>(json).ok(),
        )
    }

    /// [`Offloader::offload`] of `Value::String(text)`: the text read as
    /// [`crate::shape::read_text`] reads it, by [`TextLayout::of_text`]. `None` when the
    /// layout declines (or LRO is off).
    pub(crate) fn offload_text_layout(
        &self,
        text: &str,
        request: &OffloadRequest,
        min_text: usize,
    ) -> Result<Option<Outcome>> {
        self.offload_laid_out(
            request,
            || TextLayout::of_text(text, min_text),
            || Some(Value::String(text.to_owned())),
        )
    }

    /// The offload of a result `lay_out` reads from its text; when it stays inline, the
    /// value `original` gives is the inline result (`None` from either: the `Value` path).
    fn offload_laid_out(
        &self,
        request: &OffloadRequest,
        lay_out: impl FnOnce() -> Option<TextLayout>,
        original: impl FnOnce() -> Option<Value>,
    ) -> Result<Option<Outcome>> {
        if !self.config.enabled {
            return Ok(None);
        }
        check_operation(&request.operation)?;
        let Some(layout) = lay_out() else {
            return Ok(None);
        };
        let prepared = self.prepared_layout(layout, request);
        if self.offloads(&prepared, request) {
            return Ok(Some(self.materialize(prepared, request)));
        }
        let Some(value) = original() else {
            return Ok(None);
        };
        Ok(Some(Outcome::Inline(
            self.inline(&value, &prepared, request),
        )))
    }

    /// [`Offloader::offload`] of the array of records written one per line in `records`
    /// (compact, serde_json's spelling, as [`crate::jsonl::Body::of_values`] writes them),
    /// when they are offloaded. `None` when they form a tree or stay inline (or LRO is
    /// off): the caller then takes the `Value` path, which needs the records as they were.
    /// Their texts named `duplicate_keys` keys twice, which the outcome reports.
    pub(crate) fn offload_record_lines(
        &self,
        records: crate::jsonl::Body,
        request: &OffloadRequest,
        duplicate_keys: usize,
    ) -> Result<Option<Outcome>> {
        if !self.config.enabled {
            return Ok(None);
        }
        check_operation(&request.operation)?;
        let Some(layout) = TextLayout::of_records(records) else {
            return Ok(None);
        };
        let mut prepared = self.prepared_layout(layout, request);
        prepared.duplicate_keys += duplicate_keys;
        Ok(self
            .offloads(&prepared, request)
            .then(|| self.materialize(prepared, request)))
    }

    /// What [`Offloader::offload`]'s preparation makes of the same sections: one plain
    /// section of records is classified (MIF memories are projected), several are listed.
    fn prepared_layout(&self, layout: TextLayout, request: &OffloadRequest) -> Prepared<'static> {
        // The keys named twice in the parts the layout parsed (crate::json::dupes).
        let (body, mut written, envelope, duplicate_keys) = layout.into_parts();
        let single_records = matches!(written.as_slice(), [only]
            if only.tree.is_none() && !only.entries && only.format != Format::Text);
        if single_records {
            let section = written.remove(0);
            let (kind, body) = body.classify(&request.operation, request.detail);
            let count = body.len();
            let mut prepared = self.prepared_lines(kind, body);
            prepared.format = section.format;
            if let Some(name) = section.name {
                prepared.format = Format::Json;
                prepared.sections = vec![SectionInfo {
                    name: Some(name),
                    first_line: 2,
                    count,
                    format: section.format,
                    tree: None,
                    entries: false,
                }];
            }
            prepared.envelope = envelope;
            prepared.duplicate_keys = duplicate_keys;
            return prepared;
        }
        let mut first_line = 2;
        let mut sections: Vec<SectionInfo> = written
            .into_iter()
            .map(|section| {
                let info = SectionInfo {
                    name: section.name,
                    first_line,
                    count: section.count,
                    format: section.format,
                    tree: section.tree,
                    entries: section.entries,
                };
                first_line += section.count;
                info
            })
            .collect();
        // One section that is only text, say: its format is the file's, no list needed.
        let mut format = Format::Json;
        if let [only] = sections.as_slice() {
            if only.name.is_none() && only.tree.is_none() && !only.entries {
                format = only.format;
                sections.clear();
            }
        }
        let mut prepared = self.prepared_lines(crate::payload::RecordKind::Raw, body);
        prepared.format = format;
        prepared.sections = sections;
        prepared.envelope = envelope;
        prepared.duplicate_keys = duplicate_keys;
        prepared
    }
}

fn not_json() -> LroError {
    LroError::new(ErrorCode::InvalidInput, "the tool result is not valid JSON")
}
