//! Detail levels of a MIF memory, and the projection of a record to one.
//!
//! - **Light**: `id, memory_type, title, namespace, tags, status, created, modified`.
//! - **Medium**: Light + `content`, `summary`, and `confidence` flattened from
//!   `provenance.confidence`.
//! - **Full**: the record as given, nothing dropped, nothing added.
//!
//! A field missing from the record stays missing (it is never invented as `null`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{ErrorCode, LroError};

/// The fields of a Light record, in output order.
pub const LIGHT_FIELDS: [&str; 8] = [
    "id",
    "memory_type",
    "title",
    "namespace",
    "tags",
    "status",
    "created",
    "modified",
];

/// How much of each memory is serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// Identification and classification fields only.
    Light,
    /// Light plus content, summary and flattened confidence.
    Medium,
    /// The whole record.
    Full,
}

impl Detail {
    /// The name used in headers and descriptors.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Medium => "medium",
            Self::Full => "full",
        }
    }

    /// The specification's default for an operation: medium for `inject`, light otherwise.
    pub fn default_for(operation: &str) -> Self {
        match operation {
            "inject" | "inject_context" => Self::Medium,
            _ => Self::Light,
        }
    }

    /// The top-level fields of a memory that a projection to this level reads (`None` for
    /// Full: all of them). Medium reads `provenance` for its `confidence`. A binding may
    /// drop every other field before handing MIF memories over, without changing the result.
    pub const fn read_fields(self) -> Option<&'static [&'static str]> {
        const MEDIUM: [&str; 12] = [
            "id",
            "memory_type",
            "title",
            "namespace",
            "tags",
            "status",
            "created",
            "modified",
            "content",
            "summary",
            "provenance",
            "confidence",
        ];
        match self {
            Self::Light => Some(&LIGHT_FIELDS),
            Self::Medium => Some(&MEDIUM),
            Self::Full => None,
        }
    }

    /// Projects one memory to this level. Records that are not objects pass through.
    pub fn project(self, record: &Value) -> Value {
        let Value::Object(fields) = record else {
            return record.clone();
        };
        match self {
            Self::Full => record.clone(),
            Self::Light | Self::Medium => {
                let mut out = Map::new();
                for key in LIGHT_FIELDS {
                    if let Some(v) = fields.get(key) {
                        out.insert(key.to_owned(), v.clone());
                    }
                }
                if self == Self::Medium {
                    for key in ["content", "summary"] {
                        if let Some(v) = fields.get(key) {
                            out.insert(key.to_owned(), v.clone());
                        }
                    }
                    let confidence = fields
                        .get("provenance")
                        .and_then(|p| p.get("confidence"))
                        .or_else(|| fields.get("confidence"));
                    if let Some(c) = confidence {
                        out.insert("confidence".to_owned(), c.clone());
                    }
                }
                Value::Object(out)
            }
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Detail {
    type Err = LroError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "light" => Ok(Self::Light),
            "medium" => Ok(Self::Medium),
            "full" => Ok(Self::Full),
            _ => Err(LroError::new(
                ErrorCode::InvalidDetail,
                format!("unknown detail level {s:?} (expected light, medium or full)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn projections_keep_only_their_fields() {
        let m = json!({"id": "m1", "content": "c", "title": "t", "namespace": "n", "provenance": {"confidence": 0.9}, "embedding": [1]});
        assert_eq!(
            Detail::Light.project(&m),
            json!({"id": "m1", "title": "t", "namespace": "n"})
        );
        assert_eq!(
            Detail::Medium.project(&m),
            json!({"id": "m1", "title": "t", "namespace": "n", "content": "c", "confidence": 0.9})
        );
        assert_eq!(Detail::Full.project(&m), m);
    }

    #[test]
    fn projections_read_only_their_fields() {
        let m = json!({"id": "m1", "content": "c", "title": "t", "namespace": "n", "provenance": {"confidence": 0.9}, "embedding": [1], "x": 2});
        for detail in [Detail::Light, Detail::Medium] {
            let fields = detail.read_fields().unwrap();
            let reduced: Map<String, Value> = m
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| fields.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            assert_eq!(
                detail.project(&Value::Object(reduced)),
                detail.project(&m),
                "{detail}"
            );
        }
        assert_eq!(Detail::Full.read_fields(), None);
    }

    #[test]
    fn parse_and_defaults() {
        assert_eq!("Medium".parse::<Detail>().unwrap(), Detail::Medium);
        assert_eq!(
            "huge".parse::<Detail>().unwrap_err().code(),
            ErrorCode::InvalidDetail
        );
        assert_eq!(Detail::default_for("recall"), Detail::Light);
        assert_eq!(Detail::default_for("inject"), Detail::Medium);
    }
}
