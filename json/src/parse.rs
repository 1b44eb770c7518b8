//! JSON text to a `serde_json::Value` whose numbers keep their text byte for byte.
//!
//! With `arbitrary_precision` serde_json keeps a number's digits, but its reader respells the
//! exponent: `1E5` is read as `1e+5`, `0e0` as `0e+0`. [`from_slice`] reads with serde_json
//! (its grammar, errors, depth limit, and duplicate keys: the last value kept), then, only
//! when the text holds a number serde_json may have respelled ([`respelled`]), walks the text
//! beside the value and puts each number's own token back. Everything that reads a text
//! into a `Value` that is written again (offloaded records, extracted records) reads it here,
//! so a number only passed through is written as it came.
//!
//! ```
//! let value = lro_json::parse::from_slice(br#"{"a": [1E5, 0e0, 1.5e-3], "b": "1E5"}"#).unwrap();
//! assert_eq!(value.to_string(), r#"{"a":[1E5,0e0,1.5e-3],"b":"1E5"}"#);
//! assert_eq!(serde_json::from_str::<serde_json::Value>("1E5").unwrap().to_string(), "1e+5");
//! ```

use serde_json::{Number, Value};

use crate::scan::number_end;

/// Reads `text` as serde_json does, numbers kept as written.
pub fn from_slice(text: &[u8]) -> serde_json::Result<Value> {
    let mut value: Value = serde_json::from_slice(text)?;
    if respelled(text) {
        restore(text, &mut value);
    }
    Ok(value)
}

/// [`from_slice`] of a `str`.
pub fn from_str(text: &str) -> serde_json::Result<Value> {
    from_slice(text.as_bytes())
}

/// [`from_str`], but a text refused only for its lone UTF-16 surrogates (`"\ud800"`, an
/// escape JSON's grammar allows and no string can hold) is read with each kept as the six
/// characters of its escape ([`escape_lone_surrogates`]): a tool result with one such
/// escape is still read, rather than refused whole. Any other fault is serde_json's error.
pub fn from_str_keeping_lone_surrogates(text: &str) -> serde_json::Result<Value> {
    from_str(text).or_else(|err| {
        escape_lone_surrogates(text)
            .and_then(|escaped| from_str(&escaped).ok())
            .ok_or(err)
    })
}

/// The JSON text `text` with the backslash of every lone surrogate escape doubled, so that
/// the string holding it reads as the escape's six characters (`\ud800`); `None` when it
/// has none. A surrogate pair is left as it is.
pub fn escape_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if &hex[..2] != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut out, mut copied, mut i) = (String::new(), 0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[copied..i]);
                out.push('\\');
                copied = i;
                i += 6;
            }
            // Any other escape, `\\` among them, is two characters on.
            _ => i += 2,
        }
    }
    // Something was written exactly when an escape was doubled.
    (!out.is_empty()).then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// Whether serde_json's reader may spell a number of `text` otherwise than `text` does: it
/// holds an `E`, or an `e` followed by a digit (an exponent without its sign). A string may
/// hold them too: the walk then finds nothing to put back. Most texts hold neither, and are
/// read once.
pub fn respelled(text: &[u8]) -> bool {
    memchr::memchr(b'E', text).is_some()
        || memchr::memchr_iter(b'e', text)
            .any(|at| text.get(at + 1).is_some_and(u8::is_ascii_digit))
}

/// How many numbers of `text` (valid JSON) have an exponent without its sign (`1E5`, `0e0`):
/// each is one byte longer in serde_json reader's spelling (`1e+5`). Outside strings an `e`
/// or `E` followed by a digit is such an exponent (`true` and `false` end in an `e` followed
/// by no digit).
pub fn unsigned_exponents(text: &[u8]) -> usize {
    let (mut count, mut at) = (0, 0);
    while let Some(offset) = text
        .get(at..)
        .and_then(|rest| memchr::memchr3(b'"', b'e', b'E', rest))
    {
        at += offset;
        if text[at] == b'"' {
            at = string_end(text, at);
            continue;
        }
        at += 1;
        count += usize::from(text.get(at).is_some_and(u8::is_ascii_digit));
    }
    count
}

/// A number token as a `Number` that keeps it: `token` must be one JSON number token.
pub fn number_of_token(token: &str) -> Number {
    Number::from_string_unchecked(token.to_owned())
}

/// Puts the number tokens of `text` back into `value`, which serde_json read from `text`
/// (valid JSON). A key named twice is walked each time, in order, so its last value (the
/// one serde_json kept) gets its own tokens last; a value of another shape is skipped.
pub fn restore(text: &[u8], value: &mut Value) {
    Walk { text, pos: 0 }.value(Some(value));
}

