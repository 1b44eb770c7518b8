//! The few JSON-RPC facts the proxy needs: what a message is, without building it.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

/// Server error code for "the server cannot answer" (JSON-RPC reserves -32000..-32099 for
/// implementation-defined server errors).
pub const UPSTREAM_ERROR: i64 = -32000;

/// "Request timeout": the code MCP's SDKs use when they give up waiting for an answer.
pub const REQUEST_TIMEOUT: i64 = -32001;

/// JSON-RPC's "Parse error": the message is not JSON text.
pub const PARSE_ERROR: i64 = -32700;

/// JSON-RPC's "Invalid Request": JSON, but not a request, notification or response.
pub const INVALID_REQUEST: i64 = -32600;

/// A request id, canonicalized: `1` and `"1"` are different ids; whitespace is not part of
/// one, and a number is its value (`-0` is `0`; a message's id must be written as its
/// value, see [`usable_id`], but a `requestId` in `notifications/cancelled` need not),
/// whatever digits serde_json keeps (with `arbitrary_precision` a number keeps its text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdKey(String);

impl IdKey {
    /// The id as given in a message (see [`usable_id`] for the ids MCP allows).
    pub fn of(id: &Value) -> Self {
        match id {
            Value::Number(number) => Self(match integer_of(number) {
                Some(Integer::Signed(n)) => n.to_string(),
                Some(Integer::Unsigned(n)) => n.to_string(),
                None => number.to_string(),
            }),
            other => Self(other.to_string()),
        }
    }

    /// The id as a JSON value, to answer with.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

/// An integer that fits in 64 bits.
enum Integer {
    Signed(i64),
    Unsigned(u64),
}

/// The value of a number when it is an integer that fits in 64 bits, however it is
/// written (`-0`, `1e0`, `1.0`) and whether or not serde_json keeps its text.
fn integer_of(number: &serde_json::Number) -> Option<Integer> {
    if let Some(n) = number.as_i64() {
        return Some(Integer::Signed(n));
    }
    if let Some(n) = number.as_u64() {
        return Some(Integer::Unsigned(n));
    }
    // 2^64: the first value no 64-bit integer holds (exact as an f64).
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    let value = number
        .as_f64()
        .filter(|v| v.is_finite() && v.fract() == 0.0)?;
    if value == 0.0 {
        Some(Integer::Unsigned(0)) // -0 too
    } else if (-(TWO_POW_64 / 2.0)..0.0).contains(&value) {
        Some(Integer::Signed(value as i64))
    } else if (0.0..TWO_POW_64).contains(&value) {
        Some(Integer::Unsigned(value as u64))
    } else {
        None
    }
}

/// The id of a message when it is one MCP allows: a string, or an integer of 64 bits at
/// most written as one (the proxy answers with it, so it must read it back). Not `null`,
/// `1.5` or `[1]`; nor `1e30` or a 30-digit integer, which serde_json reads as a float
/// without `arbitrary_precision`; nor `-0`, `1e0` or `1.0`: one number, one spelling. With
/// `arbitrary_precision` (another part of the build turns it on), `-0` and `0` were two ids
/// in flight, and a server echoing ids through Python's or JavaScript's JSON answered `0` to
/// both: one request got the other's answer and the other timed out. A client keying its
/// requests by text would be as lost with `-0` answered `0` by any server; with the
/// spelling fixed, an id that equals another as a number is the same text, a duplicate.
pub fn usable_id(id: &Value) -> Option<IdKey> {
    match id {
        Value::String(_) => Some(IdKey::of(id)),
        Value::Number(number) => {
            let key = IdKey::of(id);
            // `to_string` is the text read (`arbitrary_precision`) or the f64 (`-0.0`, `1.0`)
            // that serde_json makes of a number not written as a 64-bit integer.
            (integer_of(number).is_some() && number.to_string() == key.0).then_some(key)
        }
        _ => None,
    }
}

/// The envelope of a message, read without allocating its payload. Every field is read
/// whatever its type, so that [`Peek::kind`] can tell a message that breaks the rules from
/// one that is not JSON at all, and still knows the id to answer it with.
#[derive(Debug, Deserialize)]
pub struct Peek<'a> {
    /// `jsonrpc`, which must be `"2.0"`.
    #[serde(borrow, default, deserialize_with = "present")]
    pub jsonrpc: Option<Field<'a>>,
    /// The id of a request or response (`Some(Null)` for `null`).
    #[serde(default, deserialize_with = "present")]
    pub id: Option<Value>,
    /// The method of a request or notification.
    #[serde(borrow, default, deserialize_with = "present")]
    pub method: Option<Field<'a>>,
    /// A request's params (an object or an array).
    #[serde(borrow, default, deserialize_with = "present")]
    pub params: Option<Field<'a>>,
    /// A response's result (skipped over, never built; `null` is a result too).
    #[serde(borrow, default, deserialize_with = "present")]
    pub result: Option<Field<'a>>,
    /// A response's error (an object).
    #[serde(borrow, default, deserialize_with = "present")]
    pub error: Option<Field<'a>>,
}

