//! A fast reader of record lines into jaq values, with the same result as
//! [`convert::parse_val`] on every line it accepts and that function on every other line.
//!
//! Parsing through serde allocates twice per string (the `String`, then jaq's boxed bytes)
//! and grows every object's map from empty. This reader copies the line once into shared
//! bytes and makes every string without escapes a slice of it, so a string costs one small
//! box; objects are sized from the previous record, since records of a file share a shape.
//!
//! It takes the plain path only: a line it is not sure about (invalid UTF-8, a control
//! character or a lone surrogate in a string, nesting deeper than [`MAX_FAST_DEPTH`], any syntax error) goes to
//! [`convert::parse_val`], which decides, so values and error messages stay serde_json's.
//!
//! A parser can also *project* records ([`RecordParser::projecting`]): a top-level object
//! keeps only the named fields, the others are checked (a line stays valid or invalid as
//! it was) but not built. Recipes whose output depends on a few fields only (count by
//! namespace, ...) read their records that way.
//!
//! Most of a projected line is checked, not built, so checking is a walk of its own
//! ([`Reader::skip`]) that makes no value. A line without control characters (what LRO
//! writes) cannot hold one in a string, so the end of each string is found with `memchr`
//! (SIMD) rather than a byte scan that also looks for them.

use jaq_json::{Map, Num, Val};
use lro_json::scan::next_escape;

use crate::convert;

/// Deepest nesting the fast path follows; serde_json, the fallback, stops at 128.
const MAX_FAST_DEPTH: usize = 100;

/// Longest integer literal, in digits, read on the fast path: 18 digits always fit an `i64`.
const MAX_FAST_DIGITS: usize = 18;

/// Reads record lines; keeps the size of the last record's top-level object as a hint.
#[derive(Default, Clone)]
pub struct RecordParser {
    fields: usize,
    /// The top-level fields kept, when records are projected.
    keep: Option<Vec<String>>,
}

impl RecordParser {
    /// A parser that keeps only the `keep` fields of top-level objects (all when `None`).
    /// Values other than objects are read whole.
    pub fn projecting(keep: Option<&[String]>) -> Self {
        Self {
            fields: 0,
            keep: keep.map(<[String]>::to_vec),
        }
    }

    /// Parses one line (one JSON text, surrounding whitespace allowed).
    pub fn parse(&mut self, line: &[u8]) -> Result<Val, serde_json::Error> {
        match self.fast(line) {
            Some(val) => Ok(val),
            None => convert::parse_val(line).map(|val| self.project(val)),
        }
    }

    /// `val` with the fields this parser does not keep removed (a top-level object only).
    fn project(&self, val: Val) -> Val {
        match (&self.keep, val) {
            (Some(keep), Val::Obj(map)) => Val::obj(
                map.iter()
                    .filter(|(key, _)| kept(keep, key_bytes(key)))
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect(),
            ),
            (_, val) => val,
        }
    }

    fn fast(&mut self, line: &[u8]) -> Option<Val> {
        // Outside strings JSON is ASCII, so a line that is valid UTF-8 as a whole has valid
        // UTF-8 in every string piece cut at an ASCII delimiter.
        std::str::from_utf8(line).ok()?;
        let mut reader = Reader {
            text: line,
            at: 0,
            shared: None,
            fields: self.fields,
            keep: self.keep.as_deref(),
            clean: no_control_bytes(line),
        };
        reader.skip_whitespace();
        let first = reader.peek()?;
        let val = reader.value(first, 0)?;
        reader.skip_whitespace();
        if reader.at != line.len() {
            return None;
        }
        if let Val::Obj(map) = &val {
            self.fields = map.len();
        }
        Some(val)
    }
}

/// A key's bytes (keys are strings; anything else has none).
fn key_bytes(key: &Val) -> &[u8] {
    match key {
        Val::TStr(b) | Val::BStr(b) => b,
        _ => &[],
    }
}

/// No byte of `line` is a control character (below 0x20), so no string in it holds one.
fn no_control_bytes(line: &[u8]) -> bool {
    // An OR over fixed-size chunks, which the compiler turns into vector instructions.
    line.chunks(64)
        .all(|chunk| chunk.iter().fold(0u8, |any, &b| any | u8::from(b < 0x20)) == 0)
}

/// `key` is one of `keep`.
fn kept(keep: &[String], key: &[u8]) -> bool {
    keep.iter().any(|k| k.as_bytes() == key)
}

