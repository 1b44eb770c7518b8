//! The one error of compiling a filter: it is not a filter this engine accepts.

use std::fmt;

/// A filter refused before it ran: too long or too deeply nested ([`crate::check_text`]),
/// not jq syntax, a module import, an undefined name. The message says which and where; the
/// caller reports it as it is (LRO's `invalid_query`).
///
/// ```
/// let error = lro_jq::Program::compile(".id |", &[]).err().unwrap();
/// assert!(error.message().starts_with("invalid jq filter \".id |\": "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidFilter {
    message: String,
}

impl InvalidFilter {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// What is wrong with the filter, for the person or agent who wrote it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for InvalidFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InvalidFilter {}
