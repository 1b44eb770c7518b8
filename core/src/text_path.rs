//! Offloading a large result given as text, without its `Value` tree: a JSON object (a
//! tool's structured content as a proxy receives it, a Python `str` of a dict), or a tool's
//! text, read as [`crate::shape`] reads strings. [`TextLayout`] writes the records straight
//! to the file's lines; the outcome is the one [`Offloader::offload`] gives for the `Value`.
//!
//! Small texts (up to [`TEXT_PART_MIN`] bytes) keep the `Value` path, which is as fast for
//! them; so does anything the text layout declines.

use serde_json::Value;

use crate::descriptor::SectionInfo;
use crate::error::Result;
use crate::host::Host;
use crate::json::read;
use crate::offload::{OffloadRequest, Offloader, Outcome, Prepared, check_operation};
use crate::shape::Format;
use crate::shape::raw::{TEXT_PART_MIN, TextLayout};

impl<H: Host> Offloader<H> {
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
        if json.len() <= TEXT_PART_MIN || !read::trim(text).starts_with('{') {
            return Ok(None);
        }
        self.offload_json_text(text, request, TEXT_PART_MIN)
    }

    /// [`Offloader::offload`] of the value the JSON text `json` holds, read by
    /// [`TextLayout::of_json`] with parts up to `min_text` bytes parsed. `None` when the
    /// layout declines (or LRO is off): the caller takes the `Value` path.
    pub(crate) fn offload_json_text(
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
