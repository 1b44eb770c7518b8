//! The floor of extraction: how long this machine takes to read a file of 100,000 full
//! memories, to split it into lines and to parse every line (serde_json as the workspace builds
//! it, LRO's own record parser into jq values, and the SIMD parser simd-json), on one thread
//! and on as many as extraction uses; then recipe 6, recipe 3 and a three-predicate structured
//! count over the same file, each shown as a ratio to the floors.
//!
//! Not criterion: the point is one table, and every step is measured in each round, one after
//! the other, so that load from other processes falls on all of them alike and the ratios hold
//! up when the absolute figures do not. Each figure is the median of the rounds.
//!
//! Beside the time, the CPU time of each step (every thread's, from `getrusage`): on a loaded
//! machine it moves less than the time does, and it says how much of the work is spread.
//!
//! `make bench-floor`; `LRO_BENCH_SIZES=10000` picks sizes, `LRO_FLOOR_ROUNDS=9` the rounds,
//! `LRO_FLOOR_ONLY=recipe` the steps whose label contains a word.
#![allow(missing_docs, reason = "a benchmark binary")]

// The shipped native artifacts run on mimalloc; the benchmarks measure what they run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::time::{Duration, Instant};

use lro_core::{ExtractRequest, OffloadRequest};
use lro_jq::RecordParser;
use serde_json::{Value, json};

#[path = "support/memories.rs"]
mod memories;
use memories::memory;

/// One measured step: its label, and the work (returning something to keep it alive).
type Step<'a> = (String, Box<dyn Fn() -> usize + 'a>);

fn sizes() -> Vec<usize> {
    std::env::var("LRO_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100_000])
}

fn rounds() -> usize {
    std::env::var("LRO_FLOOR_ROUNDS")
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(7)
}

/// The threads extraction runs its batches on (lro-query's `worker_count`): the machine's
/// parallelism, at most 4.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// The record lines of `text` (after the header line), as extraction sees them.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = memchr::memchr(b'\n', text).map_or(&text[text.len()..], |i| &text[i + 1..]);
    let mut start = 0;
    memchr::memchr_iter(b'\n', body)
        .chain(std::iter::once(body.len()))
        .filter_map(move |end| {
            let line = &body[start..end];
            start = end + 1;
            (!line.is_empty()).then_some(line)
        })
}

