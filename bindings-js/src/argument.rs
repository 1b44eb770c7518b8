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
use serde_json::{Map, Value};

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
    T::deserialize(value).map_err(|err| {
        // The error path only: the value again, from its text, to find the mistake in.
        let value = serde_json::from_str(json).unwrap_or(Value::Null);
        let (path, message) = locate::<T>(&value, &|object| Value::Object(object), "")
            .unwrap_or_else(|| {
                let message = value.is_number().then(|| text_error::<T>(json)).flatten();
                (String::new(), message.unwrap_or_else(|| err.to_string()))
            });
        let at = if path.is_empty() {
            T::NAME.to_owned()
        } else {
            format!("{}.{path}", T::NAME)
        };
        LroError::new(T::code_at(&path), format!("{at}: {message}"))
    })
}

/// serde's message for `T` refusing the JSON `text`, read as text, without its position.
/// For a number: serde_json's `arbitrary_precision` says only "invalid number" or "invalid
/// type: number" of a number read from a `Value`; its reader of text names the value and
/// what was expected (`invalid value: integer \`-1\`, expected u64`).
fn text_error<T: DeserializeOwned>(text: &str) -> Option<String> {
    let err = serde_json::from_str::<T>(text).err()?;
    let mut message = err.to_string();
    if let Some(at) = message.rfind(" at line ").filter(|_| err.line() > 0) {
        message.truncate(at);
    }
    Some(message)
}

/// Where in `object` (part of what `T` refused, put back in place by `enclose`) the mistake
/// is, and serde's message for it: the first key whose value `T` refuses on its own, looked
/// for inside that value when it is an object (`extract.timeoutMs`); the object's own path for
/// a key it does not know or one it lacks. On the error path only, with the deserializer `T`
/// already has: a path-tracking deserializer (serde_path_to_error) doubled the option code in
/// the WebAssembly module, where every kilobyte counts.
fn locate<T: DeserializeOwned>(
    object: &Value,
    enclose: &dyn Fn(Map<String, Value>) -> Value,
    path: &str,
) -> Option<(String, String)> {
    let Value::Object(map) = object else {
        return None;
    };
    let one = |key: &str, value: Value| Map::from_iter([(key.to_owned(), value)]);
    let refused = |key: &str, value: Value| T::deserialize(enclose(one(key, value))).err();
    let mut lacking = None;
    for (key, inner) in map {
        let Some(err) = refused(key, inner.clone()) else {
            continue;
        };
        let mut message = err.to_string();
        if inner.is_number() {
            let text = enclose(one(key, inner.clone())).to_string();
            message = text_error::<T>(&text).unwrap_or(message);
        }
        let here = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        let unknown = |e: &serde_json::Error| e.to_string().starts_with("unknown field");
        if unknown(&err) && refused(key, Value::Null).is_some_and(|e| unknown(&e)) {
            // The key itself is not one of this object's.
            return Some((path.to_owned(), message));
        }
        if let Value::Object(_) = inner {
            let enclose_inner = |inner: Map<String, Value>| enclose(one(key, Value::Object(inner)));
            if let Some(found) = locate::<T>(inner, &enclose_inner, &here) {
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
