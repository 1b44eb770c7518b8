//! `lro proxy`: large tool results become a file plus a descriptor; `lro_extract` reads it.

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, descriptor, text};

#[test]
fn large_results_are_offloaded_and_lro_extract_reads_them() {
    // A time bound no read meets first, however loaded the machine: the recipe over 2,000
    // records was cut by the default 10 s in a debug build under `make test-stress`.
    let mut proxy = Proxy::start(
        &["--events"],
        &[("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", "600000")],
    );
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "records", json!({"count": 2000}));
    assert_eq!(result["isError"], false);
    let descriptor = &descriptor(&result);
    assert_eq!(descriptor["offloaded"], true, "{result}");
    assert_eq!(descriptor["summary"]["count"], 2000);
    assert_eq!(descriptor["summary"]["operation"], "records");
    assert_eq!(descriptor["jq_recipes"].as_array().unwrap().len(), 10);
    let guidance = descriptor["guidance"].as_str().unwrap();
    // The tool as the proxy lists it, after the server's name ("mock").
    assert!(
        guidance.contains("lro_extract_mock(file_path="),
        "native guidance by default: {guidance}"
    );
    assert_eq!(descriptor["extract_tool"], "lro_extract_mock");
    // One text block: no structuredContent, no link, by default.
    assert_eq!(result["content"].as_array().unwrap().len(), 1, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert!(!guidance.contains("tail -n +2"), "{guidance}");
    let file = descriptor["file_path"].as_str().unwrap().to_owned();
    assert!(
        file.starts_with(proxy.dir.path().canonicalize().unwrap().to_str().unwrap()),
        "{file}"
    );
    let descriptor_text: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(&descriptor_text, descriptor);
    // The full descriptor rebuilt from the file names the tool as the proxy lists it too.
    let described = proxy.extract(9, json!({"file_path": file, "describe": true}));
    let mut lines = text(&described).lines();
    let full: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(full["extract_tool"], "lro_extract_mock", "{described}");
    // Then what the short tool definition leaves out: its arguments, described.
    assert_eq!(
        lines.next(),
        Some(
            "arguments of lro_extract_mock: file_path and one of where, recipe, query, lines, \
             chars, search, describe; leave the others out or null."
        ),
        "{described}"
    );
    assert!(
        full["guidance"]
            .as_str()
            .is_some_and(|g| g.contains("lro_extract_mock(file_path=")),
        "{full}"
    );

    let found = proxy.extract(
        2,
        json!({"file_path": file, "query": "select(.id == $id)", "params": {"id": "r1234"}}),
    );
    assert_eq!(found["isError"], false, "{found}");
    assert_eq!(
        serde_json::from_str::<Value>(text(&found)).unwrap(),
        json!({"id": "r1234", "kind": "beta", "label": "record number 1234", "score": 1234 % 97})
    );
    assert!(found.get("structuredContent").is_none(), "{found}");

    let counted = proxy.extract(
        3,
        json!({"file_path": file, "search": {"pattern": "\"kind\":\"gamma\""}, "params": null}),
    );
    // 666 hits are more than one answer holds: cut at a hit, saying how many there are.
    let note = text(&counted).lines().last().unwrap();
    assert!(note.contains(" of 666 results"), "{note}");

    let lines = proxy.extract(
        4,
        json!({"file_path": file, "lines": {"start": 10, "end": 12}}),
    );
    let second: Value = serde_json::from_str(text(&lines).lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["id"], "r11");

    let recipe = proxy.extract(5, json!({"file_path": file, "recipe": 1}));
    // 3000 lines do not fit one answer: bounded, cut at a line, the rest named.
    assert!(text(&recipe).len() <= 16 * 1024, "{}", text(&recipe).len());
    assert!(
        text(&recipe)
            .lines()
            .last()
            .unwrap()
            .starts_with("[truncated] returned "),
        "{}",
        &text(&recipe)[..200]
    );

    proxy.stderr_containing(&["\"event\":\"OffloadCreated\""]);
}

#[test]
fn memories_keep_the_requested_detail_level() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "memories", json!({"count": 200, "detail": "medium"}));
    let descriptor = &descriptor(&result);
    assert_eq!(descriptor["summary"]["detail"], "medium", "{result}");
    assert_eq!(descriptor["summary"]["count"], 200);
    let file = descriptor["file_path"].as_str().unwrap();
    let top = proxy.extract(2, json!({"file_path": file, "recipe": 6}));
    assert_eq!(top["isError"], false, "{top}");
    let counts: Value = serde_json::from_str(text(&top).trim_end()).unwrap();
    assert_eq!(counts.as_array().unwrap().len(), 3, "{counts}");
}

#[test]
fn lro_extract_errors_are_tool_errors_with_their_code() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let denied = proxy.extract(1, json!({"file_path": "/etc/passwd", "recipe": 1}));
    assert_eq!(denied["isError"], true);
    assert!(text(&denied).starts_with("error[path_denied]"), "{denied}");
    let both = proxy.extract(2, json!({"file_path": "x", "recipe": 1, "query": "."}));
    assert!(text(&both).starts_with("error[invalid_argument]"), "{both}");
    let missing = proxy.extract(3, json!({"recipe": 1}));
    assert!(
        text(&missing).starts_with("error[invalid_argument]"),
        "{missing}"
    );
}

#[test]
fn shell_guidance_and_threshold_are_options() {
    let mut proxy = Proxy::start(&["--guidance", "shell", "--threshold", "100000"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let inline = proxy.tool(1, "records", json!({"count": 2000}));
    assert!(
        inline.get("structuredContent").is_none(),
        "below a 100000-token threshold"
    );

    let mut proxy = Proxy::start(&["--guidance", "shell"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "records", json!({"count": 2000}));
    let descriptor = descriptor(&result);
    let guidance = descriptor["guidance"].as_str().unwrap();
    assert!(guidance.contains("jq recipes"), "{guidance}");
}

#[test]
fn tools_with_an_output_schema_are_offloaded_too() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let long = "word ".repeat(4000);
    let result = proxy.tool(1, "echo", json!({"text": long}));
    assert_eq!(descriptor(&result)["offloaded"], true, "{result}");
}

/// A result holding one lone surrogate escape (`"\ud800"`, which JSON's grammar allows and no
/// string can hold) is offloaded like any other, read from its text (above 1 MiB) or parsed
/// (below); the escape is kept in the file as its six characters. It used to pass inline
/// whole, however large.
#[test]
fn a_lone_surrogate_does_not_keep_a_result_inline() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let mut id = 0;
    for lines in [3_000, 100_000] {
        for structured in [false, true] {
            id += 1;
            let arguments = json!({"lines": lines, "structured": structured});
            let result = proxy.tool(id, "lone_surrogate", arguments.clone());
            let descriptor = descriptor(&result);
            assert_eq!(descriptor["offloaded"], true, "{arguments}: {result}");
            // The escape ends the last line of text, or is one more row.
            let count = if structured { lines + 1 } else { lines };
            assert_eq!(descriptor["summary"]["count"], count, "{arguments}");
            let file = std::fs::read_to_string(descriptor["file_path"].as_str().unwrap()).unwrap();
            let last: Value = serde_json::from_str(file.lines().last().unwrap()).unwrap();
            let kept = if structured {
                last.as_str()
            } else {
                last["text"].as_str()
            };
            assert!(
                kept.is_some_and(|kept| kept.ends_with("\\ud800")),
                "{arguments}: {last}"
            );
        }
    }
}
