//! A result given as JSON text, laid out as [`Layout`] lays out its `Value`, without the
//! tree of its large parts.
//!
//! Parsed into a `serde_json::Value`, a result of small records takes about eight times its
//! text (a map, a string and a number per field): a 56 MB tool result became a 750 MB proxy.
//! Here a part of at most [`TEXT_PART_MIN`] bytes of text is still parsed and laid out by
//! [`Layout`] itself; a larger part is read from its text and its records go straight to
//! the file's lines:
//! - an object is read field by field ([`read::object_fields`] gives each field's text),
//!   and taken apart, kept whole or made entries by [`Layout`]'s rules, decided on the same
//!   facts ([`is_large`] from [`read::compact_len`], a tree's root from a walk of its nodes);
//! - an array's elements are written one per line as they are scanned
//!   ([`Body::push_json_elements`]), then checked for a tree;
//! - a string is decoded once and read as [`super::read_text`] reads it: JSON (again by
//!   these rules), a Python literal, a table, or lines of text written as records.
//!
//! Sections come in the input's order, into one [`Body`], whichever way each part was read,
//! and the lines are the ones [`Body::of_values`] writes for the `Value` (the canonical scan
//! guarantees it): the file, the sections and the envelope do not depend on the path. What
//! this reading cannot vouch for (a key given twice, nesting near serde_json's limit, a
//! large tree) makes it decline, and the caller takes the `Value` path, which then decides.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::text::{self, MAX_UNWRAP};
use super::tree::{self, KeyWalk};
use super::{
    Format, Layout, MAX_DEPTH, MAX_SECTIONS, SMALL_FIELD, Section, TableInfo, TreeInfo,
    is_keyed_collection, is_large,
};
use crate::json::{canonical, dupes, fields, read, write};
use crate::jsonl::Body;

/// Parts of a result whose JSON text is at most this long are parsed into a `Value` and
/// laid out by [`Layout`]: as fast as reading them from their text, and proven. Larger ones
/// are read from their text, so that the memory a part takes is bounded by this (times the
/// `Value`'s overhead) rather than by the size of the result.
pub const TEXT_PART_MIN: usize = 64 * 1024;

/// How deep a part parsed on its own may nest, counting the containers it sits in: serde_json
/// refuses a text nested 128 deep, and a part must not be read where its whole text would
/// not. Deeper, the `Value` path decides.
const MAX_NESTING: usize = 100;

/// A section of the body: where its records came from and how many lines they took.
#[derive(Debug)]
pub(crate) struct Written {
    /// The path of keys, dot-joined; `None` for the result itself.
    pub(crate) name: Option<String>,
    /// Lines in the body.
    pub(crate) count: usize,
    /// How the records were read.
    pub(crate) format: Format,
    /// Set when a tree was flattened into these records.
    pub(crate) tree: Option<TreeInfo>,
    /// The records are a map's `{"key", "value"}` entries.
    pub(crate) entries: bool,
    /// Set when the records are a table's rows.
    pub(crate) table: Option<TableInfo>,
}

/// A result's records written as lines, section after section, and its envelope.
#[derive(Debug)]
pub(crate) struct TextLayout {
    /// Parts whose text is at most this long are parsed ([`TEXT_PART_MIN`]; tests use less).
    min_text: usize,
    /// Where the parts read as `Value`s are laid out: its envelope is the result's, its
    /// sections move to `body` as soon as they appear.
    layout: Layout<'static>,
    body: Body,
    sections: Vec<Written>,
    /// Keys named twice in one object in the parts read as `Value`s (the canonical scan
    /// declines on them): each kept its last value, the outcome says so.
    duplicate_keys: usize,
}

/// Whether a part was read (`None`: declined, the `Value` path decides).
type Read = Option<()>;

/// Where the layout stood, to return to when a string is not the JSON it looked like.
struct Mark {
    lines: usize,
    sections: usize,
    envelope: Map<String, Value>,
    duplicate_keys: (usize, usize),
}