/// A field given, even as `null` (serde reads `null` as an absent `Option`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A field of the envelope: a string's text, else only its type (arrays and objects are
/// read over, not built).
#[derive(Debug, PartialEq, Eq)]
pub enum Field<'a> {
    /// `null`.
    Null,
    /// A string, unescaped.
    Str(Cow<'a, str>),
    /// An array.
    Array,
    /// An object.
    Object,
    /// A number or a boolean.
    Scalar,
}

impl<'de: 'a, 'a> Deserialize<'de> for Field<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Field<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Field::Null)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Field::Null)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Field::Scalar)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Field::Scalar)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Field::Scalar)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Field::Scalar)
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Field::Str(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Field::Str(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Field::Str(Cow::Owned(text)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Array)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // With serde_json's `arbitrary_precision` (another crate of the build may
                // turn it on), a number comes as a map of one private key.
                let Some(first) = map.next_key::<Cow<'de, str>>()? else {
                    return Ok(Field::Object);
                };
                map.next_value::<IgnoredAny>()?;
                let number = first == ARBITRARY_PRECISION_NUMBER;
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(if number { Field::Scalar } else { Field::Object })
            }
        }
        deserializer.deserialize_any(Fields)
    }
}

/// The key under which serde_json with `arbitrary_precision` hands a number's text to a
/// visitor.
const ARBITRARY_PRECISION_NUMBER: &str = "$serde_json::private::Number";

/// What a message is.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A request: an id and a method.
    Request(IdKey, &'a str),
    /// A notification: a method and no id.
    Notification(&'a str),
    /// A response (result or error) to the request with this id.
    Response(IdKey),
    /// A JSON object that is none of the above (JSON-RPC's "Invalid Request").
    Invalid {
        /// Its id when it is a string or an integer (the ids MCP allows).
        id: Option<IdKey>,
        /// It has a `method`: it meant to be a request, and an error answers it (with its id).
        request: bool,
        /// What is wrong, for the error message.
        reason: &'static str,
    },
}

impl<'a> Peek<'a> {
    /// Reads the envelope; `None` when the text is not a JSON object (or names a field of
    /// the envelope twice).
    pub fn parse(text: &'a [u8]) -> Option<Self> {
        // A derived struct also reads from an array (`[7]` as `{"id": 7}`): only objects
        // are envelopes (found by fuzzing).
        if text.trim_ascii_start().first() != Some(&b'{') {
            return None;
        }
        serde_json::from_slice(text).ok()
    }

    /// The id, when it is one MCP allows (see [`usable_id`]).
    fn usable_id(&self) -> Option<IdKey> {
        self.id.as_ref().and_then(usable_id)
    }

    /// Classifies the message by JSON-RPC 2.0 and MCP's rules.
    pub fn kind(&self) -> Kind<'_> {
        let id = self.usable_id();
        let invalid = |request: bool, reason| Kind::Invalid {
            id: id.clone(),
            request,
            reason,
        };
        let request = self.method.is_some();
        if self.jsonrpc != Some(Field::Str(Cow::Borrowed("2.0"))) {
            return invalid(request, "\"jsonrpc\" must be \"2.0\"");
        }
        match &self.method {
            Some(Field::Str(method)) => {
                if self.result.is_some() || self.error.is_some() {
                    return invalid(true, "a request has no \"result\" or \"error\"");
                }
                // `null` params are read as none (JSON-RPC wants them left out).
                if matches!(self.params, Some(Field::Str(_) | Field::Scalar)) {
                    return invalid(true, "\"params\" must be an object or an array");
                }
                match (&self.id, id.clone()) {
                    (None, _) => Kind::Notification(method),
                    (Some(_), Some(id)) => Kind::Request(id, method),
                    (Some(_), None) => invalid(
                        true,
                        "\"id\" must be a string or an integer written as one, of 64 bits at most (MCP allows no null id)",
                    ),
                }
            }
            Some(_) => invalid(true, "\"method\" must be a string"),
            None => match (&self.result, &self.error, id.clone()) {
                (Some(_), None, Some(id)) | (None, Some(Field::Object), Some(id)) => {
                    Kind::Response(id)
                }
                (Some(_), Some(_), _) => {
                    invalid(false, "a response has a result or an error, not both")
                }
                (None, Some(Field::Object), None) => {
                    invalid(false, "a response to no request (its id is not usable)")
                }
                (None, Some(_), _) => invalid(false, "\"error\" must be an object"),
                (Some(_), None, None) => invalid(false, "\"id\" must be a string or an integer"),
                (None, None, _) => {
                    invalid(false, "neither a request, a notification nor a response")
                }
            },
        }
    }
}

