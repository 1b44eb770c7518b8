//! The extract tool's definition in its two forms (`mcp.extract_tool_definition`): the short
//! one within its token budget, the long one whole, and what the short one leaves out given
//! by the `describe: true` answer and by errors that show the form they expected.

use std::sync::atomic::AtomicBool;

use lro_core::estimate::estimate_tokens;
use lro_core::{MemoryHost, OffloadConfig, Offloader, ToolDefinition};
use lro_mcp::extract_tool::{
    LONG_DESCRIPTION, SHORT_BUDGET_TOKENS, argument_description, call_result, tool_definition,
    tool_input_schema,
};
use serde_json::{Value, json};

use crate::support::offload_text;

fn offloader(form: ToolDefinition) -> Offloader<MemoryHost> {
    let mut config = OffloadConfig::default();
    config.mcp.extract_tool_definition = form;
    Offloader::new(config, MemoryHost::new()).unwrap()
}

fn answer(lro: &Offloader<MemoryHost>, arguments: Value) -> (bool, String) {
    let result = call_result(lro, Some(&arguments), &AtomicBool::new(false));
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    (result["isError"] == true, text)
}

fn people() -> String {
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"name": format!("entity-{i}"), "kind": if i % 3 == 0 { "person" } else { "place" }}))
        .collect();
    json!(records).to_string()
}

#[test]
fn the_short_definition_fits_its_budget_whatever_the_tool_is_named() {
    // The longest name a tool may have (64 characters), as `tools/list` gives it.
    let name = format!("lro_extract_{}", "s".repeat(52));
    let listed = tool_definition(&name, ToolDefinition::Short).to_string();
    let tokens = estimate_tokens(listed.as_bytes());
    assert!(tokens <= SHORT_BUDGET_TOKENS, "{tokens} tokens: {listed}");
    let long = tool_definition(&name, ToolDefinition::Long).to_string();
    assert!(estimate_tokens(long.as_bytes()) > 3 * tokens, "{long}");
}

#[test]
fn the_long_definition_describes_every_argument_and_bounds_the_numbers() {
    let schema = tool_input_schema(ToolDefinition::Long);
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(properties.len(), 22);
    for (name, property) in properties {
        assert!(
            property["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty()),
            "{name}"
        );
    }
    assert_eq!(
        (
            properties["recipe"]["minimum"].clone(),
            properties["recipe"]["maximum"].clone()
        ),
        (json!(1), json!(10))
    );
    assert!(LONG_DESCRIPTION.contains("`explain`"));
    let short = tool_input_schema(ToolDefinition::Short);
    for (name, property) in short["properties"].as_object().unwrap() {
        assert!(property.get("description").is_none(), "{name}");
        assert_eq!(properties[name]["type"], property["type"], "{name}");
    }
}

#[test]
fn describe_gives_what_the_short_definition_leaves_out() {
    for form in [ToolDefinition::Short, ToolDefinition::Long] {
        let lro = offloader(form);
        let file = offload_text(&lro, "list_places", &people());
        let (failed, text) = answer(&lro, json!({"file_path": file, "describe": true}));
        assert!(!failed, "{text}");
        let descriptor: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(descriptor["summary"]["count"], 300, "{text}");
        let described = text.contains(argument_description("where"));
        assert_eq!(described, form == ToolDefinition::Short, "{text}");
    }
    // A bound too small for the descriptions says where they are instead.
    let mut config = OffloadConfig::default();
    config.extract.answer_max_bytes = 5000;
    let lro = Offloader::new(config, MemoryHost::new()).unwrap();
    let file = offload_text(&lro, "list_places", &people());
    let (_, text) = answer(&lro, json!({"file_path": file, "describe": true}));
    assert!(
        text.contains("mcp.extract_tool_definition = \"long\""),
        "{text}"
    );
    assert!(text.len() <= 5000, "{}", text.len());
}

#[test]
fn a_wrong_argument_is_answered_with_the_form_expected() {
    let lro = offloader(ToolDefinition::Short);
    let file = offload_text(&lro, "list_places", &people());
    for (arguments, expected) in [
        (json!({"file_path": file}), "\"where\": \"{\\\"kind\\\""),
        (
            json!({"file_path": file, "filter": "{}"}),
            "the arguments are file_path, where,",
        ),
        (
            json!({"file_path": file, "count": "yes"}),
            "count must be true or false",
        ),
        (
            json!({"file_path": file, "group_by": ["kind"]}),
            "group_by must be a field name such as",
        ),
        (
            json!({"file_path": file, "lines": "first 20"}),
            "a range such as \"0:50\"",
        ),
        (
            json!({"file_path": file, "recipe": 12}),
            "recipe must be a whole number from 1 to 10",
        ),
        (
            json!({"file_path": file, "where": "kind = person"}),
            "filter document such as {\"kind\": \"person\"}",
        ),
    ] {
        let (failed, text) = answer(&lro, arguments.clone());
        assert!(failed, "{arguments}: {text}");
        assert!(text.contains(expected), "{arguments}: {text}");
    }
}

#[test]
fn a_cut_search_names_only_arguments_the_listed_definition_has() {
    for (form, names_max_results) in [(ToolDefinition::Short, false), (ToolDefinition::Long, true)]
    {
        let mut config = OffloadConfig::default();
        config.mcp.extract_tool_definition = form;
        config.extract.answer_max_bytes = 2000;
        let lro = Offloader::new(config, MemoryHost::new()).unwrap();
        let file = offload_text(&lro, "list_places", &people());
        let (_, text) = answer(&lro, json!({"file_path": file, "search": "entity"}));
        let last = text.lines().last().unwrap();
        assert!(last.starts_with("[truncated]"), "{text}");
        assert_eq!(last.contains("max_results"), names_max_results, "{last}");
    }
}