impl TextLayout {
    /// Lays out the JSON value `text` holds, as [`Layout::of`] lays out that value.
    pub(crate) fn of_json(text: &str, min_text: usize) -> Option<Self> {
        let mut layout = Self::new(min_text);
        layout.json(&[], read::trim(text), Format::Json, 0, 0)?;
        Some(layout.finish())
    }

    /// Lays out a text, as [`Layout::of`] lays out a `Value::String` of it.
    pub(crate) fn of_text(text: &str, min_text: usize) -> Option<Self> {
        let mut layout = Self::new(min_text);
        layout.string(&[], Cow::Borrowed(text), 0)?;
        Some(layout.finish())
    }

    /// Records already written one per line (in [`Body::of_values`]' form), laid out as
    /// [`Layout::of`] lays out the array of them; `None` when they form a tree (flattening
    /// it takes the `Value` path).
    pub(crate) fn of_records(body: Body) -> Option<Self> {
        if lines_form_a_tree(&body, 0) {
            return None;
        }
        let mut layout = Self::new(0);
        layout.wrote(&[], body.len(), Format::Json, false);
        layout.body = body;
        Some(layout)
    }

    /// The lines, the sections they form, the envelope, and the keys named twice in one
    /// object in the parts read as `Value`s ([`crate::json::dupes`]).
    pub(crate) fn into_parts(self) -> (Body, Vec<Written>, Map<String, Value>, usize) {
        let duplicate_keys = self.duplicate_keys + self.layout.duplicate_keys;
        (
            self.body,
            self.sections,
            self.layout.envelope,
            duplicate_keys,
        )
    }

    fn new(min_text: usize) -> Self {
        Self {
            min_text,
            layout: Layout::default(),
            body: Body::default(),
            sections: Vec::new(),
            duplicate_keys: 0,
        }
    }

    fn finish(mut self) -> Self {
        self.layout.bound_envelope();
        self.flush();
        self
    }

    /// Writes the sections [`Layout`] made to the body.
    fn flush(&mut self) {
        for section in std::mem::take(&mut self.layout.sections) {
            let part = Body::of_values(&section.records);
            self.sections.push(Written {
                name: section.name,
                count: part.len(),
                format: section.format,
                tree: section.tree,
                entries: section.entries,
                table: section.table,
            });
            self.body.append(part);
        }
    }

    /// A section of `count` lines just written.
    fn wrote(&mut self, path: &[String], count: usize, format: Format, entries: bool) {
        self.sections.push(Written {
            name: name_of(path),
            count,
            format,
            tree: None,
            entries,
            table: None,
        });
    }

    /// The JSON value `text` (no surrounding whitespace), found at `path` in a text where it
    /// sits inside `nesting` containers.
    fn json(
        &mut self,
        path: &[String],
        text: &str,
        format: Format,
        depth: usize,
        nesting: usize,
    ) -> Read {
        if text.len() <= self.min_text {
            let value = self.parse(text, nesting)?;
            return self.value(path, value, format, depth);
        }
        match text.as_bytes().first()? {
            b'[' => self.array(path, text, format, depth, nesting),
            b'{' => self.object(path, text, format, depth, nesting),
            b'"' => self.string(path, read::decode_str(text)?, depth),
            _ => {
                let value = self.parse(text, nesting)?;
                self.value(path, value, format, depth)
            }
        }
    }

    /// [`parse`] of a part whose `Value` becomes records: the keys its text names twice
    /// are counted (the `Value` keeps the last of each).
    fn parse(&mut self, text: &str, nesting: usize) -> Option<Value> {
        let value = parse(text, nesting)?;
        self.duplicate_keys += dupes::count(text.as_bytes());
        Some(value)
    }

    /// The compact JSON of the value `text` holds: the canonical scan, or its `Value` where
    /// the scan does not vouch for it (a key given twice, then counted).
    fn compact(&mut self, text: &str, nesting: usize) -> Option<Vec<u8>> {
        if let Some(record) = canonical::compact_value(text.as_bytes()) {
            return Some(record);
        }
        let value = self.parse(text, nesting)?;
        Some(write::to_string(&value).into_bytes())
    }

