//! Offload benchmarks: the targets are 200 full memories in <= 0.3 ms (estimate +
//! serialize + write + descriptor), 10,000 memories written at >= 400 MB/s, and token
//! estimation at >= 1 GB/s.
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]

// The shipped native artifacts (the `lro` binary, the Python and Node modules) run on mimalloc;
// the benchmarks measure what they run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lro_core::estimate::estimate_tokens;
use lro_core::{OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost};
use serde_json::{Value, json};

const TYPES: [&str; 3] = ["semantic", "episodic", "procedural"];
const NAMESPACES: [&str; 4] = [
    "_semantic/decisions",
    "_episodic/sessions",
    "projects/atlas",
    "_procedural/runbooks",
];

/// A full-detail MIF memory of about 160 tokens.
fn memory(i: usize) -> Value {
    json!({
        "id": format!("mem-{i:06}"),
        "memory_type": TYPES[i % 3],
        "title": format!("Decision {i}: caching strategy for service {}", i % 17),
        "content": format!("We moved service {} to a write-through cache after incident {i}; p99 latency fell from 480 ms to 95 ms and the runbook was updated.", i % 17),
        "created": "2026-03-14T09:26:53Z",
        "modified": "2026-10-01T12:00:00Z",
        "namespace": NAMESPACES[i % 4],
        "tags": ["architecture", "performance"],
        "status": "active",
        "summary": "write-through cache for latency",
        "provenance": {"confidence": 0.87, "trust_level": "verified", "source_type": "conversation", "agent": "claude"},
        "entities": [{"name": format!("service-{}", i % 17), "type": "service"}],
    })
}

fn offloader(dir: &std::path::Path) -> Offloader<StdHost> {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    Offloader::new(config, StdHost::new()).unwrap()
}

/// The two ways in: a `Value` tree, or the same records as JSON text (the bindings' path).
enum Input {
    Tree(Value),
    Text(Vec<u8>),
}

/// Times `offload` alone; the file is removed after each iteration, outside the timing.
fn timed_offloads(
    lro: &Offloader<StdHost>,
    input: &Input,
    request: &OffloadRequest,
    iters: u64,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        let outcome = match input {
            Input::Tree(records) => lro.offload(black_box(records), request),
            Input::Text(json) => lro.offload_json(black_box(json), request),
        }
        .unwrap();
        total += start.elapsed();
        if let Outcome::Offloaded(r) = outcome {
            std::fs::remove_file(&r.file_path).unwrap();
        }
    }
    total
}

fn bench_offload(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader(dir.path());
    let request = OffloadRequest {
        detail: Some(lro_core::Detail::Full),
        ..OffloadRequest::new("recall")
    };
    let mut group = c.benchmark_group("offload");
    for n in [200usize, 10_000] {
        let records = Value::Array((0..n).map(memory).collect());
        let Outcome::Offloaded(sample) = lro.offload(&records, &request).unwrap() else {
            panic!("not offloaded")
        };
        let bytes = std::fs::metadata(&sample.file_path).unwrap().len();
        std::fs::remove_file(&sample.file_path).unwrap();
        println!(
            "{n} memories: {bytes} bytes on disk, ~{} tokens ({:.0} per memory)",
            sample.summary.estimated_tokens,
            sample.summary.estimated_tokens as f64 / n as f64
        );
        group.throughput(Throughput::Bytes(bytes));
        if n > 1000 {
            group.sample_size(20);
        }
        let text = Input::Text(serde_json::to_vec(&records).unwrap());
        let tree = Input::Tree(records);
        group.bench_function(format!("full_{n}"), |b| {
            b.iter_custom(|iters| timed_offloads(&lro, &tree, &request, iters))
        });
        group.bench_function(format!("full_{n}_json_text"), |b| {
            b.iter_custom(|iters| timed_offloads(&lro, &text, &request, iters))
        });
    }
    group.finish();
}

fn bench_estimate(c: &mut Criterion) {
    let text: String = (0..200_000)
        .map(|i| format!("{{\"id\":\"mem-{i}\",\"title\":\"caching decision {i}\"}}\n"))
        .collect();
    let mut group = c.benchmark_group("estimate");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("latin_json", |b| {
        b.iter(|| estimate_tokens(black_box(text.as_bytes())))
    });
    let cjk = "東京の天気は晴れです。キャッシュ戦略の決定。".repeat(200_000);
    group.throughput(Throughput::Bytes(cjk.len() as u64));
    group.bench_function("cjk", |b| {
        b.iter(|| estimate_tokens(black_box(cjk.as_bytes())))
    });
    group.finish();
}

criterion_group!(benches, bench_offload, bench_estimate);
criterion_main!(benches);
