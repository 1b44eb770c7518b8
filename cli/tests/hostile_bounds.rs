//! Bounded extraction: filters that used to take the process down (stack overflow,
//! "memory allocation failed") end with `resource_limit`, through `lro extract` (exit 4, one
//! line on stderr) and through the proxy's `lro_extract` (an `isError` result, after which
//! the proxy still answers `ping` and the next call). A header that lies about its sections
//! is `invalid_input`, not a panic.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, text};
use crate::support::run::{lro, offload_records};

/// The attacks, and the code each must end with.
const ATTACKS: [(&str, &str); 12] = [
    (
        "first(reduce range(100000) as $i (0;[.]))",
        "resource_limit",
    ),
    (
        "reduce range(100000) as $i (0;[.]) | tojson | length",
        "resource_limit",
    ),
    (
        "reduce range(100000) as $i (0;[.]) | length",
        "resource_limit",
    ),
    ("(\"<a>\"*20000)|fromxml", "resource_limit"),
    ("\"[\" * 100000 | fromjson", "resource_limit"),
    ("[1]|until(length>1e10;.+.)", "resource_limit"),
    ("\"x\"|until(length>1e10;.+.)", "resource_limit"),
    ("\"x\" * 1e10 | length", "resource_limit"),
    // Natives whose result is many times their input, refused before they build it.
    ("\"a\" * 10000000 | explode | length", "resource_limit"),
    (
        "\"a\" * 10000000 | [splits(\"\")] | length",
        "resource_limit",
    ),
    (
        "\"a\" * 10000000 | [match(\"a\"; \"g\")] | length",
        "resource_limit",
    ),
    ("[range(1000000)] | to_entries | length", "resource_limit"),
];

/// Filters whose values the memory bound did not count: natives that print, join, split,
/// format or parse, and arithmetic on big integers, build many times their input in one step (a process under the default
/// bound aborted on a failed allocation). Under [`MEMORY`] each input is small and the value
/// it would build is past the bound: refused before it is built (`resource_limit`).
const UNCOUNTED: [&str; 13] = [
    r#""\u0001" * 12000000 | tojson | length"#,
    r#"["\u0001" * 12000000] | tostring | length"#,
    r#""x" * 10000000 | "\(.)\(.)\(.)\(.)\(.)\(.)\(.)\(.)" | length"#,
    r#""é" * 12000000 | @uri | length"#,
    r#"["\"" * 40000000] | @csv | length"#,
    r#""x" * 60000000 | @base64 | length"#,
    r#"0 | strftime("%c" * 3000000) | length"#,
    r#"[range(100000) | ""] | join("x" * 1000) | length"#,
    r#"[range(100000) | ""] | .[] += "x" * 1000 | length"#,
    r#""[" + ("0," * 5000000) + "0]" | fromjson | length"#,
    // Big integers: a product past the integer bound (minutes of one uninterrupted
    // multiplication, or hundreds of megabytes of copies) is refused before it is computed.
    "(reduce range(19) as $i (12345678901234567890; . * .)) as $b | [range(200) as $j | $b + $j] | length",
    "reduce range(22) as $i (12345678901234567890; . * .) | . == 0",
    // Each replacement small, each step's result counted, every step held until the end.
    r#""x" * 10000 | gsub("x"; "y" * 100000) | length"#,
];

/// A memory bound small enough for the memory attacks to meet it fast in a debug build.
const MEMORY: &str = "67108864";

/// A time bound no attack meets first, however loaded the machine: these tests are about the
/// memory and depth bounds, and a slow debug build on a busy machine must not turn a
/// `resource_limit` into a cut by the clock.
const TIMEOUT_MS: &str = "600000";

fn offload(dir: &Path) -> PathBuf {
    let records: Vec<Value> = (0..50)
        .map(|i| json!({"id": format!("m{i}"), "title": format!("t{i}"), "namespace": "ns"}))
        .collect();
    offload_records(dir, records)
}

