//! Bounds on the values a jq filter builds: how deep they nest and how much memory they take.
//!
//! Everything that walks a jaq value recurses on its nesting: dropping it, comparing it,
//! printing it (`tojson`, string interpolation), converting it to output. A value nested
//! 100,000 levels deep (`reduce range(100000) as $i (0; [.])`) overflows the native stack in
//! any of them, and dropping cannot be intercepted. So deep values must never be built: the
//! sandbox rewrites the filter (see [`crate::sandbox::tick_term`]) so that every value that
//! can be deeper or larger than its parts passes a check (`_lro_new`) as it is made: array
//! and object construction, `+` and `*` results, updates and assignments, each step of
//! `reduce` and `foreach`. Items gathered by `[f]` are counted as they arrive (`_lro_item`),
//! so `[range(1e9)]` stops at the bound, not when the array is complete.
//!
//! The check is cheap on the normal path:
//! - its own size ([`shallow`]: a constant-time estimate from the length of the array,
//!   object or string) plus the items being gathered is compared with
//!   `extract.max_memory_bytes` every time;
//! - the whole value is walked ([`Measure`]: depth and estimated size, shared parts counted
//!   each time they appear) when it is small (at most [`ALWAYS_WALK`] items, the case of
//!   every value that nests one level per step) and otherwise with probability
//!   `ALWAYS_WALK / items` or `WALK_PER_BOUND x its bytes / the bound`, whichever is larger,
//!   from a per-run random sequence: the expected walk per check is bounded, while a value
//!   that grows over many steps, narrow or wide, is met by a walk before it is far past a
//!   bound.
//!
//! The walk stops at [`MAX_VALUE_DEPTH`] levels and at the memory bound, and it reads the
//! clock every [`WALK_CLOCK_EVERY`] nodes, so no walk runs past the time limit.

use jaq_json::Val;

/// Deepest value a filter may build. Records are at most 128 levels deep (serde_json's
/// limit); filters that reshape them add a few levels. Far below what the evaluation thread's
/// stack holds when such a value is dropped or printed.
pub const MAX_VALUE_DEPTH: usize = 1024;

/// Values with at most this many items (or entries) are walked at every check.
pub(crate) const ALWAYS_WALK: usize = 16;

/// A large value is walked with probability at least this many times its share of the
/// memory bound: a value that grows by levels of `b` bytes is met by a walk after about
/// `max_memory / (WALK_PER_BOUND x b)` levels, so it holds little more than the bound.
pub(crate) const WALK_PER_BOUND: u64 = 64;

/// Nodes a walk visits between two reads of the clock.
const WALK_CLOCK_EVERY: u64 = 1 << 14;

/// One item slot of an array (a `Val`).
pub(crate) const SLOT: u64 = size_of::<Val>() as u64;
/// An allocation: reference counts, a `Vec` or map header, the allocator's overhead.
const BOX: u64 = 32;
/// One object entry: key, value, and the index map's hash and index.
const ENTRY: u64 = 2 * SLOT + 16;

/// The estimated bytes a value takes itself (not its items), and how many items it has.
pub(crate) fn shallow(value: &Val) -> (u64, usize) {
    match value {
        Val::Arr(items) => (BOX + SLOT * items.len() as u64, items.len()),
        // Three allocations (the shared map, its entries, its index table), measured at about
        // twice `BOX + ENTRY x n` for the small objects `to_entries` makes by the million.
        Val::Obj(entries) => (3 * BOX + ENTRY * entries.len() as u64, entries.len()),
        Val::TStr(s) | Val::BStr(s) => (BOX + s.len() as u64, 0),
        Val::Num(jaq_json::Num::BigInt(i)) => (BOX + i.bits() / 8, 0),
        _ => (0, 0),
    }
}