    /// A part read as a `Value`, laid out by [`Layout`].
    fn value(&mut self, path: &[String], value: Value, format: Format, depth: usize) -> Read {
        self.layout.value(path, Cow::Owned(value), format, depth);
        self.flush();
        Some(())
    }

    /// An array: its elements are the records, unless they form a tree.
    fn array(
        &mut self,
        path: &[String],
        text: &str,
        format: Format,
        depth: usize,
        nesting: usize,
    ) -> Read {
        let start = self.body.len();
        let count = self.body.push_json_elements(text.as_bytes())?;
        if may_nest_arrays(text) && lines_form_a_tree(&self.body, start) {
            // Flattening a tree takes its nodes: the `Value` path.
            self.body.truncate(start);
            let value = self.parse(text, nesting)?;
            return self.value(path, value, format, depth);
        }
        self.wrote(path, count, format, false);
        Some(())
    }

    /// An object: one record, a tree, entries, or taken apart ([`Layout`]'s plan). Its
    /// fields stay text until they are laid out, one at a time.
    fn object(
        &mut self,
        path: &[String],
        text: &str,
        format: Format,
        depth: usize,
        nesting: usize,
    ) -> Read {
        let fields = read::object_fields(text)?;
        let mut large = Vec::with_capacity(fields.len());
        for (_, field) in &fields {
            large.push(field_is_large(field, nesting + 1)?);
        }
        let count = large.iter().filter(|&&is| is).count();
        let keyed = is_keyed_collection(fields.len(), fields.iter().map(|(_, f)| is_record(f)));
        if (count == 0 && !keyed) || depth >= MAX_DEPTH {
            let record = self.compact(text, nesting)?;
            self.body
                .push_line_with(|out| out.extend_from_slice(&record));
            self.wrote(path, 1, format, false);
            return Some(());
        }
        if may_be_table(&fields) {
            // Rows become new records anyway: the `Value` path reads the table (or finds
            // it is none, and lays the object out as this reading would).
            let value = self.parse(text, nesting)?;
            return self.value(path, value, format, depth);
        }
        if count > 0 && is_tree_root(&fields, self.min_text, nesting + 1)? {
            // Flattening a tree takes its nodes: the `Value` path.
            let value = self.parse(text, nesting)?;
            return self.value(path, value, format, depth);
        }
        if count > MAX_SECTIONS || keyed {
            for (key, field) in &fields {
                let value = self.compact(field, nesting + 1)?;
                self.body.push_line_with(|out| {
                    out.extend_from_slice(b"{\"key\":");
                    write::write_str(out, key);
                    out.extend_from_slice(b",\"value\":");
                    out.extend_from_slice(&value);
                    out.push(b'}');
                });
            }
            self.wrote(path, fields.len(), format, true);
            return Some(());
        }
        let mut small = Map::new();
        for ((key, field), is_large) in fields.into_iter().zip(large) {
            if is_large {
                let mut inner = path.to_vec();
                inner.push(key);
                self.json(&inner, field, format, depth + 1, nesting + 1)?;
            } else {
                let value = self.parse(field, nesting + 1)?;
                small.insert(key, value);
            }
        }
        self.layout.put_small(path, small);
        Some(())
    }

