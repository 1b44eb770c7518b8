//! The few JSON-RPC facts the proxy needs: what a message is, without building it.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// Server error code for "the server cannot answer" (JSON-RPC reserves -32000..-32099 for
/// implementation-defined server errors).
pub const UPSTREAM_ERROR: i64 = -32000;

/// "Request timeout": the code MCP's SDKs use when they give up waiting for an answer.
pub const REQUEST_TIMEOUT: i64 = -32001;

/// JSON-RPC's "Parse error": the message is not JSON text.
pub const PARSE_ERROR: i64 = -32700;

/// A request id, canonicalized (`1` and `"1"` are different ids; whitespace is not).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdKey(String);

impl IdKey {
    /// The id as given in a message.
    pub fn of(id: &Value) -> Self {
        Self(id.to_string())
    }

    /// The id as a JSON value, to answer with.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }
}

/// The envelope of a message, read without allocating its payload.
#[derive(Debug, Deserialize)]
pub struct Peek<'a> {
    /// The id of a request or response (`None` for notifications, or `null`).
    #[serde(default)]
    pub id: Option<Value>,
    /// The method of a request or notification.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// A response's result (skipped over, never built).
    #[serde(default)]
    pub result: Option<IgnoredAny>,
}

/// What a message is.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind<'a> {
    /// A request: an id and a method.
    Request(IdKey, &'a str),
    /// A notification: a method and no id.
    Notification(&'a str),
    /// A response (result or error) to the request with this id.
    Response(IdKey),
    /// Anything else that is still JSON (a batch, a response with a null id, ...).
    Other,
}

impl<'a> Peek<'a> {
    /// Reads the envelope; `None` when the text is not a JSON object.
    pub fn parse(text: &'a [u8]) -> Option<Self> {
        // A derived struct also reads from an array (`[7]` as `{"id": 7}`): only objects
        // are envelopes (found by fuzzing).
        if text.trim_ascii_start().first() != Some(&b'{') {
            return None;
        }
        serde_json::from_slice(text).ok()
    }

    /// Classifies the message.
    pub fn kind(&self) -> Kind<'_> {
        match (
            self.id.as_ref().filter(|v| !v.is_null()),
            self.method.as_deref(),
        ) {
            (Some(id), Some(method)) => Kind::Request(IdKey::of(id), method),
            (None, Some(method)) => Kind::Notification(method),
            (Some(id), None) => Kind::Response(IdKey::of(id)),
            (None, None) => Kind::Other,
        }
    }
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
    json!({"jsonrpc": "2.0", "id": id.to_value(), "error": {"code": code, "message": message}})
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
            kind_of(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#)
                .contains("Notification")
        );
        assert!(
            kind_of(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#)
                .contains("Other")
        );
        assert_eq!(kind_of("not json"), "None");
        assert_eq!(kind_of("[1,2]"), "None");
        // Arrays are batches, never envelopes (serde would read `[11]` as `{"id": 11}`).
        assert_eq!(kind_of("[11]"), "None");
        assert_eq!(kind_of(r#" [5, "tools/call"]"#), "None");
    }

    #[test]
    fn escaped_method_names_are_read() {
        let peek = Peek::parse(br#"{"id":1,"method":"tools\/call"}"#).unwrap();
        assert_eq!(peek.kind(), Kind::Request(IdKey("1".into()), "tools/call"));
    }

    #[test]
    fn ids_round_trip() {
        for id in [json!(1), json!("x"), json!(-3), json!("1")] {
            assert_eq!(IdKey::of(&id).to_value(), id);
        }
        assert_ne!(IdKey::of(&json!(1)), IdKey::of(&json!("1")));
    }

    #[test]
    fn lines_lose_their_endings() {
        assert_eq!(trim_line(b"{}\r\n"), b"{}");
        assert_eq!(trim_line(b"{}\n"), b"{}");
        assert_eq!(trim_line(b"{}"), b"{}");
    }
}
