//! JSON values found and replaced in a message's bytes, for the shared server's renumbering:
//! the value at a path is located by reading over the text (`lro_core::json::read`), and
//! only its bytes change, so a large result is neither parsed nor rewritten, and the rest of
//! a message (its numbers, escapes and key order) stays as written.

use std::ops::Range;

use lro_core::json::read;

use crate::proxy::jsonrpc::IdKey;

/// An id the gateway gave, as JSON text.
pub fn as_json(id: &IdKey) -> String {
    id.to_value().to_string()
}

/// Where the value at `path` (keys of nested objects) is in `message`, read over without
/// building anything.
pub fn span(message: &[u8], path: &[&str]) -> Option<Range<usize>> {
    let text = std::str::from_utf8(message).ok()?;
    let mut value = text;
    for key in path {
        let fields = read::object_fields(value)?;
        value = fields.into_iter().find(|(k, _)| k == key)?.1;
    }
    let start = value.as_ptr() as usize - text.as_ptr() as usize;
    Some(start..start + value.len())
}

/// The text at `range`.
pub fn text_of(message: &[u8], range: &Range<usize>) -> String {
    String::from_utf8_lossy(&message[range.clone()]).into_owned()
}

/// The text of the value at `path`.
pub fn text_at(message: &[u8], path: &[&str]) -> Option<String> {
    span(message, path).map(|range| text_of(message, &range))
}

/// `message` with each range replaced (ranges that do not overlap).
pub fn splice(message: &[u8], mut edits: Vec<(Range<usize>, String)>) -> Vec<u8> {
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = Vec::with_capacity(message.len() + 32);
    let mut at = 0;
    for (range, text) in edits {
        out.extend_from_slice(&message[at..range.start]);
        out.extend_from_slice(text.as_bytes());
        at = range.end;
    }
    out.extend_from_slice(&message[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn values_are_found_and_replaced_in_place() {
        let message = br#"{"jsonrpc":"2.0", "id" : "a\"b", "method":"tools/call",
            "params":{"name":"x","_meta":{"progressToken":7},"arguments":{"n":1.50}}}"#;
        let id = span(message, &["id"]).unwrap();
        assert_eq!(&message[id.clone()], br#""a\"b""#);
        let token = span(message, &["params", "_meta", "progressToken"]).unwrap();
        assert_eq!(&message[token.clone()], b"7");
        let renamed = splice(message, vec![(token, "12".into()), (id, "11".into())]);
        let value: Value = serde_json::from_slice(&renamed).unwrap();
        assert_eq!(value["id"], 11);
        assert_eq!(value["params"]["_meta"]["progressToken"], 12);
        // The rest is as written.
        assert!(String::from_utf8(renamed).unwrap().contains(r#""n":1.50"#));
        assert_eq!(span(message, &["params", "missing"]), None);
        assert_eq!(span(b"[1]", &["id"]), None);
    }
}
