//! Why a query was refused: its kind (which argument was wrong) and a message for the agent.

use std::fmt;

/// What was wrong with a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The filter document (`where`) is not a valid query: an unknown operator, a bad
    /// operand, a pattern that does not compile.
    InvalidQuery,
    /// Another argument (`fields`, `sort`) or a value in the query is not valid.
    InvalidArgument,
}

/// A query refused before any record was read: its [`ErrorKind`] and a message naming the
/// place in the query (`where.age.$gt: ...`, `sort: ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
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

/// The result of parsing a query.
pub type Result<T> = std::result::Result<T, Error>;
