//! The JSONL file body: one compact JSON record per line, projected to the detail level.
//!
//! Two ways in, one result: [`Body::of_values`] writes `Value` records, [`Body::from_json`]
//! takes a JSON array as text (the fast path, no tree). Both produce serde_json's compact
//! spelling (see [`crate::json`]), and projection works on the compact lines, so a file
//! does not depend on the way its records arrived.

use serde_json::Value;

use crate::descriptor::OffloadHeader;
use crate::detail::{Detail, LIGHT_FIELDS};
use crate::json::canonical::{self, Element};
use crate::json::{fields, write};
use crate::payload::RecordKind;

/// From this many records on, [`Body::of_values`] writes on several threads: below it,
/// starting threads costs more than it saves.
#[cfg(not(target_family = "wasm"))]
const PARALLEL_MIN_RECORDS: usize = 2048;

/// The serialized records: `bytes` holds every line with its `\n`; `line_ends[i]` is the
/// offset just past record `i`'s newline.
#[derive(Debug, Default)]
pub struct Body {
    /// All record lines, newline-terminated.
    pub bytes: Vec<u8>,
    /// End offset of each line.
    pub line_ends: Vec<usize>,
    /// Where each line's descriptor fields are, when noted while writing (one per line, or
    /// none at all).
    landmarks: Vec<Landmarks>,
}

/// Where the fields the descriptor reads sit in one line, as offsets into [`Body::bytes`]:
/// noted while a line is written from scanned text, so that [`crate::tally::Tally`] need
/// not walk the line again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Landmarks {
    /// The `namespace` value's JSON text.
    pub namespace: Option<(usize, usize)>,
    /// The `memory_type` value's JSON text.
    pub memory_type: Option<(usize, usize)>,
    /// The `tags` value's JSON text.
    pub tags: Option<(usize, usize)>,
}

impl Landmarks {
    /// Notes the field `key` when it is one of the descriptor's, its value at `value`.
    #[inline]
    fn note(&mut self, key: &[u8], value: (usize, usize)) {
        match key {
            b"namespace" => self.namespace = Some(value),
            b"memory_type" => self.memory_type = Some(value),
            b"tags" => self.tags = Some(value),
            _ => {}
        }
    }
}

impl Body {
    /// Lines already written (by a binding): `bytes` holds every line with its `\n`,
    /// `line_ends[i]` is the offset just past line `i`'s newline.
    pub fn new(bytes: Vec<u8>, line_ends: Vec<usize>) -> Self {
        Self {
            bytes,
            line_ends,
            landmarks: Vec::new(),
        }
    }

    /// The landmarks of every line, when they were noted.
    pub(crate) fn landmarks(&self) -> Option<&[Landmarks]> {
        (self.landmarks.len() == self.len()).then_some(&self.landmarks)
    }

    /// Every value written on a line of its own, as it is (no projection). Large sets are
    /// written on several threads (natively), in chunks joined in order.
    pub fn of_values(values: &[Value]) -> Self {
        #[cfg(not(target_family = "wasm"))]
        if values.len() >= PARALLEL_MIN_RECORDS {
            if let Some(body) = Self::of_values_parallel(values) {
                return body;
            }
        }
        Self::of_values_serial(values)
    }

    fn of_values_serial(values: &[Value]) -> Self {
        /// Records written before the rest is reserved at their average size.
        const PROBE: usize = 16;
        let mut body = Self {
            bytes: Vec::with_capacity(4096),
            line_ends: Vec::with_capacity(values.len()),
            landmarks: Vec::new(),
        };
        for (i, value) in values.iter().enumerate() {
            if i == PROBE {
                // One reservation instead of doubling (each doubling copies the whole body).
                let average = body.bytes.len() / PROBE;
                body.bytes
                    .reserve((values.len() - PROBE) * (average + average / 8));
            }
            write::write_value(&mut body.bytes, value);
            body.end_line();
        }
        body
    }

