//! How many keys a JSON text names twice in the same object.
//!
//! JSON text can name a key twice (`{"a":1,"a":2}`); a `serde_json::Value` (a Python dict,
//! a JS object) cannot, and reading one from such a text keeps the last value of each key.
//! Where the core reads a result's text into a `Value`, it counts them here first, so that
//! the merge is said (the header's `duplicate_keys`, a warning in the descriptor) rather
//! than silent. The scan is only run where a `Value` is parsed anyway (the canonical scan
//! declines on a repeated key), and costs less than that parse: no tree, keys compared as
//! their bytes (decoded only when they hold an escape, as serde_json compares them).

use std::borrow::Cow;
use std::collections::HashSet;

use crate::nested::{MAX_UNWRAP, skip_bom};

/// Keys an object holds before they are looked up in a set rather than one by one.
const LINEAR_KEYS: usize = 16;

/// The keys seen so far in one open object.
#[derive(Default)]
struct Keys<'a> {
    listed: Vec<Cow<'a, [u8]>>,
    set: Option<HashSet<Cow<'a, [u8]>>>,
}

impl<'a> Keys<'a> {
    /// Adds `key`; whether it was already there.
    fn repeated(&mut self, key: Cow<'a, [u8]>) -> bool {
        if let Some(set) = &mut self.set {
            return !set.insert(key);
        }
        if self.listed.contains(&key) {
            return true;
        }
        self.listed.push(key);
        if self.listed.len() > LINEAR_KEYS {
            self.set = Some(self.listed.drain(..).collect());
        }
        false
    }
}

/// An open container: an object (its keys, and whether a key comes next) or an array.
enum Open<'a> {
    Object { keys: Keys<'a>, key_next: bool },
    Array,
}

/// The keys of `text` named again in the same object (a key given three times counts
/// two). `text` is read as JSON without checking it: on text that is not JSON the count
/// means nothing, and the caller's parse decides.
pub fn count(text: &[u8]) -> usize {
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut repeated = 0;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'{' => stack.push(Open::Object {
                keys: Keys::default(),
                key_next: true,
            }),
            b'[' => stack.push(Open::Array),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Open::Object { key_next, .. }) = stack.last_mut() {
                    *key_next = true;
                }
            }
            b'"' => {
                let end = string_end(text, at);
                if let Some(Open::Object { keys, key_next }) = stack.last_mut() {
                    if *key_next {
                        *key_next = false;
                        if keys.repeated(key_of(&text[at..end])) {
                            repeated += 1;
                        }
                    }
                }
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    repeated
}

/// [`count`] of the JSON a text holds: the
/// text itself (a JSON array or object, JSON lines), or the JSON inside the JSON string it
/// is (up to [`MAX_UNWRAP`] strings deep). 0 for other text.
pub fn in_text(text: &str) -> usize {
    let mut current = Cow::Borrowed(skip_bom(text));
    for _ in 0..=MAX_UNWRAP {
        let trimmed = current.trim();
        match trimmed.as_bytes().first() {
            Some(b'[' | b'{') => return count(trimmed.as_bytes()),
            Some(b'"') => match crate::read::decode_str(trimmed) {
                Some(inner) => current = Cow::Owned(inner.into_owned()),
                None => return 0,
            },
            _ => return 0,
        }
    }
    0
}

/// Where the string opening at `open` ends (one past its closing quote).
fn string_end(text: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    while let Some(offset) = memchr::memchr2(b'"', b'\\', &text[at..]) {
        at += offset;
        if text[at] == b'"' {
            return at + 1;
        }
        at += 2;
    }
    text.len()
}

/// A key as serde_json compares it: its content, decoded when it holds an escape (`"\u0061"`
/// is `"a"`); a key that does not decode (a lone surrogate) as its text.
fn key_of(quoted: &[u8]) -> Cow<'_, [u8]> {
    if !quoted.contains(&b'\\') {
        return Cow::Borrowed(&quoted[1..quoted.len().saturating_sub(1).max(1)]);
    }
    serde_json::from_slice::<String>(quoted)
        .map_or(Cow::Borrowed(quoted), |key| Cow::Owned(key.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_keys_named_again_in_the_same_object() {
        for (text, expected) in [
            (r#"{"a":1,"b":2}"#, 0),
            (r#"{"a":1,"a":2}"#, 1),
            (r#"{"a":1,"a":2,"a":3}"#, 2),
            (r#"[{"a":1,"a":2},{"a":1},{"b":{"c":1,"c":"a"}}]"#, 2),
            // The same key in two objects, or as a value, is no repeat.
            (r#"{"a":{"a":1},"b":"a","c":["a","a"]}"#, 0),
            // Escapes are decoded as serde_json decodes them.
            (r#"{"a":1,"\u0061":2}"#, 1),
            (r#"{"a\"b":1,"a\"b":2,"x":"}\"{"}"#, 1),
            (r#"{"":1,"":2}"#, 1),
        ] {
            assert_eq!(count(text.as_bytes()), expected, "{text}");
        }
    }

    #[test]
    fn text_is_read_as_read_text_reads_it() {
        use super::in_text;
        assert_eq!(in_text(r#" {"a":1,"a":2} "#), 1);
        assert_eq!(in_text("{\"a\":1,\"a\":2}\n{\"a\":1}\n"), 1);
        assert_eq!(in_text(r#""{\"a\":1,\"a\":2}""#), 1);
        assert_eq!(in_text("\u{feff}[{\"a\":1,\"a\":2}]"), 1);
        assert_eq!(in_text("a,a\n1,2\n"), 0);
        assert_eq!(in_text(r#""plain text""#), 0);
    }

    #[test]
    fn many_keys_are_looked_up_in_a_set() {
        let keys: Vec<String> = (0..1000).map(|i| format!("\"k{}\":{i}", i % 600)).collect();
        let text = format!("{{{}}}", keys.join(","));
        assert_eq!(count(text.as_bytes()), 400);
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed.as_object().unwrap().len(), 600);
    }
}