/// Most bits an integer computed by a filter may have: 2^20 bits (315,653 decimal digits,
/// 128 KiB). Big integers are exact and jaq's arithmetic on them is not interrupted: a
/// product of two such numbers takes about 10 ms, a remainder as long, and printing one
/// (`tostring`, the output) about 90 ms (measured natively on a laptop core; the cost grows
/// as N^1.6 for a product and N^2 for printing), so no single step runs far past the time
/// limit, while integers of any size a record holds stay exact.
pub const MAX_INTEGER_BITS: u64 = 1 << 20;

/// The arithmetic operators whose results [`integer_bytes`] sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Rem,
}

/// Bits of an integer operand, `None` for what is not one.
fn integer_bits(value: &Val) -> Option<u64> {
    match value {
        Val::Num(jaq_json::Num::Int(i)) => {
            Some(u64::from(usize::BITS - i.unsigned_abs().leading_zeros()))
        }
        Val::Num(jaq_json::Num::BigInt(i)) => Some(i.bits()),
        _ => None,
    }
}

/// The estimated bytes of `l op r` when both are integers and one is a big integer (what
/// jaq computes exactly, with no check inside), [`u64::MAX`] when its bits would pass
/// [`MAX_INTEGER_BITS`], 0 for anything else (machine integers, doubles, other values).
pub(crate) fn integer_bytes(op: Arith, l: &Val, r: &Val) -> u64 {
    let (Some(a), Some(b)) = (integer_bits(l), integer_bits(r)) else {
        return 0;
    };
    if !matches!(l, Val::Num(jaq_json::Num::BigInt(_)))
        && !matches!(r, Val::Num(jaq_json::Num::BigInt(_)))
    {
        // Two machine integers: at most 128 bits.
        return 0;
    }
    let bits = match op {
        Arith::Add | Arith::Sub => a.max(b) + 1,
        Arith::Mul => a.saturating_add(b),
        Arith::Rem => a.min(b),
    };
    if bits > MAX_INTEGER_BITS {
        return u64::MAX;
    }
    BOX + bits / 8
}

/// Why a value is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Excess {
    /// Nested deeper than [`MAX_VALUE_DEPTH`].
    Depth,
    /// Larger than the memory bound.
    Memory,
    /// The walk met the deadline.
    Time,
}

/// A walk over a value: its depth and estimated size, stopped at the bounds.
pub(crate) struct Measure<'c> {
    /// Bytes the value may take.
    pub(crate) room: u64,
    /// Bytes counted so far.
    pub(crate) bytes: u64,
    visited: u64,
    expired: &'c dyn Fn() -> bool,
}

impl<'c> Measure<'c> {
    pub(crate) fn new(room: u64, expired: &'c dyn Fn() -> bool) -> Self {
        Self {
            room,
            bytes: 0,
            visited: 0,
            expired,
        }
    }

    /// Walks `value` (at nesting level `depth`).
    pub(crate) fn walk(&mut self, value: &Val, depth: usize) -> Result<(), Excess> {
        if depth > MAX_VALUE_DEPTH {
            return Err(Excess::Depth);
        }
        self.visited += 1;
        if self.visited % WALK_CLOCK_EVERY == 0 && (self.expired)() {
            return Err(Excess::Time);
        }
        self.bytes = self.bytes.saturating_add(shallow(value).0);
        if self.bytes > self.room {
            return Err(Excess::Memory);
        }
        match value {
            Val::Arr(items) => items.iter().try_for_each(|v| self.walk(v, depth + 1)),
            Val::Obj(entries) => entries.iter().try_for_each(|(k, v)| {
                self.walk(k, depth + 1)?;
                self.walk(v, depth + 1)
            }),
            _ => Ok(()),
        }
    }
}

/// The formats a value is printed in by a native (`tojson`, `tostring`, string interpolation,
/// `@csv`, `toyaml`, ...), for [`printed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Printed {
    /// jaq's JSON, sized exactly: `tojson`, `@json`, and `tostring` of what is not a string.
    Json,
    /// `tostring` and string interpolation: a string is itself (no new text), anything else
    /// is its JSON.
    Text,
    /// The other serializers (`@csv`, `@tsv`, `toyaml`, `toxml`, `totoml`, `tocbor`),
    /// estimated from above: this many bytes per byte of a string, and per value a few bytes
    /// plus its indentation.
    Other { per_byte: u64 },
}