    /// [`Body::of_values_serial`] on up to four threads; `None` when threads are not to be had.
    #[cfg(not(target_family = "wasm"))]
    fn of_values_parallel(values: &[Value]) -> Option<Self> {
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZero::get)
            .min(4);
        if threads < 2 {
            return None;
        }
        let chunk = values.len().div_ceil(threads);
        let parts: Vec<Self> = std::thread::scope(|scope| {
            let spawned: Vec<_> = values
                .chunks(chunk)
                .map(|part| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || Self::of_values_serial(part))
                })
                .collect();
            // A thread that could not start leaves the job to the serial path.
            let handles: Vec<_> = spawned.into_iter().collect::<std::io::Result<_>>().ok()?;
            Some(
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect(),
            )
        })?;
        let mut parts = parts.into_iter();
        let mut body = parts.next()?;
        let rest: Vec<Self> = parts.collect();
        body.bytes.reserve(rest.iter().map(|p| p.bytes.len()).sum());
        for part in rest {
            let offset = body.bytes.len();
            body.bytes.extend_from_slice(&part.bytes);
            body.line_ends
                .extend(part.line_ends.iter().map(|end| end + offset));
        }
        Some(body)
    }

    /// The elements of a JSON array given as text, one per line, as [`Body::of_values`]
    /// would write them; `None` when the text is not an array or needs the `Value` path
    /// (see [`canonical::for_each_element`]).
    pub fn from_json(json: &[u8]) -> Option<Self> {
        let mut raw = Self::with_capacity(json.len());
        canonical::for_each_element(json, |element| {
            raw.push_element(element, Detail::Full);
            true
        })?;
        Some(raw)
    }

    /// [`Body::from_json`] then [`Body::classify`], in one pass over the text: each record
    /// is projected as soon as it is read, so the full records are never all in memory.
    /// Should a record prove the set is not MIF, the text is read again as raw records.
    pub fn from_json_classified(
        json: &[u8],
        operation: &str,
        detail: Option<Detail>,
    ) -> Option<(RecordKind, Self)> {
        let detail = detail.unwrap_or_else(|| Detail::default_for(operation));
        let mut mif = Self::with_capacity(json.len());
        let all_mif = canonical::for_each_element(json, |record| {
            is_mif_element(&record) && {
                mif.push_element(record, detail);
                true
            }
        })?;
        if all_mif && !mif.is_empty() {
            return Some((RecordKind::Mif(detail), mif));
        }
        drop(mif);
        // Raw records without landmarks: they would take more memory than small records
        // themselves (the descriptor reads them from the lines instead).
        let mut raw = Self::default();
        raw.push_json_elements(json)?;
        Some((RecordKind::Raw, raw))
    }

    /// Appends the elements of a JSON array given as text, one per line, as
    /// [`Body::from_json`] writes them (without landmarks: they serve MIF records, which
    /// a single section is projected into afterwards); returns how many. `None`, and the
    /// body as it was, when the text needs the `Value` path.
    pub(crate) fn push_json_elements(&mut self, json: &[u8]) -> Option<usize> {
        let (lines, bytes) = (self.len(), self.bytes.len());
        // Address space for the whole text: pages cost nothing until written.
        self.bytes.reserve(json.len());
        let scanned = canonical::for_each_element(json, |element| {
            self.bytes.extend_from_slice(element.text);
            self.end_line();
            true
        });
        if scanned.is_none() {
            self.line_ends.truncate(lines);
            self.bytes.truncate(bytes);
            return None;
        }
        Some(self.len() - lines)
    }

    /// Appends one record, written by `write` as compact JSON in serde_json's spelling.
    pub(crate) fn push_line_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.bytes);
        self.end_line();
    }

    /// Keeps the first `lines` lines only.
    pub(crate) fn truncate(&mut self, lines: usize) {
        if lines >= self.len() {
            return;
        }
        self.bytes.truncate(if lines == 0 {
            0
        } else {
            self.line_ends[lines - 1]
        });
        self.line_ends.truncate(lines);
        self.landmarks.truncate(lines);
    }

    /// Appends the lines of `other` (landmarks are kept only while both bodies have them).
    pub fn append(&mut self, other: Self) {
        let both_marked = self.landmarks().is_some() && other.landmarks().is_some();
        let offset = self.bytes.len();
        if self.bytes.is_empty() {
            *self = other;
            return;
        }
        self.bytes.extend_from_slice(&other.bytes);
        self.line_ends
            .extend(other.line_ends.iter().map(|end| end + offset));
        if both_marked {
            self.landmarks
                .extend(other.landmarks.iter().map(|marks| Landmarks {
                    namespace: marks.namespace.map(|(a, b)| (a + offset, b + offset)),
                    memory_type: marks.memory_type.map(|(a, b)| (a + offset, b + offset)),
                    tags: marks.tags.map(|(a, b)| (a + offset, b + offset)),
                }));
        } else {
            self.landmarks.clear();
        }
    }

    /// Room for `bytes` of lines: reserved address space costs nothing until written.
    fn with_capacity(bytes: usize) -> Self {
        Self {
            bytes: Vec::with_capacity(bytes),
            line_ends: Vec::new(),
            landmarks: Vec::new(),
        }
    }

    fn end_line(&mut self) {
        self.bytes.push(b'\n');
        self.line_ends.push(self.bytes.len());
    }

    /// Number of lines (records).
    pub fn len(&self) -> usize {
        self.line_ends.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.line_ends.is_empty()
    }

    /// The text of the body (always UTF-8: it is compact JSON of `str` data).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes).unwrap_or_default()
    }

    /// Line `i` without its newline.
    pub fn line(&self, i: usize) -> &str {
        std::str::from_utf8(self.line_bytes(i)).unwrap_or_default()
    }

    fn line_bytes(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.line_ends[i - 1] };
        &self.bytes[start..self.line_ends[i] - 1]
    }

    /// Every line without its newline.
    pub fn lines(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|i| self.line_bytes(i))
    }

    /// Line `i` parsed back into a `Value`.
    pub fn value(&self, i: usize) -> Value {
        crate::json::parse::from_slice(self.line_bytes(i)).unwrap_or(Value::Null)
    }

    /// Whether these records are MIF memories: every line an object with an `id` and a
    /// `memory_type` or `namespace`.
    pub fn is_mif(&self) -> bool {
        !self.is_empty() && self.lines().all(is_mif_record)
    }

    /// Classifies full-detail lines and projects MIF memories to `detail` (`None`: the
    /// operation's default, see [`Detail::default_for`]); raw records stay as they are.
    pub fn classify(self, operation: &str, detail: Option<Detail>) -> (RecordKind, Self) {
        let mif = self.is_mif();
        self.classify_as(mif, operation, detail)
    }

    /// [`Body::classify`] when whether the lines are MIF memories is already known (from
    /// the records they were written from: [`crate::payload::is_mif`]).
    pub fn classify_as(
        self,
        mif: bool,
        operation: &str,
        detail: Option<Detail>,
    ) -> (RecordKind, Self) {
        if mif {
            let detail = detail.unwrap_or_else(|| Detail::default_for(operation));
            (RecordKind::Mif(detail), self.project(detail))
        } else {
            (RecordKind::Raw, self)
        }
    }

    /// These lines projected to `detail` (Light and Medium keep their fields in the order
    /// of [`Detail::project`]; Full keeps everything).
    pub fn project(self, detail: Detail) -> Self {
        if detail == Detail::Full {
            return self;
        }
        let mut out = Self::with_capacity(self.bytes.len());
        for line in self.lines() {
            out.push_projected(line, detail);
        }
        out
    }

    /// Appends the compact record `line` projected to `detail`, as a line.
    fn push_projected(&mut self, line: &[u8], detail: Detail) {
        if detail == Detail::Full || line.first() != Some(&b'{') {
            let start = self.bytes.len();
            self.bytes.extend_from_slice(line);
            let mut marks = Landmarks::default();
            for (key, value) in fields::fields(line) {
                let from = start + (value.as_ptr() as usize - line.as_ptr() as usize);
                marks.note(key, (from, from + value.len()));
            }
            self.landmarks.push(marks);
            self.end_line();
            return;
        }
        // Up to 16 fields looked up in place; past that, in a list.
        let mut found: Vec<(&[u8], &[u8])> = Vec::new();
        found.extend(fields::fields(line));
        self.push_fields(
            |name| {
                found
                    .iter()
                    .find(|(k, _)| *k == name.as_bytes())
                    .map(|(_, v)| *v)
            },
            detail,
        );
    }

    /// Appends a scanned element projected to `detail`, as a line, noting its landmarks.
    fn push_element(&mut self, element: Element<'_>, detail: Detail) {
        let verbatim = match detail {
            Detail::Full => true,
            // Records already holding only Light fields, in Light order (what the Node
            // addon sends), project to themselves.
            Detail::Light => is_light_in_order(&element),
            Detail::Medium => false,
        };
        if !verbatim && element.text.first() == Some(&b'{') {
            self.push_fields(|name| element.get(name), detail);
            return;
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(element.text);
        let mut marks = Landmarks::default();
        for field in element.fields {
            let (from, to) = field.value;
            marks.note(element.key(field), (start + from, start + to));
        }
        self.landmarks.push(marks);
        self.end_line();
    }

    /// Appends the record whose top-level fields `get` finds, projected to Light or
    /// Medium, as a line, noting its landmarks.
    fn push_fields<'v>(&mut self, get: impl Fn(&str) -> Option<&'v [u8]>, detail: Detail) {
        let mut marks = Landmarks::default();
        let out = &mut self.bytes;
        out.push(b'{');
        let mut first = true;
        let mut put = |out: &mut Vec<u8>, key: &str, value: &[u8]| {
            if !first {
                out.push(b',');
            }
            first = false;
            write::write_str(out, key);
            out.push(b':');
            let start = out.len();
            out.extend_from_slice(value);
            marks.note(key.as_bytes(), (start, out.len()));
        };
        for key in LIGHT_FIELDS {
            if let Some(value) = get(key) {
                put(out, key, value);
            }
        }
        if detail == Detail::Medium {
            for key in ["content", "summary"] {
                if let Some(value) = get(key) {
                    put(out, key, value);
                }
            }
            let confidence = get("provenance")
                .and_then(|p| fields::get(p, "confidence"))
                .or_else(|| get("confidence"));
            if let Some(value) = confidence {
                put(out, "confidence", value);
            }
        }
        out.push(b'}');
        self.landmarks.push(marks);
        self.end_line();
    }
}

