//! lro-core in a Rust program with a host of its own.
//!
//! Every file, clock and randomness access of the core goes through the `Host` trait. This
//! host delegates to `StdHost` (real files, 0600, no overwrite) and keeps an audit of what
//! the core wrote and read: what a service would log, or meter per tenant. Run it with
//! `cargo run -p lro-example-host`; it exits non-zero when anything is not as described.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use lro_core::host::{DirEntry, EntryKind, Host, OpenFile, StdHost};
use lro_core::{OffloadConfig, OffloadRequest, Offloader, Outcome};
use serde_json::json;

/// `StdHost`, with an audit trail of the files written and opened.
struct AuditedHost {
    inner: StdHost,
    audit: Mutex<Vec<String>>,
}

impl AuditedHost {
    fn record(&self, entry: String) {
        self.audit.lock().expect("audit lock").push(entry);
    }
}

impl Host for AuditedHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        let bytes: usize = parts.iter().map(|part| part.len()).sum();
        self.record(format!("write {} ({bytes} bytes)", path.display()));
        self.inner.write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.inner.create_dir_all(dir)
    }
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        self.record(format!("open {}", dir.join(name).display()));
        self.inner.open_file(dir, name)
    }
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.inner.list_dir(dir)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.record(format!("remove {}", path.display()));
        self.inner.remove_file(path)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.inner.canonicalize(path)
    }
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        self.inner.entry_kind(path)
    }
    fn shared_dir(&self, dir: &Path) -> io::Result<Option<String>> {
        self.inner.shared_dir(dir)
    }
    fn now_millis(&self) -> u64 {
        self.inner.now_millis()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        self.inner.fill_random(buf)
    }
    fn temp_dir(&self) -> PathBuf {
        self.inner.temp_dir()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let output_dir = std::env::temp_dir().join(format!("lro-example-host-{}", std::process::id()));
    let config = OffloadConfig {
        output_dir: output_dir.display().to_string(),
        ..OffloadConfig::default()
    };
    let host = AuditedHost {
        inner: StdHost::new(),
        audit: Mutex::new(Vec::new()),
    };
    let lro = Offloader::new(config, host)?;

    // 1,000 search hits: about 30,000 tokens, far above the 1,600-token threshold.
    let languages = ["en", "de", "fr"];
    let hits: Vec<_> = (0..1000u32)
        .map(|i| {
            json!({
                "url": format!("https://docs.example/page/{i}"),
                "score": f64::from(1000 - i) / 1000.0,
                "lang": languages[i as usize % 3],
                "snippet": format!("Result {i} about offloading large tool results"),
            })
        })
        .collect();
    let Outcome::Offloaded(descriptor) =
        lro.offload(&json!(hits), &OffloadRequest::new("search"))?
    else {
        return Err("1,000 hits should be offloaded".into());
    };
    println!(
        "offloaded {} hits ({} tokens) to {}",
        descriptor.summary.count, descriptor.summary.estimated_tokens, descriptor.file_path
    );

    // The agent's follow-up: German hits with a score above 0.9, best first.
    let request = serde_json::from_value(json!({
        "where": {"lang": "de", "score": {"$gt": 0.9}}, "fields": ["url", "score"], "sort": {"score": -1}, "limit": 3
    }))?;
    let answer = lro.extract(&descriptor.file_path, &request)?;
    println!("top German hits: {}", json!(answer.results));
    let urls: Vec<_> = answer
        .results
        .iter()
        .map(|hit| hit["url"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        urls,
        [
            "https://docs.example/page/1",
            "https://docs.example/page/4",
            "https://docs.example/page/7"
        ]
    );

    let audit = lro.host().audit.lock().expect("audit lock").clone();
    println!("the host saw: {audit:#?}");
    assert!(audit[0].starts_with("write ") && audit.iter().any(|entry| entry.starts_with("open ")));
    std::fs::remove_dir_all(&output_dir)?;
    println!("rust-host: ok");
    Ok(())
}
