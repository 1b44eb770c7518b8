//! The JSONL file body: one compact JSON record per line, projected to the detail level
//! while serializing (no intermediate copies of the records).

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::descriptor::OffloadHeader;
use crate::detail::{Detail, LIGHT_FIELDS};
use crate::error::{ErrorCode, LroError, Result};
use crate::payload::RecordKind;

/// A record seen at a detail level, serialized without cloning it.
struct Projected<'a> {
    record: &'a Value,
    detail: Detail,
}

impl Serialize for Projected<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(fields) = self.record else { return self.record.serialize(serializer) };
        if self.detail == Detail::Full {
            return self.record.serialize(serializer);
        }
        let mut map = serializer.serialize_map(None)?;
        for key in LIGHT_FIELDS {
            if let Some(v) = fields.get(key) {
                map.serialize_entry(key, v)?;
            }
        }
        if self.detail == Detail::Medium {
            for key in ["content", "summary"] {
                if let Some(v) = fields.get(key) {
                    map.serialize_entry(key, v)?;
                }
            }
            let confidence =
                fields.get("provenance").and_then(|p| p.get("confidence")).or_else(|| fields.get("confidence"));
            if let Some(c) = confidence {
                map.serialize_entry("confidence", c)?;
            }
        }
        map.end()
    }
}

/// The serialized records: `bytes` holds every line with its `\n`; `line_ends[i]` is the
/// offset just past record `i`'s newline.
#[derive(Debug, Default)]
pub struct Body {
    /// All record lines, newline-terminated.
    pub bytes: Vec<u8>,
    /// End offset of each line.
    pub line_ends: Vec<usize>,
}

impl Body {
    /// The text of the body (always UTF-8: it is serde_json output).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes).unwrap_or_default()
    }

    /// Line `i` without its newline.
    pub fn line(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.line_ends[i - 1] };
        let end = self.line_ends[i] - 1;
        std::str::from_utf8(&self.bytes[start..end]).unwrap_or_default()
    }
}

/// Serializes `records` one per line at the level `kind` asks for.
pub fn serialize_records(records: &[Value], kind: RecordKind) -> Result<Body> {
    let detail = match kind {
        RecordKind::Mif(d) => d,
        RecordKind::Raw => Detail::Full,
    };
    // Records serialize to roughly their source size; a little headroom avoids regrowth.
    let mut body = Body { bytes: Vec::with_capacity(records.len() * 256), line_ends: Vec::with_capacity(records.len()) };
    for record in records {
        serde_json::to_writer(&mut body.bytes, &Projected { record, detail })
            .map_err(|e| LroError::new(ErrorCode::InvalidInput, format!("record cannot be serialized: {e}")))?;
        body.bytes.push(b'\n');
        body.line_ends.push(body.bytes.len());
    }
    Ok(body)
}

/// The header line, newline-terminated.
pub fn header_line(header: &OffloadHeader) -> Vec<u8> {
    let mut line = serde_json::to_vec(header).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Parses a header line; `None` when it is not an LRO header.
pub fn parse_header(line: &str) -> Option<OffloadHeader> {
    serde_json::from_str::<OffloadHeader>(line.trim_end()).ok().filter(|h| h.header_type == crate::descriptor::HEADER_TYPE)
}