/// `lro extract --output-dir DIR FILE ARGS...` under the time bound [`TIMEOUT_MS`].
fn extract(dir: &Path, file: &Path, args: &[&str]) -> Output {
    let mut all = vec![
        "extract",
        "--output-dir",
        dir.to_str().unwrap(),
        file.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    lro(
        &all,
        "",
        &[("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", TIMEOUT_MS)],
    )
}

#[test]
fn each_attack_through_lro_extract_is_resource_limit_with_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let file = offload(dir.path());
    let uncounted = UNCOUNTED.iter().map(|f| (*f, "resource_limit"));
    for (filter, code) in ATTACKS.into_iter().chain(uncounted) {
        let out = extract(
            dir.path(),
            &file,
            &["--query", filter, "--max-memory-bytes", MEMORY],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{filter}: {stderr}");
        assert!(
            stderr.starts_with(&format!("lro: error[{code}]: ")) && stderr.lines().count() == 1,
            "{filter}: {stderr}"
        );
    }
    // A filter within the bounds is unchanged by them.
    let out = extract(
        dir.path(),
        &file,
        &[
            "--query",
            "reduce range(100) as $i (0;[.]) | tojson | length",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("201")
    );
}

#[test]
fn a_lying_header_is_invalid_input_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let file = offload(dir.path());
    let text = std::fs::read_to_string(&file).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    let mut header: Value = serde_json::from_str(header).unwrap();
    header["sections"] = json!([{"name": "a", "first_line": 2, "count": 40},
                                {"name": "b", "first_line": 42, "count": 5000}]);
    std::fs::write(&file, format!("{header}\n{body}")).unwrap();
    let out = extract(dir.path(), &file, &["--describe"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(65), "{stderr}");
    assert!(
        stderr.starts_with("lro: error[invalid_input]: "),
        "{stderr}"
    );
}

#[test]
fn the_proxy_answers_an_attack_with_is_error_and_goes_on() {
    let mut proxy = Proxy::start(
        &[],
        &[
            ("ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_MEMORY_BYTES", MEMORY),
            ("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", TIMEOUT_MS),
        ],
    );
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "hostile"}));
    let file = file.to_str().unwrap();
    let mut id = 10;
    let uncounted = UNCOUNTED.iter().map(|f| (*f, "resource_limit"));
    for (filter, code) in ATTACKS.into_iter().chain(uncounted) {
        id += 1;
        let result = proxy.extract(id, json!({"file_path": file, "query": filter}));
        assert_eq!(result["isError"], true, "{filter}: {result}");
        assert!(
            text(&result).starts_with(&format!("error[{code}]: ")),
            "{filter}: {result}"
        );
        // Still there: a ping, then a call that works.
        let pong = proxy.call(id + 1000, "ping", json!({}));
        assert_eq!(pong["result"], json!({}), "{pong}");
    }
    let ok = proxy.extract(
        2000,
        json!({"file_path": file, "query": ".id", "params": null}),
    );
    assert_ne!(ok["isError"], true, "{ok}");
    assert!(text(&ok).contains("m49"), "{ok}");
}

#[test]
fn the_proxy_answers_every_call_in_flight_around_an_attack() {
    let mut proxy = Proxy::start(
        &[],
        &[
            ("ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_MEMORY_BYTES", MEMORY),
            ("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", TIMEOUT_MS),
        ],
    );
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "hostile"}));
    let file = file.to_str().unwrap();
    // Sent together: two attacks between ordinary calls.
    let calls = [
        (1, json!({"file_path": file, "query": ".title"})),
        (2, json!({"file_path": file, "query": ATTACKS[0].0})),
        (3, json!({"file_path": file, "query": ATTACKS[5].0})),
        (4, json!({"file_path": file, "recipe": 1})),
        (6, json!({"file_path": file, "query": UNCOUNTED[2]})),
    ];
    for (id, arguments) in &calls {
        proxy.request(
            json!(id),
            "tools/call",
            json!({"name": proxy.extract_tool, "arguments": arguments}),
        );
    }
    proxy.request(json!(5), "ping", json!({}));
    let mut answered = std::collections::BTreeMap::new();
    while answered.len() < 6 {
        let message = proxy.next();
        if let Some(id) = message.get("id").and_then(Value::as_i64) {
            assert!(
                answered.insert(id, message).is_none(),
                "answered twice: {id}"
            );
        }
    }
    for id in [1, 4] {
        assert_ne!(
            answered[&id]["result"]["isError"], true,
            "{}",
            answered[&id]
        );
    }
    for id in [2, 3, 6] {
        let result = &answered[&id]["result"];
        assert_eq!(result["isError"], true, "{result}");
        assert!(
            text(result).starts_with("error[resource_limit]: "),
            "{result}"
        );
    }
    assert_eq!(answered[&5]["result"], json!({}));
}

