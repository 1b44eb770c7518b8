//! Shared by the object-store tests: the loopback S3 server `make test-s3` starts (moto,
//! through `tests/e2e/with_moto.py`), hosts and offloaders over it, MIF memories, and a
//! faulty link to put between the host and the server.
#![allow(dead_code, reason = "each test file uses part of the support")]

pub mod link;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use lro_core::{OffloadConfig, OffloadEvent, Offloader, StoreLimits};
use lro_host_s3::{NativeHost, S3Host, S3Settings, S3Uri};
use serde_json::{Value, json};

/// The bucket with_moto.py created.
pub fn bucket() -> String {
    std::env::var("LRO_TEST_S3_BUCKET").expect(
        "the object-store tests need the loopback S3 server: run them with `make test-s3` \
         (host-s3/tests/e2e/with_moto.py -- cargo test -p lro-host-s3)",
    )
}

/// The server's endpoint, as with_moto.py exported it.
pub fn endpoint() -> String {
    bucket();
    std::env::var("AWS_ENDPOINT_URL").expect("AWS_ENDPOINT_URL is set by with_moto.py")
}

/// A prefix no other test uses: `s3://BUCKET/NAME-N`.
pub fn fresh_dir(name: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "s3://{}/{name}-{}-{}",
        bucket(),
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

/// Settings from the environment, with the endpoint replaced (a faulty link) if given.
pub fn settings(endpoint: Option<&str>, limits: &StoreLimits) -> S3Settings {
    S3Settings::from_vars(
        |name| match (name, endpoint) {
            ("AWS_ENDPOINT_URL", Some(link)) => Some(link.to_owned()),
            _ => std::env::var(name).ok(),
        },
        limits,
    )
    .unwrap()
}

/// A host for `dir` through `endpoint` (the server itself when `None`).
pub fn host(dir: &str, endpoint: Option<&str>, limits: &StoreLimits) -> S3Host {
    S3Host::new(S3Uri::parse(dir).unwrap(), &settings(endpoint, limits)).unwrap()
}

/// Events an offloader emitted.
pub type Events = Arc<Mutex<Vec<OffloadEvent>>>;

/// An offloader over `host` with `config`, recording its events.
pub fn offloader(config: OffloadConfig, host: S3Host) -> (Offloader<NativeHost>, Events) {
    let events: Events = Arc::default();
    let sink = Arc::clone(&events);
    let lro = Offloader::new(config, NativeHost::S3(Box::new(host)))
        .unwrap()
        .with_event_sink(move |e: &OffloadEvent| sink.lock().unwrap().push(e.clone()));
    (lro, events)
}

/// A configuration writing to `dir`.
pub fn config(dir: &str, limits: StoreLimits) -> OffloadConfig {
    OffloadConfig {
        output_dir: dir.to_owned(),
        store: limits,
        ..OffloadConfig::default()
    }
}

const TYPES: [&str; 3] = ["semantic", "episodic", "procedural"];
const NAMESPACES: [&str; 4] = [
    "_semantic/decisions",
    "_episodic/sessions",
    "projects/atlas",
    "_procedural/runbooks",
];

/// A full-detail MIF memory of about 160 tokens.
pub fn memory(i: usize) -> Value {
    json!({
        "id": format!("mem-{i:06}"),
        "memory_type": TYPES[i % 3],
        "title": format!("Decision {i}: caching strategy for service {}", i % 17),
        "content": format!("We moved service {} to a write-through cache after incident {i}; p99 latency fell from 480 ms to 95 ms.", i % 17),
        "created": "2026-03-14T09:26:53Z",
        "namespace": NAMESPACES[i % 4],
        "tags": ["architecture", "performance"],
        "status": "active",
        "provenance": {"confidence": 0.87, "trust_level": "verified"},
    })
}

/// `n` memories.
pub fn memories(n: usize) -> Value {
    Value::Array((0..n).map(memory).collect())
}
