//! The extract tool's definition as `tools/list` gives it, in its two forms
//! (`mcp.extract_tool_definition`): the short one, by default, and the long one.
//!
//! A client sends every tool's definition with every request to its model, so the default is
//! short: one paragraph and the arguments an agent needs, no description per argument, at
//! most [`SHORT_BUDGET_TOKENS`] (the long form is about 1,400). What it leaves out is in the
//! `describe: true` answer ([`arguments_reference`]) and in the errors, which show the form
//! they expected. The long form lists every argument with its description and an example.
//!
//! Both schemas are flat and strict-mode friendly: primitive, nullable types, no free-form
//! objects (`where`, `params`, `sort` and `fields` travel as JSON text), only `file_path`
//! required, so OpenAI's strict mode, smolagents, LangChain and the AI SDK call it with the
//! arguments they need (the others as `null`). Each optional argument costs about 14 tokens
//! for that (`"type": [T, "null"]` for strict mode, `"nullable": true` for smolagents), which
//! is why the short form lists 16 of the 21: `distinct` (`group_by` gives the same values,
//! counted), `stats`, `explain`, `ignore_case` (`(?i)` in the pattern does it) and
//! `max_results` (the answer is bounded anyway) are in the long form only. The arguments'
//! reader takes all 21 whichever form is listed.

use serde_json::{Value, json};

use lro_core::ToolDefinition;

/// Most tokens of the short definition as the proxy lists it (name, title, description,
/// input schema, annotations), by the offloading estimate and by the o200k tokenizer.
pub const SHORT_BUDGET_TOKENS: usize = 400;

/// What the tool does, for the model, in the long form.
pub const LONG_DESCRIPTION: &str = "Query a tool result that was offloaded to a JSONL file (the \
    `file_path` of an offloaded result), without a shell. Give one of: `where`, a MongoDB filter \
    document as JSON text such as {\"tags\": \"cache\", \"provenance.confidence\": {\"$gte\": 0.8}} \
    (shape the records with `fields`, `sort`, `skip`, `limit`, or summarize them with one of \
    `count`, `group_by`, `distinct`, `stats`); `recipe` (1-10, the result's jq_recipes, with \
    optional `params`); `query` (a jq filter run on each record, `params` bound as $variables); \
    `lines` (a range of records, \"0:20\") or `chars` (a range of characters of the records); or \
    `search` (a regular expression over the raw record lines). Leave the others out or null. A \
    file with `sections` (one per array of the result) is read one section at a time with \
    `section`. `describe`: true returns the result's full descriptor (line schema, the ten recipes \
    with their jq commands). The answer is the result alone, one per line (a count is the \
    number); `explain`: true adds the equivalent jq command. An answer too large is cut, ending \
    with a `[truncated]` line that says what was returned and names the next call. To pass a \
    result on without reading it, give another tool's argument as {\"$lro\": \"<resource_uri>\", \
    \"where\": {...}, \"as\": \"json\"|\"jsonl\"|\"text\"}, or `save`: true to keep this call's \
    output as a new result with its own resource_uri.";

/// What the tool does, for the model, in the short form: every argument it lists is named.
pub const SHORT_DESCRIPTION: &str = "Query an offloaded result's file_path. One of: where \
    (MongoDB filter as JSON text, {\"kind\": \"person\"}; with fields, sort, skip, limit, or \
    count, group_by), recipe (with params), query (jq on each record), lines (\"0:20\"), chars, \
    search (regex); section picks a section. describe: true explains all arguments. To pass a \
    result on unread: {\"$lro\": \"<resource_uri>\"} as another tool's argument, or save: true \
    for a new result.";

/// The tool's description in `form`.
pub fn tool_description(form: ToolDefinition) -> &'static str {
    match form {
        ToolDefinition::Short => SHORT_DESCRIPTION,
        ToolDefinition::Long => LONG_DESCRIPTION,
    }
}

/// The kinds of JSON value an argument takes.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Integer { min: u64, max: Option<u64> },
    Flag,
}

/// One argument: its name, kind, description, and whether the short form lists it.
struct Argument {
    name: &'static str,
    kind: Kind,
    short: bool,
    description: &'static str,
}

