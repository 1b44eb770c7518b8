//! The `line_schema` of a descriptor: a JSON Schema (2020-12) for each record line.

use serde_json::{Map, Value, json};

use crate::detail::Detail;
use crate::profile::Profile;

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

fn nullable(ty: &str) -> Value {
    json!({"type": [ty, "null"]})
}

/// The schema of a MIF memory line at `detail` (built once per level, then cloned).
pub fn mif_schema(detail: Detail) -> Value {
    static SCHEMAS: std::sync::OnceLock<[Value; 3]> = std::sync::OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        [
            build_mif_schema(Detail::Light),
            build_mif_schema(Detail::Medium),
            build_mif_schema(Detail::Full),
        ]
    });
    schemas[detail as usize].clone()
}

/// Builds the schema of a MIF memory line at `detail`. Light and Medium lines hold exactly their
/// fields (`additionalProperties: false`); Full lines may hold any MIF field.
fn build_mif_schema(detail: Detail) -> Value {
    let mut props = Map::new();
    props.insert(
        "id".into(),
        json!({"type": "string", "description": "Memory identifier"}),
    );
    props.insert("memory_type".into(), nullable("string"));
    props.insert("title".into(), nullable("string"));
    props.insert("namespace".into(), nullable("string"));
    props.insert(
        "tags".into(),
        json!({"type": ["array", "null"], "items": {"type": "string"}}),
    );
    props.insert("status".into(), nullable("string"));
    props.insert(
        "created".into(),
        json!({"type": ["string", "null"], "format": "date-time"}),
    );
    props.insert(
        "modified".into(),
        json!({"type": ["string", "null"], "format": "date-time"}),
    );
    if detail != Detail::Light {
        props.insert("content".into(), nullable("string"));
        props.insert("summary".into(), nullable("string"));
    }
    if detail == Detail::Medium {
        props.insert("confidence".into(), json!({"type": ["number", "null"], "description": "Flattened from provenance.confidence"}));
    }
    if detail == Detail::Full {
        for name in [
            "entities",
            "relationships",
            "wiki_links",
            "embedding",
            "blocks",
            "citations",
        ] {
            props.insert(name.into(), json!({"type": ["array", "object", "null"]}));
        }
        props.insert(
            "provenance".into(),
            json!({"type": ["object", "null"], "properties": {
                "confidence": {"type": ["number", "null"]},
                "trust_level": {},
                "source_type": {},
                "agent": {}
            }}),
        );
        props.insert("temporal".into(), json!({"type": ["object", "null"]}));
        props.insert("extensions".into(), json!({"type": ["object", "null"]}));
    }
    json!({
        "$schema": DIALECT,
        "title": format!("MIF memory ({} detail)", detail.as_str()),
        "type": "object",
        "properties": props,
        "required": ["id"],
        "additionalProperties": detail == Detail::Full,
    })
}

/// A schema inferred from a profile of raw records: the types seen per field, and the
/// fields present in every sampled record as `required`.
pub fn inferred_schema(profile: &Profile) -> Value {
    if !profile.all_objects {
        let types: Vec<&str> = profile.record_types.clone();
        return json!({"$schema": DIALECT, "title": "Record (inferred)", "type": types});
    }
    let mut props = Map::new();
    let mut required = Vec::new();
    for field in &profile.fields {
        let types: Vec<Value> = field.types.iter().map(|t| Value::from(*t)).collect();
        let ty = if types.len() == 1 {
            types[0].clone()
        } else {
            Value::Array(types)
        };
        props.insert(field.name.clone(), json!({"type": ty}));
        if field.present == profile.sampled && !field.types.contains(&"null") {
            required.push(Value::from(field.name.as_str()));
        }
    }
    json!({
        "$schema": DIALECT,
        "title": "Record (inferred)",
        "type": "object",
        "properties": props,
        "required": required,
    })
}
