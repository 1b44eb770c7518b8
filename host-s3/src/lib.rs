//! # lro-host-s3: Large Result Offloading over S3-compatible object storage
//!
//! An MCP server that runs as several replicas, or serverless, has no shared `/tmp`: the
//! replica that answers `lro_extract` is often not the one that wrote the file. This crate
//! is the core's [`Host`](lro_core::Host) over one bucket of an S3-compatible store (S3,
//! R2, MinIO, GCS's S3 API), selected by `output_dir = "s3://bucket/prefix"`:
//! descriptors name the object by its URI, any replica extracts it, and cleanup deletes
//! expired objects by the ULID time in their names. The core itself holds no network code;
//! this crate is for native builds only.
//!
//! ```no_run
//! use lro_core::{ExtractRequest, OffloadConfig, OffloadRequest, Offloader};
//! use lro_host_s3::NativeHost;
//! use serde_json::json;
//!
//! // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and (for MinIO, R2, a local
//! // server) AWS_ENDPOINT_URL come from the environment.
//! let config = OffloadConfig { output_dir: "s3://lro-offloads/agents".into(), ..OffloadConfig::default() };
//! let writer = Offloader::new(config.clone(), NativeHost::for_config(&config)?)?;
//! let memories: Vec<_> = (0..200).map(|i| json!({"id": i, "memory_type": "semantic", "title": "..."})).collect();
//! let outcome = writer.offload(&json!(memories), &OffloadRequest::new("recall"))?;
//! let file = &outcome.offloaded().expect("offloaded").file_path; // s3://lro-offloads/agents/atlatl-recall-….jsonl
//!
//! // Another replica, another process: the same configuration reads it back.
//! let reader = Offloader::new(config.clone(), NativeHost::for_config(&config)?)?;
//! let counts = reader.extract(file, &ExtractRequest { recipe: Some(6), ..ExtractRequest::default() })?;
//! # Ok::<(), lro_core::LroError>(())
//! ```
//!
//! Requests are presigned with AWS Signature V4 by `rusty-s3` and sent by a blocking `ureq`
//! agent: no async runtime, which suits the thread-per-request proxy and the bindings alike
//! (ARCHITECTURE.md, "Object storage", says why this client).
#![forbid(unsafe_code)]

mod client;
mod host;
mod location;
mod native;
mod reader;
mod settings;

pub use host::S3Host;
pub use location::S3Uri;
pub use native::NativeHost;
pub use settings::S3Settings;
