//! The extract tool's answers under hostile calls and data: every answer, warnings and errors
//! included, stays within the answer bound, and every `[truncated]` hint names a call that
//! works and reads on to the end of what was asked.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

use lro_core::{MemoryHost, OffloadConfig, Offloader};
use lro_mcp::extract_tool::call_result;
use serde_json::{Value, json};

use crate::support::offload_text;

/// The default `extract.answer_max_bytes`.
const BOUND: usize = 16384;

fn offloader() -> Offloader<MemoryHost> {
    Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap()
}

/// Offloads `records` (a tool's JSON result, given as MCP text); the file's path.
fn offload(lro: &Offloader<MemoryHost>, records: &Value) -> String {
    offload_text(lro, "big", &records.to_string())
}

/// The call's answer text and whether it is an error.
fn call(lro: &Offloader<MemoryHost>, file: &str, mut arguments: Value) -> (String, bool) {
    arguments["file_path"] = Value::from(file);
    let result = call_result(lro, Some(&arguments), &AtomicBool::new(false));
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    (text, result["isError"] == true)
}

#[test]
fn a_filter_naming_many_absent_fields_gives_a_bounded_answer() {
    let lro = offloader();
    let records: Vec<Value> = (0..20)
        .map(|i| json!({format!("{}{i}", "k".repeat(2000)): i}))
        .collect();
    let file = offload(&lro, &Value::from(records));
    let filter: Vec<Value> = (0..300).map(|i| json!({format!("f{i}"): 1})).collect();
    let (text, error) = call(
        &lro,
        &file,
        json!({"where": json!({"$or": filter}).to_string()}),
    );
    assert!(!error, "{text}");
    assert!(text.len() <= BOUND, "{} bytes", text.len());
    assert!(text.contains("more warnings"), "{text}");
}

#[test]
fn warnings_listing_long_field_names_are_cut() {
    let lro = offloader();
    let records: Vec<Value> = (0..50)
        .map(|i| json!({format!("{}{i}", "k".repeat(5000)): i, "v": "y"}))
        .collect();
    let file = offload(&lro, &Value::from(records));
    for arguments in [
        json!({"group_by": "missing"}),
        json!({"distinct": "missing"}),
        json!({"stats": "missing"}),
        json!({"where": "{\"missing\": 1}"}),
    ] {
        let (text, _) = call(&lro, &file, arguments.clone());
        assert!(text.len() <= BOUND, "{arguments}: {} bytes", text.len());
        assert!(text.contains("warning: "), "{arguments}: {text}");
    }
}

#[test]
fn errors_quoting_huge_arguments_are_cut() {
    let lro = offloader();
    let records: Vec<Value> = (0..200)
        .map(|i| json!({"id": i, "t": "x".repeat(200)}))
        .collect();
    let file = offload(&lro, &Value::from(records));
    let huge = "Z".repeat(50_000);
    let mut unknown_name = json!({});
    unknown_name[huge.as_str()] = json!(1);
    for arguments in [
        unknown_name,
        json!({"lines": huge}),
        json!({"chars": huge}),
        json!({"recipe": 3, "params": huge}),
        json!({"search": format!("({huge}")}),
        json!({"where": "{}", "fields": huge}),
        json!({"where": "{}", "sort": huge}),
        json!({"group_by": huge}),
        json!({"distinct": huge}),
        json!({"where": json!({huge.as_str(): 1}).to_string()}),
        json!({"where": json!({"id": {format!("${huge}"): 1}}).to_string()}),
        json!({"section": huge}),
        json!({"recipe": huge}),
        json!({"file_path": [huge.as_str()]}),
    ] {
        let (text, error) = call(&lro, &file, arguments.clone());
        let shown: String = arguments.to_string().chars().take(60).collect();
        let bound = if error { 4000 } else { BOUND };
        assert!(text.len() <= bound, "{shown}: {} bytes", text.len());
        assert!(!text.contains(&huge[..1000]), "{shown}: echoed whole");
    }
    for arguments in [json!(huge), json!([huge])] {
        let result = call_result(&lro, Some(&arguments), &AtomicBool::new(false));
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.len() <= 4000, "{} bytes", text.len());
    }
}

/// The JSON object a `[truncated]` line names as `next: the same call with {...}`.
fn next_call(text: &str) -> Option<Value> {
    let note = text.lines().find(|l| l.starts_with("[truncated]"))?;
    let (_, rest) = note.split_once("next: the same call with ")?;
    let end = rest.find('}')? + 1;
    Some(serde_json::from_str(&rest[..end]).unwrap())
}

