//! JSON text to compact JSON, without building a tree: the fast path for results that
//! arrive as text (MCP tool results, Python `str`/`bytes`, JS strings).
//!
//! The output is exactly what `serde_json::to_string(&crate::parse::from_slice(..))` would
//! give, because the JSONL file and the descriptor must not depend on which path a
//! result took. Most of the text is already in that form: the scan only reads it, and copies
//! it in runs (one per element when the text is compact) up to the first thing that needs
//! changing, which gets serde_json's own treatment:
//! - whitespace outside strings is dropped;
//! - strings are copied as they are unless an escape is not the one serde_json writes
//!   (`\/`, `\u00e9`, `\u000A`, ...): such a string is decoded and re-encoded;
//! - numbers are copied as written, byte for byte (`1E2` too), as [`crate::parse`] reads
//!   them into a `Value` (serde_json's own reader would respell the exponent: `1e+2`).
//!
//! Anything the copy could get wrong makes the scan give up (`None`) and the caller falls
//! back to parsing a `Value`, which then decides, errors included: invalid JSON or UTF-8,
//! duplicate keys (a `Value` keeps the last), nesting near serde_json's depth limit.

use crate::scan::{next_escape, number_end};
use crate::write::write_str;

/// Deeper nesting falls back to serde_json, whose limit (128) then applies exactly.
const MAX_DEPTH: usize = 100;

/// Up to this many keys, duplicates are found by comparing pairs; beyond it, by sorting.
const PAIRWISE_KEYS: usize = 24;

/// The elements of a JSON array as compact JSON, one per line.
#[derive(Debug, Default)]
pub struct Lines {
    /// Every element followed by `\n`.
    pub bytes: Vec<u8>,
    /// The offset just past each element's `\n`.
    pub line_ends: Vec<usize>,
}

/// Splits a JSON array into compact element lines; `None` when `input` is not an array or
/// the fast path cannot vouch for its output (the caller then parses a `Value`).
pub fn array_lines(input: &[u8]) -> Option<Lines> {
    let mut lines = Lines {
        bytes: Vec::with_capacity(input.len()),
        line_ends: Vec::new(),
    };
    for_each_element(input, |element| {
        lines.bytes.extend_from_slice(element.text);
        lines.bytes.push(b'\n');
        lines.line_ends.push(lines.bytes.len());
        true
    })?;
    Some(lines)
}

/// Where a top-level field of an element object sits in the element's compact text: its
/// key (between the quotes, still escaped) and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpan {
    /// Start and end of the key's bytes.
    pub key: (usize, usize),
    /// Start and end of the value's JSON text.
    pub value: (usize, usize),
}

/// One element of the array: its compact text and, for an object, where its fields are
/// (noted while scanning, so readers need not walk the text again).
#[derive(Debug, Clone, Copy)]
pub struct Element<'a> {
    /// The element as compact JSON.
    pub text: &'a [u8],
    /// The element's top-level fields in order; empty for other values.
    pub fields: &'a [FieldSpan],
}

impl<'a> Element<'a> {
    /// The key of `field`, still escaped (canonical: one spelling per key).
    pub fn key(&self, field: &FieldSpan) -> &'a [u8] {
        &self.text[field.key.0..field.key.1]
    }

    /// The JSON text of `field`'s value.
    pub fn value(&self, field: &FieldSpan) -> &'a [u8] {
        &self.text[field.value.0..field.value.1]
    }

    /// The value of the field named `name` (a key needing no escapes).
    pub fn get(&self, name: &str) -> Option<&'a [u8]> {
        self.fields
            .iter()
            .find(|f| self.key(f) == name.as_bytes())
            .map(|f| self.value(f))
    }
}

