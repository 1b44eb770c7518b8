//! What a tool result looks like to LRO: the records to write, grouped in sections, and the
//! few small fields that stay inline.
//!
//! Real tools return more than arrays: objects holding several arrays (a knowledge graph's
//! entities and relations, `{total_count, items}`), JSON inside strings (`{"content": "<JSON
//! text>"}`), Python literals, tables, trees and plain text. [`Layout::of`] reads all of them
//! into [`Section`]s whose records are written one per line, in order, so one file holds them
//! all and the header says which lines belong to which section. Nothing is lost: every value
//! of the input is in exactly one record or in the envelope.
//!
//! The rules, in the order they apply:
//! - An array: one section of its elements; a tree ([`tree`]) is flattened to its nodes.
//! - A string: read as JSON when it is a JSON array or object, else as a Python literal
//!   ([`literal`]), else as a table ([`table`]), else as text, one record per line
//!   (`{"line": N, "text": "..."}`); what it holds is then laid out by these same rules.
//! - An object that is itself a tree's root: one section of its nodes.
//! - Any other object is taken apart field by field: every non-empty array becomes a section
//!   named by its path of keys (`entities`, `data.users`); a large string is read as above
//!   into sections of its own; a large object is taken apart the same way (up to
//!   [`MAX_DEPTH`] levels, then it is one record); small fields (scalars, short strings, small
//!   objects, empty arrays) stay inline in the *envelope*. An object level with more than
//!   [`MAX_SECTIONS`] large fields is a map, not a record with parts: it becomes one section
//!   of `{"key", "value"}` entries; so is a keyed collection, more than [`MAX_SECTIONS`]
//!   fields that are all non-empty objects (records by id), however small each one is. An
//!   envelope larger than [`ENVELOPE_MAX`] bytes goes to the file as a one-record section,
//!   [`OTHER_FIELDS`], so the descriptor stays small. An object with no large field at all
//!   (and not a keyed collection) is one record.
//! - Anything else (a number, `true`, `null`): one record.

pub mod columns;
pub mod literal;
mod odd;
pub(crate) use odd::value_with_lone_surrogates;
pub mod table;
pub mod text;
pub(crate) mod text_layout;
pub mod tree;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use columns::{TableForm, TableInfo};
pub use text::{TextRead, read_text};
pub use text_layout::TEXT_PART_MIN;
pub use tree::TreeInfo;

/// A field whose compact JSON is longer than this many bytes is *large*: it goes to the file.
pub const SMALL_FIELD: usize = 256;
/// The envelope (small fields kept inline) holds at most this many bytes of compact JSON.
pub const ENVELOPE_MAX: usize = 1024;
/// More large fields than this in one object: the object is a map, written as entries.
pub const MAX_SECTIONS: usize = 32;
/// Objects nested deeper than this are written whole, as one record.
pub const MAX_DEPTH: usize = 4;
/// The name of the section an over-large envelope is written to.
pub const OTHER_FIELDS: &str = "(other fields)";

/// How the records of a section were read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// JSON (structured content, or JSON text): records as given.
    #[default]
    Json,
    /// Python literal text (`repr()` of lists, tuples, dicts).
    PythonLiteral,
    /// Comma-separated values with a header row: one object per row.
    Csv,
    /// Tab-separated values with a header row: one object per row.
    Tsv,
    /// A Markdown table: one object per row.
    MarkdownTable,
    /// Plain text: one `{"line": N, "text": "..."}` record per line.
    Text,
}

impl Format {
    /// Whether this is the default (JSON), which headers and descriptors leave unsaid.
    pub fn is_json(&self) -> bool {
        *self == Self::Json
    }
}

/// One group of records, written on consecutive lines.
#[derive(Debug, Clone)]
pub struct Section<'a> {
    /// Where the records were found: the path of keys, dot-joined; `None` for the result
    /// itself.
    pub name: Option<String>,
    /// The records, borrowed from the input where possible.
    pub records: Cow<'a, [Value]>,
    /// How they were read.
    pub format: Format,
    /// Set when a tree was flattened into these records.
    pub tree: Option<TreeInfo>,
    /// The records are a map's `{"key", "value"}` entries.
    pub entries: bool,
    /// Set when the records are the rows of a table given as column names and positional
    /// rows ([`columns`]).
    pub table: Option<TableInfo>,
}

impl<'a> Section<'a> {
    fn new(name: Option<String>, records: Cow<'a, [Value]>, format: Format) -> Self {
        Self {
            name,
            records,
            format,
            tree: None,
            entries: false,
            table: None,
        }
    }

