//! The extract tool's answers (`lro_mcp::extract_tool::call_result`), as every MCP surface
//! gives them: the answer alone, bounded, with the next call named when cut.

use std::sync::atomic::AtomicBool;

use lro_core::ToolDefinition;
use lro_core::{MemoryHost, OffloadConfig, Offloader};
use lro_mcp::extract_tool::{call_result, tool_input_schema};
use serde_json::{Value, json};

use crate::support::offload_text;

fn offloader(config: OffloadConfig) -> Offloader<MemoryHost> {
    Offloader::new(config, MemoryHost::new()).unwrap()
}

fn call(lro: &Offloader<MemoryHost>, arguments: Value) -> Value {
    call_result(lro, Some(&arguments), &AtomicBool::new(false))
}

fn text(result: &Value) -> &str {
    assert_eq!(result["isError"], false, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert_eq!(result["content"].as_array().unwrap().len(), 1, "{result}");
    result["content"][0]["text"].as_str().unwrap()
}

fn entities() -> String {
    let records: Vec<Value> = (0..400)
        .map(|i| {
            json!({"name": format!("entity-{i}"), "entityType": if i % 3 == 0 { "person" } else { "place" },
                   "observations": [format!("observation {i} about something worth remembering")]})
        })
        .collect();
    json!({"entities": records}).to_string()
}

/// An echo of a long text: one record of 60 KB.
fn long_echo() -> String {
    let words: Vec<String> = (0..8000).map(|i| format!("word{i}")).collect();
    format!("Echo: {}", words.join(" "))
}

#[test]
fn a_count_is_the_bare_number_and_jq_comes_only_when_asked() {
    let lro = offloader(OffloadConfig::default());
    let file = offload_text(&lro, "echo", &entities());
    let counted = call(
        &lro,
        json!({"file_path": file, "where": "{\"entityType\": \"person\"}", "count": true}),
    );
    assert_eq!(text(&counted), "134\n");
    let grouped = call(&lro, json!({"file_path": file, "group_by": "entityType"}));
    assert_eq!(
        text(&grouped),
        "[{\"entityType\":\"place\",\"count\":266},{\"entityType\":\"person\",\"count\":134}]\n"
    );
    let explained = call(
        &lro,
        json!({"file_path": file, "where": {"entityType": "person"}, "count": true, "explain": true}),
    );
    let lines: Vec<&str> = text(&explained).lines().collect();
    assert_eq!(lines[0], "134");
    assert!(lines[1].starts_with("equivalent jq: "), "{lines:?}");
}

#[test]
fn strict_mode_calls_send_every_argument_null_but_the_ones_they_use() {
    let lro = offloader(OffloadConfig::default());
    let file = offload_text(&lro, "echo", &entities());
    for form in [ToolDefinition::Short, ToolDefinition::Long] {
        let mut arguments = serde_json::Map::new();
        for name in tool_input_schema(form)["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            arguments.insert(name.clone(), Value::Null);
        }
        arguments.insert("file_path".to_owned(), json!(file));
        arguments.insert("count".to_owned(), json!(true));
        assert_eq!(text(&call(&lro, Value::Object(arguments))), "400\n");
    }
    let paged = call(
        &lro,
        json!({"file_path": file, "where": "{}", "fields": "name", "sort": "-name", "limit": 2}),
    );
    assert_eq!(
        text(&paged),
        "{\"name\":\"entity-99\"}\n{\"name\":\"entity-98\"}\n"
    );
}

#[test]
fn many_records_are_cut_at_a_record_boundary_with_the_next_page() {
    let lro = offloader(OffloadConfig::default());
    let file = offload_text(&lro, "echo", &entities());
    let all = call(&lro, json!({"file_path": file, "where": "{}"}));
    let answer = text(&all);
    assert!(answer.len() <= 16_384, "{}", answer.len());
    let last = answer.lines().last().unwrap();
    assert!(
        last.starts_with("[truncated] returned ") && last.contains(" of 400 results"),
        "{last}"
    );
    let returned = answer.lines().count() - 1;
    assert!(
        last.contains(&format!("next: the same call with {{\"skip\":{returned}}}")),
        "{last}"
    );
    // Every line before the note is a whole record.
    for line in answer.lines().take(returned) {
        serde_json::from_str::<Value>(line).unwrap();
    }
    let lines = call(&lro, json!({"file_path": file, "lines": "0:400"}));
    let last = text(&lines).lines().last().unwrap().to_owned();
    let returned = text(&lines).lines().count() - 1;
    assert!(
        last.ends_with(&format!(
            "next: the same call with {{\"lines\":\"{returned}:400\"}}"
        )),
        "{last}"
    );
}

#[test]
fn one_huge_record_never_comes_back_whole() {
    let lro = offloader(OffloadConfig::default());
    let echo = long_echo();
    assert!(echo.len() > 60_000);
    let file = offload_text(&lro, "echo", &echo);
    // The descriptor's suggestions are bounded themselves: each line cut, with a note.
    for recipe in 1..=10 {
        let answer = text(&call(&lro, json!({"file_path": file, "recipe": recipe}))).to_owned();
        assert!(
            answer.len() <= 5000,
            "recipe {recipe}: {} bytes",
            answer.len()
        );
    }
    let first = text(&call(&lro, json!({"file_path": file, "recipe": 1}))).to_owned();
    assert!(first.starts_with("1: Echo: word0 word1 "), "{first}");
    assert!(first.trim_end().ends_with(" [cut]"), "{first}");
    for arguments in [
        json!({"file_path": file, "lines": {"start": 0, "end": 1}}),
        json!({"file_path": file, "lines": "0:1"}),
        json!({"file_path": file, "search": "word7999"}),
        json!({"file_path": file, "search": {"pattern": "Echo"}}),
        json!({"file_path": file, "query": ".text"}),
        json!({"file_path": file, "where": "{}"}),
        json!({"file_path": file, "chars": "0:"}),
    ] {
        let answer = text(&call(&lro, arguments.clone())).to_owned();
        assert!(
            answer.len() <= 16_384,
            "{arguments}: {} bytes",
            answer.len()
        );
        assert!(
            lro_core::estimate::estimate_tokens(answer.as_bytes()) <= 4000,
            "{arguments}"
        );
        let last = answer.lines().last().unwrap();
        assert!(
            last.starts_with("[truncated] returned "),
            "{arguments}: {last}"
        );
    }
}

#[test]
fn the_next_character_range_continues_where_the_answer_stopped() {
    let lro = offloader(OffloadConfig::default());
    let file = offload_text(&lro, "echo", &long_echo());
    let record = call(&lro, json!({"file_path": file, "lines": "0:1"}));
    let answer = text(&record);
    let (shown, note) = answer.trim_end().rsplit_once('\n').unwrap();
    let next: Value = serde_json::from_str(
        note.split("next: a call with ")
            .nth(1)
            .and_then(|rest| rest.split(" (").next())
            .unwrap(),
    )
    .unwrap();
    let range = next["chars"].as_str().unwrap().to_owned();
    let (start, end) = range.split_once(':').unwrap();
    let (start, end): (usize, usize) = (start.parse().unwrap(), end.parse().unwrap());
    // The file's records, whole, through the core's own API (not bounded by the answer's).
    let request: lro_core::ExtractRequest =
        serde_json::from_value(json!({"lines": {"start": 0, "unit": "chars"}})).unwrap();
    let body = lro.extract(&file, &request).unwrap().results[0]
        .as_str()
        .unwrap()
        .to_owned();
    let before: String = body.chars().take(start).collect();
    assert_eq!(
        before, shown,
        "the answer showed the record's first characters"
    );
    let continued = text(&call(&lro, json!({"file_path": file, "chars": range}))).to_owned();
    let expected: String = body.chars().skip(start).take(end - start).collect();
    assert_eq!(
        continued,
        format!("{expected}\n"),
        "the next range is the next characters"
    );
    // A range too large for one answer names the following one.
    let wide = text(&call(
        &lro,
        json!({"file_path": file, "chars": format!("{start}:")}),
    ))
    .to_owned();
    let note = wide.lines().last().unwrap();
    assert!(
        note.contains(&format!("next: the same call with {{\"chars\":\"{end}:")),
        "{note}"
    );
}

#[test]
fn the_bound_is_configurable() {
    let config = OffloadConfig::from_toml_str(
        "[prompt.offload.extract]\nanswer_max_bytes = 2000\nanswer_max_tokens = 100000\n",
    )
    .unwrap();
    let lro = offloader(config);
    let file = offload_text(&lro, "echo", &entities());
    let answer = text(&call(&lro, json!({"file_path": file, "lines": "0:100"}))).to_owned();
    assert!(answer.len() <= 2000, "{}", answer.len());
    let mut config = OffloadConfig::default();
    config
        .apply_env([("ATLATL_PROMPT__OFFLOAD__EXTRACT__ANSWER_MAX_TOKENS", "200")])
        .unwrap();
    assert_eq!(config.extract.answer_max_tokens, 200);
    let lro = offloader(config);
    let file = offload_text(&lro, "echo", &entities());
    let answer = text(&call(&lro, json!({"file_path": file, "lines": "0:100"}))).to_owned();
    assert!(
        lro_core::estimate::estimate_tokens(answer.as_bytes()) <= 200,
        "{answer}"
    );
}

#[test]
fn errors_are_tool_errors_with_their_code() {
    let lro = offloader(OffloadConfig::default());
    let file = offload_text(&lro, "echo", &entities());
    for (arguments, code) in [
        (json!({}), "invalid_argument"),
        (
            json!({"file_path": file, "recipe": 1, "query": "."}),
            "invalid_argument",
        ),
        (json!({"file_path": file, "lines": "x"}), "invalid_argument"),
        (
            json!({"file_path": file, "where": "{\"a\": "}),
            "invalid_query",
        ),
        (
            json!({"file_path": "/etc/passwd", "recipe": 1}),
            "path_denied",
        ),
    ] {
        let result = call(&lro, arguments.clone());
        assert_eq!(result["isError"], true, "{arguments}");
        let message = result["content"][0]["text"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("error[{code}]: ")),
            "{arguments}: {message}"
        );
    }
}
