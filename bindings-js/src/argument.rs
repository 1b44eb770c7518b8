//! Reading an option object from its JSON text, and writing a result as JSON.
//!
//! Both JS builds read an option argument as `JSON.stringify` gives it (what an MCP server
//! would put on the wire: `toJSON` called, `undefined` and functions dropped; a cycle is a
//! catchable exception, where a recursive walk of the object graph would overflow the
//! native stack). The text is read into a `Value`, then into the option struct, so that a
//! mistake is reported with its path (`config.extract.timeoutMs: invalid type ...`) rather
//! than a line and column of text the caller never wrote.

use lro_core::{ErrorCode, LroError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::Segment;

/// An option object of the JS API.
pub trait Argument: DeserializeOwned + Default {
    /// The argument's name, as messages give it (`options`, `config`, `context`).
    const NAME: &'static str;

    /// The error code of a bad value at `path` (`detail`, `extract.timeoutMs`; empty for
    /// the object itself): the core's code for the same mistake, so every build agrees.
    fn code_at(path: &str) -> ErrorCode;
}

/// Reads the option object `T` from the JSON text of its argument; `None` (the argument was
/// omitted, `null`, or has no JSON form) gives the defaults. Unknown keys and values of the
/// wrong type are errors with [`Argument::code_at`]'s code, naming the key.
pub fn from_json<T: Argument>(json: Option<&str>) -> Result<T, LroError> {
    let Some(json) = json else {
        return Ok(T::default());
    };
    let value: Value = serde_json::from_str(json).map_err(|e| {
        // JSON.stringify's text always parses, but for nesting deeper than serde_json's
        // recursion limit.
        LroError::new(T::code_at(""), format!("{}: {e}", T::NAME))
    })?;
    if value.is_null() {
        return Ok(T::default());
    }
    serde_path_to_error::deserialize(value).map_err(|err| {
        let mut segments: Vec<&Segment> = err.path().iter().collect();
        let message = err.inner().to_string();
        // An unknown key is a mistake of the object that holds it.
        if message.starts_with("unknown field") {
            segments.pop();
        }
        let path = segments.iter().fold(String::new(), |mut path, segment| {
            match segment {
                Segment::Seq { index } => path.push_str(&format!("[{index}]")),
                Segment::Map { key } => path.push_str(&format!(".{key}")),
                Segment::Enum { variant } => path.push_str(&format!(".{variant}")),
                Segment::Unknown => path.push_str(".?"),
            }
            path
        });
        let path = path.strip_prefix('.').unwrap_or(&path);
        let at = if path.is_empty() {
            T::NAME.to_owned()
        } else {
            format!("{}.{path}", T::NAME)
        };
        LroError::new(T::code_at(path), format!("{at}: {message}"))
    })
}

/// `value` as JSON: a result on its way to JS. A value that cannot be written as JSON (a
/// map with keys that are not strings, say) is an error, never a silent `null`.
pub fn to_value(value: &impl Serialize) -> Result<Value, LroError> {
    serde_json::to_value(value).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!("the result cannot be written as JSON: {e}"),
        )
    })
}
