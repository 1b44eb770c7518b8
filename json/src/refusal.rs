//! A deserializer's refusal of JSON text, in the words serde_json's `Value` reader uses.
//!
//! A struct read both from text and from a `Value` has two deserializers compiled, one per
//! reader; in the WebAssembly module each option struct's pair was a few kilobytes. Reading
//! it from text only (a `Value` written back as text first, where the caller holds one)
//! keeps one, and this says what it refused as the `Value` reader said it: without the
//! position (the text was written by us, not by the caller), and, for the two refusals the
//! text reader words as if the text were not JSON, in the `Value` reader's words. A number
//! keeps the text reader's words, which name it (`invalid value: integer \`-1\`, expected
//! u64`), where the `Value` reader says only "number" or "invalid number" under
//! `arbitrary_precision`.
//!
//! ```
//! use lro_json::refusal;
//! use serde_json::json;
//!
//! #[derive(Debug, serde::Deserialize)]
//! enum Mode { Never }
//! #[derive(Debug, serde::Deserialize)]
//! struct Options { mode: Option<Mode>, limit: Option<u64> }
//!
//! let given = json!({"mode": true});
//! let text = given.to_string();
//! let err = serde_json::from_str::<Options>(&text).unwrap_err();
//! assert_eq!(err.to_string(), "expected value at line 1 column 9");
//! assert_eq!(refusal::message(&err, &text, &given), "invalid type: boolean `true`, expected string or map");
//!
//! let given = json!({"limit": -1});
//! let text = given.to_string();
//! let err = serde_json::from_str::<Options>(&text).unwrap_err();
//! assert_eq!(refusal::message(&err, &text, &given), "invalid value: integer `-1`, expected u64");
//! ```

use serde::de::{Error as _, Unexpected};
use serde_json::Value;

/// serde's message for `err`, the refusal of `text` (`given` written as text, on one line),
/// without its position, in the `Value` reader's words but for numbers, an array too long for
/// the struct it stood for inside `given` (`trailing characters`), and an enum given a map of
/// several keys (the text reader reads the first as the variant).
pub fn message(err: &serde_json::Error, text: &str, given: &Value) -> String {
    let mut message = err.to_string();
    if let Some(at) = message.rfind(" at line ").filter(|_| err.line() > 0) {
        message.truncate(at);
    }
    match message.as_str() {
        // An enum given neither a string nor a map (nor `null`, where it is not optional):
        // the reader stopped at the value (the text is one line, so the column is its index; at the `}` of an empty
        // map). A number given as the value itself keeps the text's words.
        "expected value" => {
            let rest = text
                .get(err.column().saturating_sub(1)..)
                .unwrap_or_default();
            let unexpected = match rest.as_bytes().first() {
                Some(b't') => Unexpected::Bool(true),
                Some(b'f') => Unexpected::Bool(false),
                Some(b'n') => Unexpected::Unit,
                Some(b'[') => Unexpected::Seq,
                Some(b'-' | b'0'..=b'9') if !given.is_number() => Unexpected::Other("number"),
                Some(b'}') => {
                    let single = &"map with a single key";
                    return serde_json::Error::invalid_value(Unexpected::Map, single).to_string();
                }
                _ => return message,
            };
            serde_json::Error::invalid_type(unexpected, &"string or map").to_string()
        }
        // `given`, an array, read as a struct with fewer fields than it has elements (an
        // array deeper inside `given` keeps the text's words).
        "trailing characters" => match given {
            Value::Array(items) => {
                serde_json::Error::invalid_length(items.len(), &"fewer elements in array")
                    .to_string()
            }
            _ => message,
        },
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        Records,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Range {
        #[allow(dead_code)]
        start: u64,
        #[allow(dead_code)]
        unit: Unit,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Request {
        #[allow(dead_code)]
        lines: Option<Range>,
        #[allow(dead_code)]
        unit: Option<Unit>,
    }

    /// What the text reader's refusal of `given` becomes, and what the `Value` reader said.
    fn both(given: &Value) -> (String, String) {
        let text = given.to_string();
        let err = serde_json::from_str::<Request>(&text).unwrap_err();
        let from_value = Request::deserialize(given).unwrap_err().to_string();
        (message(&err, &text, given), from_value)
    }

    #[test]
    fn the_words_are_the_value_readers_but_for_numbers() {
        for given in [
            json!({"unit": true}),
            json!({"unit": false}),
            json!({"unit": ["records"]}),
            json!({"unit": {}}),
            json!({"unit": "pages"}),
            json!({"lines": {"start": 0, "unit": []}}),
            json!({"lines": {"start": 0, "unit": null}}),
            json!({"lines": [0, 1]}),
            json!({"lines": {"start": "x"}}),
            json!({"lines": {"start": 0, "stop": 1}}),
            json!({"lines": {}}),
            json!({"lines": true}),
            json!([null, null, null]),
            json!([{"start": 0, "unit": "records"}, true]),
        ] {
            let (ours, from_value) = both(&given);
            assert_eq!(ours, from_value, "{given}");
        }
        // A number is named, where the `Value` reader says "number" or "invalid number".
        for (given, says, value_said) in [
            (
                json!({"lines": {"start": -1}}),
                "invalid value: integer `-1`, expected u64",
                "invalid number",
            ),
            (
                json!({"lines": [1.5]}),
                "invalid type: floating point `1.5`, expected u64",
                "invalid number",
            ),
            (
                json!({"unit": {"records": 1}}),
                "invalid type: integer `1`, expected unit",
                "invalid type: number, expected unit",
            ),
            (
                json!({"lines": 7}),
                "invalid type: integer `7`, expected struct Range",
                "invalid type: number, expected struct Range",
            ),
        ] {
            assert_eq!(both(&given), (says.to_owned(), value_said.to_owned()));
        }
    }
}
