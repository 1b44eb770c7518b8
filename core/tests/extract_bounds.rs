//! Bounded extraction: values nested too deep, filters that take too much memory
//! and lying headers end with typed errors, on a thread with Rust's default 2 MiB stack (the
//! least the bounds are sized for); filters within the bounds are unchanged.

use std::path::Path;

use lro_core::{
    ErrorCode, ExtractLimits, ExtractRequest, LroError, OffloadConfig, Offloader, StdHost,
};
use serde_json::{Value, json};

use crate::support::offloaded;

fn setup(dir: &Path, limits: ExtractLimits) -> (Offloader<StdHost>, String) {
    let records: Vec<Value> = (0..20)
        .map(|i| json!({"id": format!("m{i}"), "title": format!("Memory {i}"), "namespace": "ns"}))
        .collect();
    offloaded(dir, limits, &Value::Array(records))
}

fn limits(max_memory_bytes: u64) -> ExtractLimits {
    ExtractLimits {
        max_memory_bytes,
        // The bounds tested here are memory and depth: a clock no filter meets first, however
        // slow the build or busy the machine, so a `resource_limit` never turns into a cut.
        timeout_ms: 600_000,
        ..ExtractLimits::default()
    }
}

/// Held by each extraction of these tests. `extract.max_memory_bytes` bounds the memory of
/// all extractions running at once in the process, and the tests of this file run on
/// parallel threads of one process: without it, a filter that fills the budget in one test
/// would make a small filter under a small bound in another fail with `resource_limit`
/// (as it should, in a host).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `filter` on a thread with a 2 MiB stack, alone among the extractions of this file.
fn run(limits: ExtractLimits, filter: &str) -> Result<lro_core::ExtractResponse, LroError> {
    let _alone = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let filter = filter.to_owned();
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let dir = tempfile::tempdir().unwrap();
            let (lro, file) = setup(dir.path(), limits);
            let request = ExtractRequest {
                query: Some(filter),
                ..ExtractRequest::default()
            };
            lro.extract(&file, &request)
        })
        .unwrap()
        .join()
        .expect("no panic, no overflow")
}

#[test]
fn deep_values_are_resource_limit_wherever_they_go() {
    for filter in [
        "first(reduce range(100000) as $i (0;[.]))",
        "reduce range(100000) as $i (0;[.]) | tojson | length",
        "reduce range(100000) as $i (0;[.]) | length",
        "reduce range(100000) as $i (0;{a: .}) | length",
        "reduce range(100000) as $i ({}; .a = .) | length",
        "[limit(100000; recurse([.]))] | length",
        "def f: [f]; f",
        "(\"<a>\" * 20000) | fromxml",
        "(\"- \" * 20000) + \"x\" | fromyaml",
        "\"[\" * 100000 | fromjson",
        "try (reduce range(5000) as $i (0;[.])) catch \"swallowed\"",
    ] {
        let err = run(limits(64 << 20), filter).expect_err(filter);
        assert_eq!(err.code(), ErrorCode::ResourceLimit, "{filter}: {err}");
    }
}

#[test]
fn memory_hungry_filters_are_resource_limit() {
    for filter in [
        "[1] | until(length > 1e10; . + .)",
        "\"x\" | until(length > 1e10; . + .)",
        "\"x\" * 1e10 | length",
        "[range(1e9)] | length",
        "[range(1000) | [range(10000)]] | length",
        "reduce range(60) as $i (0; [., .]) | tojson | length",
        "reduce range(60) as $i (0; [., .])",
    ] {
        let err = run(limits(16 << 20), filter).expect_err(filter);
        assert_eq!(err.code(), ErrorCode::ResourceLimit, "{filter}: {err}");
        assert!(
            err.message().contains("max_memory_bytes"),
            "{filter}: {err}"
        );
    }
}

#[test]
fn filters_within_the_bounds_are_unchanged() {
    let cases = [
        (
            "reduce range(500) as $i (0;[.]) | tojson | length",
            json!(1001),
        ),
        ("[range(100000)] | length", json!(100000)),
        ("\"ab\" * 3", json!("ababab")),
        ("[1,2] + [3] | . * 1 | length", Value::Null),
        ("{a: {b: 1}} * {a: {c: 2}}", json!({"a": {"b": 1, "c": 2}})),
        ("[range(3)] | map(. * 2)", json!([0, 2, 4])),
        (
            "\"<a><b>x</b></a>\" | fromxml | tojson | length > 0",
            json!(true),
        ),
        ("[.id, .title] | join(\" \") | length > 0", json!(true)),
    ];
    for (filter, expected) in cases {
        let result = run(limits(64 << 20), &format!("first({filter})"));
        if expected.is_null() {
            // `[..] * 1` is an error in jq too; it is not a bound.
            let err = result.expect_err(filter);
            assert_eq!(err.code(), ErrorCode::QueryFailed, "{filter}: {err}");
            continue;
        }
        let response = result.unwrap_or_else(|e| panic!("{filter}: {e}"));
        assert_eq!(response.results[0], expected, "{filter}");
    }
}

