//! The specification's wire types (`OffloadHeader`, `OffloadResponse`, `OffloadSummary`,
//! `JqRecipe`) and the guidance templates.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::GuidanceMode;
use crate::payload::{Envelope, RecordKind};
use crate::recipes::Recipe;

/// The MIF schema version written in headers of MIF files.
pub const MIF_SCHEMA_VERSION: &str = "1.0";
/// The `schema_version` of files holding raw (non-MIF) records.
pub const RAW_SCHEMA_VERSION: &str = "raw";
/// The header's `type` marker.
pub const HEADER_TYPE: &str = "lro_header";

/// Metadata header written as the first line of an offloaded JSONL file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadHeader {
    /// Marker identifying this as an LRO header. Always `"lro_header"`.
    #[serde(rename = "type")]
    pub header_type: String,
    /// The operation that produced these results.
    pub operation: String,
    /// The query string (if applicable).
    pub query: Option<String>,
    /// Total number of record lines following the header.
    pub count: usize,
    /// MIF schema version of the memory objects (`raw` for other data).
    pub schema_version: String,
    /// ISO 8601 timestamp of when the file was written.
    pub timestamp: String,
    /// Estimated total tokens of the result set.
    pub estimated_tokens: usize,
    /// Detail level used for serialization (`light`, `medium`, `full`, or `raw`).
    pub detail: String,
}

/// Summary of the result set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadSummary {
    /// Total number of records in the file.
    pub count: usize,
    /// Estimated total tokens saved by offloading.
    pub estimated_tokens: usize,
    /// The operation that was performed.
    pub operation: String,
    /// Top namespaces represented (up to 5, most frequent first).
    pub top_namespaces: Vec<String>,
    /// Score range (min, max) if scores were given.
    pub score_range: Option<(f64, f64)>,
    /// Detail level used for serialization.
    pub detail: String,
}

/// A ready-to-run jq command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JqRecipe {
    /// Human-readable description of what this recipe does.
    pub description: String,
    /// The jq command to execute.
    pub command: String,
}

/// Compact response returned when results are offloaded to JSONL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadResponse {
    /// Indicates this is an offloaded result. Always `true`.
    pub offloaded: bool,
    /// Summary of the result set.
    pub summary: OffloadSummary,
    /// Absolute path to the JSONL file.
    pub file_path: String,
    /// JSON Schema describing each record line in the JSONL file.
    pub line_schema: Value,
    /// Ready-to-use jq recipes (exactly 10).
    pub jq_recipes: Vec<JqRecipe>,
    /// Usage guidance for the AI assistant.
    pub guidance: String,
    /// The fields around the offloaded array, when the result was an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Envelope>,
}