/// What the start of a message too long to be read whole says about it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Start {
    /// Its id, when one MCP allows comes before the part cut off.
    pub id: Option<IdKey>,
    /// A `method` key comes before the part cut off: a request (or a notification).
    pub method: bool,
}

/// Reads the keys of a message's start up to where it is cut off (the read fails there; what
/// was seen before stays): SDKs write `jsonrpc`, `id` and `method` before `params`.
pub fn start_of(prefix: &[u8]) -> Start {
    struct Sniff<'s>(&'s mut Start);
    impl<'de> Visitor<'de> for Sniff<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                match &*key {
                    "id" => self.0.id = usable_id(&map.next_value::<Value>()?),
                    "method" => {
                        self.0.method = true;
                        map.next_value::<IgnoredAny>()?;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut start = Start::default();
    let mut reader = serde_json::Deserializer::from_slice(prefix);
    let _ = reader.deserialize_map(Sniff(&mut start));
    start
}

/// The id of a message whose last member is its id (`..., "id": 5}`), read from the end
/// of its text: the TypeScript SDK writes `result` before `id`, so the start of a long
/// answer does not tell which request it answers. Only a plain id is read (an integer, or
/// a string without escapes or quotes).
pub fn id_at_end(tail: &[u8]) -> Option<IdKey> {
    let text = tail.trim_ascii_end().strip_suffix(b"}")?.trim_ascii_end();
    let value_start = if text.last() == Some(&b'"') {
        let inner = &text[..text.len() - 1];
        let open = inner.iter().rposition(|&b| b == b'"')?;
        if inner[open + 1..].contains(&b'\\') {
            return None;
        }
        open
    } else {
        text.iter()
            .rposition(|b| !(b.is_ascii_digit() || b"-+.eE".contains(b)))
            .map_or(0, |i| i + 1)
    };
    let before = text[..value_start].trim_ascii_end().strip_suffix(b":")?;
    let before = before
        .trim_ascii_end()
        .strip_suffix(b"\"id\"")?
        .trim_ascii_end();
    if !matches!(before.last(), Some(b',' | b'{')) {
        return None;
    }
    usable_id(&serde_json::from_slice(&text[value_start..]).ok()?)
}

/// A line without its line ending (`\n` or `\r\n`).
pub fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A success response.
pub fn response(id: &IdKey, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.to_value(), "result": result})
}

/// A `notifications/cancelled` for the request `id`, with the reason.
pub fn cancelled(id: &IdKey, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id.to_value(), "reason": reason}})
}

/// An error response.
pub fn error(id: &IdKey, code: i64, message: &str) -> Value {
    error_to(id.to_value(), code, message)
}

