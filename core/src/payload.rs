//! What a tool result looks like to LRO: a list of records, and what kind they are.
//!
//! - A JSON array: one element per line.
//! - An object holding arrays: the largest array (by element count) becomes the records;
//!   the other fields are kept as the *envelope* and reported in the descriptor, so nothing
//!   is lost.
//! - Plain text: one record per line, `{"line": N, "text": "..."}` (N from 1).
//! - Any other value: a single record.
//!
//! Records are *MIF memories* when every one is an object with an `id` and a `memory_type`
//! or `namespace`; only then do detail levels apply. Everything else is *raw* data, written
//! as given, with a line schema and recipes inferred from its fields. The test is made on
//! the serialized lines ([`crate::jsonl::Body::classify`]) or, equivalently, on the `Value`
//! records they are written from ([`is_mif`]).

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::detail::Detail;

/// The kind of records, which decides projection, schema and recipes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// MIF memories, serialized at this detail level.
    Mif(Detail),
    /// Any other data, serialized as given.
    Raw,
}

impl RecordKind {
    /// The header's `detail` value: the MIF level, or `raw`.
    pub const fn detail_name(self) -> &'static str {
        match self {
            Self::Mif(d) => d.as_str(),
            Self::Raw => "raw",
        }
    }

    /// Reads a header's `detail` value back.
    pub fn from_detail_name(name: &str) -> Option<Self> {
        match name {
            "raw" => Some(Self::Raw),
            other => other.parse().ok().map(Self::Mif),
        }
    }
}

/// The fields around the offloaded array of an object result.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Envelope {
    /// The key of the array whose elements are the JSONL records.
    pub array_field: String,
    /// The object's other fields, unchanged.
    pub fields: Map<String, Value>,
}

/// Records ready to serialize.
#[derive(Debug)]
pub struct Payload<'a> {
    /// The records, borrowed from the input where possible.
    pub records: Cow<'a, [Value]>,
    /// Set when the records came out of an object.
    pub envelope: Option<Envelope>,
    /// The input was plain text (records are `{"line", "text"}`).
    pub is_text: bool,
}

/// Splits plain text into `{"line": N, "text": ...}` records. A final newline does not
/// start an empty record; every other character is kept.
pub fn text_records(text: &str) -> Vec<Value> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let mut m = Map::with_capacity(2);
            m.insert("line".to_owned(), Value::from(i + 1));
            m.insert("text".to_owned(), Value::from(line));
            Value::Object(m)
        })
        .collect()
}

/// Whether `records` are MIF memories: the rule of [`crate::jsonl::Body::is_mif`] on the
/// lines these records are written as, read from the records.
pub fn is_mif(records: &[Value]) -> bool {
    !records.is_empty() && records.iter().all(is_mif_record)
}

fn is_mif_record(record: &Value) -> bool {
    let Value::Object(fields) = record else {
        return false;
    };
    has_mif_keys(fields.keys().map(String::as_bytes))
}

/// The MIF rule on a record's keys, in whatever form it is held: an `id`, and a
/// `memory_type` or a `namespace`. A walk along the keys (records have a dozen) costs less
/// than hashing two names.
pub(crate) fn has_mif_keys<'k>(keys: impl IntoIterator<Item = &'k [u8]>) -> bool {
    let (mut id, mut kind) = (false, false);
    for key in keys {
        match key {
            b"id" => id = true,
            b"memory_type" | b"namespace" => kind = true,
            _ => continue,
        }
        if id && kind {
            return true;
        }
    }
    false
}

impl<'a> Payload<'a> {
    /// Finds the records of `value`.
    pub fn of(value: &'a Value) -> Self {
        let (records, envelope, is_text): (Cow<'a, [Value]>, _, _) = match value {
            Value::Array(items) => (Cow::Borrowed(items.as_slice()), None, false),
            Value::String(text) => (Cow::Owned(text_records(text)), None, true),
            Value::Object(fields) => match largest_array(fields) {
                Some((key, items)) => {
                    let mut rest = fields.clone();
                    rest.shift_remove(key);
                    (
                        Cow::Borrowed(items.as_slice()),
                        Some(Envelope {
                            array_field: key.clone(),
                            fields: rest,
                        }),
                        false,
                    )
                }
                None => (Cow::Borrowed(std::slice::from_ref(value)), None, false),
            },
            _ => (Cow::Borrowed(std::slice::from_ref(value)), None, false),
        };
        Self {
            records,
            envelope,
            is_text,
        }
    }
}

fn largest_array(fields: &Map<String, Value>) -> Option<(&String, &Vec<Value>)> {
    let mut best: Option<(&String, &Vec<Value>)> = None;
    for (key, value) in fields {
        if let Value::Array(items) = value {
            if best.is_none_or(|(_, b)| items.len() > b.len()) {
                best = Some((key, items));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::write::tests::arb_json;
    use crate::jsonl::Body;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        #[test]
        fn mif_rule_on_values_matches_the_rule_on_lines(
            records in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(
                        (prop_oneof![Just("id"), Just("memory_type"), Just("namespace"), Just("x")], arb_json()),
                        0..4,
                    )
                    .prop_map(|fields| Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
                    arb_json(),
                ],
                0..6,
            )
        ) {
            prop_assert_eq!(is_mif(&records), Body::of_values(&records).is_mif());
        }
    }

    #[test]
    fn classifies_shapes() {
        let raw = json!({"entities": [{"name": "x"}, {"name": "y"}], "relations": [{"a": 1}], "total": 2});
        let p = Payload::of(&raw);
        assert_eq!(p.records.len(), 2);
        let env = p.envelope.unwrap();
        assert_eq!(env.array_field, "entities");
        assert_eq!(
            Value::Object(env.fields),
            json!({"relations": [{"a": 1}], "total": 2})
        );
        let text = json!("a\nb\n");
        let p = Payload::of(&text);
        assert!(p.is_text);
        assert_eq!(
            p.records.as_ref(),
            &[
                json!({"line": 1, "text": "a"}),
                json!({"line": 2, "text": "b"})
            ]
        );
    }
}