/// The state of one fast parse.
struct Reader<'t> {
    text: &'t [u8],
    at: usize,
    /// The line as one shared value, made at the first string: every plain string is a
    /// slice of it.
    shared: Option<Val>,
    /// Capacity for the top-level object.
    fields: usize,
    /// The top-level fields kept (all when `None`).
    keep: Option<&'t [String]>,
    /// The line holds no control character: a string ends at the next quote or backslash.
    clean: bool,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// serde_json's whitespace: space, tab, line feed, carriage return.
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    fn next_token(&mut self) -> Option<u8> {
        self.skip_whitespace();
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn literal(&mut self, word: &[u8], val: Val) -> Option<Val> {
        if self.text[self.at..].starts_with(word) {
            self.at += word.len();
            Some(val)
        } else {
            None
        }
    }

    /// The value starting at `first` (not consumed yet).
    fn value(&mut self, first: u8, depth: usize) -> Option<Val> {
        match first {
            b'n' => self.literal(b"null", Val::Null),
            b't' => self.literal(b"true", Val::Bool(true)),
            b'f' => self.literal(b"false", Val::Bool(false)),
            b'"' => {
                self.at += 1;
                self.string()
            }
            b'-' | b'0'..=b'9' => self.number(),
            b'[' if depth < MAX_FAST_DEPTH => {
                self.at += 1;
                self.array(depth + 1)
            }
            b'{' if depth < MAX_FAST_DEPTH => {
                self.at += 1;
                self.object(depth + 1)
            }
            _ => None,
        }
    }

    /// The offset of the first quote, backslash or control character at or after `from`
    /// (the text's length if there is none).
    fn string_end(&self, from: usize) -> usize {
        if self.clean {
            memchr::memchr2(b'"', b'\\', &self.text[from..]).map_or(self.text.len(), |i| from + i)
        } else {
            next_escape(self.text, from)
        }
    }

    /// Checks the value starting at `first` (not consumed yet) as [`Self::value`] reads it,
    /// building nothing: `None` exactly where `value` gives `None`.
    fn skip(&mut self, first: u8, depth: usize) -> Option<()> {
        match first {
            b'"' => {
                self.at += 1;
                self.skip_string()
            }
            b'{' if depth < MAX_FAST_DEPTH => {
                self.at += 1;
                self.skip_object(depth + 1)
            }
            b'[' if depth < MAX_FAST_DEPTH => {
                self.at += 1;
                self.skip_array(depth + 1)
            }
            b'-' | b'0'..=b'9' => self.number_end().map(drop),
            b'n' => self.skip_word(b"null"),
            b't' => self.skip_word(b"true"),
            b'f' => self.skip_word(b"false"),
            _ => None,
        }
    }

    fn skip_word(&mut self, word: &[u8]) -> Option<()> {
        let found = self.text[self.at..].starts_with(word);
        found.then(|| self.at += word.len())
    }

    fn skip_array(&mut self, depth: usize) -> Option<()> {
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.skip_whitespace();
            let first = self.peek()?;
            self.skip(first, depth)?;
            match self.next_token()? {
                b',' => {}
                b']' => return Some(()),
                _ => return None,
            }
        }
    }

    fn skip_object(&mut self, depth: usize) -> Option<()> {
        if self.next_token()? == b'}' {
            return Some(());
        }
        self.at -= 1;
        loop {
            if self.next_token()? != b'"' {
                return None;
            }
            self.skip_string()?;
            if self.next_token()? != b':' {
                return None;
            }
            self.skip_whitespace();
            let first = self.peek()?;
            self.skip(first, depth)?;
            match self.next_token()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// Checks a string (its opening quote consumed) as [`Self::string`] reads it, building
    /// nothing.
    fn skip_string(&mut self) -> Option<()> {
        loop {
            self.at = self.string_end(self.at);
            match *self.text.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'\\' => {
                    let escape = *self.text.get(self.at + 1)?;
                    self.at += 2;
                    match escape {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            self.unicode_escape()?;
                        }
                        _ => return None,
                    }
                }
                // A control character.
                _ => return None,
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Val> {
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Val::Arr(items.into()));
        }
        loop {
            self.skip_whitespace();
            let first = self.peek()?;
            items.push(self.value(first, depth)?);
            match self.next_token()? {
                b',' => {}
                b']' => return Some(Val::Arr(items.into())),
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Val> {
        let capacity = if depth == 1 { self.fields } else { 0 };
        let mut map = Map::with_capacity_and_hasher(capacity, Default::default());
        if self.next_token()? == b'}' {
            return Some(Val::obj(map));
        }
        self.at -= 1;
        let keep = if depth == 1 { self.keep } else { None };
        loop {
            if self.next_token()? != b'"' {
                return None;
            }
            let key = match keep {
                None => self.string()?,
                Some(keep) => {
                    // Projecting: a key not kept is checked, not built, and so is its value.
                    let start = self.at;
                    self.skip_string()?;
                    let text = self.text;
                    let written = &text[start..self.at - 1];
                    let decoded = if written.contains(&b'\\') {
                        self.at = start;
                        Some(self.string()?)
                    } else {
                        None
                    };
                    if !kept(keep, decoded.as_ref().map_or(written, key_bytes)) {
                        if self.next_token()? != b':' {
                            return None;
                        }
                        self.skip_whitespace();
                        let first = self.peek()?;
                        self.skip(first, depth)?;
                        match self.next_token()? {
                            b',' => continue,
                            b'}' => return Some(Val::obj(map)),
                            _ => return None,
                        }
                    }
                    decoded.unwrap_or_else(|| self.slice(start, start + written.len()))
                }
            };
            if self.next_token()? != b':' {
                return None;
            }
            self.skip_whitespace();
            let first = self.peek()?;
            let value = self.value(first, depth)?;
            // As serde's visitor does: a repeated key keeps its place and takes the last value.
            map.insert(key, value);
            match self.next_token()? {
                b',' => {}
                b'}' => return Some(Val::obj(map)),
                _ => return None,
            }
        }
    }

    /// A string, its opening quote consumed.
    fn string(&mut self) -> Option<Val> {
        let start = self.at;
        self.at = self.string_end(self.at);
        loop {
            match *self.text.get(self.at)? {
                b'"' => {
                    let end = self.at;
                    self.at += 1;
                    return Some(self.slice(start, end));
                }
                b'\\' => return self.escaped_string(start),
                0..=0x1f => return None,
                _ => self.at += 1,
            }
        }
    }

    /// `text[start..end]` as a string sharing the line's bytes.
    fn slice(&mut self, start: usize, end: usize) -> Val {
        if start == end {
            return Val::utf8_str(Vec::new());
        }
        if self.keep.is_some() {
            // Projecting, few strings are kept: a copy of each beats keeping the line.
            return Val::utf8_str(self.text[start..end].to_vec());
        }
        let text = self.text;
        let shared = self
            .shared
            .get_or_insert_with(|| Val::utf8_str(text.to_vec()));
        match shared {
            Val::TStr(bytes) => Val::TStr(Box::new(bytes.slice(start..end))),
            _ => unreachable!("the shared line is a text string"),
        }
    }

    /// The rest of a string that holds an escape, from `start` (after the opening quote).
    fn escaped_string(&mut self, start: usize) -> Option<Val> {
        let mut out = self.text[start..self.at].to_vec();
        loop {
            match *self.text.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(Val::utf8_str(out));
                }
                b'\\' => {
                    let escape = *self.text.get(self.at + 1)?;
                    self.at += 2;
                    let byte = match escape {
                        b'"' | b'\\' | b'/' => escape,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let c = self.unicode_escape()?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                            continue;
                        }
                        _ => return None,
                    };
                    out.push(byte);
                }
                0..=0x1f => return None,
                _ => {
                    // A run of plain bytes (at least this one).
                    let end = self.string_end(self.at + 1);
                    out.extend_from_slice(&self.text[self.at..end]);
                    self.at = end;
                }
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + 4)?;
        let mut n = 0;
        for &d in digits {
            n = n * 16 + char::from(d).to_digit(16)?;
        }
        self.at += 4;
        Some(n)
    }

    /// The character of `\uXXXX` (its `\u` consumed); a surrogate pair takes two escapes.
    /// A lone surrogate is left to serde_json.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xd800..=0xdbff => {
                if self.text.get(self.at..self.at + 2)? != b"\\u" {
                    return None;
                }
                self.at += 2;
                let second = self.hex4()?;
                if !(0xdc00..=0xdfff).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00))
            }
            0xdc00..=0xdfff => None,
            _ => char::from_u32(first),
        }
    }

    /// A number in JSON's grammar, read as [`convert::parse_val`] reads it
    /// ([`convert::number_of_literal`]: exact integers, doubles that print back as written,
    /// the literal text otherwise).
    fn number(&mut self) -> Option<Val> {
        let start = self.at;
        let (integral, digits) = self.number_end()?;
        let literal = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        if integral && digits <= MAX_FAST_DIGITS && literal != "-0" {
            // At most 18 digits: exact in an i64.
            return Some(Val::Num(Num::from_integral(literal.parse::<i64>().ok()?)));
        }
        Some(Val::Num(convert::number_of_literal(literal)))
    }

    /// Moves past a number in JSON's grammar: whether it is an integer (no fraction, no
    /// exponent) and how many digits its integer part has; `None` past the grammar.
    fn number_end(&mut self) -> Option<(bool, usize)> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let digits_start = self.at;
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.skip_digits(),
            _ => return None,
        }
        let digits = self.at - digits_start;
        let mut integral = true;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.skip_digits();
            integral = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if !self.peek()?.is_ascii_digit() {
                return None;
            }
            self.skip_digits();
            integral = false;
        }
        if self.peek().is_some_and(|b| b.is_ascii_digit()) {
            // `01`: serde_json's error.
            return None;
        }
        Some((integral, digits))
    }

    fn skip_digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The fast path was taken and agrees with serde's path.
    fn same(text: &str) {
        let mut parser = RecordParser::default();
        let fast = parser
            .fast(text.as_bytes())
            .unwrap_or_else(|| panic!("fast path refused {text}"));
        let slow = convert::parse_val(text.as_bytes()).unwrap();
        assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{text}");
    }

    fn refused(text: &str) {
        assert!(
            RecordParser::default().fast(text.as_bytes()).is_none(),
            "{text}"
        );
    }

    #[test]
    fn plain_records_take_the_fast_path_and_agree() {
        same(r#"{"id": "m1", "tags": ["a", "b"], "n": 3, "x": null, "t": true, "f": false}"#);
        same(r#" {"a":{"b":[[],{}]},"c":""} "#);
        same(r#"{"s": "caf\u00e9 \"q\" \\ \/ \b\f\n\r\t \ud83d\ude00 é"}"#);
        same(
            r#"[0, -0, 1.0, -2.5e3, 1E2, 3.0e-2, 123456789012345678, -123456789012345678, 1e300, 4.9e-324]"#,
        );
        same(r#"{"a": 1, "a": 2, "b": 3}"#);
        same("\"text\"");
        same("12");
        // Numbers no double or 64-bit integer holds: their text, on both paths.
        same(
            "[1e400, -1e400, 1234567890123456789, 123456789012345678901234567890, -9223372036854775809, 3.14159265358979323846264338327950288, 1.50, 1E-2]",
        );
    }

    #[test]
    fn doubtful_lines_are_left_to_serde() {
        for text in [
            "",
            "{",
            "{}x",
            "[1,]",
            "{\"a\":1,}",
            "01",
            "-",
            "1.",
            "1e",
            "+1",
            ".5",
            "NaN",
            "\"\\ud800\"",
            "\"\\udc00x\"",
            "\"a\tb\"",
            "\"\\x\"",
            "tru",
            "[1 2]",
            "{\"a\" 1}",
            "{1: 2}",
            "\"\u{feff}\"x",
        ] {
            refused(text);
        }
        refused(&format!("{}{}", "[".repeat(101), "]".repeat(101)));
        same(&format!("{}{}", "[".repeat(100), "]".repeat(100)));
        assert!(RecordParser::default().fast(b"\"\xff\"").is_none());
    }

    /// JSON values of every kind, with strings that need escapes and numbers at the edges.
    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::{Value, json};
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| json!(f)),
            (-1e6f64..1e6).prop_map(|f| json!(f.round())),
            any::<String>().prop_map(Value::String),
            "[a-z\\\"/\u{0}-\u{1f}\u{7f}-\u{ff}\u{2028}\u{1F600}]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-z_]{0,6}", inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    fn has_long_integer(text: &str) -> bool {
        text.split(|c: char| !c.is_ascii_digit())
            .any(|run| run.len() > MAX_FAST_DIGITS)
    }

    /// Text as written by other tools: spaces around tokens, escapes where none are needed.
    fn respell(text: &str, spaces: bool, escape_slash: bool) -> String {
        let mut out = text.to_owned();
        if spaces {
            out = out
                .replace(',', " ,\t")
                .replace(':', ": ")
                .replace('[', "[ ")
                .replace('{', "\r{ ");
        }
        if escape_slash {
            out = out.replace('/', "\\/");
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// On any JSON text the fast path either declines or gives serde's value exactly.
        #[test]
        fn the_fast_path_agrees_with_serde(value in json_value(), spaces: bool, escape_slash: bool) {
            let text = respell(&serde_json::to_string(&value).unwrap(), spaces, escape_slash);
            let slow = convert::parse_val(text.as_bytes());
            match RecordParser::default().fast(text.as_bytes()) {
                Some(fast) => {
                    let slow = slow.expect("the fast path accepted what serde refuses");
                    prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
                    // And the size counted while converting is serde_json's.
                    let (value, size) = convert::to_value_sized(&fast).unwrap();
                    prop_assert_eq!(size, lro_json::size::json_size(&value));
                }
                // Declining is for integers of 19 digits or more (serde_json writes no other
                // text the fast path leaves alone).
                None => prop_assert!(
                    slow.is_err() || has_long_integer(&text),
                    "declined plain JSON: {}", text
                ),
            }
        }

        /// A projecting parser gives what the full parse gives, cut to the kept fields: on any
        /// object (keys with escapes included) and on broken text (the same error).
        #[test]
        fn projection_is_the_full_parse_cut_to_the_kept_fields(
            entries in prop::collection::vec(("[ab\"\\\\\u{e9}\n]{0,2}", json_value()), 0..6),
            keep in prop::collection::vec("[ab\"\\\\\u{e9}\n]{0,2}", 0..3),
            spaces: bool,
            escape_slash: bool,
            cut in 0usize..64,
        ) {
            let record = serde_json::Value::Object(entries.into_iter().collect());
            let text = respell(&serde_json::to_string(&record).unwrap(), spaces, escape_slash);
            let mut projecting = RecordParser::projecting(Some(&keep));
            for text in [text.as_bytes(), &text.as_bytes()[..cut.min(text.len())]] {
                let full = convert::parse_val(text).map(|val| projecting.project(val));
                let projected = projecting.parse(text);
                prop_assert_eq!(format!("{projected:?}"), format!("{full:?}"));
            }
        }

        /// Checking a field that is not kept is as strict as reading it: on an object whose
        /// values are random bytes from JSON's alphabet (control characters, escapes and a
        /// character that is not ASCII among them), the projection agrees with the full parse
        /// cut to the kept field, value or error.
        #[test]
        fn checking_what_is_not_kept_is_as_strict_as_reading_it(
            skipped in "[\\[\\]{}\",:0-9eE.+\\- a-z\\\\/\u{1}\u{1f}\t\u{e9}]{0,24}",
            kept in "[\\[\\]{}\",:0-9eE.+\\- a-z\\\\/\u{1}\t]{0,8}",
        ) {
            let keep = ["k".to_owned()];
            let mut projecting = RecordParser::projecting(Some(&keep));
            for text in [
                format!("{{\"s\":{skipped},\"k\":{kept}}}"),
                format!("{{\"k\":{kept},\"s\":\"{skipped}\"}}"),
                format!("{{\"s\":[\"{skipped}\"],\"k\":1}}"),
            ] {
                let full = convert::parse_val(text.as_bytes()).map(|val| projecting.project(val));
                let projected = projecting.parse(text.as_bytes());
                prop_assert_eq!(format!("{projected:?}"), format!("{full:?}"), "{}", text);
            }
        }

        /// On broken text (random bytes from JSON's alphabet) the fast path never accepts what
        /// serde refuses, and never disagrees.
        #[test]
        fn the_fast_path_never_accepts_what_serde_refuses(text in "[\\[\\]{}\",:0-9eE.+\\- a-z\\\\/\u{1}\u{e9}]{0,24}") {
            let slow = convert::parse_val(text.as_bytes());
            if let Some(fast) = RecordParser::default().fast(text.as_bytes()) {
                let slow = slow.expect("the fast path accepted what serde refuses");
                prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
            }
        }
    }

    #[test]
    fn projection_keeps_the_last_of_repeated_keys_and_leaves_other_values_whole() {
        let keep = ["a".to_owned(), "c".to_owned()];
        let mut parser = RecordParser::projecting(Some(&keep));
        for text in [
            r#"{"a": 1, "b": {"a": 2}, "a": "x\ny", "c": [1, {"b": 2}]}"#,
            r#"{"\u0061": 1, "b": 2}"#,
            r#"[{"a": 1, "b": 2}]"#,
            r#""a""#,
        ] {
            let full = convert::parse_val(text.as_bytes()).map(|val| parser.project(val));
            let projected = parser.parse(text.as_bytes());
            assert_eq!(format!("{projected:?}"), format!("{full:?}"), "{text}");
        }
        let projected = parser.parse(br#"{"a": 1, "b": {"a": 2}, "a": 3}"#).unwrap();
        assert_eq!(
            format!("{projected:?}"),
            format!("{:?}", convert::parse_val(br#"{"a": 3}"#).unwrap())
        );
    }

    #[test]
    fn the_fallback_keeps_serde_results_and_errors() {
        let mut parser = RecordParser::default();
        assert!(parser.parse(b"1234567890123456789").is_ok());
        let err = parser.parse(b"{\"a\": 01}").unwrap_err().to_string();
        assert_eq!(
            err,
            convert::parse_val(b"{\"a\": 01}").unwrap_err().to_string()
        );
    }
}