impl Printed {
    /// The format of the serializer called `name` (as the prelude passes it).
    pub(crate) fn named(name: &[u8]) -> Self {
        match name {
            b"json" => Self::Json,
            b"text" => Self::Text,
            // Quotes doubled (CSV), tabs and newlines escaped (TSV).
            b"csv" | b"tsv" => Self::Other { per_byte: 2 },
            b"cbor" => Self::Other { per_byte: 1 },
            // Escapes of control characters and markup (`&quot;`, `\u0001`).
            _ => Self::Other { per_byte: 6 },
        }
    }
}

/// Bytes of the JSON text of a string (with its quotes), as jaq writes it: control
/// characters and DEL as `\u00XX` (`\b`, `\t`, `\n`, `\f`, `\r` as two bytes), `"` and `\`
/// escaped; a byte string also writes the bytes past ASCII as `\xXX`.
pub(crate) fn json_string_len(text: &[u8], bytes: bool) -> u64 {
    let mut len = if bytes { 3 } else { 2 };
    for &b in text {
        len += match b {
            0x08 | 0x0c | b'\t' | b'\n' | b'\r' | b'\\' | b'"' => 2,
            0x00..=0x1f | 0x7f => 6,
            0x80..=0xff if bytes => 4,
            _ => 1,
        };
    }
    len
}

/// Bytes of a number as jaq prints it: at most this for a machine integer or a double.
const NUMBER_TEXT: u64 = 32;

/// A walk over a value about to be printed: the bytes the value holds ([`shallow`]) and the
/// bytes of its text, together against `room`, and its depth (printing recurses on it).
pub(crate) fn printed(
    value: &Val,
    format: Printed,
    room: u64,
    expired: &dyn Fn() -> bool,
) -> Result<u64, Excess> {
    if format == Printed::Text && matches!(value, Val::TStr(_) | Val::BStr(_)) {
        // `tostring` of a string is the string itself.
        return Ok(0);
    }
    let format = if format == Printed::Text {
        Printed::Json
    } else {
        format
    };
    let mut walk = Measure::new(room, expired);
    walk.printed(value, format, 0)?;
    Ok(walk.bytes)
}

impl Measure<'_> {
    fn add(&mut self, bytes: u64) -> Result<(), Excess> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.room {
            return Err(Excess::Memory);
        }
        Ok(())
    }

    fn printed(&mut self, value: &Val, format: Printed, depth: usize) -> Result<(), Excess> {
        if depth > MAX_VALUE_DEPTH {
            return Err(Excess::Depth);
        }
        self.visited += 1;
        if self.visited % WALK_CLOCK_EVERY == 0 && (self.expired)() {
            return Err(Excess::Time);
        }
        // The value itself, then its text.
        self.add(shallow(value).0)?;
        let text = match (format, value) {
            (Printed::Json, Val::TStr(s)) => json_string_len(s, false),
            (Printed::Json, Val::BStr(s)) => json_string_len(s, true),
            (Printed::Json, Val::Arr(items)) => 2 + items.len() as u64,
            (Printed::Json, Val::Obj(entries)) => 2 + 2 * entries.len() as u64,
            (Printed::Json, Val::Num(n)) => number_text(n),
            (Printed::Json, _) => 5,
            (Printed::Other { per_byte }, Val::TStr(s) | Val::BStr(s)) => {
                8 + 2 * depth as u64 + per_byte * s.len() as u64
            }
            (Printed::Other { .. }, Val::Num(n)) => 8 + 2 * depth as u64 + number_text(n),
            (Printed::Other { .. }, _) => 8 + 2 * depth as u64,
            (Printed::Text, _) => 0,
        };
        self.add(text)?;
        match value {
            Val::Arr(items) => items
                .iter()
                .try_for_each(|v| self.printed(v, format, depth + 1)),
            Val::Obj(entries) => entries.iter().try_for_each(|(k, v)| {
                self.printed(k, format, depth + 1)?;
                self.printed(v, format, depth + 1)
            }),
            _ => Ok(()),
        }
    }
}

