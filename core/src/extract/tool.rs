//! The `lro_extract` tool as agents see it: one description and one input schema, used by
//! the `lro proxy` and the Python and Node MCP helpers, so every surface offers the same
//! names described the same way.

use serde_json::{Value, json};

/// The tool's name.
pub const TOOL_NAME: &str = "lro_extract";

/// What the tool does, for the model.
pub const TOOL_DESCRIPTION: &str = "Query a tool result that was offloaded to a JSONL file (the \
    `file_path` of an offloaded result), without a shell. Give one of: `where`, a MongoDB filter \
    document such as {\"tags\": \"cache\", \"provenance.confidence\": {\"$gte\": 0.8}} (shape the \
    records with `fields`, `sort`, `skip`, `limit`, or summarize them with one of `count`, \
    `group_by`, `distinct`, `stats`); `recipe` (1-10, the result's jq_recipes, with optional \
    `params`); `query` (a jq filter run on each record, `params` bound as $variables); `lines` (a \
    range of records); or `search` (a regular expression over the raw record lines). A file with \
    `sections` (one per array of the result) is read one section at a time with `section`. \
    `describe`: true returns the result's full descriptor (line schema, the ten recipes with \
    their jq commands). A result too large to return comes back cut, with `truncated`, `returned`, `total` and a `hint`.";

/// Descriptions of the structured-query parameters, by name (shared by every surface).
pub const QUERY_PARAMETERS: [(&str, &str); 9] = [
    (
        "where",
        "A MongoDB filter document. Keys are field names (dotted paths such as \
         \"provenance.confidence\" reach into nested objects and arrays) with a value to equal, or \
         operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $type $regex (with $options \"i\") \
         $all $size $elemMatch $not; combine documents with $and, $or, $nor. A value matches an \
         array that holds it; null matches a missing field. Example: {\"namespace\": {\"$regex\": \
         \"^_semantic\"}, \"tags\": \"cache\"}. {} matches every record.",
    ),
    (
        "fields",
        "With where: the fields of each record to return, e.g. [\"id\", \"title\", \
         \"provenance.confidence\"] (or {\"content\": 0} to drop a field).",
    ),
    (
        "sort",
        "With where: sort order, e.g. {\"created\": -1} for newest first; several keys in order.",
    ),
    ("skip", "With where: matching records to pass over first."),
    ("limit", "With where: most matching records to return."),
    (
        "count",
        "With where (or alone): return only the number of matching records.",
    ),
    (
        "group_by",
        "With where (or alone): count the matching records per value of this field, as \
         [{\"<field>\": value, \"count\": n}], largest first; an array field counts each element.",
    ),
    (
        "distinct",
        "With where (or alone): the distinct values of this field (array elements each), as one array.",
    ),
    (
        "stats",
        "With where (or alone): {count, min, max, sum, avg} of the numbers in this field.",
    ),
];

fn describe(name: &str) -> &'static str {
    QUERY_PARAMETERS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, d)| d)
}

/// The tool's input schema (JSON Schema): `file_path`, the structured query, `recipe`,
/// `query`, `params`, `lines`, `search`.
pub fn tool_input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "file_path": {"type": "string", "description": "The offloaded result's file_path."},
            "where": {"type": "object", "description": describe("where")},
            "fields": {"type": "array", "items": {"type": "string"}, "description": describe("fields")},
            "sort": {
                "type": "object",
                "additionalProperties": {"type": "integer", "enum": [1, -1]},
                "description": describe("sort")
            },
            "skip": {"type": "integer", "minimum": 0, "description": describe("skip")},
            "limit": {"type": "integer", "minimum": 0, "description": describe("limit")},
            "count": {"type": "boolean", "description": describe("count")},
            "group_by": {"type": "string", "description": describe("group_by")},
            "distinct": {"type": "string", "description": describe("distinct")},
            "stats": {"type": "string", "description": describe("stats")},
            "recipe": {"type": "integer", "minimum": 1, "maximum": 10,
                       "description": "A recipe number from the result's jq_recipes."},
            "query": {"type": "string", "description": "A jq filter, run on each record, e.g. select(.namespace == $ns) | .title"},
            "params": {"type": "object", "description": "Recipe parameters ({\"keyword\": \"cache\"}) or $variables of the query."},
            "lines": {
                "type": "object",
                "description": "Records start (inclusive) to end (exclusive), counted from 0; or characters with unit \"chars\".",
                "properties": {
                    "start": {"type": "integer", "minimum": 0},
                    "end": {"type": "integer", "minimum": 0},
                    "unit": {"type": "string", "enum": ["records", "chars"]}
                },
                "additionalProperties": false
            },
            "describe": {"type": "boolean", "description": "Return the result's full descriptor: summary, line schema, the ten recipes with their jq commands, guidance."},
            "section": {"type": "string", "description": "A section name from the result's `sections`: where, query, lines and search read only that section's records (recipes read their own)."},
            "search": {
                "type": "object",
                "description": "A regular expression searched in each record's JSON line.",
                "properties": {
                    "pattern": {"type": "string"},
                    "ignore_case": {"type": "boolean"},
                    "max_results": {"type": "integer", "minimum": 1}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }
        },
        "required": ["file_path"],
        "additionalProperties": false
    })
}

/// The text an `lro_extract` tool call returns for `response`: one result per line (strings
/// raw when `raw_strings`, as recipe #1 prints them), then the warnings, the cut and its
/// hint, and for structured queries the equivalent jq command.
pub fn response_text(response: &super::ExtractResponse, raw_strings: bool) -> String {
    let mut text = String::new();
    for value in &response.results {
        match value {
            Value::String(s) if raw_strings => text.push_str(s),
            other => text.push_str(&other.to_string()),
        }
        text.push('\n');
    }
    if response.results.is_empty() {
        text.push_str("(no results)\n");
    }
    for warning in &response.warnings {
        text.push_str(&format!("warning: {warning}\n"));
    }
    match (&response.hint, &response.limit) {
        (Some(hint), _) => text.push_str(&format!("[truncated] {hint}\n")),
        (None, Some(limit)) => text.push_str(&format!("[truncated: {limit}]\n")),
        _ => {}
    }
    if let Some(jq) = &response.jq {
        text.push_str(&format!("equivalent jq: {jq}\n"));
    }
    text
}
