//! Compact JSON output, byte for byte what `serde_json::to_writer` writes, only faster.
//!
//! Profiles of offloading put serde_json's string escaping (one table lookup per byte) at
//! a third of the time. Here strings are scanned eight bytes at a time for the only bytes
//! that need escaping (`"`, `\` and control characters) and copied in runs
//! ([`crate::scan`]). Numbers are their text (serde_json's `arbitrary_precision`), so the
//! digits are the ones read. Property tests check the equality on arbitrary values.

use serde_json::{Number, Value};

use crate::scan::next_escape;

/// Writes `byte`'s escape sequence as serde_json does: short forms for `\b \t \n \f \r`,
/// `\u00xx` (lowercase hex) for the other control characters.
#[inline]
pub(crate) fn write_escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\t' => out.extend_from_slice(b"\\t"),
        b'\r' => out.extend_from_slice(b"\\r"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        _ => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(byte >> 4) as usize],
            HEX[(byte & 0xf) as usize],
        ]),
    }
}

/// Writes `s` as a JSON string.
///
/// Inlined: records are mostly short keys and values, where a call's prologue and
/// epilogue cost as much as the scan; the rare escaping is out of line. Not on wasm,
/// where the module's size budget comes first.
#[cfg_attr(not(target_family = "wasm"), inline(always))]
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let at = next_escape(bytes, 0);
    if at == bytes.len() {
        out.extend_from_slice(bytes);
    } else {
        write_escaped(out, bytes, at);
    }
    out.push(b'"');
}

/// The inside of a JSON string whose first byte to escape is at `at`.
#[cold]
#[inline(never)]
fn write_escaped(out: &mut Vec<u8>, bytes: &[u8], mut at: usize) {
    out.reserve(8);
    out.extend_from_slice(&bytes[..at]);
    write_escape(out, bytes[at]);
    let mut start = at + 1;
    loop {
        at = next_escape(bytes, start);
        out.extend_from_slice(&bytes[start..at]);
        if at == bytes.len() {
            break;
        }
        write_escape(out, bytes[at]);
        start = at + 1;
    }
}

/// Writes a number as its text, as serde_json writes it: with `arbitrary_precision`
/// (workspace-wide) a `Number` is its text, and one read by [`crate::parse`] is the token it
/// was read from, byte for byte (`1E5` stays `1E5`). A double LRO formats itself takes the
/// spelling serde_json's reader gives a text ([`number_from_f64`]: `1e+22`), as Python's
/// `repr` and JavaScript's `String` do.
#[inline]
pub fn write_number(out: &mut Vec<u8>, n: &Number) {
    out.extend_from_slice(n.as_str().as_bytes());
}

/// The number of a finite double as LRO writes a double it formats itself (a jq result, a
/// Python float): serde_json's shortest digits, the exponent spelled as serde_json's reader
/// spells a text's (`1e22` as `1e+22`). `None` for NaN and infinities.
pub fn number_from_f64(f: f64) -> Option<Number> {
    let n = Number::from_f64(f)?;
    let token = n.as_str().as_bytes();
    if number_is_canonical(token) {
        return Some(n);
    }
    let mut spelled = Vec::with_capacity(token.len() + 1);
    write_number_text(&mut spelled, token);
    String::from_utf8(spelled)
        .ok()
        .map(|text| crate::parse::number_of_token(&text))
}

/// Where a number token's exponent marker is, if it has one.
#[inline]
fn exponent_at(token: &[u8]) -> Option<usize> {
    token.iter().position(|&b| b == b'e' || b == b'E')
}

/// Whether the number token `token` is spelled as serde_json's reader spells it (`e` and a
/// sign in an exponent).
#[inline]
pub fn number_is_canonical(token: &[u8]) -> bool {
    exponent_at(token)
        .is_none_or(|at| token[at] == b'e' && matches!(token.get(at + 1), Some(b'+' | b'-')))
}

/// Writes the valid JSON number token `token` as serde_json's reader spells it (`1E2` as
/// `1e+2`).
pub fn write_number_text(out: &mut Vec<u8>, token: &[u8]) {
    match exponent_at(token) {
        Some(at) if !number_is_canonical(token) => {
            out.extend_from_slice(&token[..at]);
            out.push(b'e');
            if !matches!(token.get(at + 1), Some(b'+' | b'-')) {
                out.push(b'+');
            }
            out.extend_from_slice(&token[at + 1..]);
        }
        _ => out.extend_from_slice(token),
    }
}