const fn arg(name: &'static str, kind: Kind, short: bool, description: &'static str) -> Argument {
    Argument {
        name,
        kind,
        short,
        description,
    }
}

const COUNT: Kind = Kind::Integer { min: 0, max: None };

/// Every argument but `file_path`, in the order the schema lists them.
const ARGUMENTS: [Argument; 21] = [
    arg(
        "where",
        Kind::Text,
        true,
        "A MongoDB filter document, as JSON text. Keys are field names (dotted paths such as \
         \"provenance.confidence\" reach into nested objects and arrays) with a value to equal, or \
         operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $type $regex (with $options \"i\") \
         $all $size $elemMatch $not; combine documents with $and, $or, $nor. A value matches an \
         array that holds it; null matches a missing field. Example: {\"namespace\": {\"$regex\": \
         \"^_semantic\"}, \"tags\": \"cache\"}. {} matches every record.",
    ),
    arg(
        "fields",
        Kind::Text,
        true,
        "With where: the fields of each record to return, comma separated \
         (\"id,title,provenance.confidence\"), or as JSON text ({\"content\": 0} drops a field).",
    ),
    arg(
        "sort",
        Kind::Text,
        true,
        "With where: sort order, comma separated fields, - for descending (\"-created,title\"), \
         or as JSON text ({\"created\": -1}).",
    ),
    arg(
        "skip",
        COUNT,
        true,
        "With where: matching records to pass over first.",
    ),
    arg(
        "limit",
        COUNT,
        true,
        "With where: most matching records to return.",
    ),
    arg(
        "count",
        Kind::Flag,
        true,
        "With where (or alone): return only the number of matching records.",
    ),
    arg(
        "group_by",
        Kind::Text,
        true,
        "With where (or alone): count the matching records per value of this field, as \
         [{\"<field>\": value, \"count\": n}], largest first; an array field counts each element.",
    ),
    arg(
        "distinct",
        Kind::Text,
        false,
        "With where (or alone): the distinct values of this field (array elements each), as one array.",
    ),
    arg(
        "stats",
        Kind::Text,
        false,
        "With where (or alone): {count, min, max, sum, avg} of the numbers in this field.",
    ),
    arg(
        "recipe",
        Kind::Integer {
            min: 1,
            max: Some(10),
        },
        true,
        "A recipe number from the result's jq_recipes.",
    ),
    arg(
        "query",
        Kind::Text,
        true,
        "A jq filter, run on each record, e.g. select(.namespace == $ns) | .title",
    ),
    arg(
        "params",
        Kind::Text,
        true,
        "Recipe parameters, or $variables of the query, as a JSON object in text: {\"keyword\": \"cache\"}.",
    ),
    arg(
        "lines",
        Kind::Text,
        true,
        "A range of records, START:END counted from 0, END excluded: \"0:20\".",
    ),
    arg(
        "chars",
        Kind::Text,
        true,
        "A range of characters of the records (the file after its header line), START:END: \
         \"16000:32000\"; for a record too large to read whole.",
    ),
    arg(
        "search",
        Kind::Text,
        true,
        "A regular expression searched in each record's JSON line.",
    ),
    arg(
        "ignore_case",
        Kind::Flag,
        false,
        "With search: match without regard to case.",
    ),
    arg(
        "max_results",
        Kind::Integer { min: 1, max: None },
        false,
        "With search: most matching lines to return.",
    ),
    arg(
        "section",
        Kind::Text,
        true,
        "A section name from the result's `sections`: where, query, lines, chars and search read \
         only that section's records (recipes read their own).",
    ),
    arg(
        "describe",
        Kind::Flag,
        true,
        "Return the result's full descriptor: summary, line schema, the ten recipes with their \
         jq commands, guidance.",
    ),
    arg(
        "save",
        Kind::Flag,
        true,
        "Save the output as a new offloaded result instead of answering it: the answer is its \
         descriptor, whose resource_uri passes it to another tool.",
    ),
    arg(
        "explain",
        Kind::Flag,
        false,
        "Add the equivalent jq command to the answer (where queries).",
    ),
];

/// Descriptions of the structured-query parameters, by name (shared by every surface).
pub const QUERY_PARAMETERS: [&str; 9] = [
    "where", "fields", "sort", "skip", "limit", "count", "group_by", "distinct", "stats",
];

