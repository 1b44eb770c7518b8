//! Compact JSON output, byte for byte what `serde_json::to_writer` writes, only faster.
//!
//! Profiles of offloading put serde_json's string escaping (one table lookup per byte) at
//! a third of the time. Here strings are scanned eight bytes at a time for the only bytes
//! that need escaping (`"`, `\` and control characters) and copied in runs. Numbers are
//! their text (serde_json's `arbitrary_precision`), so the digits are the ones read. Property tests check the equality on arbitrary values.

use serde_json::{Number, Value};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Bytes of `word` equal to `byte`, flagged in their high bit. Exact for the lowest
/// flagged byte (borrows only run upwards), which is all the callers use.
#[inline]
const fn eq_mask(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * byte as u64);
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// Bytes of `word` below 0x20 (control characters), flagged in their high bit.
#[inline]
const fn control_mask(word: u64) -> u64 {
    word.wrapping_sub(ONES * 0x20) & !word & HIGHS
}

/// The 8 bytes at `bytes[at..]` as a little-endian word.
#[inline]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Bytes of `word` that JSON must escape, flagged in their high bit.
#[inline]
const fn escape_mask(word: u64) -> u64 {
    eq_mask(word, b'"') | eq_mask(word, b'\\') | control_mask(word)
}

/// Offset of the first byte of `bytes[from..]` that JSON must escape, or `bytes.len()`.
#[inline]
pub(crate) fn next_escape(bytes: &[u8], mut from: usize) -> usize {
    let len = bytes.len();
    while from + 8 <= len {
        let mask = escape_mask(word_at(bytes, from));
        if mask != 0 {
            return from + (mask.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    if from >= len {
        return len;
    }
    if len >= 8 {
        // The last few bytes: the word ending at `len`, shifted so that it starts at
        // `from`. The zero bytes shifted in at the top would read as control characters:
        // they are masked off (borrows only run upwards, so they cannot disturb the rest).
        let skip = (from - (len - 8)) * 8;
        let mask = escape_mask(word_at(bytes, len - 8) >> skip) & (u64::MAX >> skip);
        return if mask == 0 {
            len
        } else {
            from + (mask.trailing_zeros() / 8) as usize
        };
    }
    while from < len && !needs_escape(bytes[from]) {
        from += 1;
    }
    from
}

/// Whether each byte needs escaping: one load per byte in the short loop, where three
/// comparisons cost twice as much.
static NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

#[inline]
fn needs_escape(byte: u8) -> bool {
    NEEDS_ESCAPE[byte as usize]
}

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

/// Writes a number as serde_json's parser holds it: with `arbitrary_precision`
/// (workspace-wide) a `Number` is its text, the digits as read, and the exponent marker
/// written `e` with its sign (`1E2` reads as `1e+2`). A double serde_json formats itself
/// (`Number::from_f64`) says `1e22`; it is written `1e+22`, as that text would read, so a
/// number has one spelling whichever path it took (and Python's `repr` and JavaScript's
/// `String` agree).
#[inline]
pub fn write_number(out: &mut Vec<u8>, n: &Number) {
    write_number_text(out, n.as_str().as_bytes());
}

/// Where a number token's exponent marker is, if it has one.
#[inline]
fn exponent_at(token: &[u8]) -> Option<usize> {
    token.iter().position(|&b| b == b'e' || b == b'E')
}

/// Whether the number token `token` is already written as [`write_number`] writes it.
#[inline]
pub(crate) fn number_is_canonical(token: &[u8]) -> bool {
    exponent_at(token)
        .is_none_or(|at| token[at] == b'e' && matches!(token.get(at + 1), Some(b'+' | b'-')))
}

/// Writes the valid JSON number token `token` as [`write_number`] does.
pub(crate) fn write_number_text(out: &mut Vec<u8>, token: &[u8]) {
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
    let token = n.as_str().as_bytes();
    let unsigned_exponent =
        exponent_at(token).is_some_and(|at| !matches!(token.get(at + 1), Some(b'+' | b'-')));
    token.len() + usize::from(unsigned_exponent)
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    pub(crate) fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::from),
            "[\\x00-\\x7f]{0,24}".prop_map(Value::from),
            any::<String>().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-z\"\\\\\\n]{0,4}", inner), 0..6)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn finds_every_escape_at_every_offset() {
        for len in 0..40 {
            for target in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut bytes = vec![b'a'; len];
                    bytes[target] = special;
                    for from in 0..=target {
                        assert_eq!(
                            next_escape(&bytes, from),
                            target,
                            "len {len} target {target} from {from}"
                        );
                    }
                    assert_eq!(next_escape(&bytes, target + 1), len);
                    // An escape just handled, right before `from`, must not leak into the next.
                    let mut two = bytes.clone();
                    two[target] = b'"';
                    if target + 1 < len {
                        two[target + 1] = b'#';
                        assert_eq!(
                            next_escape(&two, target + 1),
                            len,
                            "len {len} after {target}"
                        );
                    }
                }
            }
            // Bytes that look close to the special ones but are not.
            let plain: Vec<u8> = (0..len)
                .map(|i| [b' ', b'!', b'#', b'[', b']', 0x7f, 0x80, 0xff][i % 8])
                .collect();
            assert_eq!(next_escape(&plain, 0), len);
        }
    }

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

    /// `value` as serde_json writes it once its numbers are read from text, the only way
    /// records reach a file (doubles it formats itself say `1e22`, text reads as `1e+22`).
    pub(crate) fn serde_text(value: &Value) -> String {
        let reread: Value = serde_json::from_str(&serde_json::to_string(value).unwrap()).unwrap();
        serde_json::to_string(&reread).unwrap()
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
        let made = Number::from_f64(1e22).unwrap();
        assert_eq!(to_string(&Value::Number(made.clone())), "1e+22");
        assert_eq!(number_len(&made), 5);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn identical_to_serde_json(value in arb_json()) {
            prop_assert_eq!(to_string(&value), serde_text(&value));
        }
    }
}
