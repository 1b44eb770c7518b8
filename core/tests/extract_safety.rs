//! Native extraction reads only offload files inside the output directory, refuses bad
//! arguments with typed errors, and says when a limit cut its result.

use std::path::Path;

use lro_core::{
    ErrorCode, ExtractLimits, ExtractRequest, LineRange, LineUnit, MemoryHost, OffloadConfig,
    OffloadRequest, Offloader, SearchSpec, StdHost,
};
use serde_json::{Value, json};

use crate::support::{offloaded, query};

fn memories(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| {
                json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": format!("_semantic/ns{}", i % 3),
                       "title": format!("Memory number {i} about caching"), "tags": ["a"]})
            })
            .collect(),
    )
}

fn setup(dir: &Path, limits: ExtractLimits) -> (Offloader<StdHost>, String) {
    offloaded(dir, limits, &memories(100))
}

fn code(lro: &Offloader<StdHost>, path: &str, request: &ExtractRequest) -> ErrorCode {
    lro.extract(path, request).expect_err(path).code()
}

#[test]
fn paths_outside_the_output_dir_are_denied() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let (lro, file) = setup(&out, ExtractLimits::default());
    let name = Path::new(&file)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let ok = query(".id");
    assert_eq!(lro.extract(&file, &ok).unwrap().count, 100);
    // The bare file name is taken relative to the output directory.
    assert_eq!(lro.extract(&name, &ok).unwrap().count, 100);

    // An offload file that lives elsewhere: copy it next to the output dir.
    let elsewhere = root.path().join(&name);
    std::fs::copy(&file, &elsewhere).unwrap();
    let traversal = format!("{}/../{name}", out.display());
    assert_eq!(
        code(&lro, &traversal, &ok),
        ErrorCode::PathDenied,
        "traversal"
    );
    assert_eq!(
        code(&lro, &format!("../{name}"), &ok),
        ErrorCode::PathDenied,
        "relative traversal"
    );
    assert_eq!(
        code(&lro, elsewhere.to_str().unwrap(), &ok),
        ErrorCode::PathDenied,
        "absolute elsewhere"
    );
    assert_eq!(
        code(&lro, "/etc/passwd", &ok),
        ErrorCode::PathDenied,
        "system file"
    );

    // A symlink inside the directory, named like an offload file, pointing out.
    let link = out.join(name.replace("recall", "linked"));
    std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
    assert_eq!(
        code(&lro, link.to_str().unwrap(), &ok),
        ErrorCode::PathDenied,
        "symlink out"
    );
    // Even a symlink pointing to an offload file inside the directory is refused: following
    // it would be a second lookup by name, which a swap could redirect.
    let inner = out.join(name.replace("recall", "inner"));
    std::os::unix::fs::symlink(&file, &inner).unwrap();
    assert_eq!(
        code(&lro, inner.to_str().unwrap(), &ok),
        ErrorCode::PathDenied,
        "symlink in"
    );

    // Files inside the directory that are not offload files.
    let other = out.join("notes.jsonl");
    std::fs::write(&other, "{}\n{\"id\": 1}\n").unwrap();
    assert_eq!(
        code(&lro, other.to_str().unwrap(), &ok),
        ErrorCode::PathDenied,
        "not an offload file"
    );
    let tmp = out.join(format!("{name}.tmp-1"));
    std::fs::write(&tmp, "{}\n").unwrap();
    assert_eq!(
        code(&lro, tmp.to_str().unwrap(), &ok),
        ErrorCode::PathDenied,
        "temporary file"
    );
    let dir_named_like_a_file = out.join(name.replace("recall", "dir"));
    std::fs::create_dir(&dir_named_like_a_file).unwrap();
    assert_eq!(
        code(&lro, dir_named_like_a_file.to_str().unwrap(), &ok),
        ErrorCode::PathDenied,
        "directory"
    );

    // Missing offload files inside the directory are `not_found`; the empty path is an argument error.
    let missing = out.join(name.replace("recall", "gone"));
    assert_eq!(
        code(&lro, missing.to_str().unwrap(), &ok),
        ErrorCode::NotFound
    );
    assert_eq!(code(&lro, "", &ok), ErrorCode::InvalidArgument);
}