#[test]
fn output_held_past_the_memory_bound_is_cut_not_failed() {
    let response = run(
        ExtractLimits {
            max_output_records: u64::MAX,
            max_output_bytes: u64::MAX,
            max_memory_bytes: 1 << 20,
            ..ExtractLimits::default()
        },
        "range(1e7)",
    )
    .unwrap();
    assert!(response.truncated);
    assert_eq!(
        response.limit.as_deref(),
        Some("max_memory_bytes (1048576)")
    );
    assert!(response.count > 1000, "{}", response.count);
}

#[test]
fn the_memory_bound_is_configurable_everywhere() {
    let c = OffloadConfig::from_toml_str("[prompt.offload.extract]\nmax_memory_bytes = 1000000\n")
        .unwrap();
    assert_eq!(c.extract.max_memory_bytes, 1_000_000);
    let mut c = OffloadConfig::default();
    c.apply_env([(
        "ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_MEMORY_BYTES",
        "2000000",
    )])
    .unwrap();
    assert_eq!(c.extract.max_memory_bytes, 2_000_000);
    let c = OffloadConfig::from_json(&json!({"extract": {"max_memory_bytes": 3000000}})).unwrap();
    assert_eq!(c.extract.max_memory_bytes, 3_000_000);
    assert_eq!(
        OffloadConfig::default().extract.max_memory_bytes,
        512 << 20,
        "the default"
    );
}

#[test]
fn a_header_whose_sections_run_past_the_records_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), ExtractLimits::default());
    let text = std::fs::read_to_string(&file).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    for sections in [
        json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": 5000}]),
        json!([{"name": "a", "first_line": 2, "count": 15}, {"name": "b", "first_line": 12, "count": 5}]),
        json!([{"name": "a", "first_line": 0, "count": 1}]),
        json!([{"name": "a", "first_line": usize::MAX, "count": 2}]),
    ] {
        let mut header: Value = serde_json::from_str(header).unwrap();
        header["sections"] = sections.clone();
        std::fs::write(&file, format!("{header}\n{body}")).unwrap();
        let request = ExtractRequest {
            describe: Some(true),
            ..ExtractRequest::default()
        };
        let err = {
            let _alone = ONE_AT_A_TIME
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            lro.extract(&file, &request)
        }
        .expect_err("a lying header");
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{sections}: {err}");
    }
}

/// The requests that read a section of a file, each over section `b`.
fn section_readers() -> Vec<(&'static str, Value)> {
    vec![
        ("count", json!({"section": "b", "count": true})),
        ("where", json!({"section": "b", "where": {"id": "m15"}})),
        ("query", json!({"section": "b", "query": ".id"})),
        (
            "lines",
            json!({"section": "b", "lines": {"start": 0, "end": 3}}),
        ),
        (
            "chars",
            json!({"section": "b", "lines": {"start": 0, "end": 30, "unit": "chars"}}),
        ),
        (
            "search",
            json!({"section": "b", "search": {"pattern": "m1"}}),
        ),
        ("recipe alone", json!({"recipe": 6})),
        ("describe", json!({"describe": true})),
    ]
}

