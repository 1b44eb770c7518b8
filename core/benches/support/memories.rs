//! Full MIF memories as the conformance corpus has them (`tests/vectors/generate.py`): the
//! records of the structured-query and floor benchmarks, one generator for both, with the
//! offloader and the structured count they both measure.

use std::path::Path;

use lro_core::{ExtractLimits, OffloadConfig, Offloader, StdHost};
use serde_json::{Value, json};

/// An offloader writing to `dir` with no output cut: every answer is printed whole, as the
/// command lines compared with print theirs.
pub fn offloader_without_output_cuts(dir: &Path) -> Offloader<StdHost> {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        extract: ExtractLimits {
            max_output_records: u64::MAX >> 1,
            max_output_bytes: u64::MAX >> 1,
            timeout_ms: 600_000,
            ..ExtractLimits::default()
        },
        ..OffloadConfig::default()
    };
    Offloader::new(config, StdHost::new()).unwrap()
}

/// The three-predicate structured count: a regex, an array member and a nested number.
pub fn three_predicate_count() -> Value {
    json!({"where": {
        "namespace": {"$regex": "^_semantic"},
        "tags": "performance",
        "provenance.confidence": {"$gte": 0.7}
    }, "count": true})
}

const TYPES: [&str; 3] = ["semantic", "episodic", "procedural"];
const NAMESPACES: [&str; 7] = [
    "_semantic/decisions",
    "_semantic/knowledge",
    "_episodic/sessions",
    "_procedural/runbooks",
    "projects/atlas",
    "projects/borealis",
    "_semantic/people",
];
const TOPICS: [&str; 8] = [
    "caching",
    "storage layout",
    "retry policy",
    "auth tokens",
    "schema migration",
    "rate limits",
    "search ranking",
    "embedding refresh",
];
const TAGS: [&str; 8] = [
    "architecture",
    "ops",
    "security",
    "performance",
    "api",
    "data",
    "incident",
    "design",
];

/// A full MIF memory, as the conformance corpus has them (`tests/vectors/generate.py`).
pub fn memory(i: usize) -> Value {
    let topic = TOPICS[i % TOPICS.len()];
    json!({
        "id": format!("mem-{i:05}"),
        "memory_type": TYPES[i % 3],
        "title": format!("Decision {i}: {topic} for service {}", i % 7),
        "content": format!("We decided to change {topic} after review {i}. The previous approach caused latency spikes under load; the new one keeps p99 under {} ms and is documented in the runbook.", 100 + i % 50),
        "created": format!("2026-0{}-{:02}T0{}:00:00Z", 1 + i % 9, 10 + i % 18, i % 10),
        "modified": format!("2026-10-{:02}T12:00:00Z", 10 + i % 18),
        "namespace": if i % 5 == 0 { NAMESPACES[0] } else { NAMESPACES[(i * 3) % NAMESPACES.len()] },
        "tags": [TAGS[i % TAGS.len()], TAGS[(i + 3) % TAGS.len()]],
        "status": if i % 4 == 0 { "archived" } else { "active" },
        "summary": format!("{topic} decision {i}"),
        "entities": [{"name": format!("service-{}", i % 7), "type": "service"}],
        "relationships": [{"type": "supersedes", "target": format!("mem-{:05}", i.saturating_sub(1))}],
        "provenance": {"confidence": ((50 + i % 50) as f64) / 100.0, "trust_level": "verified", "source_type": "conversation", "agent": "claude"},
        "temporal": {"valid_from": "2026-01-01T00:00:00Z", "ttl": null},
        "extensions": {"x-team": "platform"},
    })
}
