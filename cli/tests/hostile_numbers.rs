//! Issue 26, "nothing lost, or said": numbers keep their digits and one odd value spoils
//! nothing else, through `lro offload` (`--input json` and `auto`), `lro extract` and the
//! proxy's `lro_extract`; keys named twice keep their records and are said (the header's
//! `duplicate_keys`, the descriptor's warning), through `lro offload` and the proxy.

mod proxy_support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use proxy_support::Proxy;
use serde_json::{Value, json};

const BIG: &str = "123456789012345678901234567890";
const NEG: &str = "-9223372036854775809";
const DEC: &str = "3.14159265358979323846264338327950288";

/// 3,000 records, the last one's `x` the `odd` JSON text.
fn records(odd: &str) -> String {
    let mut items: Vec<String> = (0..2999)
        .map(|i| format!(r#"{{"id": {i}, "big": {BIG}, "neg": {NEG}, "dec": {DEC}}}"#))
        .collect();
    items.push(format!(r#"{{"id": 2999, "x": {odd}}}"#));
    format!("[{}]", items.join(", "))
}

fn lro(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lro"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Offloads `input`; returns the file's path and its record lines.
fn offload(dir: &str, mode: &str, input: &[u8]) -> (String, Vec<String>) {
    let out = lro(&["offload", "--output-dir", dir, "--input", mode], input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(descriptor["offloaded"], true, "{descriptor}");
    let path = descriptor["file_path"].as_str().unwrap().to_owned();
    // An integer beyond 64 bits is still an integer to the line schema.
    let big = &descriptor["line_schema"]["properties"]["big"];
    assert_eq!(big["type"], "integer", "{descriptor}");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<String> = text.lines().skip(1).map(str::to_owned).collect();
    assert_eq!(descriptor["summary"]["count"], lines.len());
    (path, lines)
}

fn extract(dir: &str, path: &str, args: &[&str]) -> String {
    let mut all = vec!["extract", path, "--output-dir", dir];
    all.extend_from_slice(args);
    let out = lro(&all, b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn digits_survive_offload_and_extract_and_odd_values_stay_alone() {
    let dir = tempfile::tempdir().unwrap();
    let dir_s = dir.path().to_str().unwrap();
    let expected_first = format!(r#"{{"id":0,"big":{BIG},"neg":{NEG},"dec":{DEC}}}"#);
    for mode in ["json", "auto"] {
        for (odd, last) in [
            ("1", r#"{"id":2999,"x":1}"#.to_owned()),
            ("1e400", r#"{"id":2999,"x":1e+400}"#.to_owned()),
            (
                r#""\ud800""#,
                r#"{"text":"{\"id\": 2999, \"x\": \"\\ud800\"}"}"#.to_owned(),
            ),
        ] {
            let (path, lines) = offload(dir_s, mode, records(odd).as_bytes());
            assert_eq!(lines.len(), 3000, "{mode} {odd}: every record a record");
            assert_eq!(lines[0], expected_first, "{mode} {odd}");
            assert_eq!(lines[2999], last, "{mode} {odd}");
            // Passed through, the digits come back byte for byte.
            let all = extract(dir_s, &path, &["--query", "."]);
            assert_eq!(all.lines().collect::<Vec<_>>(), lines, "{mode} {odd}");
            // A `where` that returns the record, and one that must not match.
            let hit = extract(
                dir_s,
                &path,
                &["--where", &format!(r#"{{"big": {BIG}}}"#), "--limit", "1"],
            );
            assert_eq!(hit.trim_end(), expected_first);
            let one_more = "123456789012345678901234567891";
            let none = extract(
                dir_s,
                &path,
                &["--where", &format!(r#"{{"big": {one_more}}}"#), "--count"],
            );
            assert_eq!(none.trim(), "0");
            // Computed with: exact for integers, a double for decimals.
            let sum = extract(dir_s, &path, &["--query", "select(.id == 0) | .big + 1"]);
            assert_eq!(sum.trim(), one_more);
        }
    }
    // A byte-order mark before the text is skipped, in both modes.
    for mode in ["json", "auto"] {
        let mut input = "\u{feff}".as_bytes().to_vec();
        input.extend_from_slice(records("2").as_bytes());
        let (_, lines) = offload(dir_s, mode, &input);
        assert_eq!(lines.len(), 3000, "{mode}");
    }
}

#[test]
fn the_proxy_keeps_the_digits_in_the_file_and_through_lro_extract() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let text = records("1e400");
    let result = proxy.tool(1, "echo", json!({"text": text}));
    assert_eq!(result["isError"], false, "{result}");
    let descriptor = &proxy_support::descriptor(&result);
    assert_eq!(descriptor["offloaded"], true, "{result}");
    let file = descriptor["file_path"].as_str().unwrap().to_owned();
    let body = std::fs::read_to_string(&file).unwrap();
    assert!(
        body.contains(&format!(
            r#"{{"id":5,"big":{BIG},"neg":{NEG},"dec":{DEC}}}"#
        )),
        "{}",
        &body[..body.len().min(600)]
    );
    let found = proxy.extract(2, json!({"file_path": file, "where": {"id": 5}}));
    assert_eq!(found["isError"], false, "{found}");
    // The answer's text holds the digits.
    assert_eq!(
        found["content"][0]["text"].as_str().unwrap(),
        format!("{{\"id\":5,\"big\":{BIG},\"neg\":{NEG},\"dec\":{DEC}}}\n")
    );
    let odd = proxy.extract(
        3,
        json!({"file_path": file, "query": "select(.id == 2999) | .x"}),
    );
    assert_eq!(odd["content"][0]["text"].as_str().unwrap(), "1e+400\n");
    // Still answering.
    assert_eq!(proxy.call(4, "ping", json!({}))["result"], json!({}));
}

/// 3,000 records; every 100th names `name` twice (30 keys named twice in all).
fn records_with_duplicate_keys() -> String {
    let items: Vec<String> = (0..3000)
        .map(|i| match i % 100 {
            0 => format!(r#"{{"id": {i}, "name": "first", "name": "last {i}"}}"#),
            _ => format!(r#"{{"id": {i}, "name": "record {i}"}}"#),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// The header of the offload file at `path`, and its record lines.
fn header_and_lines(path: &str) -> (Value, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    (header, lines.map(str::to_owned).collect())
}

#[test]
fn keys_named_twice_keep_their_records_and_are_said_through_lro_offload() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_str().unwrap();
    let input = records_with_duplicate_keys();
    for mode in ["json", "auto"] {
        let out = lro(
            &["offload", "--output-dir", dir, "--input", mode],
            input.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{mode}");
        let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
        let warning = descriptor["warning"].as_str().expect("a warning");
        assert!(warning.starts_with("30 duplicate key"), "{mode}: {warning}");
        let (header, lines) = header_and_lines(descriptor["file_path"].as_str().unwrap());
        assert_eq!(header["duplicate_keys"], 30, "{mode}");
        assert_eq!(lines.len(), 3000, "{mode}");
        assert_eq!(lines[200], r#"{"id":200,"name":"last 200"}"#);
    }
    // Without keys named twice: no field, no warning.
    let plain = input.replace(r#""name": "first", "#, "");
    let out = lro(
        &["offload", "--output-dir", dir, "--input", "json"],
        plain.as_bytes(),
    );
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(descriptor.get("warning").is_none(), "{descriptor}");
    let (header, _) = header_and_lines(descriptor["file_path"].as_str().unwrap());
    assert!(header.get("duplicate_keys").is_none(), "{header}");
}

#[test]
fn the_proxy_says_keys_named_twice_and_answers_on() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "echo", json!({"text": records_with_duplicate_keys()}));
    assert_eq!(result["isError"], false, "{result}");
    let descriptor = &proxy_support::descriptor(&result);
    assert_eq!(descriptor["offloaded"], true, "{result}");
    let warning = descriptor["warning"].as_str().expect("a warning");
    assert!(warning.starts_with("30 duplicate key"), "{warning}");
    // The descriptor's text block, which a client without structuredContent reads, too.
    assert!(proxy_support::text(&result).contains("30 duplicate key"));
    let file = descriptor["file_path"].as_str().unwrap().to_owned();
    let (header, lines) = header_and_lines(&file);
    assert_eq!(header["duplicate_keys"], 30);
    assert_eq!(lines.len(), 3000);
    let found = proxy.extract(2, json!({"file_path": file, "where": {"id": 300}}));
    assert_eq!(
        found["content"][0]["text"].as_str().unwrap(),
        "{\"id\":300,\"name\":\"last 300\"}\n"
    );
    // Still answering.
    assert_eq!(proxy.call(3, "ping", json!({}))["result"], json!({}));
}