#[test]
fn every_reader_of_a_section_refuses_a_lying_header() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), ExtractLimits::default());
    let text = std::fs::read_to_string(&file).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    let write = |header: &str| std::fs::write(&file, format!("{header}\n{body}")).unwrap();
    let extract = |request: &Value| {
        let request: ExtractRequest = serde_json::from_value(request.clone()).unwrap();
        let _alone = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        lro.extract(&file, &request)
    };
    let with = |sections: Value, count: Option<u64>| {
        let mut header: Value = serde_json::from_str(header).unwrap();
        header["sections"] = sections;
        if let Some(count) = count {
            header["count"] = json!(count);
        }
        header.to_string()
    };
    // The truth: two sections of ten records each; every reader answers.
    write(&with(
        json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": 10}]),
        None,
    ));
    for (what, request) in section_readers() {
        let answer = extract(&request).unwrap_or_else(|e| panic!("{what}: {e}"));
        if what == "count" {
            assert_eq!(answer.results, vec![json!(10)], "{what}");
        }
    }
    let huge = u64::MAX;
    let lies = [
        // Past the header's count, far past it, wrapping, overlapping, out of order.
        with(json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": 5000}]), None),
        with(json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": huge}]), None),
        with(json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": huge, "count": 10}]), None),
        with(json!([{"name": "a", "first_line": 2, "count": 20}, {"name": "b", "first_line": 2, "count": 20}]), None),
        with(json!([{"name": "b", "first_line": 12, "count": 10}, {"name": "a", "first_line": 2, "count": 10}]), None),
        // Numbers that fit no count.
        with(json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": 10}]), None)
            .replace("\"first_line\":12", "\"first_line\":18446744073709551616"),
        with(json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": 10}]), None)
            .replace("\"first_line\":12", "\"first_line\":-12"),
        // A count that lies with it: the sections fit the count, the file ends first.
        with(json!([{"name": "a", "first_line": 2, "count": 10}, {"name": "b", "first_line": 12, "count": 4990}]), Some(5000)),
    ];
    for (i, lie) in lies.iter().enumerate() {
        write(lie);
        for (what, request) in section_readers() {
            if i == lies.len() - 1 && matches!(what, "recipe alone" | "lines" | "chars") {
                // The sections fit the count, so only a reader that reaches the end of the
                // file finds the lie: not one of the first records of `b`, which are there,
                // nor a MIF recipe, which reads the whole file (no section).
                continue;
            }
            match extract(&request) {
                Err(err) => assert_eq!(err.code(), ErrorCode::InvalidInput, "{what} {lie}: {err}"),
                Ok(answer) => panic!("{what} answered {:?} from {lie}", answer.results),
            }
        }
    }
}

#[test]
fn values_that_grow_by_wide_levels_are_met_by_a_walk() {
    // Each level is 5,000 items (about 80 KB): a 4 MiB bound holds about 50 of them.
    let err = run(
        limits(4 << 20),
        "reduce range(100000) as $i (0; [range(5000), .]) | length",
    )
    .expect_err("wide levels");
    assert_eq!(err.code(), ErrorCode::ResourceLimit, "{err}");
}

#[test]
fn natives_that_grow_their_input_are_refused_before_they_build() {
    for filter in [
        "\"a\" * 10000000 | explode | length",
        "\"a\" * 5000000 | [splits(\"\")] | length",
        "\"a\" * 5000000 | [match(\"a\"; \"g\")] | length",
        "\"ab\" * 5000000 | gsub(\"a\"; \"bb\") | length",
        "[range(1000000)] | to_entries | length",
        "\"a\" * 10000000 | indices(\"a\") | length",
    ] {
        let err = run(limits(16 << 20), filter).expect_err(filter);
        assert_eq!(err.code(), ErrorCode::ResourceLimit, "{filter}: {err}");
    }
    // Within the bound they answer as before.
    for (filter, expected) in [
        ("\"abc\" | explode | implode", json!("abc")),
        ("\"a,b\" | [splits(\",\")]", json!(["a", "b"])),
        ("\"abab\" | gsub(\"a\"; \"c\")", json!("cbcb")),
        ("[5, 6] | to_entries | length", json!(2)),
        ("\"ABC\" | ascii_downcase", json!("abc")),
    ] {
        let response = run(limits(16 << 20), &format!("first({filter})"))
            .unwrap_or_else(|e| panic!("{filter}: {e}"));
        assert_eq!(response.results[0], expected, "{filter}");
    }
}

#[test]
fn halt_and_halt_error_are_query_failed_with_their_message() {
    for (filter, shown) in [
        ("\"stop here\" | halt_error(1)", "stop here"),
        ("{\"a\": 1} | halt_error", "{\"a\":1}"),
        ("halt(3)", "halt(3)"),
    ] {
        let err = run(limits(16 << 20), filter).expect_err(filter);
        assert_eq!(err.code(), ErrorCode::QueryFailed, "{filter}: {err}");
        assert!(err.message().contains(shown), "{filter}: {err}");
    }
}

#[test]
fn implode_refuses_what_is_not_a_code_point() {
    for filter in [
        "[-65] | implode",
        "[55296] | implode",
        "[1114112] | implode",
        "[65.5] | implode",
    ] {
        let err = run(limits(16 << 20), filter).expect_err(filter);
        assert_eq!(err.code(), ErrorCode::QueryFailed, "{filter}: {err}");
    }
    let response = run(limits(16 << 20), "first([65, 66, 128512] | implode)").unwrap();
    assert_eq!(response.results[0], json!("AB\u{1F600}"));
}

#[test]
fn a_loop_over_a_product_ending_in_empty_meets_the_time_limit() {
    // No definition is called inside: `empty`, where each step ends, ticks.
    let response = run(
        ExtractLimits {
            timeout_ms: 300,
            ..limits(64 << 20)
        },
        "[range(10000)] | .[] as $a | .[] | empty",
    )
    .unwrap();
    assert!(response.truncated, "{response:?}");
    assert!(
        response
            .limit
            .as_deref()
            .is_some_and(|l| l.starts_with("timeout_ms")),
        "{:?}",
        response.limit
    );
}
