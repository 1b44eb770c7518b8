//! Reading an option object from its JSON text, and writing a result as JSON.
//!
//! Both JS builds read an option argument as `JSON.stringify` gives it (what an MCP server
//! would put on the wire: `toJSON` called, `undefined` and functions dropped; a cycle is a
//! catchable exception, where a recursive walk of the object graph would overflow the
//! native stack). The struct is read from that text, and only from text: each option
//! struct's deserializer is compiled once, for serde_json's reader of text (reading it from
//! a `Value` as well doubled them, about 40 KB of the WebAssembly module). A mistake is
//! reported with its path (`config.extract.timeoutMs: invalid type ...`) rather than a line
//! and column of text the caller never wrote: on the error path only, the text is read into
//! a `Value` to find the key, and each candidate is written back as text and read again.

use lro_core::json::refusal;
use lro_core::{ErrorCode, LroError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// An option object of the JS API.
pub trait Argument: DeserializeOwned + Default {
    /// The argument's name, as messages give it (`options`, `config`, `context`).
    const NAME: &'static str;

    /// The error code of a bad value at `path` (`detail`, `extract.timeoutMs`; empty for
    /// the object itself): the core's code for the same mistake, so every build agrees.
    fn code_at(path: &str) -> ErrorCode;
}

/// What `T` refuses of a JSON text, if anything: [`locate`] tries candidates through it.
type Refuses<'a> = &'a dyn Fn(&str) -> Option<serde_json::Error>;

/// Reads the option object `T` from the JSON text of its argument; `None` (the argument was
/// omitted, `null`, or has no JSON form) gives the defaults. Unknown keys and values of the
/// wrong type are errors with [`Argument::code_at`]'s code, naming the key.
pub fn from_json<T: Argument>(json: Option<&str>) -> Result<T, LroError> {
    let Some(json) = json else {
        return Ok(T::default());
    };
    // `null` is the defaults, as an omitted argument.
    let read = |text: &str| serde_json::from_slice::<Option<T>>(text.as_bytes());
    if let Ok(given) = read(json) {
        return Ok(given.unwrap_or_default());
    }
    let value: Value = serde_json::from_slice(json.as_bytes()).map_err(|e| {
        // JSON.stringify's text always parses, but for nesting deeper than serde_json's
        // recursion limit.
        LroError::new(T::code_at(""), format!("{}: {e}", T::NAME))
    })?;
    // Text may repeat a key, which a struct refuses; a `Value` keeps the last one, as
    // JSON.parse does and as the options always did. (JSON.stringify never repeats one.)
    let text = value.to_string();
    match read(&text) {
        Ok(given) => Ok(given.unwrap_or_default()),
        Err(err) => {
            let (path, message) = refusal(&value, &text, &err, &|text| read(text).err());
            let at = if path.is_empty() {
                T::NAME.to_owned()
            } else {
                format!("{}.{path}", T::NAME)
            };
            Err(LroError::new(T::code_at(&path), format!("{at}: {message}")))
        }
    }
}

/// The path of the mistake in `value` (written as `text`, which the option struct refused
/// with `err`) and serde's message for it, in the words the options were always refused in
/// (`refusal::message`: those of serde_json's `Value` reader, a number named).
fn refusal(
    value: &Value,
    text: &str,
    err: &serde_json::Error,
    refuses: Refuses<'_>,
) -> (String, String) {
    locate(value, &|object| Value::Object(object), "", refuses)
        .unwrap_or_else(|| (String::new(), refusal::message(err, text, value)))
}

/// Where in `object` (part of what the option struct refused, put back in place by
/// `enclose`) the mistake is, and serde's message for it: the first key whose value
/// `refuses` on its own, looked for inside that value when it is an object
/// (`extract.timeoutMs`); the object's own path for a key it does not know or one it lacks.
/// Each candidate is written as text and read by the struct's one deserializer: a
/// path-tracking deserializer (serde_path_to_error), or the struct read from a `Value`,
/// doubled the option code in the WebAssembly module, where every kilobyte counts.
fn locate(
    object: &Value,
    enclose: &dyn Fn(Map<String, Value>) -> Value,
    path: &str,
    refuses: Refuses<'_>,
) -> Option<(String, String)> {
    let Value::Object(map) = object else {
        return None;
    };
    let candidate =
        |key: &str, value: Value| enclose(Map::from_iter([(key.to_owned(), value)])).to_string();
    let mut lacking = None;
    for (key, inner) in map {
        let text = candidate(key, inner.clone());
        let Some(err) = refuses(&text) else {
            continue;
        };
        let message = refusal::message(&err, &text, inner);
        let here = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        let unknown = |e: &serde_json::Error| e.to_string().starts_with("unknown field");
        if unknown(&err) && refuses(&candidate(key, Value::Null)).is_some_and(|e| unknown(&e)) {
            // The key itself is not one of this object's.
            return Some((path.to_owned(), message));
        }
        if let Value::Object(_) = inner {
            let enclose_inner = |inner: Map<String, Value>| {
                enclose(Map::from_iter([(key.clone(), Value::Object(inner))]))
            };
            if let Some(found) = locate(inner, &enclose_inner, &here, refuses) {
                return Some(found);
            }
        }
        if message.starts_with("missing field") {
            // The value is an object that lacks a key (`lines` without `start`), or this
            // object lacks one whatever the value.
            let lacks = if inner.is_object() {
                here
            } else {
                path.to_owned()
            };
            lacking.get_or_insert((lacks, message));
            continue;
        }
        return Some((here, message));
    }
    lacking
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, ExtractOptions, OffloadOptions};

    fn refused<T: Argument + std::fmt::Debug>(text: &str) -> (ErrorCode, String) {
        let err = from_json::<T>(Some(text)).unwrap_err();
        (err.code(), err.message().to_owned())
    }

    #[test]
    fn null_is_the_defaults_and_a_repeated_key_keeps_its_last_value() {
        let none = from_json::<OffloadOptions>(Some(" null ")).unwrap();
        assert_eq!(none.threshold, None);
        let options = from_json::<OffloadOptions>(Some(r#"{"threshold":1,"threshold":2}"#));
        assert_eq!(options.unwrap().threshold, Some(2));
        let request = from_json::<ExtractOptions>(Some(r#"{"lines":{"start":1,"start":2}}"#));
        assert_eq!(request.unwrap().lines.map(|l| l.start), Some(2));
    }

    #[test]
    fn refusals_of_valid_json_are_said_as_a_values_reader_says_them() {
        for (text, says) in [
            (
                r#"{"mode":true}"#,
                "options.mode: invalid type: boolean `true`, expected string or map",
            ),
            (
                r#"{"mode":["never"]}"#,
                "options.mode: invalid type: sequence, expected string or map",
            ),
            (
                r#"{"mode":{}}"#,
                "options.mode: invalid value: map, expected map with a single key",
            ),
            // A number given as the value itself has the text reader's words, as it had.
            (r#"{"mode":1}"#, "options.mode: expected value"),
        ] {
            assert_eq!(
                refused::<OffloadOptions>(text),
                (ErrorCode::InvalidArgument, says.to_owned())
            );
        }
        for (text, says) in [
            (
                r#"{"lines":[0,null,false]}"#,
                "request.lines: invalid type: boolean `false`, expected string or map",
            ),
            (
                r#"{"lines":[0,null,2]}"#,
                "request.lines: invalid type: number, expected string or map",
            ),
            (
                r#"{"lines":[0,null,"records",1]}"#,
                "request.lines: invalid length 4, expected fewer elements in array",
            ),
        ] {
            assert_eq!(refused::<ExtractOptions>(text).1, says);
        }
    }

    #[test]
    fn numbers_are_named_wherever_they_are_refused() {
        for (text, says) in [
            (
                r#"{"extract":{"timeoutMs":-1}}"#,
                "config.extract.timeoutMs: invalid value: integer `-1`, expected u64",
            ),
            (
                r#"{"store":{"retries":1.5}}"#,
                "config.store.retries: invalid type: floating point `1.5`, expected u32",
            ),
            (
                r#"{"mcp":{"neverOffload":["a",1]}}"#,
                "config.mcp.neverOffload: invalid type: integer `1`, expected a string",
            ),
        ] {
            assert_eq!(
                refused::<Config>(text),
                (ErrorCode::InvalidConfig, says.to_owned())
            );
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused_in_a_value_the_binding_takes_itself() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        for key in ["onEvent", "host", "tools"] {
            let (code, message) = refused::<Config>(&format!(r#"{{"{key}":{deep}}}"#));
            assert_eq!(code, ErrorCode::InvalidConfig);
            assert!(
                message.starts_with("config: recursion limit exceeded"),
                "{message}"
            );
        }
    }
}