/// Bytes of a number's text: its digits for the numbers kept as text, at most
/// [`NUMBER_TEXT`] for the others.
fn number_text(n: &jaq_json::Num) -> u64 {
    match n {
        jaq_json::Num::Dec(text) => NUMBER_TEXT.max(text.len() as u64),
        jaq_json::Num::BigInt(i) => NUMBER_TEXT.max(i.bits() / 3 + 2),
        _ => NUMBER_TEXT,
    }
}

/// An estimate from above of the bytes the value parsed from `text` in `format` takes
/// (`fromjson`, `fromyaml`, `fromcsv`, ...), so a text is refused before it is parsed into
/// a value many times its size (`[0,0,0,...]`: 16 bytes of item per 2 bytes of text). For
/// JSON, from its structure outside strings: a box per array, string and object (three),
/// two item slots per item (the vector may have doubled), an entry per key; for the other
/// formats, an entry and a box per byte that may separate or open a value.
pub(crate) fn parsed_bytes(format: &str, text: &[u8]) -> u64 {
    let n = text.len() as u64;
    if format == "cbor" {
        // Every byte may be a value of its own.
        return n.saturating_mul(ENTRY + BOX);
    }
    if format != "json" {
        let marks = text
            .iter()
            .filter(|b| b",:;=\n\t[]{}<>-|".contains(b))
            .count() as u64;
        return n.saturating_add(marks.saturating_mul(ENTRY + BOX));
    }
    let (mut in_string, mut escaped) = (false, false);
    let mut bytes = n;
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        bytes += match b {
            b'"' => {
                in_string = true;
                BOX
            }
            b'[' => BOX + 2 * SLOT,
            b'{' => 3 * BOX,
            b',' => 2 * SLOT,
            b':' => ENTRY,
            _ => 0,
        };
    }
    bytes
}

/// Deepest nesting a text in one of jaq's formats may have for its parser (which recurses
/// on it) to be run: the limit serde_json puts on records.
pub const MAX_PARSE_DEPTH: usize = 128;

/// An upper bound of how deep the parser of `format` recurses on `text`; conservative (it
/// may count more levels than there are, never fewer).
pub(crate) fn parse_depth(format: &str, text: &[u8]) -> usize {
    match format {
        "xml" => xml_depth(text),
        // Dotted keys (`a.b.c = 1`) nest tables; brackets nest inline tables and arrays.
        "toml" => crate::convert::nesting_depth(text) + most_per_line(text, |b| b == b'.'),
        // Flow collections nest by brackets, block ones by indentation and `- `/`? ` markers.
        "yaml" => crate::convert::nesting_depth(text) + most_leading(text),
        // Every array, map or tag header byte may open a level.
        "cbor" => text.iter().filter(|&&b| (0x80..=0xdf).contains(&b)).count(),
        // Rows of fields: flat.
        "csv" | "tsv" => 0,
        _ => crate::convert::nesting_depth(text),
    }
}

/// The deepest element nesting of an XML text: `<a` opens, `</` and `/>` close.
fn xml_depth(text: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for (i, &b) in text.iter().enumerate() {
        let next = text.get(i + 1).copied();
        match (b, next) {
            (b'<', Some(b'/')) | (b'/', Some(b'>')) => depth = depth.saturating_sub(1),
            (b'<', Some(c)) if c != b'?' && c != b'!' => {
                depth += 1;
                max = max.max(depth);
            }
            _ => {}
        }
    }
    max
}

/// The most bytes matching `hit` on one line.
fn most_per_line(text: &[u8], hit: impl Fn(u8) -> bool) -> usize {
    text.split(|&b| b == b'\n')
        .map(|line| line.iter().filter(|&&b| hit(b)).count())
        .max()
        .unwrap_or(0)
}