    /// A string, read as [`text::read_text`] reads it: JSON (also inside JSON strings), a
    /// Python literal, a table, or lines of text.
    fn string(&mut self, path: &[String], content: Cow<'_, str>, depth: usize) -> Read {
        // As `read_text` does.
        let mut current = match content {
            Cow::Borrowed(text) => Cow::Borrowed(text::skip_bom(text)),
            Cow::Owned(text) if text.starts_with('\u{feff}') => {
                Cow::Owned(text::skip_bom(&text).to_owned())
            }
            owned => owned,
        };
        for _ in 0..=MAX_UNWRAP {
            let trimmed = current.trim();
            match trimmed.as_bytes().first() {
                Some(b'"') => {
                    let Some(inner) = read::decode_str(trimmed).map(Cow::into_owned) else {
                        break;
                    };
                    current = Cow::Owned(inner);
                }
                Some(b'[' | b'{') => {
                    let mark = self.mark();
                    // JSON inside a string is parsed on its own: its nesting starts again.
                    if self.json(path, trimmed, Format::Json, depth, 0).is_some() {
                        return Some(());
                    }
                    self.restore(mark);
                    if read::is_value(trimmed) {
                        // JSON this reading could not vouch for.
                        return None;
                    }
                    // As `read_text`: lone surrogates (super::odd).
                    if let Some(value) = super::odd::value_with_lone_surrogates(trimmed) {
                        return self.value(path, value, Format::Json, depth);
                    }
                    break;
                }
                _ => break,
            }
        }
        if let Some(values) = text::json_lines(&current) {
            self.duplicate_keys += dupes::in_text(&current);
            return self.value(path, Value::Array(values), Format::Json, depth);
        }
        if let Some(value) = super::literal::parse(&current) {
            return self.value(path, value, Format::PythonLiteral, depth);
        }
        if let Some((rows, format)) = text::read_table(&current) {
            self.layout
                .sections
                .push(Section::new(name_of(path), Cow::Owned(rows), format));
            self.flush();
            return Some(());
        }
        self.lines(path, &current);
        Some(())
    }

    /// Plain text: one `{"line": N, "text": ...}` record per line, as
    /// [`text::text_records`] makes them.
    fn lines(&mut self, path: &[String], text: &str) {
        let mut count = 0;
        if !text.is_empty() {
            let body = text.strip_suffix('\n').unwrap_or(text);
            for (i, line) in body.split('\n').enumerate() {
                self.body.push_line_with(|out| {
                    out.extend_from_slice(b"{\"line\":");
                    out.extend_from_slice(itoa::Buffer::new().format(i + 1).as_bytes());
                    out.extend_from_slice(b",\"text\":");
                    write::write_str(out, line);
                    out.push(b'}');
                });
                count += 1;
            }
        }
        self.wrote(path, count, Format::Text, false);
    }

    fn mark(&self) -> Mark {
        Mark {
            lines: self.body.len(),
            sections: self.sections.len(),
            envelope: self.layout.envelope.clone(),
            duplicate_keys: (self.duplicate_keys, self.layout.duplicate_keys),
        }
    }

    fn restore(&mut self, mark: Mark) {
        self.body.truncate(mark.lines);
        self.sections.truncate(mark.sections);
        self.layout.envelope = mark.envelope;
        (self.duplicate_keys, self.layout.duplicate_keys) = mark.duplicate_keys;
    }
}

/// The compact JSON of the value [`text::read_text`] reads in `text`, when it reads one (a
/// JSON array or object, maybe inside JSON strings, JSON lines, or a Python literal); `None`
/// for a table or lines of text. With it, the keys its JSON named twice in one object
/// (the value keeps the last of each; 0 when the canonical scan vouched for the text).
pub(crate) fn read_record(text: &str) -> Option<(Vec<u8>, usize)> {
    let mut current = Cow::Borrowed(text);
    for _ in 0..=MAX_UNWRAP {
        let trimmed = current.trim();
        match trimmed.as_bytes().first() {
            Some(b'"') => {
                let Some(inner) = read::decode_str(trimmed).map(Cow::into_owned) else {
                    break;
                };
                current = Cow::Owned(inner);
            }
            Some(b'[' | b'{') => {
                if let Some(record) = canonical::compact_value(trimmed.as_bytes()) {
                    return Some((record, 0));
                }
                // Valid JSON the scan does not vouch for is read as a `Value`.
                let value = crate::json::parse::from_str(trimmed).ok();
                match value {
                    Some(value) => {
                        let duplicate_keys = dupes::count(trimmed.as_bytes());
                        return Some((write::to_string(&value).into_bytes(), duplicate_keys));
                    }
                    None => break,
                }
            }
            _ => break,
        }
    }
    text::json_lines(&current)
        .map(|lines| (Value::Array(lines), dupes::in_text(&current)))
        .or_else(|| super::literal::parse(&current).map(|value| (value, 0)))
        .map(|(value, duplicate_keys)| (write::to_string(&value).into_bytes(), duplicate_keys))
}

