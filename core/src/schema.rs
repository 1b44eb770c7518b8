//! The `line_schema` of a descriptor: a JSON Schema (2020-12) for each record line.

use serde_json::{Map, Value, json};

use crate::descriptor::SectionInfo;
use crate::detail::Detail;
use crate::profile::Profile;
use crate::shape::Format;

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
    props.insert("id".into(), json!({"type": "string"}));
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
        // Flattened from provenance.confidence.
        props.insert("confidence".into(), nullable("number"));
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
            // Any shape: MIF leaves them open, and a descriptor has a budget.
            props.insert(name.into(), json!({}));
        }
        props.insert(
            "provenance".into(),
            json!({"type": ["object", "null"], "properties": {
                "confidence": {"type": ["number", "null"]}
            }}),
        );
        props.insert("temporal".into(), json!({"type": ["object", "null"]}));
        props.insert("extensions".into(), json!({"type": ["object", "null"]}));
    }
    let mut schema = json!({
        "$schema": DIALECT,
        "title": format!("MIF memory ({} detail)", detail.as_str()),
        "type": "object",
        "properties": props,
        "required": ["id"],
    });
    if detail != Detail::Full {
        // Light and Medium lines hold exactly these fields; Full ones may hold any MIF field
        // (JSON Schema's default, left unsaid).
        schema["additionalProperties"] = Value::Bool(false);
    }
    schema
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

/// The schema of a text line: `{"line": N, "text": "..."}`.
fn text_schema() -> Value {
    json!({
        "$schema": DIALECT,
        "title": "Text line",
        "type": "object",
        "properties": {"line": {"type": "integer"}, "text": {"type": "string"}},
        "required": ["line", "text"],
    })
}

/// The line schema of raw records in `sections` (`samples[i]`: the first records of section
/// `i`): one section's own, or one per section under `anyOf`, titled by section.
pub fn for_sections(sections: &[SectionInfo], samples: &[Vec<Value>]) -> Value {
    let own = |i: usize| {
        if sections[i].format == Format::Text {
            text_schema()
        } else {
            inferred_schema(&Profile::of(&samples[i]))
        }
    };
    if let [_] = sections {
        return own(0);
    }
    let each: Vec<Value> = (0..sections.len())
        .map(|i| {
            let mut schema = own(i);
            if let Value::Object(map) = &mut schema {
                map.shift_remove("$schema");
                map.insert(
                    "title".into(),
                    Value::from(format!(
                        "{} (lines {}-{})",
                        sections[i].label(),
                        sections[i].first_line,
                        sections[i].last_line()
                    )),
                );
            }
            schema
        })
        .collect();
    json!({
        "$schema": DIALECT,
        "title": format!("Records of {} sections", sections.len()),
        "anyOf": each,
    })
}

/// Most properties a schema lists once it must shrink to fit the descriptor's budget.
const SHRUNK_PROPERTIES: usize = 16;

/// Most sections a schema lists once it is cut to titles (as many as the shrunk
/// descriptor's `sections`).
const SHRUNK_SECTIONS: usize = 4;

/// How far [`shrink`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shrink {
    /// At most [`SHRUNK_PROPERTIES`] properties per object, none with a name over 64
    /// characters; a `description` says how many more there are.
    FewerProperties,
    /// The same properties, their names only (`{}` schemas).
    NamesOnly,
    /// Only the title and type: the file's records show the rest.
    TitleOnly,
}

/// Makes `schema` (one from this module) smaller, for a descriptor over its budget.
pub fn shrink(schema: &mut Value, level: Shrink) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(Value::Array(each)) = map.get_mut("anyOf") {
        for schema in each.iter_mut() {
            shrink(schema, level);
        }
        if level == Shrink::TitleOnly && each.len() > SHRUNK_SECTIONS {
            // The sections the descriptor still lists; the header names every one.
            let more = each.len() - SHRUNK_SECTIONS;
            each.truncate(SHRUNK_SECTIONS);
            map.insert(
                "description".into(),
                Value::from(format!(
                    "{more} more sections not listed here: the header (line 1) lists them all"
                )),
            );
        }
        return;
    }
    if level == Shrink::TitleOnly {
        map.retain(|k, _| matches!(k.as_str(), "$schema" | "title" | "type"));
        return;
    }
    let Some(Value::Object(props)) = map.get_mut("properties") else {
        return;
    };
    let total = props.len();
    let mut kept = 0;
    props.retain(|name, _| {
        kept += usize::from(name.chars().count() <= 64);
        name.chars().count() <= 64 && kept <= SHRUNK_PROPERTIES
    });
    if level == Shrink::NamesOnly {
        for value in props.values_mut() {
            *value = json!({});
        }
    }
    let listed: Vec<String> = props.keys().cloned().collect();
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|r| r.as_str().is_some_and(|r| listed.iter().any(|l| l == r)));
    }
    if total > listed.len() {
        map.insert(
            "description".into(),
            Value::from(format!(
                "{} more properties not listed here",
                total - listed.len()
            )),
        );
    }
}