/// Whether `n` is written as an integer (no fraction, no exponent), whatever its size: JSON
/// Schema's `integer`, which a 64-bit test (`is_i64`, `is_u64`) misses beyond 64 bits.
pub fn number_is_integer(n: &Number) -> bool {
    !n.as_str().bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

/// The length [`write_number`] writes for `n`.
pub fn number_len(n: &Number) -> usize {
    n.as_str().len()
}

/// Writes `value` as compact JSON, identical to `serde_json::to_writer(out, value)`.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(fields) => {
            out.push(b'{');
            for (i, (key, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, key);
                out.push(b':');
                write_value(out, item);
            }
            out.push(b'}');
        }
    }
}

/// `value` as a compact JSON string.
pub fn to_string(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(&mut out, value);
    // Only `str` slices and ASCII were written: always UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// The length of `value`'s compact JSON with escapes not counted (a string counts its UTF-8
/// bytes and two quotes), up to `cap`: the walk stops once the count passes `cap`, which is
/// then the answer. A cheap measure for deciding what is small, not an exact length.
///
/// ```
/// use serde_json::json;
///
/// assert_eq!(lro_json::write::unescaped_len(&json!({"a": [1, true]}), 100), 14);
/// assert_eq!(lro_json::write::unescaped_len(&json!("a\nb"), 100), 5);
/// assert_eq!(lro_json::write::unescaped_len(&json!([1, 2, 3, 4]), 3), 3);
/// ```
pub fn unescaped_len(value: &Value, cap: usize) -> usize {
    fn walk(value: &Value, cap: usize, total: &mut usize) {
        if *total > cap {
            return;
        }
        *total += match value {
            Value::Null => 4,
            Value::Bool(b) => 4 + usize::from(!b),
            Value::Number(n) => n.to_string().len(),
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                *total += 2 + items.len().saturating_sub(1);
                for item in items {
                    walk(item, cap, total);
                }
                0
            }
            Value::Object(fields) => {
                *total += 2 + fields.len().saturating_sub(1);
                for (key, item) in fields {
                    *total += key.len() + 3;
                    walk(item, cap, total);
                }
                0
            }
        };
    }
    let mut total = 0;
    walk(value, cap, &mut total);
    total.min(cap)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::strategy::arb_json;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn escapes_like_serde_json() {
        for s in [
            "",
            "plain",
            "q\"b\\s/",
            "\u{0}\u{1f}\u{7f}\u{8}\u{c}\n\r\t",
            "émoji 🦀 東京",
            "0123456789abcdef\"0123456789",
        ] {
            assert_eq!(
                to_string(&json!(s)),
                serde_json::to_string(s).unwrap(),
                "{s:?}"
            );
        }
    }

    /// `value` as serde_json writes it.
    pub(crate) fn serde_text(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn numbers_keep_their_text() {
        for (text, out) in [
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("-9223372036854775809", "-9223372036854775809"),
            (
                "3.14159265358979323846264338327950288",
                "3.14159265358979323846264338327950288",
            ),
            ("1.50", "1.50"),
            ("-0", "-0"),
            ("1e400", "1e+400"),
            ("1E2", "1e+2"),
            ("1E-2", "1e-2"),
        ] {
            let n: Number = serde_json::from_str(text).unwrap();
            assert_eq!(to_string(&Value::Number(n.clone())), out);
            assert_eq!(number_len(&n), out.len());
        }
        // Read by `crate::parse`, a number keeps its token.
        for token in ["1E5", "1E+2", "0e0", "1.2345678901234567890123e5", "-1E-7"] {
            let value = crate::parse::from_str(token).unwrap();
            assert_eq!(to_string(&value), token);
        }
        // A double LRO formats itself: spelled as serde_json's reader spells a text.
        for (f, text) in [(1e22, "1e+22"), (1.5e-7, "1.5e-7"), (0.1, "0.1")] {
            let ours = number_from_f64(f).unwrap();
            assert_eq!(to_string(&Value::Number(ours.clone())), text);
            assert_eq!(number_len(&ours), text.len());
        }
        assert_eq!(number_from_f64(1.5).unwrap().as_str(), "1.5");
        assert!(number_from_f64(f64::NAN).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn identical_to_serde_json(value in arb_json()) {
            prop_assert_eq!(to_string(&value), serde_text(&value));
        }
    }
}
