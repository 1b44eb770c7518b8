//! Property test: whatever the filter text, parameters and file contents, native extraction
//! returns a result or a typed error, never panics, and never runs far past its time limit.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use lro_core::{
    ExtractLimits, ExtractRequest, LineRange, LineUnit, OffloadConfig, Offloader, SearchSpec,
    StdHost,
};
use proptest::prelude::*;
use serde_json::{Map, Value};

const TIMEOUT_MS: u64 = 100;
/// Debug builds on a shared machine are slow; the point is that nothing runs unbounded.
const WALL_LIMIT: Duration = Duration::from_secs(5);

/// Pieces of jq, so random filters are often valid and reach the evaluator.
const TOKENS: &[&str] = &[
    ".",
    ".[]",
    ".[0]",
    ".title",
    ".tags",
    ".a.b",
    "..",
    "|",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "{a: .}",
    ":",
    ";",
    "?",
    "//",
    "+",
    "-",
    "*",
    "/",
    "%",
    "==",
    "<",
    "and",
    "or",
    "not",
    "1",
    "0",
    "-1",
    "1e18",
    "\"s\"",
    "\"\\(.)\"",
    "null",
    "true",
    "$x",
    "$keyword",
    "$__loc__",
    "select(",
    "map(",
    "range(",
    "range(1e9)",
    "limit(3;",
    "first(",
    "last(",
    "repeat(.)",
    "recurse",
    "recurse(.[]?)",
    "until(false; .)",
    "while(true; .)",
    "def f: f;",
    "def g(x): x | g(x);",
    "f",
    "reduce",
    "foreach",
    "as $v",
    "$v",
    "if",
    "then",
    "elif",
    "else",
    "end",
    "try",
    "catch",
    "error",
    "label $out",
    "break $out",
    "length",
    "keys",
    "tostring",
    "tojson",
    "fromjson",
    "tonumber",
    "@tsv",
    "@csv",
    "@base64",
    "@text",
    "test(\"a\"; \"i\")",
    "sub(\"a\"; \"b\")",
    "splits(\"x\")",
    "ascii_downcase",
    "group_by(.)",
    "sort_by(.)",
    "unique",
    "add",
    "input",
    "inputs",
    "env",
    "$ENV",
    "now",
    "halt",
    "halt_error",
    "getpath([\"a\"])",
    "paths",
    "to_entries",
    "with_entries(.)",
    "del(.a)",
    ".a |= .",
    "\"[\" * 1000 | fromjson",
    "implode",
    "explode",
    "@json",
    "ltrimstr(\"m\")",
    "splits(",
    "combinations",
    "tostream",
    "fromstream(tostream)",
    "getpath",
    "setpath([]; 1)",
    "input_line_number",
];

fn filter_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(TOKENS), 0..14).prop_map(|t| t.join(" ")),
        1 => "\\PC{0,60}",
        1 => "[ -~]{0,80}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn params() -> impl Strategy<Value = Option<Map<String, Value>>> {
    prop::option::of(
        prop::collection::btree_map(
            prop_oneof!["[a-z_]{1,8}", Just("keyword".to_owned()), "\\PC{0,5}"],
            json_value(),
            0..3,
        )
        .prop_map(|m| m.into_iter().collect()),
    )
}

/// A file body: a real header or garbage, then JSON records or garbage lines.
fn file_contents() -> impl Strategy<Value = Vec<u8>> {
    let header = prop_oneof![
        Just(r#"{"type":"lro_header","operation":"fuzz","query":null,"count":3,"schema_version":"1.0","timestamp":"2026-01-01T00:00:00Z","estimated_tokens":9,"detail":"light"}"#.to_owned()),
        Just(r#"{"type":"lro_header","operation":"fuzz","query":null,"count":3,"schema_version":"raw","timestamp":"2026-01-01T00:00:00Z","estimated_tokens":9,"detail":"raw"}"#.to_owned()),
        "\\PC{0,40}",
    ];
    let line = prop_oneof![
        4 => json_value().prop_map(|v| v.to_string()),
        1 => "\\PC{0,30}",
        1 => Just(String::new()),
    ];
    (
        header,
        prop::collection::vec(line, 0..12),
        prop::collection::vec(any::<u8>(), 0..8),
    )
        .prop_map(|(h, lines, tail)| {
            let mut bytes = h.into_bytes();
            bytes.push(b'\n');
            for l in lines {
                bytes.extend_from_slice(l.as_bytes());
                bytes.push(b'\n');
            }
            bytes.extend(tail);
            bytes
        })
}

fn request() -> impl Strategy<Value = ExtractRequest> {
    prop_oneof![
        4 => (filter_text(), params()).prop_map(|(q, p)| ExtractRequest { query: Some(q), params: p, ..Default::default() }),
        2 => (0u8..13, params()).prop_map(|(n, p)| ExtractRequest { recipe: Some(n), params: p, ..Default::default() }),
        1 => (0u64..20, prop::option::of(0u64..40), any::<bool>()).prop_map(|(start, end, chars)| ExtractRequest {
            lines: Some(LineRange { start, end, unit: if chars { LineUnit::Chars } else { LineUnit::Records } }),
            ..Default::default()
        }),
        1 => ("\\PC{0,12}", any::<bool>(), prop::option::of(0u64..5)).prop_map(|(pattern, ignore_case, max_results)| {
            ExtractRequest { search: Some(SearchSpec { pattern, ignore_case, max_results }), ..Default::default() }
        }),
        1 => (filter_text(), 0u8..11).prop_map(|(q, n)| ExtractRequest { query: Some(q), recipe: Some(n), ..Default::default() }),
    ]
}

static FILE_NUMBER: AtomicU64 = AtomicU64::new(0);

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_and_respects_the_time_limit(contents in file_contents(), request in request()) {
        let dir = tempfile::tempdir().unwrap();
        let limits = ExtractLimits { timeout_ms: TIMEOUT_MS, max_output_bytes: 64 * 1024, ..ExtractLimits::default() };
        let config = OffloadConfig { output_dir: dir.path().to_string_lossy().into_owned(), extract: limits, ..OffloadConfig::default() };
        let lro = Offloader::new(config, StdHost::new()).unwrap();
        let n = FILE_NUMBER.fetch_add(1, Ordering::Relaxed);
        let path = dir.path().join(format!("atlatl-fuzz-{n:026}.jsonl"));
        std::fs::write(&path, &contents).unwrap();
        let started = Instant::now();
        let outcome = lro.extract(path.to_str().unwrap(), &request);
        let elapsed = started.elapsed();
        prop_assert!(elapsed < WALL_LIMIT, "took {elapsed:?} for {request:?}");
        if let Ok(response) = outcome {
            prop_assert_eq!(response.count, response.results.len());
            prop_assert!(response.truncated == response.limit.is_some());
        }
    }
}
