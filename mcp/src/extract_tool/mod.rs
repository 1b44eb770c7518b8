//! The extract tool as agents see it, and its answers: one description, one input schema
//! and one way of answering, used by the `lro proxy` and the Python and Node MCP helpers, so
//! every surface offers the same names described the same way and answers alike.
//!
//! The input schema is flat and strict-mode friendly: primitive, nullable types, no
//! free-form objects (`where`, `params`, `sort` and `fields` travel as JSON text), only
//! `file_path` required, so OpenAI's strict mode, smolagents, LangChain and the AI SDK call
//! it with the arguments they need (the others as `null`). [`arguments`] still reads the
//! object forms clients sent before. The answer ([`call_result`]) is text alone, bounded by
//! `extract.answer_max_bytes` and `extract.answer_max_tokens`.

mod answer;
pub mod arguments;
pub(crate) mod clip;
mod save;

use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};

use lro_core::host::Host;
use lro_core::offload::Offloader;
/// Most characters of an error answer's message.
const ERROR_MAX_CHARS: usize = 600;

/// The tool's name.
pub const TOOL_NAME: &str = "lro_extract";

/// What the tool does, for the model.
pub const TOOL_DESCRIPTION: &str = "Query a tool result that was offloaded to a JSONL file (the \
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

/// Descriptions of the structured-query parameters, by name (shared by every surface).
pub const QUERY_PARAMETERS: [(&str, &str); 9] = [
    (
        "where",
        "A MongoDB filter document, as JSON text. Keys are field names (dotted paths such as \
         \"provenance.confidence\" reach into nested objects and arrays) with a value to equal, or \
         operators: $eq $ne $gt $gte $lt $lte $in $nin $exists $type $regex (with $options \"i\") \
         $all $size $elemMatch $not; combine documents with $and, $or, $nor. A value matches an \
         array that holds it; null matches a missing field. Example: {\"namespace\": {\"$regex\": \
         \"^_semantic\"}, \"tags\": \"cache\"}. {} matches every record.",
    ),
    (
        "fields",
        "With where: the fields of each record to return, comma separated \
         (\"id,title,provenance.confidence\"), or as JSON text ({\"content\": 0} drops a field).",
    ),
    (
        "sort",
        "With where: sort order, comma separated fields, - for descending (\"-created,title\"), \
         or as JSON text ({\"created\": -1}).",
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

/// A nullable property of `kind` (`"string"`, `"integer"`, `"boolean"`): `null` in its
/// types for JSON Schema readers (OpenAI's strict mode sends every property, `null` when
/// unused), and `nullable: true` for those that read the OpenAPI keyword instead (smolagents
/// treats an input without it as required, whatever `required` says).
fn nullable(kind: &str, description: &str) -> Value {
    json!({"type": [kind, "null"], "nullable": true, "description": description})
}

/// The tool's input schema (JSON Schema): `file_path` (the only one required), the
/// structured query, `recipe`, `query`, `params`, `lines`, `chars`, `search`, `section`,
/// `describe`, `explain`. Flat and nullable: see the module docs.
pub fn tool_input_schema() -> Value {
    let mut properties = serde_json::Map::new();
    let mut add = |name: &str, property: Value| {
        properties.insert(name.to_owned(), property);
    };
    add(
        "file_path",
        json!({"type": "string", "description": "The offloaded result's file_path."}),
    );
    add("where", nullable("string", describe("where")));
    add("fields", nullable("string", describe("fields")));
    add("sort", nullable("string", describe("sort")));
    for name in ["skip", "limit"] {
        let mut property = nullable("integer", describe(name));
        property["minimum"] = json!(0);
        add(name, property);
    }
    add("count", nullable("boolean", describe("count")));
    for name in ["group_by", "distinct", "stats"] {
        add(name, nullable("string", describe(name)));
    }
    let mut recipe = nullable("integer", "A recipe number from the result's jq_recipes.");
    recipe["minimum"] = json!(1);
    recipe["maximum"] = json!(10);
    add("recipe", recipe);
    add(
        "query",
        nullable(
            "string",
            "A jq filter, run on each record, e.g. select(.namespace == $ns) | .title",
        ),
    );
    add(
        "params",
        nullable(
            "string",
            "Recipe parameters, or $variables of the query, as a JSON object in text: {\"keyword\": \"cache\"}.",
        ),
    );
    add(
        "lines",
        nullable(
            "string",
            "A range of records, START:END counted from 0, END excluded: \"0:20\".",
        ),
    );
    add(
        "chars",
        nullable(
            "string",
            "A range of characters of the records (the file after its header line), START:END: \"16000:32000\"; for a record too large to read whole.",
        ),
    );
    add(
        "search",
        nullable(
            "string",
            "A regular expression searched in each record's JSON line.",
        ),
    );
    add(
        "ignore_case",
        nullable("boolean", "With search: match without regard to case."),
    );
    let mut max_results = nullable("integer", "With search: most matching lines to return.");
    max_results["minimum"] = json!(1);
    add("max_results", max_results);
    add(
        "section",
        nullable(
            "string",
            "A section name from the result's `sections`: where, query, lines, chars and search read only that section's records (recipes read their own).",
        ),
    );
    add(
        "describe",
        nullable(
            "boolean",
            "Return the result's full descriptor: summary, line schema, the ten recipes with their jq commands, guidance.",
        ),
    );
    add(
        "save",
        nullable(
            "boolean",
            "Save the output as a new offloaded result instead of answering it: the answer is \
             its descriptor, whose resource_uri passes it to another tool.",
        ),
    );
    add(
        "explain",
        nullable(
            "boolean",
            "Add the equivalent jq command to the answer (where queries).",
        ),
    );
    json!({
        "type": "object",
        "properties": properties,
        "required": ["file_path"],
        "additionalProperties": false
    })
}

/// Answers one call of the extract tool with a `CallToolResult` (as JSON): the answer as
/// one text block ([`answer`]); every failure a result with `isError: true` whose text
/// starts with the error code (`error[path_denied]: ...`). A call whose `cancel` flag is
/// raised stops early (its result is then not wanted). No `structuredContent`: the text is
/// the answer, and a second copy is what clients show twice.
pub fn call_result<H: Host>(
    lro: &Offloader<H>,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
) -> Value {
    call_result_as(lro, arguments, cancel, None)
}

/// [`call_result`] for a tool listed as `extract_tool` when that is not the configured name
/// (`lro proxy` names it after its server): `describe: true` rebuilds a descriptor whose
/// guidance names the tool as the client sees it.
pub fn call_result_as<H: Host>(
    lro: &Offloader<H>,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
    extract_tool: Option<&str>,
) -> Value {
    let answered = arguments::parse(arguments).and_then(|mut call| {
        call.request.extract_tool = extract_tool.map(str::to_owned);
        if call.save {
            return save::answer(lro, &call, arguments, cancel);
        }
        let response = lro.extract_cancellable(&call.file_path, &call.request, cancel)?;
        let text = answer::text(lro, &call, &response);
        Ok(json!({"content": [{"type": "text", "text": text}], "isError": false}))
    });
    match answered {
        Ok(result) => result,
        // An error message may quote the caller's arguments or the data's field names: cut
        // it, so an error answer is bounded like any other.
        Err(err) => json!({
            "content": [{"type": "text", "text": format!("error[{}]: {}", err.code(), clip::clip(err.message(), ERROR_MAX_CHARS))}],
            "isError": true
        }),
    }
}
