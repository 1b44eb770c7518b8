//! Result handles and `save: true`: a filtered result kept as a file, then passed to the next
//! tool by reference (the vectors pin each `as` and each error; these follow the chain).

use std::sync::atomic::AtomicBool;

use lro_core::ToolDefinition;
use lro_core::{MemoryHost, OffloadConfig, Offloader};
use lro_mcp::extract_tool::{call_result, tool_description, tool_input_schema};
use lro_mcp::handles::{self, holds_handles, resolve, resolve_call, text_may_hold_handles};
use serde_json::{Value, json};

use crate::support::offload_text;

fn graph() -> (Offloader<MemoryHost>, String) {
    graph_with(OffloadConfig::default())
}

fn graph_with(config: OffloadConfig) -> (Offloader<MemoryHost>, String) {
    let lro = Offloader::new(config, MemoryHost::new()).unwrap();
    let kinds = ["person", "place", "project"];
    let entities: Vec<Value> = (0..300)
        .map(|i| {
            json!({"name": format!("entity-{i:03}"), "entityType": kinds[i % 3],
                   "observations": [format!("observation {i}")]})
        })
        .collect();
    let file = offload_text(&lro, "read_graph", &json!(entities).to_string());
    (lro, file)
}

fn no_cancel() -> AtomicBool {
    AtomicBool::new(false)
}