/// Follows the hints from `arguments` on: the answers without their notes and warnings.
fn follow(lro: &Offloader<MemoryHost>, file: &str, mut arguments: Value) -> Vec<String> {
    let mut answers = Vec::new();
    for _ in 0..200 {
        let (text, error) = call(lro, file, arguments.clone());
        assert!(!error, "{arguments}: {text}");
        let body = text.split("\n[truncated]").next().unwrap().to_owned();
        answers.push(body);
        let Some(next) = next_call(&text) else {
            return answers;
        };
        for (key, value) in next.as_object().unwrap() {
            arguments[key] = value.clone();
        }
    }
    panic!("hints never end");
}

#[test]
fn following_hints_reads_the_whole_range_asked_for() {
    let lro = offloader();
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "pad": "x".repeat(1400)}))
        .collect();
    let file = offload(&lro, &Value::from(records.clone()));
    for (arguments, expected) in [
        (json!({"lines": "0:300"}), 300),
        (json!({"lines": "0:100000"}), 300),
        (json!({"lines": "0:"}), 300),
        (json!({"lines": "20:250"}), 230),
        (json!({"where": "{}"}), 300),
        (json!({"where": "{}", "skip": 5, "limit": 250}), 250),
    ] {
        let mut ids = BTreeSet::new();
        for answer in follow(&lro, &file, arguments.clone()) {
            for line in answer.lines().filter(|l| l.starts_with('{')) {
                ids.insert(
                    serde_json::from_str::<Value>(line).unwrap()["id"]
                        .as_u64()
                        .unwrap(),
                );
            }
        }
        assert_eq!(ids.len(), expected, "{arguments}");
    }
    // A hint never points past the data's end.
    let (text, _) = call(&lro, &file, json!({"lines": "0:100000"}));
    assert_eq!(next_call(&text).unwrap()["lines"], "10:300");
    let (text, _) = call(&lro, &file, json!({"lines": "100:200"}));
    assert_eq!(next_call(&text).unwrap()["lines"], "110:200");
    let total: usize = records.iter().map(|r| r.to_string().len() + 1).sum();
    let read: usize = follow(&lro, &file, json!({"chars": "0:100000000"}))
        .iter()
        .map(String::len)
        .sum();
    assert!(read + 2 >= total, "read {read} of {total} characters");
}

#[test]
fn a_cut_search_names_calls_that_work() {
    let lro = offloader();
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "hit": if i % 3 == 0 { "MATCH" } else { "no" }, "pad": "x".repeat(1500)}))
        .collect();
    let file = offload(&lro, &Value::from(records));
    let (text, error) = call(&lro, &file, json!({"search": "MATCH"}));
    assert!(!error, "{text}");
    let note = text.lines().find(|l| l.starts_with("[truncated]")).unwrap();
    // The default (short) definition lists no max_results: the note does not name it
    // (tool_definition.rs checks the long form's note, which does).
    assert!(note.contains("narrow the pattern to see fewer"), "{note}");
    assert!(!note.contains("same call"), "{note}");
    // The separate call it names reads the records from the next match on.
    let (_, rest) = note.split_once("with {").unwrap();
    let named: Value =
        serde_json::from_str(&format!("{{{}", &rest[..=rest.find('}').unwrap()])).unwrap();
    let (more, error) = call(&lro, &file, named.clone());
    assert!(!error, "{named}: {more}");
    assert!(more.lines().next().unwrap().contains("MATCH"), "{named}");
}

#[test]
fn typed_mistakes_name_the_argument_and_what_it_expects() {
    let lro = offloader();
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "pad": "x".repeat(100)}))
        .collect();
    let file = offload(&lro, &Value::from(records));
    let (whole, _) = call(
        &lro,
        &file,
        json!({"recipe": 3, "params": "{\"keyword\":\"x\"}"}),
    );
    let (float, _) = call(
        &lro,
        &file,
        json!({"recipe": 3.0, "params": "{\"keyword\":\"x\"}"}),
    );
    assert_eq!(float, whole, "recipe 3.0 is recipe 3");
    let (skip, error) = call(&lro, &file, json!({"where": "{}", "skip": 299.0}));
    assert!(!error && skip.contains("\"id\":299"), "{skip}");
    for (arguments, expected) in [
        (
            json!({"where": "{}", "limit": -1}),
            "limit must be a whole number from 0",
        ),
        (
            json!({"recipe": "3"}),
            "recipe must be a whole number from 1 to 10",
        ),
        (
            json!({"recipe": 11}),
            "recipe must be a whole number from 1 to 10",
        ),
        (
            json!({"search": "x", "max_results": 0.5}),
            "max_results must be a whole number from 1",
        ),
        (
            json!({"chars": "5:3"}),
            "chars: END (3) is before START (5)",
        ),
        (
            json!({"lines": "5:3"}),
            "lines: END (3) is before START (5)",
        ),
    ] {
        let (text, error) = call(&lro, &file, arguments.clone());
        assert!(error, "{arguments}: {text}");
        assert!(text.contains(expected), "{arguments}: {text}");
    }
}