#[test]
fn halt_error_and_invalid_code_points_are_query_failed_not_silent() {
    let dir = tempfile::tempdir().unwrap();
    let file = offload(dir.path());
    for (filter, shown) in [
        ("\"stop here\" | halt_error(1)", "stop here"),
        ("halt_error", "halt_error"),
        ("halt(2)", "halt(2)"),
        ("[-65] | implode", "invalid code point -65"),
    ] {
        let out = extract(dir.path(), &file, &["--query", filter]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{filter}: {stderr}");
        assert!(out.stdout.is_empty(), "{filter}");
        assert!(
            stderr.starts_with("lro: error[query_failed]: ") && stderr.contains(shown),
            "{filter}: {stderr}"
        );
    }
}

#[test]
fn a_large_where_gets_no_jq_equivalent_and_a_small_answer() {
    let mut proxy = Proxy::start(&[], &[]);
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "hostile"}));
    let values: Vec<u64> = (0..20_000).collect();
    let result = proxy.extract(
        2,
        json!({"file_path": file.to_str().unwrap(),
               "where": {"id": {"$in": values}}, "count": true, "explain": true}),
    );
    assert_ne!(result["isError"], true, "{result}");
    let size = result.to_string().len();
    assert!(size < 16 * 1024, "answer of {size} bytes");
    assert!(
        text(&result).contains("equivalent jq: left out: it would be longer than"),
        "{result}"
    );
    // A small query still gets its equivalent.
    let small = proxy.extract(
        3,
        json!({"file_path": file.to_str().unwrap(),
               "where": {"id": {"$in": [1, 2]}}, "count": true, "explain": true}),
    );
    assert!(
        text(&small).contains("equivalent jq: tail -n +2 "),
        "{small}"
    );
}

/// Flat filters of at most 16 KiB, shallow in brackets, thousands of operators or path steps
/// deep: each overflowed the stack (exit 134; the proxy died with its extraction thread).
fn flat_chains() -> [String; 6] {
    [
        ".|".repeat(8000) + ".",
        "1,".repeat(8000) + "1",
        "1+".repeat(4000) + "1",
        "..|".repeat(5400) + ".",
        ".".to_owned() + &"[]?".repeat(4000),
        ".a".repeat(8000),
    ]
}

/// A `fields` path of 30,000 components (60 KB): its tree of components overflowed the stack.
fn long_path() -> String {
    vec!["a"; 30_000].join(".")
}

#[test]
fn flat_chains_and_long_paths_are_refused_by_lro_extract() {
    let dir = tempfile::tempdir().unwrap();
    let file = offload(dir.path());
    for filter in flat_chains() {
        let out = extract(dir.path(), &file, &["--query", &filter]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(65), "{}: {stderr}", &filter[..20]);
        assert!(
            stderr.starts_with("lro: error[invalid_query]: filter is too deep: ")
                && stderr.lines().count() == 1,
            "{stderr}"
        );
    }
    for option in ["--fields", "--sort", "--group-by"] {
        let out = extract(dir.path(), &file, &["--where", "{}", option, &long_path()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(65), "{option}: {stderr}");
        assert!(
            stderr.starts_with("lro: error[invalid_argument]: ")
                && stderr.contains("has 30000 components; the limit is 128")
                && stderr.lines().count() == 1
                && stderr.len() < 300,
            "{option}: {stderr}"
        );
    }
    // Chains and paths within the bounds are unchanged by them.
    let out = extract(
        dir.path(),
        &file,
        &["--query", &format!("[{}.id] | length", ".id, ".repeat(200))],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("201")
    );
    let out = extract(
        dir.path(),
        &file,
        &[
            "--where",
            "{}",
            "--fields",
            "id,title.a.b.c",
            "--limit",
            "1",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some(r#"{"id":"m0"}"#)
    );
}

#[test]
fn the_proxy_refuses_flat_chains_and_long_paths_and_goes_on() {
    let mut proxy = Proxy::start(
        &[],
        &[("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", TIMEOUT_MS)],
    );
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "hostile"}));
    let file = file.to_str().unwrap();
    let mut calls: Vec<(Value, &str)> = flat_chains()
        .into_iter()
        .map(|filter| (json!({"file_path": file, "query": filter}), "invalid_query"))
        .collect();
    calls.push((
        json!({"file_path": file, "where": {}, "fields": long_path()}),
        "invalid_argument",
    ));
    for (id, (arguments, code)) in (10..).zip(calls) {
        let result = proxy.extract(id, arguments);
        assert_eq!(result["isError"], true, "{result}");
        assert!(
            text(&result).starts_with(&format!("error[{code}]: ")),
            "{result}"
        );
        let pong = proxy.call(id + 1000, "ping", json!({}));
        assert_eq!(pong["result"], json!({}), "{pong}");
    }
    let ok = proxy.extract(2000, json!({"file_path": file, "query": ".id"}));
    assert_ne!(ok["isError"], true, "{ok}");
    assert!(text(&ok).contains("m49"), "{ok}");
}