/// The descriptor a `save: true` call answers with.
fn saved(lro: &Offloader<MemoryHost>, arguments: Value) -> Value {
    let result = call_result(lro, Some(&arguments), &no_cancel());
    assert_eq!(result["isError"], false, "{result}");
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn a_saved_extraction_is_a_new_offload_whose_uri_is_a_handle() {
    let (lro, file) = graph();
    let descriptor = saved(
        &lro,
        json!({"file_path": file, "where": "{\"entityType\": \"project\"}", "save": true}),
    );
    assert_eq!(descriptor["offloaded"], true);
    assert_eq!(descriptor["summary"]["count"], 100);
    assert_eq!(descriptor["summary"]["operation"], "extract.read_graph");
    let uri = descriptor["resource_uri"].as_str().unwrap();
    assert!(
        uri.starts_with("lro://offloads/atlatl-extract.read_graph-"),
        "{uri}"
    );
    // The saved file holds exactly the matching records, in order.
    let arguments = json!({"path": "projects.jsonl", "content": {"$lro": uri, "as": "jsonl"}});
    let resolved = resolve(&lro, &arguments, &no_cancel()).unwrap().unwrap();
    let lines: Vec<Value> = resolved["content"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected: Vec<Value> = (0..300)
        .filter(|i| i % 3 == 2)
        .map(|i| {
            json!({"name": format!("entity-{i:03}"), "entityType": "project",
                   "observations": [format!("observation {i}")]})
        })
        .collect();
    assert_eq!(lines, expected);
    assert_eq!(resolved["path"], "projects.jsonl");
}

#[test]
fn a_small_output_is_saved_too_and_records_the_call() {
    let (lro, file) = graph();
    let descriptor = saved(
        &lro,
        json!({"file_path": file, "where": {"name": "entity-007"}, "fields": "name", "save": true, "explain": null}),
    );
    assert_eq!(descriptor["offloaded"], true, "{descriptor}");
    assert_eq!(descriptor["summary"]["count"], 1);
    let header = lro
        .extract(
            descriptor["resource_uri"].as_str().unwrap(),
            &serde_json::from_value(json!({"lines": {"start": 0}})).unwrap(),
        )
        .unwrap();
    assert_eq!(header.results, vec![json!({"name": "entity-007"})]);
    let listed = lro_mcp::list_resources(&lro, None).unwrap();
    let entry = listed
        .resources
        .iter()
        .find(|r| r.uri == descriptor["resource_uri"])
        .unwrap();
    let description = entry.description.as_deref().unwrap_or_default();
    assert!(
        description.contains("entity-007"),
        "the header records the call: {description}"
    );
}

#[test]
fn save_refuses_what_it_cannot_keep_whole() {
    let (lro, file) = graph();
    for (arguments, code) in [
        (
            json!({"file_path": file, "describe": true, "save": true}),
            "invalid_argument",
        ),
        (
            json!({"file_path": file, "where": {}, "save": "yes"}),
            "invalid_argument",
        ),
        (
            json!({"file_path": "/etc/passwd", "where": {}, "save": true}),
            "path_denied",
        ),
    ] {
        let result = call_result(&lro, Some(&arguments), &no_cancel());
        assert_eq!(result["isError"], true, "{arguments}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(&format!("error[{code}]")), "{text}");
    }
    let mut config = OffloadConfig::default();
    config.extract.handle_max_bytes = 1000;
    let (small, file) = graph_with(config);
    let result = call_result(
        &small,
        Some(&json!({"file_path": file, "where": {}, "save": true})),
        &no_cancel(),
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error[resource_limit]") && text.contains("extract.handle_max_bytes"),
        "{text}"
    );
}

#[test]
fn a_bad_handle_answers_the_call_naming_the_argument() {
    let (lro, file) = graph();
    let arguments =
        json!({"a": {"$lro": file, "count": true}, "b": [0, {"c": {"$lro": file, "limit": "x"}}]});
    let result = resolve_call(&lro, Some(&arguments), &no_cancel()).unwrap_err();
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error[invalid_argument]: argument `b/1/c` holds a result handle"),
        "{text}"
    );
    // Arguments without a handle come back unchanged; none at all stay none.
    let plain = json!({"a": 1});
    assert_eq!(
        resolve_call(&lro, Some(&plain), &no_cancel()),
        Ok(Some(plain))
    );
    assert_eq!(resolve_call(&lro, None, &no_cancel()), Ok(None));
}

#[test]
fn what_the_handle_asks_for_is_no_cut() {
    let (lro, file) = graph();
    let arguments = json!({
        "first": {"$lro": file, "where": {}, "fields": "name", "limit": 2},
        "hits": {"$lro": file, "search": {"pattern": "entity-01[0-9]", "max_results": 2}, "as": "text"},
        "range": {"$lro": file, "lines": "298:", "fields": null, "as": "jsonl"},
    });
    let resolved = resolve(&lro, &arguments, &no_cancel()).unwrap().unwrap();
    assert_eq!(
        resolved["first"],
        json!([{"name": "entity-000"}, {"name": "entity-001"}])
    );
    assert_eq!(resolved["hits"].as_str().unwrap().lines().count(), 2);
    assert_eq!(
        resolved["range"].as_str().unwrap().lines().count(),
        2,
        "{resolved}"
    );
}

#[test]
fn a_cancelled_resolution_is_an_error_not_a_part() {
    let (lro, file) = graph();
    let arguments = json!({"content": {"$lro": file}});
    let err = resolve(&lro, &arguments, &AtomicBool::new(true)).unwrap_err();
    assert_eq!(err.path, "content");
    assert_eq!(err.code().as_str(), "resource_limit", "{err}");
}

#[test]
fn handles_are_found_cheaply_and_only_where_they_are() {
    assert!(text_may_hold_handles(br#"{"x": {"$lro": "u"}}"#));
    assert!(!text_may_hold_handles(br#"{"x": {"lro": "u"}}"#));
    assert!(holds_handles(&json!({"x": [[{"$lro": "u"}]]})));
    assert!(!holds_handles(&json!({"x": {"$lro": 3}, "y": "\"$lro\""})));
    // Deeper than serde_json reads (128 levels), as arguments built in code may be: the walk
    // is a loop, not a recursion.
    let mut deep = json!({"$lro": "lro://offloads/none"});
    for _ in 0..300 {
        deep = json!([deep]);
    }
    assert!(holds_handles(&deep));
}

#[test]
fn the_tool_tells_the_agent_how_to_pass_a_result_on() {
    for form in [ToolDefinition::Short, ToolDefinition::Long] {
        let description = tool_description(form);
        assert!(
            description.contains("{\"$lro\": \"<resource_uri>\""),
            "{description}"
        );
        assert!(description.contains("save"), "{description}");
        let save = &tool_input_schema(form)["properties"]["save"];
        assert_eq!(save["type"], json!(["boolean", "null"]));
    }
    assert_eq!(handles::HANDLE_KEY, "$lro");
}

/// A memory host whose clock moves one millisecond each time it is read: time passes as
/// the extractions read it, the same on every run.
struct TickingHost {
    files: MemoryHost,
    now: std::sync::atomic::AtomicU64,
}

impl lro_core::Host for TickingHost {
    fn write_atomic(&self, path: &std::path::Path, parts: &[&[u8]]) -> std::io::Result<()> {
        self.files.write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &std::path::Path) -> std::io::Result<()> {
        self.files.create_dir_all(dir)
    }
    fn open_file(
        &self,
        dir: &std::path::Path,
        name: &str,
    ) -> std::io::Result<lro_core::OpenFile<'_>> {
        self.files.open_file(dir, name)
    }
    fn list_dir(&self, dir: &std::path::Path) -> std::io::Result<Vec<lro_core::DirEntry>> {
        self.files.list_dir(dir)
    }
    fn remove_file(&self, path: &std::path::Path) -> std::io::Result<()> {
        self.files.remove_file(path)
    }
    fn canonicalize(&self, path: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
        self.files.canonicalize(path)
    }
    fn entry_kind(&self, path: &std::path::Path) -> std::io::Result<lro_core::EntryKind> {
        self.files.entry_kind(path)
    }
    fn now_millis(&self) -> u64 {
        self.now.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
    fn fill_random(&self, buf: &mut [u8]) {
        self.files.fill_random(buf);
    }
    fn temp_dir(&self) -> std::path::PathBuf {
        self.files.temp_dir()
    }
}

/// The handles of one call share one time limit, as they share one byte cap: each of these
/// reads within `extract.timeout_ms`, all of them together do not, and the call is refused
/// naming the limit instead of holding its thread for as long as the client likes.
#[test]
fn the_handles_of_a_call_share_one_time_limit() {
    let host = TickingHost {
        files: MemoryHost::new(),
        now: std::sync::atomic::AtomicU64::new(1_767_225_600_000),
    };
    let mut config = OffloadConfig::default();
    config.extract.timeout_ms = 500;
    let lro = Offloader::new(config, host).unwrap();
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"i": i, "text": format!("record {i} of the handles' file")}))
        .collect();
    let file = offload_text(&lro, "records", &json!(records).to_string());
    let handle = json!({"$lro": file, "lines": {"start": 0, "end": 1}});
    // One handle, and a few, read well within the limit.
    for n in [1, 5] {
        let arguments = json!({"items": vec![handle.clone(); n]});
        let resolved = resolve(&lro, &arguments, &no_cancel()).unwrap().unwrap();
        assert_eq!(resolved["items"].as_array().unwrap().len(), n);
    }
    let many = json!({"items": vec![handle; 2_000]});
    let err = resolve(&lro, &many, &no_cancel()).unwrap_err();
    let result = err.to_call_result();
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("resource_limit"), "{text}");
    assert!(text.contains("extract.timeout_ms (500 ms)"), "{text}");
}