/// The long form's description of the argument `name` (empty for an unknown name).
pub fn argument_description(name: &str) -> &'static str {
    ARGUMENTS
        .iter()
        .find(|a| a.name == name)
        .map_or("", |a| a.description)
}

/// The names of the arguments `form` lists, `file_path` first.
pub fn argument_names(form: ToolDefinition) -> Vec<&'static str> {
    std::iter::once("file_path")
        .chain(listed(form).map(|a| a.name))
        .collect()
}

fn listed(form: ToolDefinition) -> impl Iterator<Item = &'static Argument> {
    ARGUMENTS
        .iter()
        .filter(move |a| form == ToolDefinition::Long || a.short)
}

/// The tool's input schema (JSON Schema) in `form`: `file_path` (the only one required) and
/// the other arguments as nullable primitives (see the module docs); the long form with a
/// description and bounds for each.
pub fn tool_input_schema(form: ToolDefinition) -> Value {
    let long = form == ToolDefinition::Long;
    let mut properties = serde_json::Map::new();
    let mut file_path = json!({"type": "string"});
    if long {
        file_path["description"] = json!("The offloaded result's file_path.");
    }
    properties.insert("file_path".to_owned(), file_path);
    for argument in listed(form) {
        let kind = match argument.kind {
            Kind::Text => "string",
            Kind::Integer { .. } => "integer",
            Kind::Flag => "boolean",
        };
        // `null` in the types for JSON Schema readers (OpenAI's strict mode sends every
        // property, `null` when unused), and `nullable: true` for those that read the
        // OpenAPI keyword instead (smolagents treats an input without it as required,
        // whatever `required` says).
        let mut property = json!({"type": [kind, "null"], "nullable": true});
        if long {
            property["description"] = json!(argument.description);
            if let Kind::Integer { min, max } = argument.kind {
                property["minimum"] = json!(min);
                if let Some(max) = max {
                    property["maximum"] = json!(max);
                }
            }
        }
        properties.insert(argument.name.to_owned(), property);
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": ["file_path"],
        "additionalProperties": false
    })
}

/// The tool as `tools/list` gives it in `form`, named `name`.
pub fn tool_definition(name: &str, form: ToolDefinition) -> Value {
    json!({
        "name": name,
        "title": "Extract from an offloaded result",
        "description": tool_description(form),
        "inputSchema": tool_input_schema(form),
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    })
}

/// What the short definition leaves out, for the `describe: true` answer: each argument it
/// lists with the long form's description, one per line. Every line starts with
/// `argument`, as the answer's other added lines start with `warning:` or `equivalent jq:`,
/// so that a reader of the results knows them apart.
pub fn arguments_reference(tool_name: &str) -> String {
    let mut text = format!(
        "arguments of {tool_name}: file_path and one of where, recipe, query, lines, chars, \
         search, describe; leave the others out or null.\n\
         argument file_path: the offloaded result's file_path (or its resource_uri)."
    );
    for argument in listed(ToolDefinition::Short) {
        let extra = match argument.name {
            "group_by" => " (Each value once with its count: the distinct values.)",
            "search" => " Start it with (?i) to match without regard to case.",
            _ => "",
        };
        text.push_str(&format!(
            "\nargument {}: {}{extra}",
            argument.name, argument.description
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_form_lists_a_subset_and_names_each_in_its_description() {
        let short = argument_names(ToolDefinition::Short);
        let long = argument_names(ToolDefinition::Long);
        assert_eq!((short.len(), long.len()), (17, 22));
        assert!(short.iter().all(|name| long.contains(name)));
        for name in &short[1..] {
            assert!(SHORT_DESCRIPTION.contains(name), "{name}");
        }
        for name in QUERY_PARAMETERS {
            assert!(!argument_description(name).is_empty(), "{name}");
        }
    }

    #[test]
    fn the_reference_describes_every_short_argument() {
        let reference = arguments_reference("lro_extract");
        assert!(reference.lines().all(|line| line.starts_with("argument")));
        for name in argument_names(ToolDefinition::Short) {
            assert!(
                reference.contains(&format!("\nargument {name}: ")),
                "{name}"
            );
        }
    }
}