/// Renders the guidance block for a descriptor.
pub fn guidance(
    mode: GuidanceMode,
    kind: RecordKind,
    count: usize,
    tokens: usize,
    path: &str,
    recipes: &[Recipe],
) -> String {
    let noun = match (kind, count) {
        (RecordKind::Mif(_), 1) => "memory",
        (RecordKind::Mif(_), _) => "memories",
        (RecordKind::Raw, 1) => "record",
        (RecordKind::Raw, _) => "records",
    };
    let detail = kind.detail_name();
    match (mode, kind) {
        (GuidanceMode::Shell, RecordKind::Mif(_)) => format!(
            "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
             File: {path}\n\
             Detail level: {detail}\n\
             Use the jq recipes above to extract specific data. Common patterns:\n\
             - Browse: recipe #1 (titles with namespaces)\n\
             - Filter: recipe #2 (by namespace) or #3 (by keyword)\n\
             - Analyze: recipe #6 (count by namespace)\n\
             Read the file directly only if you need the complete dataset.\n\
             The header line (line 1) contains metadata; memory objects start at line 2."
        ),
        (GuidanceMode::Shell, RecordKind::Raw) => format!(
            "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
             File: {path}\n\
             Detail level: {detail}\n\
             Use the jq recipes above to extract specific data. Common patterns:\n\
             - Browse: recipe #1 ({})\n\
             - Filter: recipe #2 or #3 ({})\n\
             - Analyze: recipe #6 ({})\n\
             Read the file directly only if you need the complete dataset.\n\
             The header line (line 1) contains metadata; records start at line 2.",
            lower(&recipes[0].description),
            lower(&recipes[2].description),
            lower(&recipes[5].description)
        ),
        (GuidanceMode::Native, RecordKind::Mif(d)) => {
            let custom = match d {
                crate::Detail::Light => r#"select(.memory_type == "semantic")"#,
                crate::Detail::Medium => "select(.confidence > 0.8)",
                crate::Detail::Full => "select(.provenance.confidence > 0.8)",
            };
            format!(
                "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
                 Detail level: {detail}\n\
                 Use the `lro_extract` tool to query this result set. Examples:\n\
                 - Browse: lro_extract(file_path=\"{path}\", recipe=1)\n\
                 - Filter by namespace: lro_extract(file_path=\"{path}\", recipe=2, params={{\"namespace\": \"_semantic\"}})\n\
                 - Search by keyword: lro_extract(file_path=\"{path}\", recipe=3, params={{\"keyword\": \"your term\"}})\n\
                 {}\
                 - Custom filter: lro_extract(file_path=\"{path}\", query={})\n\
                 Available recipes: 1=titles+namespaces, 2=filter namespace, 3=search titles,\n\
                 4=IDs+titles, 5=filter type, 6=count by namespace, 7=filter tag, 8=sort by date,\n\
                 9=detail-adaptive, 10=detail-adaptive.",
                where_example(path, recipes),
                Value::from(custom)
            )
        }
        (GuidanceMode::Native, RecordKind::Raw) => {
            let list = recipes
                .iter()
                .map(|r| format!("{}={}", r.number, lower(&r.description)))
                .collect::<Vec<_>>()
                .join(", ");
            let params = |r: &Recipe| {
                r.params.first().map_or(String::new(), |p| {
                    format!(", params={{\"{}\": \"{}\"}}", p.name, p.example)
                })
            };
            format!(
                "Results offloaded to JSONL ({count} {noun}, ~{tokens} tokens saved).\n\
                 Detail level: {detail}\n\
                 Use the `lro_extract` tool to query this result set. Examples:\n\
                 - Browse: lro_extract(file_path=\"{path}\", recipe=1)\n\
                 - Filter: lro_extract(file_path=\"{path}\", recipe=2{})\n\
                 - Search by keyword: lro_extract(file_path=\"{path}\", recipe=3, params={{\"keyword\": \"your term\"}})\n\
                 {}\
                 - Custom filter: lro_extract(file_path=\"{path}\", query=\"select(. != null)\")\n\
                 Available recipes: {list}.",
                params(&recipes[1]),
                where_example(path, recipes)
            )
        }
    }
}

/// A guidance line with a structured query built from the result's own fields: the first
/// recipe that filters by equality gives the field and the example value (the most frequent
/// one, so the example matches records), recipe 4 the fields to return. Empty for records
/// that are not objects.
fn where_example(path: &str, recipes: &[Recipe]) -> String {
    let Some((field, value)) = recipes.iter().find_map(|r| {
        Some((
            r.matches.clone()?,
            Value::from(r.params.first()?.example.as_str()),
        ))
    }) else {
        return String::new();
    };
    let fields = recipes
        .iter()
        .find(|r| r.number == 4)
        .and_then(|r| r.reads.as_ref())
        .filter(|f| !f.is_empty())
        .map_or_else(String::new, |f| {
            format!(", fields={}", Value::from(f.clone()))
        });
    let mut filter = serde_json::Map::new();
    filter.insert(field, value);
    format!(
        "- Structured query (a MongoDB filter: $gt, $in, $regex, ...; with sort, limit, or count, \
         group_by, distinct, stats): lro_extract(file_path=\"{path}\", where={}{fields})\n",
        Value::Object(filter)
    )
}

fn lower(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_lowercase().chain(c).collect())
}
