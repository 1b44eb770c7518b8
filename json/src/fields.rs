//! Reading the top-level fields of a compact JSON line without parsing it into a tree:
//! what the descriptor (namespaces, examples), the MIF test and detail projection need.
//!
//! Lines are compact JSON as [`super::write`] and [`super::canonical`] produce it: no
//! whitespace, strings in serde_json's spelling (so equal keys have equal bytes).

use std::borrow::Cow;

/// The `(key, value)` pairs of a compact JSON object, in order: the key's bytes between
/// its quotes, still escaped, and the value's JSON text. Yields nothing for non-objects.
pub fn fields(line: &[u8]) -> Fields<'_> {
    Fields {
        line,
        pos: usize::from(line.first() == Some(&b'{')),
    }
}

/// Iterator returned by [`fields`].
pub struct Fields<'a> {
    line: &'a [u8],
    /// Where the next key's opening quote is; 0 once finished (or for non-objects).
    pos: usize,
}

impl<'a> Iterator for Fields<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos == 0 || self.line.get(self.pos) != Some(&b'"') {
            self.pos = 0;
            return None;
        }
        let key_end = string_end(self.line, self.pos);
        let key = &self.line[self.pos + 1..key_end - 1];
        // `key_end` is at the colon.
        let value_start = key_end + 1;
        let value_end = value_end(self.line, value_start);
        self.pos = if self.line.get(value_end) == Some(&b',') {
            value_end + 1
        } else {
            0
        };
        Some((key, &self.line[value_start..value_end.min(self.line.len())]))
    }
}

/// The items of a compact JSON array, as JSON texts. Yields nothing for non-arrays.
pub fn array_items(array: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut pos = if array.first() == Some(&b'[') && array.get(1) != Some(&b']') {
        1
    } else {
        0
    };
    std::iter::from_fn(move || {
        if pos == 0 {
            return None;
        }
        let start = pos;
        let end = value_end(array, start);
        pos = if array.get(end) == Some(&b',') {
            end + 1
        } else {
            0
        };
        Some(&array[start..end.min(array.len())])
    })
}

/// The value of `key` in a compact JSON object line.
pub fn get<'a>(line: &'a [u8], key: &str) -> Option<&'a [u8]> {
    fields(line)
        .find(|(k, _)| *k == key.as_bytes())
        .map(|(_, v)| v)
}

/// A JSON string's value (`None` for other values), borrowed unless it has escapes.
pub fn as_str(value: &[u8]) -> Option<Cow<'_, str>> {
    let inner = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if inner.contains(&b'\\') {
        serde_json::from_slice::<String>(value).ok().map(Cow::Owned)
    } else {
        std::str::from_utf8(inner).ok().map(Cow::Borrowed)
    }
}

/// The offset just past the string whose opening quote is at `open`. Written lines hold no
/// raw control characters, so only quotes and backslashes matter (found with SIMD: long
/// contents are most of what a walk over fields crosses).
fn string_end(line: &[u8], open: usize) -> usize {
    let mut pos = open + 1;
    loop {
        let Some(found) = line
            .get(pos..)
            .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
        else {
            return line.len();
        };
        let at = pos + found;
        if line[at] == b'"' {
            return at + 1;
        }
        pos = at + 2;
    }
}

/// The offset just past the value starting at `start`.
fn value_end(line: &[u8], start: usize) -> usize {
    match line.get(start) {
        Some(b'"') => string_end(line, start),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut pos = start;
            while let Some(&byte) = line.get(pos) {
                match byte {
                    b'"' => {
                        pos = string_end(line, pos);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return pos + 1;
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
            line.len()
        }
        _ => {
            let mut pos = start;
            while line
                .get(pos)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']'))
            {
                pos += 1;
            }
            pos
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn walks_top_level_fields() {
        let value = json!({"id": "m1", "tags": ["a", "b,]"], "nested": {"x": [1, {"y": "}"}]}, "q\"k": "v\\\"", "n": -1.5e-7, "z": null});
        let line = serde_json::to_vec(&value).unwrap();
        let got: Vec<(String, Value)> = fields(&line)
            .map(|(k, v)| {
                (
                    serde_json::from_slice(&[b"\"", k, b"\""].concat()).unwrap(),
                    serde_json::from_slice(v).unwrap(),
                )
            })
            .collect();
        let expected: Vec<(String, Value)> = value
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(get(&line, "id"), Some(&b"\"m1\""[..]));
        assert_eq!(as_str(get(&line, "q\\\"k").unwrap()).unwrap(), "v\\\"");
        assert_eq!(as_str(b"12"), None);
        assert_eq!(fields(b"[1,2]").count(), 0);
        assert_eq!(
            array_items(br#"[1,"a,]",[2,3],{"k":"}"}]"#).collect::<Vec<_>>(),
            [&b"1"[..], b"\"a,]\"", b"[2,3]", br#"{"k":"}"}"#]
        );
        assert_eq!(array_items(b"[]").count(), 0);
        assert_eq!(fields(b"{}").count(), 0);
        assert_eq!(fields(b"\"text\"").count(), 0);
    }
}