#[test]
fn arguments_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), ExtractLimits::default());
    let req = |v: Value| -> ExtractRequest { serde_json::from_value(v).unwrap() };
    let cases = [
        (req(json!({})), ErrorCode::InvalidArgument),
        (
            req(json!({"recipe": 1, "query": "."})),
            ErrorCode::InvalidArgument,
        ),
        (req(json!({"recipe": 11})), ErrorCode::InvalidArgument),
        (req(json!({"recipe": 0})), ErrorCode::InvalidArgument),
        (
            req(json!({"recipe": 3, "params": {"keyword": 7}})),
            ErrorCode::InvalidArgument,
        ),
        (
            req(json!({"recipe": 3, "params": {"namespace": "x"}})),
            ErrorCode::InvalidArgument,
        ),
        (
            req(json!({"query": ".", "params": {"not a name": 1}})),
            ErrorCode::InvalidArgument,
        ),
        (
            req(json!({"search": {"pattern": "a"}, "params": {"x": 1}})),
            ErrorCode::InvalidArgument,
        ),
        (
            req(json!({"search": {"pattern": "(unclosed"}})),
            ErrorCode::InvalidArgument,
        ),
        (
            req(json!({"lines": {"start": 5, "end": 2}})),
            ErrorCode::InvalidArgument,
        ),
        (req(json!({"query": ".[) |"})), ErrorCode::InvalidQuery),
        (
            req(json!({"query": "nosuchfilter"})),
            ErrorCode::InvalidQuery,
        ),
        (req(json!({"query": "$undefined"})), ErrorCode::InvalidQuery),
        (req(json!({"query": "env"})), ErrorCode::InvalidQuery),
        (req(json!({"query": "$ENV"})), ErrorCode::InvalidQuery),
        (req(json!({"query": "now"})), ErrorCode::InvalidQuery),
        (req(json!({"query": "input"})), ErrorCode::InvalidQuery),
        (
            req(json!({"query": "import \"a\" as a; ."})),
            ErrorCode::InvalidQuery,
        ),
        (
            req(
                json!({"query": "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((."}),
            ),
            ErrorCode::InvalidQuery,
        ),
        (
            req(json!({"query": ".title | error(\"boom\")"})),
            ErrorCode::QueryFailed,
        ),
        (req(json!({"query": ".title + 1"})), ErrorCode::QueryFailed),
        (
            req(json!({"query": "def f: 1 + f; f"})),
            ErrorCode::ResourceLimit,
        ),
    ];
    for (request, expected) in cases {
        let err = lro
            .extract(&file, &request)
            .expect_err(&format!("{request:?}"));
        assert_eq!(err.code(), expected, "{request:?}: {err}");
    }
    assert!(
        serde_json::from_value::<ExtractRequest>(json!({"recipe": 1, "bogus": 1})).is_err(),
        "unknown fields"
    );
    // A missing recipe parameter takes the descriptor's example; params bind as variables.
    let r = lro.extract(&file, &req(json!({"recipe": 2}))).unwrap();
    assert_eq!(
        r.count, 34,
        "the example namespace is the most frequent one, _semantic/ns0"
    );
    let r = lro
        .extract(
            &file,
            &req(json!({"query": "select(.id == $id) | .title", "params": {"id": "m7"}})),
        )
        .unwrap();
    assert_eq!(r.results, vec![json!("Memory number 7 about caching")]);
    let r = lro.extract(&file, &req(json!({"query": "halt"}))).unwrap();
    assert_eq!(r.count, 0);
    // Not silent: the response says the filter stopped it.
    assert!(
        r.warnings.iter().any(|w| w.contains("halt")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn lines_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), ExtractLimits::default());
    let lines = |start, end, unit| ExtractRequest {
        lines: Some(LineRange { start, end, unit }),
        ..Default::default()
    };
    let r = lro
        .extract(&file, &lines(3, Some(5), LineUnit::Records))
        .unwrap();
    assert_eq!(
        r.results
            .iter()
            .map(|v| v["id"].clone())
            .collect::<Vec<_>>(),
        vec![json!("m3"), json!("m4")]
    );
    assert!(!r.truncated);
    let r = lro
        .extract(&file, &lines(0, Some(12), LineUnit::Chars))
        .unwrap();
    assert_eq!(r.results, vec![json!("{\"id\":\"m0\",\"")]);
    let search = |pattern: &str, ignore_case, max_results| ExtractRequest {
        search: Some(SearchSpec {
            pattern: pattern.to_owned(),
            ignore_case,
            max_results,
        }),
        ..Default::default()
    };
    let r = lro
        .extract(&file, &search(r#""id":"m9\d""#, false, None))
        .unwrap();
    assert_eq!(r.count, 10);
    assert_eq!(r.results[0]["index"], json!(90));
    assert_eq!(r.results[0]["line"], json!(92));
    assert_eq!(
        lro.extract(&file, &search("CACHING", false, None))
            .unwrap()
            .count,
        0
    );
    assert_eq!(
        lro.extract(&file, &search("CACHING", true, None))
            .unwrap()
            .count,
        100
    );
    let r = lro
        .extract(&file, &search("caching", false, Some(5)))
        .unwrap();
    assert_eq!(
        (r.count, r.truncated, r.limit.as_deref()),
        (5, true, Some("max_results (5)"))
    );
}

fn limited(limits: ExtractLimits) -> (tempfile::TempDir, Offloader<StdHost>, String) {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = setup(dir.path(), limits);
    (dir, lro, file)
}

#[test]
fn each_limit_cuts_the_result_and_says_so() {
    let (_d, lro, file) = limited(ExtractLimits {
        max_output_records: 7,
        ..ExtractLimits::default()
    });
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert_eq!(
        (r.count, r.truncated, r.limit.as_deref()),
        (7, true, Some("max_output_records (7)"))
    );
    let r = lro.extract(&file, &query("select(.id == \"m1\")")).unwrap();
    assert!(!r.truncated, "under the limit is not truncated");

    let (_d, lro, file) = limited(ExtractLimits {
        max_output_bytes: 50,
        ..ExtractLimits::default()
    });
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert_eq!(
        (r.count, r.truncated),
        (12, true),
        "\"m0\"..\"m9\" take 4 bytes, \"m10\" and \"m11\" 5: 50"
    );
    assert_eq!(r.limit.as_deref(), Some("max_output_bytes (50)"));
    let r = lro
        .extract(
            &file,
            &ExtractRequest {
                recipe: Some(6),
                ..Default::default()
            },
        )
        .unwrap();
    // One array too large for the limit keeps its leading items that fit.
    assert!(r.truncated && r.count == 1, "{r:?}");
    let kept = r.results[0].as_array().unwrap().len() as u64;
    assert_eq!(r.returned, Some(kept));
    assert!(r.total.is_some_and(|total| total > kept), "{r:?}");
    assert!(serde_json::to_string(&r.results[0]).unwrap().len() <= 50);

    let (_d, lro, file) = limited(ExtractLimits {
        max_read_bytes: 2000,
        ..ExtractLimits::default()
    });
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert!(r.truncated && r.count > 0 && r.count < 100, "{r:?}");
    assert_eq!(r.limit.as_deref(), Some("max_read_bytes (2000)"));
    assert!(r.bytes_read <= 2000);

    let (_d, lro, file) = limited(ExtractLimits {
        timeout_ms: 50,
        ..ExtractLimits::default()
    });
    for endless in [
        "repeat(1) | empty",
        "last(range(1e18))",
        "def f: f; f",
        "[range(1e12)] | length",
        "reduce range(1e15) as $x (0; . + 1)",
    ] {
        let r = lro.extract(&file, &query(endless)).unwrap();
        assert!(r.truncated, "{endless}: {r:?}");
        assert_eq!(r.limit.as_deref(), Some("timeout_ms (50 ms)"), "{endless}");
    }
}

#[test]
fn time_is_read_through_the_host() {
    // A host clock that never moves: no timeout, however long the work takes.
    let host = MemoryHost::new();
    let config = OffloadConfig {
        threshold_tokens: 10,
        extract: ExtractLimits {
            timeout_ms: 0,
            ..Default::default()
        },
        ..Default::default()
    };
    let lro = Offloader::new(config, host).unwrap();
    let file = lro
        .offload(&memories(20), &OffloadRequest::new("recall"))
        .unwrap()
        .offloaded()
        .unwrap()
        .file_path
        .clone();
    let r = lro.extract(&file, &query(".id")).unwrap();
    assert!(
        r.truncated,
        "a zero timeout on a stopped clock has already passed"
    );
    assert_eq!(r.limit.as_deref(), Some("timeout_ms (0 ms)"));
}