struct Walk<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Walk<'_> {
    fn skip_ws(&mut self) {
        while matches!(self.text.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Walks the value at `pos`, putting its numbers into `value` when it has its shape.
    /// The text is valid JSON that serde_json read (at most 128 levels deep), so the
    /// recursion is bounded; anything unexpected ends the walk.
    fn value(&mut self, value: Option<&mut Value>) -> Option<()> {
        self.skip_ws();
        match *self.text.get(self.pos)? {
            b'{' => {
                self.pos += 1;
                let mut map = match value {
                    Some(Value::Object(map)) => Some(map),
                    _ => None,
                };
                loop {
                    self.skip_ws();
                    match *self.text.get(self.pos)? {
                        b'}' => {
                            self.pos += 1;
                            return Some(());
                        }
                        b',' => self.pos += 1,
                        b'"' => {
                            let start = self.pos;
                            self.pos = string_end(self.text, start);
                            let key = key_of(&self.text[start..self.pos]);
                            self.skip_ws();
                            if self.text.get(self.pos) != Some(&b':') {
                                return None;
                            }
                            self.pos += 1;
                            let child = match (map.as_deref_mut(), key) {
                                (Some(map), Some(key)) => map.get_mut(&key),
                                _ => None,
                            };
                            self.value(child)?;
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = match value {
                    Some(Value::Array(items)) => Some(items.iter_mut()),
                    _ => None,
                };
                loop {
                    self.skip_ws();
                    match *self.text.get(self.pos)? {
                        b']' => {
                            self.pos += 1;
                            return Some(());
                        }
                        b',' => self.pos += 1,
                        _ => {
                            let child = items.as_mut().and_then(Iterator::next);
                            self.value(child)?;
                        }
                    }
                }
            }
            b'"' => {
                self.pos = string_end(self.text, self.pos);
                Some(())
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(self.text, self.pos)?;
                let token = std::str::from_utf8(&self.text[self.pos..end]).ok()?;
                if let Some(Value::Number(n)) = value {
                    if n.as_str() != token {
                        *n = number_of_token(token);
                    }
                }
                self.pos = end;
                Some(())
            }
            b't' | b'n' => {
                self.pos += 4;
                Some(())
            }
            b'f' => {
                self.pos += 5;
                Some(())
            }
            _ => None,
        }
    }
}

/// One past the closing quote of the string opening at `open`.
fn string_end(text: &[u8], open: usize) -> usize {
    let mut at = open + 1;
    while let Some(offset) = text
        .get(at..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        at += offset;
        if text[at] == b'"' {
            return at + 1;
        }
        at += 2;
    }
    text.len()
}

/// A key's content as serde_json reads it (escapes decoded).
fn key_of(quoted: &[u8]) -> Option<String> {
    if quoted.contains(&b'\\') {
        serde_json::from_slice::<String>(quoted).ok()
    } else {
        std::str::from_utf8(quoted.get(1..quoted.len().checked_sub(1)?)?)
            .ok()
            .map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::arb_json;
    use proptest::prelude::*;

    #[test]
    fn lone_surrogates_are_kept_as_the_text_of_their_escape() {
        for (text, read) in [
            (r#"{"a": "x \ud800"}"#, r#"{"a":"x \\ud800"}"#),
            (
                r#"["\udc00\ud800", "\ud83d\ude00"]"#,
                r#"["\\udc00\\ud800","😀"]"#,
            ),
            (r#"{"a": "\\ud800 \ud800"}"#, r#"{"a":"\\ud800 \\ud800"}"#),
            (r#""end \udbff""#, r#""end \\udbff""#),
        ] {
            let value = from_str_keeping_lone_surrogates(text).unwrap();
            assert_eq!(value.to_string(), read, "{text}");
        }
        // Nothing to escape, or another fault: serde_json's own answer.
        assert_eq!(
            escape_lone_surrogates(r#"{"a": "\ud83d\ude00 \\ud800"}"#),
            None
        );
        assert!(from_str_keeping_lone_surrogates(r#"{"a": "\ud800", }"#).is_err());
        assert!(from_str_keeping_lone_surrogates(r#"{"a": "\ud80"}"#).is_err());
    }

    #[test]
    fn numbers_keep_their_tokens() {
        for (text, kept) in [
            (
                "[1E5,1E+2,0e0,1.2345678901234567890123e5,-1E-7,1e400]",
                None,
            ),
            (r#"{"a":1E5,"b":{"c":[2E2,{"d":3e3}]},"e":"4E4"}"#, None),
            // The last value of a key named twice, with its own tokens.
            (
                r#"{"a":[1E1,2E2],"a":[3E3],"b":1}"#,
                Some(r#"{"a":[3E3],"b":1}"#),
            ),
            (r#"{"a":{"x":1E1},"a":5E5}"#, Some(r#"{"a":5E5}"#)),
            (r#"{"\u0061":1E1}"#, Some(r#"{"a":1E1}"#)),
            (" [ 1E5 , { \"k\" : 2e2 } ] ", Some(r#"[1E5,{"k":2e2}]"#)),
        ] {
            let value = from_str(text).unwrap();
            assert_eq!(value.to_string(), kept.unwrap_or(text), "{text}");
        }
        assert!(from_str("[1E5").is_err());
        assert!(!respelled(br#"{"name":"ex","n":1e+5,"m":2.5e-3}"#));
        assert!(respelled(b"[1e5]") && respelled(b"[1E+5]"));
        assert_eq!(
            unsigned_exponents(br#"[1e5,1E+5,0e0,"1e5",true,false,{"e1":2E3}]"#),
            3
        );
    }

    proptest! {
        /// Whatever serde_json reads, this reads alike but for the spelling of exponents.
        #[test]
        fn agrees_with_serde_json(value in arb_json(), upper in any::<bool>()) {
            let mut text = serde_json::to_string_pretty(&value).unwrap();
            if upper {
                text = text.replace("e+", "E").replace("e-", "E-");
            }
            let ours = from_str(&text).unwrap();
            let theirs: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(
                serde_json::to_string(&ours).unwrap().to_lowercase().replace("e+", "e"),
                serde_json::to_string(&theirs).unwrap().to_lowercase().replace("e+", "e")
            );
        }
    }
}
