//! The `lro_extract` tool (spec 000, "native extraction"): its descriptor in `tools/list`,
//! and its calls, answered by the proxy with [`Offloader::extract`].

use lro_core::{ErrorCode, ExtractRequest, ExtractResponse, Host, LroError, Offloader};
use serde_json::{Map, Value, json};

/// The tool's name.
pub const NAME: &str = "lro_extract";

/// The tool as listed in `tools/list`.
pub fn descriptor() -> Value {
    json!({
        "name": NAME,
        "title": "Extract from an offloaded result",
        "description": "Query a tool result that was offloaded to a JSONL file (the `file_path` of an \
            offloaded result), without a shell. Give exactly one of: `recipe` (1-10, the result's \
            jq_recipes, with optional `params`), `query` (a jq filter run on each record, with \
            optional `params` bound as $variables), `lines` (a range of records), or `search` (a \
            regular expression over the raw record lines). A file with `sections` (one per array \
            of the result) is read one section at a time with `section`.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "The offloaded result's file_path."},
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
                "section": {"type": "string", "description": "A section name from the result's `sections`: query, lines and search read only that section's records (recipes read their own)."},
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
        },
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    })
}

/// Answers one `lro_extract` call with a `CallToolResult`; every failure is a result with
/// `isError: true` whose text starts with the error code (`error[path_denied]: ...`).
pub fn call<H: Host>(lro: &Offloader<H>, arguments: Option<&Value>) -> Value {
    match parse(arguments).and_then(|(file, request)| Ok((lro.extract(&file, &request)?, request)))
    {
        Ok((response, request)) => success(&response, request.recipe.is_some()),
        Err(err) => json!({
            "content": [{"type": "text", "text": format!("error[{}]: {}", err.code(), err.message())}],
            "isError": true
        }),
    }
}

fn parse(arguments: Option<&Value>) -> Result<(String, ExtractRequest), LroError> {
    let bad = |message: String| LroError::new(ErrorCode::InvalidArgument, message);
    let mut fields: Map<String, Value> = match arguments {
        Some(Value::Object(map)) => map.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            return Err(bad(format!(
                "lro_extract arguments must be an object, got {other}"
            )));
        }
    };
    let file = match fields.remove("file_path") {
        Some(Value::String(path)) => path,
        Some(other) => return Err(bad(format!("file_path must be a string, got {other}"))),
        None => return Err(bad("file_path is required".to_owned())),
    };
    // Clients often send every optional parameter as null.
    fields.retain(|_, v| !v.is_null());
    let request = serde_json::from_value(Value::Object(fields))
        .map_err(|e| bad(format!("lro_extract: {e}")))?;
    Ok((file, request))
}

fn success(response: &ExtractResponse, raw_strings: bool) -> Value {
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
    if let Some(limit) = &response.limit {
        text.push_str(&format!("[truncated: {limit}]\n"));
    }
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": serde_json::to_value(response).unwrap_or(Value::Null),
        "isError": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lro_core::{MemoryHost, OffloadConfig, OffloadRequest};

    fn offloaded() -> (Offloader<MemoryHost>, String) {
        let records: Vec<Value> = (0..300)
            .map(|i| json!({"id": format!("e{i}"), "kind": if i % 3 == 0 { "person" } else { "place" }, "label": format!("entity number {i}")}))
            .collect();
        let lro = Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap();
        let outcome = lro
            .offload(&json!(records), &OffloadRequest::new("read_graph"))
            .unwrap();
        let path = outcome
            .offloaded()
            .expect("300 records exceed the threshold")
            .file_path
            .clone();
        (lro, path)
    }

    fn text(result: &Value) -> &str {
        result["content"][0]["text"].as_str().unwrap()
    }

    #[test]
    fn queries_return_the_matching_records() {
        let (lro, path) = offloaded();
        let args = json!({"file_path": path, "query": "select(.id == $id) | .label", "params": {"id": "e42"}});
        let result = call(&lro, Some(&args));
        assert_eq!(result["isError"], false);
        assert_eq!(text(&result), "\"entity number 42\"\n");
        assert_eq!(
            result["structuredContent"]["results"],
            json!(["entity number 42"])
        );
    }

    #[test]
    fn null_optionals_are_ignored() {
        let (lro, path) = offloaded();
        let args = json!({"file_path": path, "recipe": null, "query": null, "lines": {"start": 0, "end": 2}, "search": null});
        let result = call(&lro, Some(&args));
        assert_eq!(result["structuredContent"]["count"], 2, "{result}");
    }

    #[test]
    fn errors_carry_their_code() {
        let (lro, path) = offloaded();
        for (args, code) in [
            (json!({}), "invalid_argument"),
            (json!({"file_path": 3}), "invalid_argument"),
            (
                json!({"file_path": path, "recipe": 1, "query": "."}),
                "invalid_argument",
            ),
            (json!({"file_path": path, "bogus": 1}), "invalid_argument"),
            (
                json!({"file_path": path, "query": "select("}),
                "invalid_query",
            ),
            (
                json!({"file_path": "/etc/passwd", "recipe": 1}),
                "path_denied",
            ),
        ] {
            let result = call(&lro, Some(&args));
            assert_eq!(result["isError"], true, "{args}");
            assert!(
                text(&result).starts_with(&format!("error[{code}]")),
                "{args}: {}",
                text(&result)
            );
        }
    }

    #[test]
    fn the_descriptor_names_the_spec_parameters() {
        let tool = descriptor();
        let props = tool["inputSchema"]["properties"].as_object().unwrap();
        for key in ["file_path", "recipe", "query", "params"] {
            assert!(props.contains_key(key), "{key}");
        }
        assert_eq!(tool["inputSchema"]["required"], json!(["file_path"]));
    }
}
