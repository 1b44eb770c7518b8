//! Peak memory of a record-by-record recipe over a large file.
//!
//! Writes a file of Light memories (1 GiB by default; `LRO_RSS_BYTES` to change) into a
//! temporary directory, runs recipe 3 (title search) over it with native extraction, and
//! prints the process's peak resident memory (`VmHWM`, Linux) before and after.
//!
//! `cargo run --release -p lro-core --example extract_rss`

// As in the shipped native artifacts (the `lro` binary, the Python and Node modules).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{BufWriter, Write};
use std::time::Instant;

use lro_core::{ExtractLimits, ExtractRequest, OffloadConfig, OffloadRequest, Offloader, StdHost};
use serde_json::json;

fn vm_hwm() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "unknown (no /proc)".to_owned())
}

fn memory(i: usize) -> serde_json::Value {
    json!({
        "id": format!("01JH5X3Q7Y{i:016}"),
        "memory_type": (["semantic", "episodic", "procedural"][i % 3]),
        "title": format!("Decision {i}: use a write-through cache for the {} service", ["auth", "billing", "search", "needle"][i % 4]),
        "namespace": (["_semantic/decisions", "_episodic/sessions", "_procedural/runbooks"][i % 3]),
        "tags": [format!("t{}", i % 17), "architecture"],
        "status": "active",
        "created": "2025-06-01T10:00:00Z",
        "modified": "2025-10-01T00:00:00Z",
    })
}

fn main() {
    let target: u64 = std::env::var("LRO_RSS_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 30);
    let dir = tempfile::tempdir().expect("temp dir");
    let limits = ExtractLimits {
        max_read_bytes: u64::MAX >> 1,
        timeout_ms: 600_000,
        ..ExtractLimits::default()
    };
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        extract: limits,
        threshold_tokens: 10,
        ..Default::default()
    };
    let lro = Offloader::new(config, StdHost::new()).expect("offloader");
    // A real offload file (header and name), then more records appended line by line, so the
    // generator itself never holds the data set in memory.
    let seed: Vec<_> = (0..100).map(memory).collect();
    let descriptor = lro
        .offload(&json!(seed), &OffloadRequest::new("recall"))
        .expect("offload")
        .offloaded()
        .cloned()
        .expect("offloaded");
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&descriptor.file_path)
        .expect("open for append");
    let mut out = BufWriter::new(file);
    let (mut written, mut records) = (
        std::fs::metadata(&descriptor.file_path)
            .expect("stat")
            .len(),
        100usize,
    );
    while written < target {
        let mut line = serde_json::to_vec(&memory(records)).expect("json");
        line.push(b'\n');
        out.write_all(&line).expect("write");
        written += line.len() as u64;
        records += 1;
    }
    out.flush().expect("flush");
    drop(out);
    println!(
        "file: {records} records, {:.2} GiB; VmHWM after writing: {}",
        written as f64 / f64::from(1 << 30),
        vm_hwm()
    );

    let request: ExtractRequest =
        serde_json::from_value(json!({"recipe": 3, "params": {"keyword": "^Decision 3000000:"}}))
            .expect("request");
    let started = Instant::now();
    let response = lro
        .extract(&descriptor.file_path, &request)
        .expect("extract");
    let elapsed = started.elapsed();
    println!(
        "recipe 3 over {} records ({} bytes read): {} results (truncated: {}, limit: {:?}) in {:.2} s",
        response.records_read,
        response.bytes_read,
        response.count,
        response.truncated,
        response.limit,
        elapsed.as_secs_f64()
    );
    println!("VmHWM after extract: {}", vm_hwm());
}
