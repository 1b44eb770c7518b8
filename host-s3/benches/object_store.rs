//! The object store against local disk: offload of 200 full memories, and recipe 6
//! over 100,000 memories read back, each to and from the loopback S3 server (moto) and a
//! local directory, side by side. Then the peak memory of a streaming recipe (3) over the
//! same 100,000 memories from each, each in a process of its own.
//!
//! `make bench-s3` (runs it under host-s3/tests/e2e/with_moto.py).
#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]

// As in the shipped native artifacts.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use lro_core::{
    Detail, ExtractLimits, ExtractRequest, Host, OffloadConfig, OffloadRequest, Offloader, StdHost,
    StoreLimits,
};
use lro_host_s3::{NativeHost, S3Host, S3Settings, S3Uri};
use serde_json::{Value, json};

const NAMESPACES: [&str; 4] = [
    "_semantic/decisions",
    "_episodic/sessions",
    "projects/atlas",
    "_procedural/runbooks",
];

/// A full-detail MIF memory of about 160 tokens (as in lro-core's offload benchmark).
fn memory(i: usize) -> Value {
    json!({
        "id": format!("mem-{i:06}"),
        "memory_type": (["semantic", "episodic", "procedural"][i % 3]),
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

fn memories(n: usize) -> Value {
    Value::Array((0..n).map(memory).collect())
}

/// Extraction uncapped, so both sides read everything.
fn config(output_dir: &str) -> OffloadConfig {
    OffloadConfig {
        output_dir: output_dir.to_owned(),
        extract: ExtractLimits {
            max_output_records: u64::MAX >> 1,
            max_output_bytes: u64::MAX >> 1,
            timeout_ms: 600_000,
            ..ExtractLimits::default()
        },
        ..OffloadConfig::default()
    }
}

/// The two places: a temporary directory, and a fresh prefix of the loopback bucket.
fn places() -> (
    tempfile::TempDir,
    Offloader<NativeHost>,
    Offloader<NativeHost>,
) {
    let bucket = std::env::var("LRO_TEST_S3_BUCKET")
        .expect("run under the loopback S3 server: make bench-s3");
    let dir = tempfile::tempdir().unwrap();
    let local = Offloader::new(
        config(&dir.path().to_string_lossy()),
        NativeHost::Local(StdHost::new()),
    )
    .unwrap();
    let s3_dir = format!("s3://{bucket}/bench-{}", std::process::id());
    let settings = S3Settings::from_env(&StoreLimits::default()).unwrap();
    let host = S3Host::new(S3Uri::parse(&s3_dir).unwrap(), &settings).unwrap();
    let s3 = Offloader::new(config(&s3_dir), NativeHost::S3(Box::new(host))).unwrap();
    (dir, local, s3)
}

fn offload_200(c: &mut Criterion) {
    let (_dir, local, s3) = places();
    let records = memories(200);
    let request = OffloadRequest {
        detail: Some(Detail::Full),
        ..OffloadRequest::new("recall")
    };
    let mut group = c.benchmark_group("offload_200_full");
    group.sample_size(30);
    for (name, lro) in [("local", &local), ("s3", &s3)] {
        group.bench_function(name, |b| {
            // Each file is removed after its iteration, outside the timing.
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let start = Instant::now();
                    let outcome = lro.offload(&records, &request).unwrap();
                    total += start.elapsed();
                    let file = &outcome.offloaded().expect("offloaded").file_path;
                    lro.host().remove_file(Path::new(file)).unwrap();
                }
                total
            });
        });
    }
    group.finish();
}

/// Writes 100,000 full memories to each place once; returns the two file paths.
fn large_files(local: &Offloader<NativeHost>, s3: &Offloader<NativeHost>) -> (String, String) {
    let records = memories(100_000);
    let request = OffloadRequest {
        detail: Some(Detail::Full),
        ..OffloadRequest::new("recall")
    };
    let write = |lro: &Offloader<NativeHost>| {
        let outcome = lro.offload(&records, &request).unwrap();
        outcome.offloaded().expect("offloaded").file_path.clone()
    };
    (write(local), write(s3))
}

fn recipe_6_100k(c: &mut Criterion) {
    let (_dir, local, s3) = places();
    let (local_file, s3_file) = large_files(&local, &s3);
    let request = ExtractRequest {
        recipe: Some(6),
        ..ExtractRequest::default()
    };
    let bytes = std::fs::metadata(&local_file).unwrap().len();
    println!(
        "recipe 6 input: 100,000 full memories, {:.1} MB",
        bytes as f64 / 1e6
    );
    let mut group = c.benchmark_group("recipe6_100k");
    group.sample_size(10);
    for (name, lro, file) in [("local", &local, &local_file), ("s3", &s3, &s3_file)] {
        let expected = local.extract(&local_file, &request).unwrap().results;
        assert_eq!(lro.extract(file, &request).unwrap().results, expected);
        group.bench_function(name, |b| {
            b.iter(|| lro.extract(file, &request).unwrap());
        });
    }
    group.finish();
    s3.host().remove_file(Path::new(&s3_file)).unwrap();
}

criterion_group!(benches, offload_200, recipe_6_100k);

/// Peak resident memory (`VmHWM`) of this process, in MB.
fn peak_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM"))?.to_owned();
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Set in the child process that measures one extraction: the file to read.
const RSS_CHILD: &str = "LRO_BENCH_RSS_FILE";

/// Recipe 3 (a keyword search, record by record) over `file`, in a process that does
/// nothing else, so its peak resident memory is the extraction's: prints `MB ms`.
fn rss_child(file: &str) {
    let (dir, _) = file.rsplit_once('/').unwrap();
    let config = config(dir);
    let host = NativeHost::for_config(&config).unwrap();
    let lro = Offloader::new(config, host).unwrap();
    let request: ExtractRequest =
        serde_json::from_value(json!({"recipe": 3, "params": {"keyword": "Decision 99999:"}}))
            .unwrap();
    let start = Instant::now();
    let found = lro.extract(file, &request).unwrap();
    assert_eq!(found.count, 1);
    println!(
        "{:.1} {:.0}",
        peak_mb(),
        start.elapsed().as_secs_f64() * 1e3
    );
}

/// The peak memory of a streaming recipe over the 100,000 memories from each place, each
/// in a process of its own (this benchmark, started again).
fn streaming_memory() {
    let (_dir, local, s3) = places();
    let (local_file, s3_file) = large_files(&local, &s3);
    let size = std::fs::metadata(&local_file).unwrap().len() as f64 / 1e6;
    println!(
        "\nrecipe 3 (record by record) over 100,000 full memories ({size:.1} MB), whole process:"
    );
    for (name, file) in [("local", &local_file), ("s3", &s3_file)] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env(RSS_CHILD, file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let mut figures = text.split_whitespace();
        let (mb, ms) = (figures.next().unwrap_or("?"), figures.next().unwrap_or("?"));
        println!("  {name:>5}: peak resident memory {mb} MB, {ms} ms");
    }
    s3.host().remove_file(Path::new(&s3_file)).unwrap();
}

fn main() {
    if let Ok(file) = std::env::var(RSS_CHILD) {
        return rss_child(&file);
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    streaming_memory();
}