    /// Records of an array, its tree flattened when it is one.
    fn of_array(name: Option<String>, items: Cow<'a, [Value]>, format: Format) -> Self {
        if let Some((nodes, info)) = tree::detect(&items).and_then(|k| tree::flatten(&items, &k)) {
            let mut section = Self::new(name, Cow::Owned(nodes), format);
            section.tree = Some(info);
            return section;
        }
        Self::new(name, items, format)
    }

    /// Whether this section is the plain records of a result (no name, tree or entries),
    /// the case the specification describes and MIF memories come in.
    pub fn is_plain(&self) -> bool {
        self.name.is_none() && self.tree.is_none() && !self.entries
    }
}

/// The records of a result in sections, and the small fields kept inline.
#[derive(Debug, Clone, Default)]
pub struct Layout<'a> {
    /// The sections, in the order of the input.
    pub sections: Vec<Section<'a>>,
    /// Small fields of an object result, kept inline (nested as in the input).
    pub envelope: Map<String, Value>,
    /// Keys named twice in one object by JSON read from the result's strings (their
    /// `Value` kept the last of each; [`crate::json::dupes`]).
    pub duplicate_keys: usize,
}

impl<'a> Layout<'a> {
    /// Lays `value` out by the rules of this module.
    pub fn of(value: &'a Value) -> Self {
        let mut layout = Self::default();
        layout.value(&[], Cow::Borrowed(value), Format::Json, 0);
        layout.bound_envelope();
        layout
    }

    /// Moves an envelope larger than [`ENVELOPE_MAX`] to the [`OTHER_FIELDS`] section.
    fn bound_envelope(&mut self) {
        if compact_len(&Value::Object(self.envelope.clone()), ENVELOPE_MAX + 1) > ENVELOPE_MAX {
            let fields = std::mem::take(&mut self.envelope);
            self.sections.push(Section::new(
                Some(OTHER_FIELDS.to_owned()),
                Cow::Owned(vec![Value::Object(fields)]),
                Format::Json,
            ));
        }
    }

    /// Lays out `value`, found at `path` (empty for the result itself).
    fn value(&mut self, path: &[String], value: Cow<'a, Value>, format: Format, depth: usize) {
        /// What to do with the value, decided before it is moved.
        enum Plan {
            Array,
            Text(TextRead),
            Record,
            Table(columns::Table),
            Tree,
            Entries,
            Parts,
        }
        let name = (!path.is_empty()).then(|| path.join("."));
        let plan = match &*value {
            Value::Array(_) => Plan::Array,
            Value::String(text) => {
                let read = read_text(text);
                if matches!(read, TextRead::Value(_, Format::Json)) {
                    self.duplicate_keys += crate::json::dupes::in_text(text);
                }
                Plan::Text(read)
            }
            Value::Object(fields) => {
                let large = fields.values().filter(|v| is_large(v)).count();
                let keyed = is_keyed_collection(fields.len(), fields.values().map(is_record));
                if (large == 0 && !keyed) || depth >= MAX_DEPTH {
                    Plan::Record
                } else if let Some(table) = columns::Table::detect(fields) {
                    Plan::Table(table)
                } else if large > 0 && tree::detect(std::slice::from_ref(&*value)).is_some() {
                    Plan::Tree
                } else if large > MAX_SECTIONS || keyed {
                    Plan::Entries
                } else {
                    Plan::Parts
                }
            }
            _ => Plan::Record,
        };
        let section = match plan {
            Plan::Array => Section::of_array(name, items(value), format),
            Plan::Text(TextRead::Value(inner, format)) => {
                return self.value(path, Cow::Owned(inner), format, depth);
            }
            Plan::Text(TextRead::Table(rows, format)) => {
                Section::new(name, Cow::Owned(rows), format)
            }
            Plan::Text(TextRead::Lines(lines)) => {
                Section::new(name, Cow::Owned(lines), Format::Text)
            }
            Plan::Record => Section::new(name, single(value), format),
            Plan::Tree => Section::of_array(name, single(value), format),
            Plan::Entries => entries(name, &value, format),
            Plan::Parts => return self.object(path, value, format, depth),
            Plan::Table(table) => return self.table(path, value, &table, format, depth),
        };
        self.sections.push(section);
    }