/// Hands each element of a JSON array to `each`, in order, until it returns `false` (the
/// rest of the text is then not read). Returns whether every element was handed over, or
/// `None` when `input` is not an array or the fast path cannot vouch for its output (the
/// caller then parses a `Value`). Elements are written to one scratch buffer, reused: a
/// large array never needs a second copy of itself in memory.
pub fn for_each_element(input: &[u8], mut each: impl FnMut(Element<'_>) -> bool) -> Option<bool> {
    // One UTF-8 check up front (fast, vectorized) lets the scan copy strings as bytes.
    std::str::from_utf8(input).ok()?;
    let mut scan = Scanner {
        input,
        pos: 0,
        out: Vec::with_capacity(4096),
        run: 0,
        keys: Vec::new(),
        fields: Vec::new(),
    };
    scan.skip_ws();
    scan.expect(b'[')?;
    scan.skip_ws();
    let mut complete = true;
    if scan.peek() == Some(b']') {
        scan.pos += 1;
    } else {
        loop {
            scan.out.clear();
            scan.fields.clear();
            scan.run = scan.pos;
            scan.value(ELEMENT_DEPTH)?;
            scan.flush();
            scan.skip_ws();
            let last = match scan.next()? {
                b',' => false,
                b']' => true,
                _ => return None,
            };
            let element = Element {
                text: &scan.out,
                fields: &scan.fields,
            };
            if !each(element) {
                complete = false;
                break;
            }
            if last {
                break;
            }
            scan.skip_ws();
        }
    }
    if complete {
        scan.skip_ws();
        if scan.pos != input.len() {
            return None;
        }
    }
    Some(complete)
}

/// One JSON value given as text, as compact JSON (what [`for_each_element`] gives for an
/// element); `None` when the fast path cannot vouch for it.
pub fn compact_value(input: &[u8]) -> Option<Vec<u8>> {
    std::str::from_utf8(input).ok()?;
    let mut scan = Scanner {
        input,
        pos: 0,
        out: Vec::with_capacity(input.len()),
        run: 0,
        keys: Vec::new(),
        fields: Vec::new(),
    };
    scan.skip_ws();
    scan.value(ELEMENT_DEPTH)?;
    scan.flush();
    scan.skip_ws();
    (scan.pos == input.len()).then_some(scan.out)
}

/// The depth of the array's elements, whose fields are noted.
const ELEMENT_DEPTH: usize = 1;

struct Scanner<'a> {
    input: &'a [u8],
    pos: usize,
    out: Vec<u8>,
    /// Where the input not yet copied to `out` starts: `input[run..pos]` is read, already
    /// canonical, and goes out as it is at the next [`Scanner::flush`].
    run: usize,
    /// Output spans of the keys of the objects being scanned (a stack: nested objects push
    /// above their parent's keys and pop them when they end).
    keys: Vec<(usize, usize)>,
    /// The fields of the current element, when it is an object.
    fields: Vec<FieldSpan>,
}