/// `text`'s record lines cut into `parts` runs of whole lines.
fn parts(text: &[u8], parts: usize) -> Vec<&[u8]> {
    let body = memchr::memchr(b'\n', text).map_or(&text[text.len()..], |i| &text[i + 1..]);
    let mut out = Vec::with_capacity(parts);
    let mut rest = body;
    for left in (1..=parts).rev() {
        let cut = if left == 1 {
            rest.len()
        } else {
            let mid = rest.len() / left;
            memchr::memchr(b'\n', &rest[mid..]).map_or(rest.len(), |i| mid + i + 1)
        };
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    out
}

/// Runs `parse` over every line of `text` on `n` threads; the number of lines.
fn on_threads(text: &[u8], n: usize, parse: &(dyn Fn(&[u8]) -> usize + Sync)) -> usize {
    if n == 1 {
        return parse(text);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = parts(text, n)
            .into_iter()
            .map(|part| scope.spawn(move || parse(part)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

fn serde_lines(text: &[u8]) -> usize {
    let mut n = 0;
    for line in lines(text) {
        black_box(serde_json::from_slice::<Value>(line).unwrap());
        n += 1;
    }
    n
}

fn lro_lines(text: &[u8]) -> usize {
    let mut parser = RecordParser::default();
    let mut n = 0;
    for line in lines(text) {
        black_box(parser.parse(line).unwrap());
        n += 1;
    }
    n
}

fn simd_lines(text: &[u8]) -> usize {
    // simd-json parses in place: each line is copied into a buffer it may change.
    let mut line = Vec::new();
    let mut buffers = simd_json::Buffers::default();
    let mut n = 0;
    for l in lines(text) {
        line.clear();
        line.extend_from_slice(l);
        let value = simd_json::to_borrowed_value_with_buffers(&mut line, &mut buffers).unwrap();
        black_box(&value);
        n += 1;
    }
    n
}

/// CPU time of the process so far, every thread's (finished ones included).
#[allow(unsafe_code, reason = "getrusage through libc: std has no CPU time")]
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    let micros = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    micros(usage.ru_utime) + micros(usage.ru_stime)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; this binary takes no options.
    let dir = tempfile::tempdir().unwrap();
    let lro = memories::offloader_without_output_cuts(dir.path());
    let count3: ExtractRequest = serde_json::from_value(memories::three_predicate_count()).unwrap();
    let recipe6: ExtractRequest = serde_json::from_value(json!({"recipe": 6})).unwrap();
    let recipe3: ExtractRequest =
        serde_json::from_value(json!({"recipe": 3, "params": {"keyword": "keyword"}})).unwrap();
    let threads = threads();
    for n in sizes() {
        let records = Value::Array((0..n).map(memory).collect());
        let request =
            OffloadRequest::from_json(&json!({"operation": "recall", "detail": "full"})).unwrap();
        let file = lro
            .offload(&records, &request)
            .unwrap()
            .offloaded()
            .unwrap()
            .file_path
            .clone();
        drop(records);
        let bytes = std::fs::metadata(&file).unwrap().len();
        let read = || std::fs::read(&file).unwrap();
        let extract = |request: &ExtractRequest| {
            let response = lro.extract(&file, request).unwrap();
            assert!(!response.truncated, "{:?}", response.limit);
            response.count
        };
        let mut steps: Vec<Step<'_>> = vec![
            ("read the file".into(), Box::new(|| read().len())),
            (
                "read, split into lines".into(),
                Box::new(|| lines(&read()).count()),
            ),
        ];
        type Parse = fn(&[u8]) -> usize;
        let parsers: [(&str, Parse); 3] = [
            ("serde_json Value", serde_lines),
            ("LRO record parser", lro_lines),
            ("simd-json", simd_lines),
        ];
        for (name, parse) in parsers {
            let mut counts = vec![1];
            if threads > 1 {
                counts.push(threads);
            }
            for t in counts {
                steps.push((
                    format!("read, parse every line: {name}, {t} thr"),
                    Box::new(move || on_threads(&read(), t, &parse)),
                ));
            }
        }
        steps.push((
            "recipe 6 (count by namespace)".into(),
            Box::new(|| extract(&recipe6)),
        ));
        steps.push((
            "recipe 3 (title search)".into(),
            Box::new(|| extract(&recipe3)),
        ));
        steps.push((
            "structured count, 3 predicates".into(),
            Box::new(|| extract(&count3)),
        ));
        // Some steps only (to profile one, say): the ratios need the floors among them.
        if let Ok(only) = std::env::var("LRO_FLOOR_ONLY") {
            steps.retain(|(label, _)| label.contains(&only));
        }
        let load_before = load();
        let mut times: Vec<Vec<(Duration, Duration)>> = vec![Vec::new(); steps.len()];
        // One round unmeasured: the file in the page cache, the programs compiled.
        for round in 0..=rounds() {
            for (i, (_, step)) in steps.iter().enumerate() {
                let (start, cpu) = (Instant::now(), cpu_time());
                black_box(step());
                if round > 0 {
                    times[i].push((start.elapsed(), cpu_time() - cpu));
                }
            }
        }
        let medians: Vec<(Duration, Duration)> = times
            .into_iter()
            .map(|t| {
                let (wall, cpu) = t.into_iter().unzip();
                (median(wall), median(cpu))
            })
            .collect();
        let floor = |label: &str| {
            steps
                .iter()
                .position(|(l, _)| l == label)
                .map(|i| medians[i].0)
        };
        let last = format!("{threads} thr");
        let serde_floor = floor(&format!("read, parse every line: serde_json Value, {last}"));
        let simd_floor = floor(&format!("read, parse every line: simd-json, {last}"));
        println!(
            "\n{n} full memories, {:.1} MB, {threads} threads; median of {} rounds; \
             load {load_before} before, {} after",
            bytes as f64 / 1e6,
            rounds(),
            load()
        );
        println!(
            "{:<48} {:>8} {:>8} {:>7} {:>8} {:>7}",
            "step", "ms", "cpu ms", "MB/s", "x serde", "x simd"
        );
        let ratio = |t: Duration, floor: Option<Duration>| {
            floor.map_or("-".to_owned(), |f| {
                format!("{:.2}", t.as_secs_f64() / f.as_secs_f64())
            })
        };
        for ((label, _), (t, cpu)) in steps.iter().zip(&medians) {
            println!(
                "{label:<48} {:>8.1} {:>8.1} {:>7.0} {:>8} {:>7}",
                t.as_secs_f64() * 1e3,
                cpu.as_secs_f64() * 1e3,
                bytes as f64 / 1e6 / t.as_secs_f64(),
                ratio(*t, serde_floor),
                ratio(*t, simd_floor),
            );
        }
        println!(
            "x serde, x simd: the time over reading and parsing every line on {threads} threads \
             with serde_json, with simd-json"
        );
    }
}
