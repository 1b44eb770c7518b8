//! Times the call the component makes, natively: `offload_json` on the same JSON text, then
//! the outcome serialized, as the component returns it. Prints one JSON line of figures.
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
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let start = Instant::now();
        let outcome = lro.offload_json(&json, &request).expect("offload");
        let text = serde_json::to_string(&outcome.to_value()).expect("serialize");
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        // Removing the file is not part of the offload: outside the timing.
        if let Some(response) = outcome.offloaded() {
            std::fs::remove_file(&response.file_path).expect("remove");
        }
        std::hint::black_box(text);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{{\"median_ms\": {:.4}, \"min_ms\": {:.4}, \"iterations\": {iterations}}}",
        times[times.len() / 2],
        times[0]
    );
}
