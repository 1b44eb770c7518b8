//! One error type for the whole protocol, with stable string codes.
//!
//! Every binding (Python, Node, wasm, the WASI component, the CLI) surfaces the same
//! [`ErrorCode`] string, so a host can branch on `err.code` whatever language it is in.

use std::fmt;

/// The stable, machine-readable kind of an [`LroError`].
///
/// The string form (see [`ErrorCode::as_str`]) is part of the public contract: it is what
/// `err.code` holds in every binding and what the conformance vectors name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A configuration key has a value of the wrong type or out of range.
    InvalidConfig,
    /// The input is not valid JSON, or not a shape LRO can offload.
    InvalidInput,
    /// The detail level is not one of `light`, `medium`, `full`.
    InvalidDetail,
    /// The operation name is empty or holds characters that cannot go in a file name.
    InvalidOperation,
    /// Extraction arguments are inconsistent (recipe and query both or neither, unknown
    /// recipe number, a parameter of the wrong type).
    InvalidArgument,
    /// A jq filter does not parse or compile.
    InvalidQuery,
    /// A jq filter failed while running (type error, `error(...)`).
    QueryFailed,
    /// An extraction went past a bound of the sandbox: a value nested too deep, recursion
    /// too deep, or more memory than `extract.max_memory_bytes`.
    ResourceLimit,
    /// A path resolves outside the output directory, through a symlink out of it, or is
    /// not an offload file.
    PathDenied,
    /// The file does not exist.
    NotFound,
    /// Any other I/O failure reported by the host.
    Io,
}

impl ErrorCode {
    /// The stable string code, e.g. `"invalid_config"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidConfig => "invalid_config",
            Self::InvalidInput => "invalid_input",
            Self::InvalidDetail => "invalid_detail",
            Self::InvalidOperation => "invalid_operation",
            Self::InvalidArgument => "invalid_argument",
            Self::InvalidQuery => "invalid_query",
            Self::QueryFailed => "query_failed",
            Self::ResourceLimit => "resource_limit",
            Self::PathDenied => "path_denied",
            Self::NotFound => "not_found",
            Self::Io => "io_error",
        }
    }

    /// Every code, for documentation and for bindings that export the list.
    pub const ALL: [ErrorCode; 11] = [
        Self::InvalidConfig,
        Self::InvalidInput,
        Self::InvalidDetail,
        Self::InvalidOperation,
        Self::InvalidArgument,
        Self::InvalidQuery,
        Self::QueryFailed,
        Self::ResourceLimit,
        Self::PathDenied,
        Self::NotFound,
        Self::Io,
    ];
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error from LRO: a stable [`ErrorCode`] and a human-readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LroError {
    code: ErrorCode,
    message: String,
}

impl LroError {
    /// Builds an error of the given kind.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// The stable kind of this error.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The human-readable message (without the code).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Maps a host I/O error on `path` to `path_denied` (a host's [`refusal`](crate::host::refused)),
    /// `not_found` or `io_error`.
    pub fn from_io(err: &std::io::Error, what: &str) -> Self {
        let code = match err.kind() {
            _ if crate::host::is_refused(err) => ErrorCode::PathDenied,
            std::io::ErrorKind::NotFound => ErrorCode::NotFound,
            _ => ErrorCode::Io,
        };
        Self::new(code, format!("{what}: {err}"))
    }
}

impl fmt::Display for LroError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

impl std::error::Error for LroError {}

/// Shorthand for results whose error is an [`LroError`].
pub type Result<T, E = LroError> = std::result::Result<T, E>;