/// MIF memories arriving as several JSON arrays of text, in order: the text path of
/// [`crate::Offloader::offload_json`] taken a piece at a time, so that a binding can
/// serialize the next piece while this one is scanned (on another thread). Fed the pieces
/// of one array, it builds the body that array's text would give.
///
/// Only MIF memories are taken: a record that is not one (or a piece the text path does
/// not take) ends the scan, and [`MifChunks::finish`] gives `None`; the caller then offloads
/// the records whole, which classifies them as usual.
#[derive(Debug)]
pub struct MifChunks {
    detail: Detail,
    body: Body,
    taken: bool,
}

impl MifChunks {
    /// Chunks to be projected to `detail` (`None`: the operation's default).
    pub fn new(operation: &str, detail: Option<Detail>) -> Self {
        Self {
            detail: detail.unwrap_or_else(|| Detail::default_for(operation)),
            body: Body::default(),
            taken: true,
        }
    }

    /// Scans one piece, a JSON array of records; returns whether the pieces so far are
    /// still MIF memories the text path takes (once not, later pieces are not read).
    pub fn push_json(&mut self, chunk: &[u8]) -> bool {
        if self.taken {
            if self.body.bytes.capacity() == 0 {
                self.body.bytes.reserve(chunk.len());
            }
            let (detail, body) = (self.detail, &mut self.body);
            self.taken = canonical::for_each_element(chunk, |record| {
                is_mif_element(&record) && {
                    body.push_element(record, detail);
                    true
                }
            }) == Some(true);
        }
        self.taken
    }

