//! Observability events: `OffloadCreated`, `OffloadWriteFailed`, `OffloadFileExpired`.

use serde::{Deserialize, Serialize};

/// Something LRO did that a host may want to log or count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event")]
#[non_exhaustive]
pub enum OffloadEvent {
    /// A result set was written to a JSONL file.
    OffloadCreated {
        /// Absolute path of the file.
        file_path: String,
        /// The operation that produced the results.
        operation: String,
        /// Records in the file.
        count: usize,
        /// Estimated tokens of the result set.
        estimated_tokens: usize,
        /// Bytes written, header included.
        bytes: usize,
        /// Creation time, ISO 8601.
        created_at: String,
    },
    /// Writing failed; the caller got an inline truncated result instead.
    OffloadWriteFailed {
        /// The path that could not be written.
        file_path: String,
        /// The operation that produced the results.
        operation: String,
        /// The host's error message.
        error: String,
        /// Records in the full result set.
        count: usize,
        /// Records returned inline.
        returned: usize,
    },
    /// Cleanup deleted a file whose time-to-live had passed.
    OffloadFileExpired {
        /// Absolute path of the deleted file.
        file_path: String,
        /// When it was created (from its ULID), ISO 8601.
        created_at: String,
        /// How old it was, in seconds.
        age_seconds: u64,
    },
}

/// Receives events. Any `Fn(&OffloadEvent)` is a sink.
pub trait EventSink {
    /// Handles one event; must not panic.
    fn emit(&self, event: &OffloadEvent);
}

impl<F: Fn(&OffloadEvent)> EventSink for F {
    fn emit(&self, event: &OffloadEvent) {
        self(event);
    }
}
