//! Native extraction against `tail -n +2 FILE | jq ...` (the system jq), side by side.
//!
//! Recipe 6 (count by namespace, slurping) and recipe 3 (title search, record by record) on
//! files of 500, 10,000 and 100,000 Light memories. The jq side runs the descriptor's own
//! shell command, so both sides do the same work on the same file.
//!
//! `cargo bench -p lro-core --bench extract`; set `LRO_BENCH_SIZES=500,10000` to pick sizes.
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented items"
)]

// The shipped native artifacts (the `lro` binary, the Python and Node modules) run on mimalloc;
// the benchmarks measure what they run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lro_core::{
    ExtractLimits, ExtractRequest, OffloadConfig, OffloadRequest, OffloadResponse, Offloader,
    StdHost,
};
use serde_json::{Value, json};

fn memories(n: usize) -> Value {
    let namespaces = [
        "_semantic/decisions",
        "_semantic/knowledge",
        "_episodic/sessions",
        "_procedural/runbooks",
        "_semantic/people",
    ];
    let types = ["semantic", "episodic", "procedural"];
    Value::Array(
        (0..n)
            .map(|i| {
                json!({
                    "id": format!("01JH5X3Q7Y{i:016}"),
                    "memory_type": types[i % 3],
                    "title": format!("Decision {i}: use a write-through cache for the {} service", ["auth", "billing", "search", "Keyword index"][i % 4]),
                    "namespace": namespaces[i % 5],
                    "tags": [format!("t{}", i % 17), "architecture"],
                    "status": "active",
                    "created": format!("2025-{:02}-{:02}T10:00:00Z", 1 + i % 12, 1 + i % 28),
                    "modified": "2025-10-01T00:00:00Z",
                    "content": "not serialized at Light detail",
                })
            })
            .collect(),
    )
}

fn offload(lro: &Offloader<StdHost>, n: usize) -> OffloadResponse {
    lro.offload(&memories(n), &OffloadRequest::new("recall"))
        .unwrap()
        .offloaded()
        .unwrap()
        .clone()
}

fn jq(command: &str) {
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
    black_box(out.stdout.len());
}

fn sizes() -> Vec<usize> {
    std::env::var("LRO_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![500, 10_000, 100_000])
}

fn bench(c: &mut Criterion) {
    assert!(
        Path::new("/usr/bin/jq").exists(),
        "the benchmark compares with /usr/bin/jq: install jq"
    );
    let dir = tempfile::tempdir().unwrap();
    // No output cut: both sides print every result.
    let limits = ExtractLimits {
        max_output_records: u64::MAX >> 1,
        max_output_bytes: u64::MAX >> 1,
        timeout_ms: 600_000,
        ..ExtractLimits::default()
    };
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        extract: limits,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    for n in sizes() {
        let descriptor = offload(&lro, n);
        for (number, params) in [(6u8, None), (3u8, Some(json!({"keyword": "keyword"})))] {
            let mut group = c.benchmark_group(format!("recipe{number}"));
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(3));
            let request: ExtractRequest =
                serde_json::from_value(json!({"recipe": number, "params": params})).unwrap();
            let command = descriptor.jq_recipes[usize::from(number) - 1]
                .command
                .clone();
            let ours = lro.extract(&descriptor.file_path, &request).unwrap();
            assert!(!ours.truncated, "{:?}", ours.limit);
            group.bench_function(BenchmarkId::new("lro", n), |b| {
                b.iter(|| black_box(lro.extract(&descriptor.file_path, &request).unwrap().count));
            });
            group.bench_function(BenchmarkId::new("jq", n), |b| b.iter(|| jq(&command)));
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
