//! The core's offload time on records a binding benchmark hands it, so a binding is measured
//! against native on the same records (`make bench-python`, `make bench-node`).
//!
//! Reads a JSON array of records from the file named by the first argument and prints one
//! JSON object: the median milliseconds of `offload_json` on that text (what a Rust program
//! holding the records' JSON calls), of `offload_lines` on the same records already written
//! one per line (the core's part of a binding call: the lines are built outside the timing),
//! and of `offload` on a `Value` tree. Operation `recall`, threshold 1600 tokens, at the
//! detail level given (`full` by default; the Node benchmark passes `light`, the operation's
//! default). Runs are interleaved so all three see the same load. Beside the wall times, the
//! CPU times of the first two (`*_cpu_ms`; `null` where there is no thread CPU clock).
//!
//! `cargo run --release -p lro-core --example offload_timing -- records.json [runs] [detail]`

// As in the shipped native artifacts (the `lro` binary, the Python and Node modules).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use lro_core::jsonl::Body;
use lro_core::{Detail, OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost};
use serde_json::Value;

/// Nanoseconds this thread has run on a CPU: on a shared machine the steadier figure, and the
/// one the Python benchmark prints beside wall time (`time.process_time`). `offload_json` and
/// `offload_lines` run on the calling thread.
#[cfg(unix)]
fn thread_cpu_ns() -> Option<u64> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Some(u64::try_from(t.tv_sec).ok()? * 1_000_000_000 + u64::try_from(t.tv_nsec).ok()?)
}

#[cfg(not(unix))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

/// Wall and CPU milliseconds of one offload; its file is removed after the clocks stop.
fn timed(run: impl FnOnce() -> lro_core::Result<Outcome>) -> (f64, Option<f64>) {
    let cpu = thread_cpu_ns();
    let start = Instant::now();
    let outcome = run().expect("offload failed");
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let cpu_ms = cpu
        .zip(thread_cpu_ns())
        .map(|(before, after)| (after - before) as f64 / 1e6);
    if let Outcome::Offloaded(r) = outcome {
        std::fs::remove_file(&r.file_path).expect("remove the offload file");
    }
    (ms, cpu_ms)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The records one per line, compact, as a binding's walker writes them.
fn lines_of(records: &[Value]) -> Body {
    let mut bytes = Vec::new();
    let mut ends = Vec::with_capacity(records.len());
    for record in records {
        serde_json::to_writer(&mut bytes, record).expect("write a record");
        bytes.push(b'\n');
        ends.push(bytes.len());
    }
    Body::new(bytes, ends)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: offload_timing RECORDS.json [RUNS] [DETAIL]");
    let runs: usize = args
        .next()
        .map_or(21, |n| n.parse().expect("RUNS: a number"));
    let detail = args.next().unwrap_or_else(|| "full".to_owned());
    let detail: Detail =
        serde_json::from_value(Value::from(detail)).expect("DETAIL: full, standard or light");
    let text = std::fs::read(&path).expect("read the records");
    let tree: Value = serde_json::from_slice(&text).expect("the records: a JSON array");
    let records = tree.as_array().expect("the records: a JSON array");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        threshold_tokens: 1600,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).expect("an offloader");
    let request = OffloadRequest {
        detail: Some(detail),
        ..OffloadRequest::new("recall")
    };

    let (mut json, mut lines, mut value) = (Vec::new(), Vec::new(), Vec::new());
    let (mut json_cpu, mut lines_cpu) = (Vec::new(), Vec::new());
    // One warm-up round (page cache, allocator), then the measured ones.
    for round in 0..=runs {
        let j = timed(|| lro.offload_json(&text, &request));
        let body = lines_of(records);
        let l = timed(|| lro.offload_lines(body, &request));
        // The tree is written to lines on several threads: its CPU time is not this thread's.
        let (v, _) = timed(|| lro.offload(&tree, &request));
        if round > 0 {
            json.push(j.0);
            lines.push(l.0);
            value.push(v);
            json_cpu.extend(j.1);
            lines_cpu.extend(l.1);
        }
    }
    println!(
        "{}",
        serde_json::json!({
            "records": records.len(),
            "json_text_ms": median(json),
            "lines_ms": median(lines),
            "value_ms": median(value),
            "json_text_cpu_ms": (!json_cpu.is_empty()).then(|| median(json_cpu)),
            "lines_cpu_ms": (!lines_cpu.is_empty()).then(|| median(lines_cpu)),
        })
    );
}