    /// The detail level the records are projected to.
    pub fn detail(&self) -> Detail {
        self.detail
    }

    /// The body of every piece, when all were MIF memories (and there was at least one).
    pub fn finish(self) -> Option<Body> {
        (self.taken && !self.body.is_empty()).then_some(self.body)
    }
}

/// Whether an element's fields are all Light fields, in Light order: its Light
/// projection is then the element itself.
fn is_light_in_order(element: &Element<'_>) -> bool {
    let mut next = 0;
    element.text.first() == Some(&b'{')
        && element.fields.iter().all(|field| {
            let key = element.key(field);
            match LIGHT_FIELDS[next..]
                .iter()
                .position(|k| k.as_bytes() == key)
            {
                Some(at) => {
                    next += at + 1;
                    true
                }
                None => false,
            }
        })
}

/// [`is_mif_record`] on a scanned element, from its noted fields.
fn is_mif_element(element: &Element<'_>) -> bool {
    crate::payload::has_mif_keys(element.fields.iter().map(|field| element.key(field)))
}

/// Whether a compact record is a MIF memory: an object with an `id` and a `memory_type`
/// or `namespace`.
fn is_mif_record(line: &[u8]) -> bool {
    crate::payload::has_mif_keys(fields::fields(line).map(|(key, _)| key))
}

