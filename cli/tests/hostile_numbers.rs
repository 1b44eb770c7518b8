//! Nothing lost, or said: numbers keep their digits and one odd value spoils
//! nothing else, through `lro offload` (`--input json` and `auto`), `lro extract` and the
//! proxy's `lro_extract`; keys named twice keep their records and are said (the header's
//! `duplicate_keys`, the descriptor's warning), through `lro offload` and the proxy.

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, descriptor, text};
use crate::support::run::lro;

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

/// Offloads `input`; returns the file's path and its record lines.
fn offload(dir: &str, mode: &str, input: &[u8]) -> (String, Vec<String>) {
    let out = lro(
        &["offload", "--output-dir", dir, "--input", mode],
        input,
        &[],
    );
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
    let out = lro(&all, b"", &[]);
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
            ("1e400", r#"{"id":2999,"x":1e400}"#.to_owned()),
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
    let descriptor = &descriptor(&result);
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
    assert_eq!(odd["content"][0]["text"].as_str().unwrap(), "1e400\n");
    // Still answering.
    assert_eq!(proxy.call(4, "ping", json!({}))["result"], json!({}));
}

/// Numbers with an exponent, spelled as a hand or an old emitter writes them: serde_json's
/// reader would respell each (`1e+5`, `1e+2`, `0e+0`, ...).
const EXPONENTS: [&str; 6] = [
    "1E5",
    "1E+2",
    "0e0",
    "1.2345678901234567890123e5",
    "-1E-7",
    "2e3",
];

/// `n` records `{"k": i, "v": <an exponent>}`, as compact lines (what the file must hold).
fn exponent_lines(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!(r#"{{"k":{i},"v":{}}}"#, EXPONENTS[i % EXPONENTS.len()]))
        .collect()
}

#[test]
fn numbers_with_an_exponent_keep_their_text_in_the_file_and_through_extraction() {
    let dir = tempfile::tempdir().unwrap();
    let dir_s = dir.path().to_str().unwrap();
    let lines = exponent_lines(300);
    let array = format!("[{}]", lines.join(", "));
    // One array (the text scan), sections of an object (laid out from text and small parts
    // read as values), and a record naming a key twice (the `Value` path).
    let object = format!(r#"{{"a": {array}, "b": {array}, "total": 1E3}}"#);
    let twice = format!(r#"[{{"k": -1, "v": 9E9, "v": 7E7}}, {}]"#, lines.join(", "));
    let mut twice_lines = vec![r#"{"k":-1,"v":7E7}"#.to_owned()];
    twice_lines.extend(lines.iter().cloned());
    let both: Vec<String> = lines.iter().chain(&lines).cloned().collect();
    for mode in ["json", "auto"] {
        for (input, expected) in [(&array, &lines), (&object, &both), (&twice, &twice_lines)] {
            let out = lro(
                &["offload", "--output-dir", dir_s, "--input", mode],
                input.as_bytes(),
                &[],
            );
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
            let path = descriptor["file_path"].as_str().unwrap().to_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let (header, body) = text.split_once('\n').unwrap();
            let written: Vec<&str> = body.lines().collect();
            assert_eq!(written, *expected, "{mode}: {}", &input[..60]);
            if input == &object {
                assert!(header.contains(r#""total":1E3"#), "{header}");
            }
            // Passed through, every reader gives the tokens back byte for byte.
            let all = extract(dir_s, &path, &["--query", "."]);
            assert_eq!(all.lines().collect::<Vec<_>>(), written, "{mode}");
            let ranged = extract(dir_s, &path, &["--lines", "0:6"]);
            assert_eq!(ranged.lines().collect::<Vec<_>>(), written[..6], "{mode}");
            let found = extract(dir_s, &path, &["--where", r#"{"k": 3}"#, "--limit", "1"]);
            assert_eq!(
                found.trim_end(),
                written[expected
                    .iter()
                    .position(|l| l.starts_with(r#"{"k":3,"#))
                    .unwrap()]
            );
            let values = extract(
                dir_s,
                &path,
                &["--query", "select(.k >= 0 and .k < 6) | .v"],
            );
            assert_eq!(
                values.lines().take(6).collect::<Vec<_>>(),
                EXPONENTS,
                "{mode}"
            );
            // Computed with, a number is a double, written as jq writes one.
            let computed = extract(dir_s, &path, &["--query", "select(.k == 0) | .v * 2"]);
            assert_eq!(computed.lines().next(), Some("200000"), "{mode}");
        }
    }
}

#[test]
fn the_proxy_keeps_exponents_in_the_file_and_through_lro_extract() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let lines = exponent_lines(300);
    let result = proxy.tool(1, "echo", json!({"text": format!("[{}]", lines.join(","))}));
    let descriptor = &descriptor(&result);
    assert_eq!(descriptor["offloaded"], true, "{result}");
    let file = descriptor["file_path"].as_str().unwrap().to_owned();
    let body = std::fs::read_to_string(&file).unwrap();
    assert_eq!(body.lines().skip(1).collect::<Vec<_>>(), lines);
    let found = proxy.extract(2, json!({"file_path": file, "where": {"k": {"$lt": 6}}}));
    assert_eq!(found["isError"], false, "{found}");
    assert_eq!(
        found["content"][0]["text"].as_str().unwrap(),
        format!("{}\n", lines[..6].join("\n"))
    );
    let values = proxy.extract(
        3,
        json!({"file_path": file, "query": "select(.k < 6) | .v"}),
    );
    assert_eq!(
        values["content"][0]["text"].as_str().unwrap(),
        format!("{}\n", EXPONENTS.join("\n"))
    );
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
            &[],
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
        &[],
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
    let descriptor = &descriptor(&result);
    assert_eq!(descriptor["offloaded"], true, "{result}");
    let warning = descriptor["warning"].as_str().expect("a warning");
    assert!(warning.starts_with("30 duplicate key"), "{warning}");
    // The descriptor's text block, which a client without structuredContent reads, too.
    assert!(text(&result).contains("30 duplicate key"));
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