/// Whether an object with these fields may hold a table ([`super::columns`]): it has the
/// keys of one of its forms, its rows an array of arrays (of objects, BigQuery's). Only the
/// `Value` path decides.
fn may_be_table(fields: &[(String, &str)]) -> bool {
    let has = |key: &str| fields.iter().any(|(k, _)| k == key);
    let rows_of = |key: &str, open: u8| {
        fields.iter().any(|(k, field)| {
            k == key
                && field.starts_with('[')
                && field[1..].trim_start().as_bytes().first() == Some(&open)
        })
    };
    (rows_of("data", b'[') && (has("columns") || has("meta")))
        || (rows_of("rows", b'{') && has("schema"))
        || rows_of("values", b'[')
}

/// Whether a field's JSON text is a non-empty object.
fn is_record(field: &str) -> bool {
    let field = field.trim_start();
    field.starts_with('{') && !field[1..].trim_start().starts_with('}')
}

fn name_of(path: &[String]) -> Option<String> {
    (!path.is_empty()).then(|| path.join("."))
}

/// The `Value` of a part, when its nesting (with the `nesting` containers around it) stays
/// within [`MAX_NESTING`].
fn parse(text: &str, nesting: usize) -> Option<Value> {
    let value: Value = crate::json::parse::from_str(text).ok()?;
    (nesting + depth_of(&value) <= MAX_NESTING).then_some(value)
}

/// How many containers deep `value` nests (0 for a scalar, 1 for `[]`).
fn depth_of(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 1)];
    while let Some((value, depth)) = stack.pop() {
        let items: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(fields) => Box::new(fields.values()),
            _ => continue,
        };
        deepest = deepest.max(depth);
        stack.extend(items.map(|v| (v, depth + 1)));
    }
    deepest
}

/// [`is_large`] of the `Value` a field's text holds, read from the text (its `Value` when a
/// key given twice makes the count unsure).
fn field_is_large(text: &str, nesting: usize) -> Option<bool> {
    if text.starts_with('"') && text.len() > 2 + 6 * (SMALL_FIELD + 1) {
        // Its compact text is longer than SMALL_FIELD: an escape is at most 6 bytes for
        // one of the content (`\u0041`), written back in one at least. Measuring would
        // decode it whole into serde_json's scratch buffer, which grows by doubling: a
        // 56 MB string (a FastMCP `str` result's `structuredContent.result`) cost 150 MB.
        return Some(true);
    }
    let counted = match text.as_bytes().first()? {
        b'[' => Some(read::is_nonempty_array(text)),
        b'"' | b'{' => read::compact_len(text, SMALL_FIELD + 1).map(|len| len > SMALL_FIELD),
        _ => Some(false),
    };
    counted.or_else(|| parse(text, nesting).map(|value| is_large(&value)))
}

/// Whether an array's elements may hold arrays: without a second `[` in its text, none does,
/// and no tree can be found in it.
fn may_nest_arrays(array: &str) -> bool {
    memchr::memchr(b'[', &array.as_bytes()[1..]).is_some()
}

