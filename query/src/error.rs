//! Why a query was refused or a run failed: its kind and a message for the agent.

use std::fmt;
use std::sync::Arc;

/// What was wrong with a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The filter document (`where`) is not a valid query: an unknown operator, a bad
    /// operand, a pattern that does not compile.
    InvalidQuery,
    /// Another argument (`fields`, `sort`) or a value in the query is not valid.
    InvalidArgument,
    /// A jq filter failed on a record (an error it raised, a value it could not handle).
    QueryFailed,
    /// A run went past a bound: memory, value depth, recursion.
    ResourceLimit,
    /// A record line is not JSON.
    InvalidInput,
    /// The source of the lines failed; [`Error::io_error`] has the error.
    Io,
}

/// A query refused before any record was read, with a message naming the place in the query
/// (`where.age.$gt: ...`, `sort: ...`), a filter that failed on a record, or a line that
/// could not be read or is not JSON.
#[derive(Debug, Clone)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    io: Option<Arc<std::io::Error>>,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            io: None,
        }
    }

    /// The error of a source of lines that failed to read.
    pub fn io(error: std::io::Error) -> Self {
        Self {
            kind: ErrorKind::Io,
            message: format!("cannot read the input: {error}"),
            io: Some(Arc::new(error)),
        }
    }

    /// The read error, for an [`ErrorKind::Io`] error.
    pub fn io_error(&self) -> Option<&std::io::Error> {
        self.io.as_deref()
    }

    /// What was wrong.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, as the agent reads it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A jq filter the engine refused is [`ErrorKind::InvalidQuery`], with the engine's message.
impl From<lro_jq::InvalidFilter> for Error {
    fn from(error: lro_jq::InvalidFilter) -> Self {
        Self::new(ErrorKind::InvalidQuery, error.message())
    }
}

/// The result of parsing a query.
pub type Result<T> = std::result::Result<T, Error>;