/// The header line, newline-terminated.
pub fn header_line(header: &OffloadHeader) -> Vec<u8> {
    let mut line = serde_json::to_vec(header).unwrap_or_default();
    line.push(b'\n');
    line
}

/// Parses a header line; `None` when it is not an LRO header. Its sections are not
/// checked: a reader that uses them takes [`checked_header`].
pub fn parse_header(line: &str) -> Option<OffloadHeader> {
    serde_json::from_slice::<OffloadHeader>(line.trim_end().as_bytes())
        .ok()
        .filter(|h| h.header_type == crate::descriptor::HEADER_TYPE)
}

/// The header of a file whose first line is `line` (`None`: the file is empty), for a reader
/// that trusts its sections or count: `invalid_input` when there is no LRO header, when a
/// field does not parse (a count or line number that fits no `usize`, say), or when its
/// sections lie about its records ([`OffloadHeader::check_sections`]). Every reader of
/// sections (the file commands, recipes, `describe`, the MCP resource listing) takes it.
pub fn checked_header(line: Option<&str>) -> crate::error::Result<OffloadHeader> {
    use crate::error::{ErrorCode, LroError};
    let no_header = || LroError::new(ErrorCode::InvalidInput, "the file has no LRO header line");
    let line = line.ok_or_else(no_header)?.trim_end();
    let header = match serde_json::from_slice::<OffloadHeader>(line.as_bytes()) {
        Ok(header) => header,
        Err(err) => {
            // An LRO header whose fields are wrong says what is wrong; anything else has none.
            #[derive(serde::Deserialize)]
            struct Marker {
                #[serde(rename = "type")]
                header_type: String,
            }
            let marked = serde_json::from_slice::<Marker>(line.as_bytes())
                .is_ok_and(|m| m.header_type == crate::descriptor::HEADER_TYPE);
            if !marked {
                return Err(no_header());
            }
            return Err(LroError::new(
                ErrorCode::InvalidInput,
                format!("the file's LRO header line is not valid: {err}"),
            ));
        }
    };
    if header.header_type != crate::descriptor::HEADER_TYPE {
        return Err(no_header());
    }
    header.check_sections()?;
    Ok(header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn projection_of_lines_matches_projection_of_values() {
        let records = json!([
            {"embedding": [1], "provenance": {"confidence": 0.9}, "content": "c\n", "id": "m1", "title": "t", "namespace": "n", "summary": null},
            {"id": "m2", "memory_type": "x", "confidence": 2, "provenance": [1]},
            {"id": "m3", "namespace": "n", "provenance": {"trust": 1}, "confidence": "top"},
        ]);
        let records = records.as_array().unwrap();
        for detail in [Detail::Light, Detail::Medium, Detail::Full] {
            let lines = Body::of_values(records).project(detail);
            let projected: Vec<Value> = records.iter().map(|r| detail.project(r)).collect();
            assert_eq!(lines.bytes, Body::of_values(&projected).bytes, "{detail}");
        }
    }

    #[test]
    fn parallel_writing_joins_chunks_in_order() {
        let records: Vec<Value> = (0..5000)
            .map(|i| json!({"id": i, "text": "x".repeat(i % 7)}))
            .collect();
        let parallel = Body::of_values(&records);
        let serial = Body::of_values_serial(&records);
        assert_eq!(parallel.bytes, serial.bytes);
        assert_eq!(parallel.line_ends, serial.line_ends);
    }

    #[test]
    fn text_and_values_give_the_same_body() {
        let text = br#"[ {"id": "m1", "namespace": "a\/b", "n": 1.50}, {"id": "m2", "memory_type": "x"} ]"#;
        let from_text = Body::from_json(text).unwrap();
        let value: Value = serde_json::from_slice(text).unwrap();
        assert_eq!(
            from_text.bytes,
            Body::of_values(value.as_array().unwrap()).bytes
        );
        for detail in [None, Some(Detail::Medium), Some(Detail::Full)] {
            let (kind, body) = Body::from_json_classified(text, "recall", detail).unwrap();
            let (want_kind, want) = Body::from_json(text).unwrap().classify("recall", detail);
            assert_eq!(
                (kind, body.bytes, body.line_ends),
                (want_kind, want.bytes, want.line_ends)
            );
        }
        // Not MIF from the second record on: read again as raw.
        let mixed = br#"[{"id": 1, "namespace": "n", "x": [1, 2]}, {"x": 2}]"#;
        let (kind, body) = Body::from_json_classified(mixed, "recall", None).unwrap();
        assert_eq!(
            (kind, body.as_str()),
            (
                RecordKind::Raw,
                "{\"id\":1,\"namespace\":\"n\",\"x\":[1,2]}\n{\"x\":2}\n"
            )
        );
        assert!(Body::from_json_classified(b"[1] x", "recall", None).is_none());
        assert!(
            Body::from_json_classified(br#"[{"id": 1, "namespace": "n"}] x"#, "recall", None)
                .is_none()
        );
        assert!(from_text.is_mif());
        assert_eq!(
            from_text.classify("recall", None).0,
            RecordKind::Mif(Detail::Light)
        );
        assert_eq!(
            Body::from_json(br#"[{"id": 1, "namespace": "n"}]"#)
                .unwrap()
                .classify("inject", None)
                .0,
            RecordKind::Mif(Detail::Medium)
        );
        assert_eq!(
            Body::from_json(br#"[{"id": 1}]"#)
                .unwrap()
                .classify("inject", None)
                .0,
            RecordKind::Raw
        );
        assert!(!Body::from_json(br#"[{"id": 1}]"#).unwrap().is_mif());
        assert!(!Body::from_json(b"[]").unwrap().is_mif());
    }

    // The MIF rule on `Value` records (payload.rs) is the rule on their lines.
    proptest! {
        #[test]
        fn mif_rule_on_values_matches_the_rule_on_lines(
            records in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(
                        (prop_oneof![Just("id"), Just("memory_type"), Just("namespace"), Just("x")], lro_json::strategy::arb_json()),
                        0..4,
                    )
                    .prop_map(|fields| Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
                    lro_json::strategy::arb_json(),
                ],
                0..6,
            )
        ) {
            prop_assert_eq!(crate::payload::is_mif(&records), Body::of_values(&records).is_mif());
        }
    }
}