/// An error response to `id` (`null` when the request's id could not be read).
pub fn error_to(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A short, printable excerpt of a line, for diagnostics.
pub fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
    if line.len() > 120 {
        format!("{text}... ({} bytes)", line.len())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(text: &str) -> String {
        format!(
            "{:?}",
            Peek::parse(text.as_bytes()).map(|p| format!("{:?}", p.kind()))
        )
    }

    #[test]
    fn classifies_messages() {
        assert!(
            kind_of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#)
                .contains(r#"Request(IdKey(\"7\"), \"tools/call\")"#)
        );
        assert!(
            kind_of(r#"{"jsonrpc":"2.0","id":"a b","result":{}}"#)
                .contains(r#"Response(IdKey(\"\\\"a b\\\"\"))"#)
        );
        assert!(
            kind_of(r#"{"jsonrpc":"2.0","id":3,"result":null}"#).contains("Response"),
            "null is a result"
        );
        assert!(
            kind_of(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#)
                .contains("Notification")
        );
        assert_eq!(kind_of("not json"), "None");
        assert_eq!(kind_of("[1,2]"), "None");
        // Arrays are batches, never envelopes (serde would read `[11]` as `{"id": 11}`).
        assert_eq!(kind_of("[11]"), "None");
        assert_eq!(kind_of(r#" [5, "tools/call"]"#), "None");
    }

    #[test]
    fn what_breaks_the_rules_is_invalid_with_the_id_to_answer() {
        let invalid =
            |text: &str| match Peek::parse(text.as_bytes()).map(|p| format!("{:?}", p.kind())) {
                Some(kind) => kind,
                None => panic!("not an envelope: {text}"),
            };
        for (text, id, request) in [
            (r#"{}"#, "None", false),
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
                "Some(IdKey(\"3\"))",
                true,
            ),
            (r#"{"id":4,"method":"ping"}"#, "Some(IdKey(\"4\"))", true),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":7}"#,
                "Some(IdKey(\"5\"))",
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                "None",
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                "None",
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
                "None",
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}"#,
                "Some(IdKey(\"6\"))",
                true,
            ),
            // A number, with or without serde_json's `arbitrary_precision`.
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":5}"#,
                "Some(IdKey(\"6\"))",
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"error":12.5}"#,
                "Some(IdKey(\"9\"))",
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}"#,
                "Some(IdKey(\"7\"))",
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"result":{},"error":{}}"#,
                "Some(IdKey(\"8\"))",
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","id":9,"error":"x"}"#,
                "Some(IdKey(\"9\"))",
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
                "None",
                false,
            ),
            (r#"{"jsonrpc":"2.0","id":10}"#, "Some(IdKey(\"10\"))", false),
        ] {
            let kind = invalid(text);
            assert!(
                kind.starts_with(&format!("Invalid {{ id: {id}, request: {request},")),
                "{text}: {kind}"
            );
        }
        // Null params are read as none.
        assert!(
            invalid(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#)
                .starts_with("Request")
        );
    }

    #[test]
    fn escaped_method_names_are_read() {
        let peek = Peek::parse(br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#).unwrap();
        assert_eq!(peek.kind(), Kind::Request(IdKey("1".into()), "tools/call"));
    }

    #[test]
    fn ids_round_trip() {
        for id in [json!(1), json!("x"), json!(-3), json!("1")] {
            assert_eq!(IdKey::of(&id).to_value(), id);
        }
        assert_ne!(IdKey::of(&json!(1)), IdKey::of(&json!("1")));
    }

    /// A number id is an integer of 64 bits written as one; ids are compared by value.
    #[test]
    fn numeric_ids_are_integers_written_as_such() {
        let key = |text: &str| usable_id(&serde_json::from_str::<Value>(text).unwrap());
        for id in ["0", "-5", "18446744073709551615", "-9223372036854775808"] {
            assert_eq!(key(id), Some(IdKey(id.into())), "{id} is an id");
        }
        for no_id in [
            "-0",
            "-0.0",
            "1e0",
            "1.0",
            "10E-1",
            "1.5",
            "1e30",
            "123456789012345678901234567890",
            "-1e19",
            "null",
            "[1]",
        ] {
            assert_eq!(key(no_id), None, "{no_id} is no id");
        }
        assert_ne!(key("\"0\""), key("0"));
        // Keys are values (a cancelled `requestId` of `1.0` names request 1).
        let of = |text: &str| IdKey::of(&serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(of("1.0"), of("1"));
        assert_eq!(of("-0"), of("0"));
    }

    #[test]
    fn the_start_of_a_cut_message_tells_its_id() {
        let start = start_of(br#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"aaaa"#);
        assert_eq!(
            start,
            Start {
                id: Some(IdKey("7".into())),
                method: true
            }
        );
        let start = start_of(br#"{"jsonrpc":"2.0","params":{"x":"aa"#);
        assert_eq!(start, Start::default());
        let start = start_of(br#"{"jsonrpc":"2.0","id":"r","result":{"content":[{"te"#);
        assert_eq!(
            start,
            Start {
                id: Some(IdKey("\"r\"".into())),
                method: false
            }
        );
        assert_eq!(start_of(b"aaaaaaaa"), Start::default());
    }

    #[test]
    fn the_end_of_a_cut_message_tells_its_last_id() {
        assert_eq!(
            id_at_end(br#"aaa"}]},"jsonrpc":"2.0","id":5}"#),
            Some(IdKey("5".into()))
        );
        assert_eq!(
            id_at_end(br#"aa"}]}, "id" : "r-1" } "#),
            Some(IdKey("\"r-1\"".into()))
        );
        assert_eq!(id_at_end(br#"aa","x":{"id":5}}"#), None, "an id inside");
        assert_eq!(id_at_end(br#"aa\",\"id\":5}"}"#), None, "an id in a string");
        assert_eq!(id_at_end(br#"aa,"id":"a\"b"}"#), None);
        assert_eq!(id_at_end(b"aaaa"), None);
    }

    #[test]
    fn lines_lose_their_endings() {
        assert_eq!(trim_line(b"{}\r\n"), b"{}");
        assert_eq!(trim_line(b"{}\n"), b"{}");
        assert_eq!(trim_line(b"{}"), b"{}");
    }
}