    /// An object holding a table: its rows become one section of named records, in the
    /// place of their field; its column list stays in the envelope, a pandas index goes into
    /// the records, and its other fields are laid out as [`Self::object`] lays them out.
    fn table(
        &mut self,
        path: &[String],
        value: Cow<'a, Value>,
        table: &columns::Table,
        format: Format,
        depth: usize,
    ) {
        let Value::Object(mut fields) = value.into_owned() else {
            unreachable!("a table is found in an object")
        };
        let mut index = table
            .index_key
            .and_then(|key| fields.get_mut(key).map(Value::take));
        let mut small = Map::new();
        for (key, field) in fields {
            let mut inner = path.to_vec();
            inner.push(key.clone());
            if key == table.rows_key {
                let records = table.records(field, index.take());
                let mut section = Section::new(Some(inner.join(".")), Cow::Owned(records), format);
                section.table = Some(table.info());
                self.sections.push(section);
            } else if Some(key.as_str()) == table.index_key {
                // Taken into the records above.
            } else if is_large(&field) && Some(key.as_str()) != table.names_key {
                self.value(&inner, Cow::Owned(field), format, depth + 1);
            } else {
                small.insert(key, field);
            }
        }
        self.put_small(path, small);
    }

    /// An object with large fields, taken apart: large fields to sections, small ones to
    /// the envelope under `path`.
    fn object(&mut self, path: &[String], value: Cow<'a, Value>, format: Format, depth: usize) {
        let mut small = Map::new();
        for (key, field) in fields_of(value) {
            if is_large(&field) {
                let mut inner = path.to_vec();
                inner.push(key);
                self.value(&inner, field, format, depth + 1);
            } else {
                small.insert(key, field.into_owned());
            }
        }
        self.put_small(path, small);
    }

    /// Puts the small fields of the object at `path` in the envelope.
    fn put_small(&mut self, path: &[String], small: Map<String, Value>) {
        if small.is_empty() {
            return;
        }
        // Small fields of nested objects stay under their own keys in the envelope.
        let mut target = &mut self.envelope;
        for key in path {
            let slot = target
                .entry(key.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let Value::Object(map) = slot else {
                unreachable!("made an object above")
            };
            target = map;
        }
        target.extend(small);
    }
}

/// The items of an array value, borrowed or owned as the value is.
fn items(value: Cow<'_, Value>) -> Cow<'_, [Value]> {
    match value {
        Cow::Borrowed(Value::Array(items)) => Cow::Borrowed(items),
        Cow::Owned(Value::Array(items)) => Cow::Owned(items),
        other => single(other),
    }
}

/// A one-record slice of `value`.
fn single(value: Cow<'_, Value>) -> Cow<'_, [Value]> {
    match value {
        Cow::Borrowed(v) => Cow::Borrowed(std::slice::from_ref(v)),
        Cow::Owned(v) => Cow::Owned(vec![v]),
    }
}

/// The fields of an object value, each borrowed or owned as the object is.
fn fields_of(value: Cow<'_, Value>) -> Vec<(String, Cow<'_, Value>)> {
    match value {
        Cow::Borrowed(Value::Object(fields)) => fields
            .iter()
            .map(|(k, v)| (k.clone(), Cow::Borrowed(v)))
            .collect(),
        Cow::Owned(Value::Object(fields)) => fields
            .into_iter()
            .map(|(k, v)| (k, Cow::Owned(v)))
            .collect(),
        _ => Vec::new(),
    }
}

/// An object's fields as `{"key", "value"}` records.
fn entries<'a>(name: Option<String>, object: &Value, format: Format) -> Section<'a> {
    let fields = object.as_object().into_iter().flatten();
    let records = fields
        .map(|(k, v)| {
            let mut entry = Map::with_capacity(2);
            entry.insert("key".to_owned(), Value::from(k.as_str()));
            entry.insert("value".to_owned(), v.clone());
            Value::Object(entry)
        })
        .collect();
    let mut section = Section::new(name, Cow::Owned(records), format);
    section.entries = true;
    section
}

/// Whether an object of `len` fields whose values are records (`records`, non-empty objects)
/// is a keyed collection, `{"u1": {...}, "u2": {...}, ...}`: more than [`MAX_SECTIONS`]
/// fields, every one a record. It is written as entries however small each record is (the
/// records of a collection keyed by id are as many as an array's).
pub(crate) fn is_keyed_collection(len: usize, mut records: impl Iterator<Item = bool>) -> bool {
    len > MAX_SECTIONS && records.all(|is| is)
}

fn is_record(value: &Value) -> bool {
    value.as_object().is_some_and(|fields| !fields.is_empty())
}

/// Whether a field goes to the file: a non-empty array, or a string or object whose compact
/// JSON is longer than [`SMALL_FIELD`].
fn is_large(value: &Value) -> bool {
    match value {
        Value::Array(items) => !items.is_empty(),
        Value::String(_) | Value::Object(_) => compact_len(value, SMALL_FIELD + 1) > SMALL_FIELD,
        _ => false,
    }
}

/// The length of `value`'s compact JSON, counted up to `cap` (escapes are not counted: the
/// measure decides only what is small).
pub(crate) use lro_json::write::unescaped_len as compact_len;

#[cfg(test)]
mod tests;