/// The longest run of indentation and block markers starting a line.
fn most_leading(text: &[u8]) -> usize {
    text.split(|&b| b == b'\n')
        .map(|line| {
            line.iter()
                .take_while(|&&b| matches!(b, b' ' | b'\t' | b'-' | b'?' | b':'))
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// A text cut at a byte limit: writing past it fails, so a value's `Display` stops there.
struct Capped {
    text: String,
    cap: usize,
}

impl std::fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.text.len() + s.len() <= self.cap {
            self.text.push_str(s);
            return Ok(());
        }
        let mut end = self.cap - self.text.len();
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&s[..end]);
        Err(std::fmt::Error)
    }
}

/// `value` as text, cut after `cap` bytes, and whether it was cut: printing stops there,
/// so the text of a huge value is never made.
pub(crate) fn capped(value: &dyn std::fmt::Display, cap: usize) -> (String, bool) {
    use std::fmt::Write;
    let mut out = Capped {
        text: String::new(),
        cap,
    };
    let cut = write!(out, "{value}").is_err();
    (out.text, cut)
}

/// [`capped`], with `...` where the text was cut.
pub(crate) fn capped_text(value: &dyn std::fmt::Display, cap: usize) -> String {
    let (mut text, cut) = capped(value, cap);
    if cut {
        text.push_str("...");
    }
    text
}

/// The estimated bytes of `l + r` (strings, arrays, objects, big integers
/// ([`integer_bytes`]); `null` and other numbers make nothing new), for [`crate::sandbox::ADD`]: twice both sides, since jaq appends `r` to
/// (a copy of) `l`, whose buffer may double to make room.
pub(crate) fn sum_bytes(l: &Val, r: &Val) -> u64 {
    let (a, _) = shallow(l);
    let (b, _) = shallow(r);
    match (l, r) {
        (Val::TStr(_), Val::TStr(_))
        | (Val::BStr(_), Val::BStr(_))
        | (Val::Arr(_), Val::Arr(_))
        | (Val::Obj(_), Val::Obj(_)) => a.saturating_add(b).saturating_mul(2),
        _ => integer_bytes(Arith::Add, l, r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::parse_val;

    #[test]
    fn walks_stop_at_depth_and_size() {
        let never = || false;
        let mut deep = Val::Null;
        for _ in 0..MAX_VALUE_DEPTH + 1 {
            deep = Val::Arr(vec![deep].into());
        }
        assert_eq!(
            Measure::new(u64::MAX, &never).walk(&deep, 0),
            Err(Excess::Depth)
        );
        let record = parse_val(br#"{"a": [1, 2, "xyz"], "b": {"c": null}}"#).unwrap();
        let mut fits = Measure::new(u64::MAX, &never);
        assert_eq!(fits.walk(&record, 0), Ok(()));
        assert!(fits.bytes > 0);
        let mut small = Measure::new(fits.bytes - 1, &never);
        assert_eq!(small.walk(&record, 0), Err(Excess::Memory));
        // Work is bounded by the clock too.
        let always = || true;
        let wide = Val::Arr(vec![Val::Null; 1 << 15].into());
        assert_eq!(
            Measure::new(u64::MAX, &always).walk(&wide, 0),
            Err(Excess::Time)
        );
    }

    #[test]
    fn parse_depths_are_upper_bounds() {
        assert_eq!(parse_depth("xml", b"<a><b/><c>x</c></a>"), 2);
        assert_eq!(parse_depth("xml", "<a>".repeat(300).as_bytes()), 300);
        assert_eq!(
            parse_depth("xml", b"<?xml version=\"1.0\"?><!-- c --><a/>"),
            1
        );
        assert!(parse_depth("yaml", b"a:\n  b:\n    - 1\n") >= 3);
        assert!(parse_depth("yaml", "[".repeat(200).as_bytes()) >= 200);
        assert!(parse_depth("toml", b"a.b.c = 1\n") >= 2);
        assert_eq!(parse_depth("cbor", &[0x81, 0x81, 0x01]), 2);
    }
}
