//! The one byte scan of JSON strings: where the next byte is that JSON must escape (`"`,
//! `\\` or a control character), eight bytes at a time (SWAR: one 64-bit word holds eight
//! bytes, and a few integer operations flag the special ones among them).
//!
//! The writer copies the runs between such bytes as they are ([`crate::write::write_str`]);
//! readers of JSON text skip them the same way to find a string's end or its first escape.
//!
//! ```
//! use lro_json::scan::next_escape;
//!
//! let text = br#"plain text, then a "quote""#;
//! assert_eq!(next_escape(text, 0), 19);
//! assert_eq!(next_escape(b"no specials at all", 0), 18);
//! ```

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
pub fn next_escape(bytes: &[u8], mut from: usize) -> usize {
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

/// The end of the JSON number token starting at `start`, or `None` when the text there is
/// not one (`01`, `1.`, `.5`, `1e`, `-`): `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
pub fn number_end(bytes: &[u8], start: usize) -> Option<usize> {
    let digits = |mut pos: usize| {
        let from = pos;
        while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        (pos > from).then_some(pos)
    };
    let mut pos = start + usize::from(bytes.get(start) == Some(&b'-'));
    pos = match bytes.get(pos)? {
        b'0' => pos + 1,
        b'1'..=b'9' => digits(pos)?,
        _ => return None,
    };
    if bytes.get(pos) == Some(&b'.') {
        pos = digits(pos + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = bytes.get(pos) {
            pos += 1;
        }
        pos = digits(pos)?;
    }
    // "01" or "1x": serde_json reads the token and then fails on what follows; the scan
    // leaves that failure to the caller's structural checks, except for a digit.
    if bytes.get(pos).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_scan_from_any_offset_stops_at_the_first_special_byte() {
        let text = b"abcdefghijklmnop\"qrstuvwxyz0123456789";
        assert_eq!(next_escape(text, 0), 16);
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 24];
                bytes[at] = special;
                // Bytes above the first special one must not confuse the scan.
                bytes[at + 1..]
                    .iter_mut()
                    .step_by(2)
                    .for_each(|b| *b = 0x80);
                assert_eq!(next_escape(&bytes, 0), at, "{special} at {at}");
            }
        }
        // Bytes of UTF-8 sequences and DEL are plain.
        let text = "é€😀 ~\x7f".as_bytes();
        assert_eq!(next_escape(text, 0), text.len());
    }
}