impl Scanner<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    #[inline]
    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.pos += 1;
        Some(byte)
    }

    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    /// Copies the input read but not yet copied.
    #[inline]
    fn flush(&mut self) {
        self.out.extend_from_slice(&self.input[self.run..self.pos]);
        self.run = self.pos;
    }

    /// The output offset of the input at `pos`, once what is pending is copied.
    #[inline]
    fn out_pos(&self) -> usize {
        self.out.len() + (self.pos - self.run)
    }

    /// The output bytes at `start..end`, copied or still pending (a token is never split
    /// between the two: flushes happen between tokens).
    fn emitted(&self, (start, end): (usize, usize)) -> &[u8] {
        let copied = self.out.len();
        if end <= copied {
            &self.out[start..end]
        } else {
            &self.input[self.run + (start - copied)..self.run + (end - copied)]
        }
    }

    /// Skips whitespace, which is not copied.
    #[inline]
    fn skip_ws(&mut self) {
        if let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.flush();
            while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
                self.pos += 1;
            }
            self.run = self.pos;
        }
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.pos + word.len();
        (self.input.get(self.pos..end)? == word).then_some(())?;
        self.pos = end;
        Some(())
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.skip_ws();
            self.value(depth + 1)?;
            self.skip_ws();
            match self.next()? {
                b',' => {}
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(());
        }
        let first_key = self.keys.len();
        loop {
            self.skip_ws();
            if self.peek()? != b'"' {
                return None;
            }
            let key_start = self.out_pos();
            self.string()?;
            let key = (key_start, self.out_pos());
            self.keys.push(key);
            self.skip_ws();
            self.expect(b':')?;
            self.skip_ws();
            let value_start = self.out_pos();
            self.value(depth + 1)?;
            if depth == ELEMENT_DEPTH {
                self.fields.push(FieldSpan {
                    key: (key.0 + 1, key.1 - 1),
                    value: (value_start, self.out_pos()),
                });
            }
            self.skip_ws();
            match self.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        let unique = self.keys_unique(first_key);
        self.keys.truncate(first_key);
        unique.then_some(())
    }

    /// Whether the keys pushed since `first` are distinct. Canonical strings have one
    /// spelling each, so comparing bytes compares the decoded keys.
    fn keys_unique(&self, first: usize) -> bool {
        let spans = &self.keys[first..];
        if spans.len() <= PAIRWISE_KEYS {
            let mut keys: [&[u8]; PAIRWISE_KEYS] = [&[]; PAIRWISE_KEYS];
            for (slot, &span) in keys.iter_mut().zip(spans) {
                *slot = self.emitted(span);
            }
            let keys = &keys[..spans.len()];
            keys.iter()
                .enumerate()
                .all(|(i, a)| keys[i + 1..].iter().all(|b| a != b))
        } else {
            let mut sorted: Vec<&[u8]> = spans.iter().map(|&span| self.emitted(span)).collect();
            sorted.sort_unstable();
            sorted.windows(2).all(|w| w[0] != w[1])
        }
    }

    /// Reads a string whose escapes are all serde_json's own (it goes out as it is);
    /// re-encodes any other. Inlined: most strings are short keys and values, where a
    /// call's prologue and epilogue cost a third of the scan. Not on wasm, where the
    /// module's size budget comes first.
    #[cfg_attr(not(target_family = "wasm"), inline(always))]
    fn string(&mut self) -> Option<()> {
        let open = self.pos;
        let mut pos = open + 1;
        loop {
            let at = next_escape(self.input, pos);
            match self.input.get(at)? {
                b'"' => {
                    self.pos = at + 1;
                    return Some(());
                }
                b'\\' => match self.input.get(at + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => pos = at + 2,
                    b'u' if canonical_unicode_escape(self.input.get(at + 2..at + 6)?) => {
                        pos = at + 6
                    }
                    _ => {
                        self.flush();
                        return self.reencode_string(open);
                    }
                },
                // A raw control character: invalid JSON.
                _ => return None,
            }
        }
    }

    /// Decodes the string at `open` with serde_json and writes it back canonically.
    #[cold]
    #[inline(never)]
    fn reencode_string(&mut self, open: usize) -> Option<()> {
        let mut end = open + 1;
        loop {
            match self.input.get(end)? {
                b'"' => break,
                b'\\' => end += 2,
                _ => end += 1,
            }
        }
        let decoded: String = serde_json::from_slice(&self.input[open..=end]).ok()?;
        write_str(&mut self.out, &decoded);
        self.pos = end + 1;
        self.run = self.pos;
        Some(())
    }

    /// Reads a number, which goes out as it is written, byte for byte: `1.50`, `-0`, `1e400`,
    /// `1E2` and integers of any length ([`crate::parse`] keeps them alike). The grammar is
    /// checked (RFC 8259), as serde_json does.
    fn number(&mut self) -> Option<()> {
        self.pos = number_end(self.input, self.pos)?;
        Some(())
    }
}

