//! Times the call the component makes, natively: `offload_json` on the same JSON text, then
//! the outcome serialized, as the component returns it. Prints one JSON line: every time, in ms.
//!
//! `lro-bench-native RECORDS.json OUTPUT_DIR ITERATIONS`

use std::time::Instant;

use lro_core::{OffloadConfig, OffloadRequest, Offloader, StdHost};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, records, dir, iterations] = args.as_slice() else {
        eprintln!("usage: lro-bench-native RECORDS.json OUTPUT_DIR ITERATIONS");
        std::process::exit(2);
    };
    let json = std::fs::read(records).expect("read records");
    let iterations: usize = iterations.parse().expect("iterations");
    let config = OffloadConfig {
        output_dir: dir.clone(),
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).expect("config");
    let request =
        OffloadRequest::from_json(&serde_json::json!({"operation": "recall", "detail": "full"}))
            .expect("request");
    // Each round is a fresh process: a few untimed calls first, as the component's host warms
    // up once for all its rounds.
    const WARM_UP: usize = 5;
    let mut times = Vec::with_capacity(iterations);
    for i in 0..WARM_UP + iterations {
        let start = Instant::now();
        let outcome = lro.offload_json(&json, &request).expect("offload");
        let text = serde_json::to_string(&outcome.to_value()).expect("serialize");
        if i >= WARM_UP {
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        // Removing the file is not part of the offload: outside the timing.
        if let Some(response) = outcome.offloaded() {
            std::fs::remove_file(&response.file_path).expect("remove");
        }
        std::hint::black_box(text);
    }
    // Every time, in run order: the caller pools them with its own (interleaved rounds).
    let times: Vec<String> = times.iter().map(|t| format!("{t:.4}")).collect();
    println!("{{\"times_ms\": [{}]}}", times.join(", "));
}
