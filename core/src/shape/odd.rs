//! A JSON array one of whose elements holds a lone UTF-16 surrogate (`"\ud800"`): valid in
//! JSON's grammar, but no string holds it, so serde_json refuses the whole text and the
//! result used to become one text record. Here only that element does: it becomes the text
//! record `{"text": <its JSON text>}` (its bytes kept, escapes and all), and the others stay
//! records. Any other text keeps each lone surrogate as the text of its escape
//! ([`value_with_lone_surrogates`]). Any other fault still refuses the text.

use serde_json::{Map, Value};

/// The records of the JSON array `text` when the only elements serde_json refuses are ones
/// with a lone surrogate; `None` otherwise (not an array, nothing odd, or another fault).
pub(crate) fn array_with_odd_elements(text: &str) -> Option<Value> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut odd = false;
    for element in split_elements(inner)? {
        let element = element.trim_matches([' ', '\n', '\r', '\t']);
        match crate::json::parse::from_str(element) {
            Ok(value) => items.push(value),
            Err(_) => {
                // Refused only for its lone surrogates: the same text with them escaped
                // must read.
                let repaired = crate::json::parse::escape_lone_surrogates(element)?;
                serde_json::from_slice::<Value>(repaired.as_bytes()).ok()?;
                let mut record = Map::new();
                record.insert("text".to_owned(), Value::String(element.to_owned()));
                items.push(Value::Object(record));
                odd = true;
            }
        }
    }
    odd.then_some(Value::Array(items))
}

/// The top-level elements of an array's inside, split at its commas; `None` for an
/// unbalanced or empty text (`[]` reads without help).
fn split_elements(inner: &str) -> Option<Vec<&str>> {
    let bytes = inner.as_bytes();
    let (mut depth, mut in_string, mut start) = (0usize, false, 0usize);
    let mut elements = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'[' | b'{' if !in_string => depth += 1,
            b']' | b'}' if !in_string => depth = depth.checked_sub(1)?,
            b',' if !in_string && depth == 0 => {
                elements.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if in_string || depth != 0 || inner[start..].trim().is_empty() {
        return None;
    }
    elements.push(&inner[start..]);
    Some(elements)
}

/// The value of the JSON text `text` when serde_json refuses it only for its lone
/// surrogates: an array's odd elements become text records ([`array_with_odd_elements`]);
/// in any other text each lone surrogate is kept as the six characters of its escape
/// (`lro_json::parse::from_str_keeping_lone_surrogates`), so that one odd escape in a tool
/// result does not leave the whole result unread. `None` for any other fault.
pub(crate) fn value_with_lone_surrogates(text: &str) -> Option<Value> {
    // Called once `text` was refused: escaped and read again, not read a second time first.
    array_with_odd_elements(text).or_else(|| {
        let escaped = crate::json::parse::escape_lone_surrogates(text)?;
        crate::json::parse::from_str(&escaped).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_odd_element_becomes_text() {
        let text = r#"[{"a": 1}, {"x": "\ud800"}, {"b": "\ud83d\ude00 \\ud800"}]"#;
        assert_eq!(
            array_with_odd_elements(text),
            Some(json!([{"a": 1}, {"text": r#"{"x": "\ud800"}"#}, {"b": "😀 \\ud800"}]))
        );
        assert_eq!(
            array_with_odd_elements(r#"["\udc00", 2]"#),
            Some(json!([{"text": r#""\udc00""#}, 2]))
        );
    }

    #[test]
    fn objects_keep_a_lone_surrogate_as_the_text_of_its_escape() {
        assert_eq!(
            value_with_lone_surrogates(r#"{"rows": [{"a": 1}, "\ud800"]}"#),
            Some(json!({"rows": [{"a": 1}, "\\ud800"]}))
        );
        assert_eq!(value_with_lone_surrogates(r#"{"rows": [1,]}"#), None);
    }

    #[test]
    fn other_faults_and_plain_arrays_are_not_its_business() {
        for text in [
            "[1, 2]",
            "[]",
            r#"[{"x": "\ud800"}, {"y": }]"#,
            r#"[{"x": "\ud800\x"}]"#,
            r#"[1, "\ud800""#,
            r#"{"x": "\ud800"}"#,
            r#"[1,, "\ud800"]"#,
        ] {
            assert_eq!(array_with_odd_elements(text), None, "{text}");
        }
    }
}
