//! # lro-core: Large Result Offloading
//!
//! Agents call tools whose results can run to tens of thousands of tokens. LRO writes a
//! result set above a token threshold to a JSONL file and returns a compact descriptor
//! (summary, file path, line schema, ten jq recipes, guidance); the agent then extracts only
//! what it needs with `jq` or with native extraction ([`Offloader::extract`]).
//!
//! ```
//! use lro_core::{MemoryHost, OffloadConfig, OffloadRequest, Offloader, Outcome};
//! use serde_json::json;
//!
//! let memories: Vec<_> = (0..200)
//!     .map(|i| json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": "_semantic/decisions",
//!                     "title": format!("Decision number {i} about caching and storage layout")}))
//!     .collect();
//! let lro = Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap();
//! let outcome = lro.offload(&json!(memories), &OffloadRequest::new("recall")).unwrap();
//! let Outcome::Offloaded(descriptor) = outcome else { panic!("200 memories exceed 1600 tokens") };
//! assert_eq!(descriptor.summary.count, 200);
//! assert_eq!(descriptor.jq_recipes.len(), 10);
//! assert!(descriptor.file_path.starts_with("/tmp/atlatl-recall-"));
//! ```
//!
//! All I/O goes through [`Host`]: [`StdHost`] natively, [`MemoryHost`] in tests, a JS- or
//! WASI-backed host in WebAssembly. Time and randomness are handed in the same way.
#![forbid(unsafe_code)]

pub mod cleanup;
pub mod config;
pub mod config_file;
pub mod descriptor;
pub mod detail;
pub mod error;
pub mod estimate;
pub mod events;
pub mod extract;
pub mod files;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_checks;
pub mod host;
/// JSON text read and written byte for byte: the `lro-json` crate.
pub use lro_json as json;
pub mod jsonl;
pub mod mcp;
pub mod offload;
pub mod offloader;
mod output_dir;
pub mod payload;
pub mod profile;
pub mod recipes;
pub mod schema;
pub mod shape;
pub mod tally;
pub mod time;
pub mod ulid_gen;

pub use cleanup::{CleanupReport, RemovedFile};
pub use config::{
    DescriptorProfile, ExtractLimits, GuidanceMode, OffloadConfig, StoreLimits, ToolDefinition,
};
pub use descriptor::{JqRecipe, OffloadHeader, OffloadResponse, OffloadSummary};
pub use detail::Detail;
pub use error::{ErrorCode, LroError, Result};
pub use estimate::{HeuristicEstimator, TokenEstimator};
pub use events::{EventSink, OffloadEvent};
#[cfg(feature = "extract")]
pub use extract::EXTRACT_STACK_BYTES;
pub use extract::{ExtractRequest, ExtractResponse, LineRange, LineUnit, SearchSpec};
#[cfg(feature = "std-host")]
pub use host::StdHost;
pub use host::{DirEntry, EntryKind, Host, MemoryHost, OpenFile};
pub use offload::{InlineResult, OffloadRequest, Offloader, Outcome};
