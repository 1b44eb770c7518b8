//! The `lro_extract` tool (spec 000, "native extraction"): its descriptor in `tools/list`,
//! and its calls, answered by the proxy with [`Offloader::extract`].

use std::sync::atomic::AtomicBool;

use lro_core::{Host, Offloader, ToolDefinition};
use serde_json::Value;

/// The tool's name.
pub const NAME: &str = lro_mcp::extract_tool::TOOL_NAME;

/// The tool as listed in `tools/list`, in the configured `form`: the core's description and
/// input schema, shared with the Python and Node MCP helpers.
pub fn descriptor(form: ToolDefinition) -> Value {
    lro_mcp::extract_tool::tool_definition(NAME, form)
}

/// Answers one `lro_extract` call with a `CallToolResult`, as the core answers it on every
/// surface ([`lro_mcp::extract_tool::call_result`]); every failure is a result with
/// `isError: true` whose text starts with the error code (`error[path_denied]: ...`).
/// A call whose `cancel` flag is raised stops early (its result is then not wanted).
/// `listed_as` is the name the proxy lists the tool under, which `describe: true` names.
pub fn call<H: Host>(
    lro: &Offloader<H>,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
    listed_as: &str,
) -> Value {
    lro_mcp::extract_tool::call_result_as(lro, arguments, cancel, Some(listed_as))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lro_core::{MemoryHost, OffloadConfig, OffloadRequest};
    use serde_json::json;

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
        let result = call(&lro, Some(&args), &AtomicBool::new(false), NAME);
        assert_eq!(result["isError"], false);
        assert_eq!(text(&result), "\"entity number 42\"\n");
        assert!(result.get("structuredContent").is_none(), "{result}");
    }

    #[test]
    fn structured_queries_answer_with_records_and_their_jq_when_asked() {
        let (lro, path) = offloaded();
        let args = json!({"file_path": path, "where": {"kind": "person", "label": {"$regex": "number 4[0-9]$"}},
                          "fields": ["id"], "sort": {"id": -1}, "limit": 2});
        let result = call(&lro, Some(&args), &AtomicBool::new(false), NAME);
        assert_eq!(result["isError"], false, "{result}");
        assert_eq!(text(&result), "{\"id\":\"e48\"}\n{\"id\":\"e45\"}\n");
        let mut explained = args.clone();
        explained["explain"] = json!(true);
        let result = call(&lro, Some(&explained), &AtomicBool::new(false), NAME);
        assert!(
            text(&result)
                .starts_with("{\"id\":\"e48\"}\n{\"id\":\"e45\"}\nequivalent jq: tail -n +2 ")
        );
        let counted = call(
            &lro,
            Some(&json!({"file_path": path, "count": true, "where": "{\"kind\": \"place\"}"})),
            &AtomicBool::new(false),
            NAME,
        );
        assert_eq!(text(&counted), "200\n");
        let warned = call(
            &lro,
            Some(&json!({"file_path": path, "where": {"knd": "person"}})),
            &AtomicBool::new(false),
            NAME,
        );
        assert!(
            text(&warned).contains(
                "warning: no record has the field \"knd\"; closest field names: \"kind\""
            ),
            "{}",
            text(&warned)
        );
    }

    #[test]
    fn null_optionals_are_ignored() {
        let (lro, path) = offloaded();
        let args = json!({"file_path": path, "recipe": null, "query": null, "lines": {"start": 0, "end": 2}, "search": null});
        let result = call(&lro, Some(&args), &AtomicBool::new(false), NAME);
        assert_eq!(text(&result).lines().count(), 2, "{result}");
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
            let result = call(&lro, Some(&args), &AtomicBool::new(false), NAME);
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
        let spec = [
            "file_path",
            "recipe",
            "query",
            "params",
            "where",
            "fields",
            "sort",
            "skip",
            "limit",
            "count",
            "group_by",
            "distinct",
            "stats",
        ];
        for form in [ToolDefinition::Short, ToolDefinition::Long] {
            let tool = descriptor(form);
            let props = tool["inputSchema"]["properties"].as_object().unwrap();
            // The short form leaves out what another argument does (group_by gives the
            // distinct values) or what is rarely asked (stats): the long form has them.
            let left_out: &[&str] = match form {
                ToolDefinition::Short => &["distinct", "stats"],
                ToolDefinition::Long => &[],
            };
            for key in spec {
                assert_eq!(props.contains_key(key), !left_out.contains(&key), "{key}");
            }
            assert_eq!(tool["inputSchema"]["required"], json!(["file_path"]));
            // Strict-mode friendly: every other property is a primitive that may be null.
            for (name, property) in props.iter().filter(|(name, _)| *name != "file_path") {
                let kinds = property["type"].as_array().expect(name);
                assert_eq!(kinds.len(), 2, "{name}");
                assert!(kinds.contains(&json!("null")), "{name}");
                assert_eq!(property["nullable"], true, "{name}");
            }
        }
    }
}
