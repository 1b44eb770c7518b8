//! `make bench-estimators`: how far the specification's heuristic (`chars4`) is from the
//! exact o200k and cl100k counts on prose, code, JSON, CJK text and MIF memories (the demo's
//! generator), and what each estimator costs on 10,000 memories: as offload counts a result
//! (one text, sampled past 256 KiB) and memory by memory (10,000 exact counts).
#![allow(
    missing_docs,
    clippy::cast_precision_loss,
    reason = "a benchmark's printout: error percentages of token counts"
)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The demo's corpus, as `lro demo` makes it: the bench uses its memories only.
#[path = "../../cli/src/demo.rs"]
#[allow(dead_code, reason = "only the memory generator is used here")]
mod demo;

use std::hint::black_box;
use std::time::{Duration, Instant};

use lro_core::estimate::bpe::BpeEstimator;
use lro_core::estimate::{EstimatorKind, TokenEstimator, estimate_tokens};
use serde_json::Value;

const PROSE: [&str; 2] = [
    include_str!("../../LICENSE-APACHE"),
    include_str!("../../LICENSE-MIT"),
];
const CODE: [&str; 3] = [
    include_str!("../src/offload/descriptor.rs"),
    include_str!("../src/shape/table.rs"),
    include_str!("../../jq/src/engine.rs"),
];
const CJK: &str = include_str!("texts/cjk.txt");
// Records of every JSON kind (numbers, nested objects, nulls, strings), as compact lines.
const JSON_VECTOR: &str = include_str!("../../tests/vectors/mixed-array.json");

fn json_lines() -> String {
    let vector: Value = serde_json::from_str(JSON_VECTOR).expect("the vector is JSON");
    let records = vector["input"].as_array().expect("an array input");
    records.iter().map(|r| r.to_string() + "\n").collect()
}

fn memory_lines(n: usize) -> Vec<String> {
    demo::corpus(n).iter().map(Value::to_string).collect()
}

/// chars4's error against `exact`, in percent (negative: it counts fewer).
fn error(chars4: usize, exact: usize) -> f64 {
    (chars4 as f64 - exact as f64) * 100.0 / exact.max(1) as f64
}

/// The best of five runs of `f` (the machine may be shared: the least disturbed run).
fn best_of_five(mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut out = 0;
    for _ in 0..5 {
        let start = Instant::now();
        out = black_box(f());
        best = best.min(start.elapsed());
    }
    (best, out)
}

fn main() {
    let o200k = BpeEstimator::new(EstimatorKind::O200k);
    let cl100k = BpeEstimator::new(EstimatorKind::Cl100k);
    let memories = memory_lines(10_000);
    let sample_of_memories: String = memories[..500].iter().map(|m| m.clone() + "\n").collect();
    let texts: [(&str, String); 5] = [
        ("prose", PROSE.concat()),
        ("code", CODE.concat()),
        ("JSON", json_lines()),
        ("CJK text", CJK.to_owned()),
        ("MIF memories", sample_of_memories),
    ];
    println!("chars4 against the exact counts (error: chars4's estimate over the exact count)\n");
    println!("| text | bytes | chars4 | o200k | cl100k | chars4 vs o200k | chars4 vs cl100k |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (name, text) in &texts {
        let chars4 = estimate_tokens(text.as_bytes());
        let (o, c) = (o200k.count_exact(text), cl100k.count_exact(text));
        println!(
            "| {name} | {} | {chars4} | {o} | {c} | {:+.1}% | {:+.1}% |",
            text.len(),
            error(chars4, o),
            error(chars4, c)
        );
    }

    let body: String = memories.iter().map(|m| m.clone() + "\n").collect();
    println!(
        "\n10,000 demo memories ({} bytes as JSON lines): time of each estimator, best of 5\n",
        body.len()
    );
    println!("| estimator | how | tokens | time | x chars4 |");
    println!("| --- | --- | ---: | ---: | ---: |");
    let (base, chars4) = best_of_five(|| estimate_tokens(body.as_bytes()));
    let row = |name: &str, how: &str, (time, tokens): (Duration, usize)| {
        println!(
            "| {name} | {how} | {tokens} | {:.2} ms | {:.0} |",
            time.as_secs_f64() * 1000.0,
            time.as_secs_f64() / base.as_secs_f64().max(1e-9)
        );
    };
    row("chars4", "one text", (base, chars4));
    for (name, bpe) in [("o200k", &o200k), ("cl100k", &cl100k)] {
        let sampled = best_of_five(|| bpe.estimate(&body));
        let exact = best_of_five(|| bpe.count_exact(&body));
        row(name, "one text, sampled (as offload counts)", sampled);
        row(name, "one text, exact", exact);
        row(
            name,
            "10,000 texts, exact",
            best_of_five(|| memories.iter().map(|m| bpe.estimate(m)).sum()),
        );
        println!(
            "|  | sample's error against exact | {:+.2}% |  |  |",
            error(sampled.1, exact.1)
        );
    }
}