/// `\uXXXX` (the four hex digits) as serde_json writes it: a control character without a
/// short form, in lowercase hex.
fn canonical_unicode_escape(hex: &[u8]) -> bool {
    let [b'0', b'0', hi @ (b'0' | b'1'), lo] = *hex else {
        return false;
    };
    let lo_value = match lo {
        b'0'..=b'9' => lo - b'0',
        b'a'..=b'f' => lo - b'a' + 10,
        _ => return false,
    };
    let code = (hi - b'0') * 16 + lo_value;
    !matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::arb_json;
    use proptest::prelude::*;
    use serde_json::Value;

    /// What the Value path writes for `input`, one element per line.
    fn via_value(input: &[u8]) -> Option<Vec<u8>> {
        let Value::Array(items) = crate::parse::from_slice(input).ok()? else {
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            serde_json::to_writer(&mut out, &item).unwrap();
            out.push(b'\n');
        }
        Some(out)
    }

    /// The fast path never disagrees with the Value path: when it answers, the answer is
    /// the Value path's; when the Value path fails, the fast path declines.
    fn check(input: &[u8]) {
        // Declining (None) is always allowed: the caller then takes the Value path.
        if let Some(compacted) = compact_value(input) {
            let value: Value = crate::parse::from_slice(input).expect("vouched for");
            assert_eq!(compacted, serde_json::to_vec(&value).unwrap());
        }
        if let Some(lines) = array_lines(input) {
            assert_eq!(
                Some(&lines.bytes),
                via_value(input).as_ref(),
                "input {:?}",
                String::from_utf8_lossy(input)
            );
            assert_eq!(
                lines.line_ends.last().copied().unwrap_or(0),
                lines.bytes.len()
            );
            // The noted fields are those a reader of the compact line finds.
            for_each_element(input, |element| {
                let noted: Vec<(&[u8], &[u8])> = element
                    .fields
                    .iter()
                    .map(|f| (element.key(f), element.value(f)))
                    .collect();
                let read: Vec<(&[u8], &[u8])> = crate::fields::fields(element.text).collect();
                assert_eq!(noted, read);
                true
            });
        }
    }

    #[test]
    fn edge_cases() {
        for text in [
            "[]",
            " [ ] ",
            "[1,-1,0,-0,0.5,1e2,1E+2,-0.0,123456789012345678,1234567890123456789,18446744073709551616,-9223372036854775809]",
            r#"["\/", "\u00e9", "\u000A", "\u001f", "\u001F", "\u0008", "\ud83e\udd80", "\"\\\b\f\n\r\t", "é🦀"]"#,
            r#"[{"a": 1, "b": {"c": [true, false, null]}}, "x", 3]"#,
            r#"[{"\u0061": 1, "a": 2}]"#,
            r#"[{"a": 1, "a": 2}]"#,
            r#"["\ud800"]"#,
            "[01]",
            "[1,]",
            "[1] x",
            "[\"a\u{1}\"]",
            "{\"a\": [1]}",
            "[1.0, 2.50, 1e400]",
        ] {
            check(text.as_bytes());
        }
        assert!(
            array_lines(br#"[{"a": 1, "a": 2}]"#).is_none(),
            "duplicate keys are left to serde_json"
        );
        let deep = format!("[{}{}]", "[".repeat(150), "]".repeat(150));
        assert!(array_lines(deep.as_bytes()).is_none());
        assert_eq!(
            array_lines(br#" [ {"a" : "x\/y"} ,2 ] "#).unwrap().bytes,
            b"{\"a\":\"x/y\"}\n2\n"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]
        #[test]
        fn agrees_with_serde_json_on_pretty_text(items in prop::collection::vec(arb_json(), 0..5)) {
            let value = Value::Array(items);
            let pretty = serde_json::to_vec_pretty(&value).unwrap();
            let lines = array_lines(&pretty);
            prop_assert!(lines.is_some(), "declined {}", String::from_utf8_lossy(&pretty));
            prop_assert_eq!(Some(lines.unwrap().bytes), via_value(&pretty));
        }

        #[test]
        fn agrees_with_serde_json_on_escaped_text(items in prop::collection::vec(arb_json(), 0..4)) {
            // Every non-ASCII and some ASCII characters as \u escapes, and '/' as "\/".
            let compact = serde_json::to_string(&Value::Array(items)).unwrap();
            let mut text = String::new();
            for c in compact.chars() {
                match c {
                    '/' => text.push_str("\\/"),
                    c if !c.is_ascii() => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units) {
                            text.push_str(&format!("\\u{unit:04X}"));
                        }
                    }
                    c => text.push(c),
                }
            }
            // Only characters inside strings were non-ASCII or '/', so this is still JSON,
            // with unique keys: the fast path must answer, and answer what serde_json does.
            prop_assert!(array_lines(text.as_bytes()).is_some(), "declined {}", text);
            check(text.as_bytes());
        }

        #[test]
        fn never_disagrees_on_mangled_text(items in prop::collection::vec(arb_json(), 1..3), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut text = serde_json::to_vec_pretty(&Value::Array(items)).unwrap();
            let at = cut.index(text.len());
            text[at] = byte;
            check(&text);
        }
    }
}