/// Whether the object whose fields are `fields` is a tree's root ([`tree::detect`] of it
/// alone): one of its array fields holds its children, by [`KeyWalk`]'s rule.
fn is_tree_root(fields: &[(String, &str)], min_text: usize, nesting: usize) -> Option<bool> {
    for (key, field) in fields {
        if !field.starts_with('[') {
            continue;
        }
        let holds = if field.len() <= min_text {
            let mut walk = KeyWalk::new(key.as_str());
            walk.field(parse(field, nesting)?, 0) && walk.holds()
        } else {
            root_of_text(key, field)?
        };
        if holds {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether a node whose `key` holds the array `text` is a tree's root under `key`: its
/// elements are the children, walked one at a time from the text. `None` when the canonical
/// scan declines the text.
fn root_of_text(key: &str, array: &str) -> Option<bool> {
    if key != tree::CHILDREN && !may_nest_arrays(array) {
        // No child holds an array under `key`: the key does not recur.
        return Some(false);
    }
    let escaped = escaped_key(key);
    let mut walk = KeyWalk::new(key);
    let mut holds = true;
    canonical::for_each_element(array.as_bytes(), |child| {
        if child.text.first() != Some(&b'{') {
            holds = false;
        } else {
            walk.saw_children();
            if let Some(value) = child.get(&escaped) {
                holds = serde_json::from_slice(value).is_ok_and(|value| walk.field(value, 1));
            }
        }
        holds
    })?;
    Some(holds && walk.holds())
}

/// A key as it stands between its quotes in compact JSON.
fn escaped_key(key: &str) -> String {
    let mut quoted = Vec::with_capacity(key.len() + 2);
    write::write_str(&mut quoted, key);
    String::from_utf8_lossy(&quoted[1..quoted.len() - 1]).into_owned()
}

/// Records with more keys that hold arrays than this are left to the `Value` path to find
/// their tree (each such key is checked along every record).
const MAX_TREE_KEYS: usize = 32;

/// Whether the records written from line `start` of `body` on form a tree:
/// [`tree::detect`] of them, read from the lines; also `true` when they hold arrays under
/// more than [`MAX_TREE_KEYS`] keys (undecided: the caller takes the `Value` path, which
/// decides). Only fields that hold arrays can make a tree, and only a root record giving
/// such a key another value (not `null`) can break it, so each line is walked along its
/// fields and only arrays are parsed.
fn lines_form_a_tree(body: &Body, start: usize) -> bool {
    /// A key some record holds an array under.
    struct Candidate {
        escaped: Vec<u8>,
        walk: KeyWalk<'static>,
        broken: bool,
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    for line_no in start..body.len() {
        let line = body.line(line_no).as_bytes();
        if line.first() != Some(&b'{') {
            return false;
        }
        for (key, value) in fields::fields(line) {
            match value.first() {
                Some(b'[') => {
                    let at = match index.get(key) {
                        Some(&at) => at,
                        None if candidates.len() == MAX_TREE_KEYS => return true,
                        None => {
                            let decoded: String =
                                serde_json::from_slice(&[b"\"", key, b"\""].concat())
                                    .unwrap_or_default();
                            // An earlier record may have given the key another value.
                            let broken = (start..line_no).any(|earlier| {
                                fields::get(body.line(earlier).as_bytes(), &as_text(key))
                                    .is_some_and(|v| !v.starts_with(b"[") && v != b"null")
                            });
                            candidates.push(Candidate {
                                escaped: key.to_vec(),
                                walk: KeyWalk::new(decoded),
                                broken,
                            });
                            index.insert(key.to_vec(), candidates.len() - 1);
                            candidates.len() - 1
                        }
                    };
                    let candidate = &mut candidates[at];
                    if !candidate.broken {
                        candidate.broken = !serde_json::from_slice(value)
                            .is_ok_and(|value| candidate.walk.field(value, 0));
                    }
                }
                Some(b'n') => {}
                _ => {
                    if let Some(candidate) = candidates.iter_mut().find(|c| c.escaped == key) {
                        candidate.broken = true;
                    }
                }
            }
        }
    }
    candidates.iter().any(|c| !c.broken && c.walk.holds())
}

/// An escaped key's bytes as the `&str` [`fields::get`] compares with (escapes are ASCII).
fn as_text(key: &[u8]) -> String {
    String::from_utf8_lossy(key).into_owned()
}

#[cfg(test)]
pub(crate) mod tests;
