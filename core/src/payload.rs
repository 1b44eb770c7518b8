//! What kind of records a result holds: MIF memories (detail levels apply) or raw data.
//!
//! How a result becomes records (arrays, objects holding arrays, text, trees...) is
//! [`crate::shape`]'s job; this module decides only whether those records are *MIF
//! memories*: every one an object with an `id` and a `memory_type` or `namespace`. Only then
//! do detail levels apply. Everything else is *raw* data, written as given, with a line
//! schema and recipes inferred from its fields. The test is made on the serialized lines
//! ([`crate::jsonl::Body::classify`]) or, equivalently, on the `Value` records they are
//! written from ([`is_mif`]).

use serde_json::Value;

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
