//! Python literals: the text `repr()` (and `str()`) give for lists, tuples and dicts of str,
//! int, float, bool and None, which is what many Python MCP servers return as tool text
//! (`mcp-server-sqlite` returns `str(rows)`, `mcp-server-duckdb` a list of tuples).
//!
//! The reader is strict, because a wrong record is worse than text: it accepts exactly the
//! forms `repr()` writes (plus the little that is the same Python: any white space between
//! tokens, a trailing comma, `\"` and the one-letter escapes), and returns `None` for anything
//! else, so the caller keeps the text as text:
//! - dicts become objects (key order kept); their keys must be `str`, or `int` written as its
//!   decimal text, as `json.dumps` does; two keys that give the same text are refused;
//! - lists and tuples become arrays;
//! - `int`s must fit 64 bits (JSON readers would round larger ones); floats are read exactly
//!   (`inf` and `nan` have no JSON spelling and are refused);
//! - strings may not hold lone surrogates (no JSON text can);
//! - the calls database drivers' values are written as, `Decimal('9.50')`, `UUID('…')` and
//!   `datetime.date/time/datetime(…)`, become the strings JSON encoders give them ([`calls`]);
//!   a `bytes` literal becomes its own text (`"b'\\x00'"`), which loses nothing;
//!   `set`s, `timedelta`s and any other call are refused.
//!
//! The top level must be a list, a tuple or a dict, and nothing may follow it.

mod calls;

use serde_json::{Map, Number, Value};

/// Deepest nesting read, as serde_json's own limit, so every value read can be written back.
const MAX_DEPTH: usize = 127;

/// The value a Python container literal spells, or `None` when `text` is not exactly one.
pub fn parse(text: &str) -> Option<Value> {
    let mut reader = Reader {
        text: text.as_bytes(),
        at: 0,
    };
    reader.skip_space();
    if !matches!(reader.peek(), Some(b'[' | b'(' | b'{')) {
        return None;
    }
    let value = reader.value(0)?;
    reader.skip_space();
    (reader.at == reader.text.len()).then_some(value)
}

struct Reader<'t> {
    text: &'t [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Consumes `byte` (after white space) when it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_space();
        match self.peek()? {
            b'[' => self.sequence(b']', depth).map(Value::Array),
            b'(' => self.tuple(depth).map(Value::Array),
            b'{' => self.dict(depth).map(Value::Object),
            b'\'' | b'"' => self.string().map(Value::String),
            b'-' | b'0'..=b'9' => self.number().map(Value::Number),
            b'b' if matches!(self.text.get(self.at + 1), Some(b'\'' | b'"')) => self.bytes(),
            _ => self.word(),
        }
    }

    /// Items up to `close`, separated by commas, a trailing comma allowed.
    fn sequence(&mut self, close: u8, depth: usize) -> Option<Vec<Value>> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(items);
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(b',') {
                return self.eat(close).then_some(items);
            }
        }
    }

    /// A tuple: `()`, `(x,)`, `(x, y)`; a parenthesized value without a comma is not a tuple
    /// and `repr()` never writes one.
    fn tuple(&mut self, depth: usize) -> Option<Vec<Value>> {
        let start = self.at;
        let items = self.sequence(b')', depth)?;
        let had_comma = self.text[start..self.at].contains(&b',');
        (items.is_empty() || had_comma).then_some(items)
    }

    fn dict(&mut self, depth: usize) -> Option<Map<String, Value>> {
        if depth >= MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                return Some(map);
            }
            self.skip_space();
            let key = match self.peek()? {
                b'\'' | b'"' => self.string()?,
                b'-' | b'0'..=b'9' => match self.number()? {
                    n if crate::json::write::number_is_integer(&n) => n.to_string(),
                    _ => return None,
                },
                _ => return None,
            };
            if !self.eat(b':') {
                return None;
            }
            let value = self.value(depth + 1)?;
            if map.insert(key, value).is_some() {
                return None;
            }
            if !self.eat(b',') {
                return self.eat(b'}').then_some(map);
            }
        }
    }

    /// A `bytes` literal, `b'\x00…'`: the text of the literal itself, as a string (bytes
    /// have no JSON form, and their text loses nothing).
    fn bytes(&mut self) -> Option<Value> {
        let start = self.at;
        let quote = self.text[start + 1];
        let mut at = start + 2;
        loop {
            match *self.text.get(at)? {
                b'\\' => at += 2,
                b'\n' => return None,
                byte if byte == quote => break,
                _ => at += 1,
            }
        }
        self.at = at + 1;
        let text = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        Some(Value::String(text.to_owned()))
    }

    /// `True`, `False`, `None`, or one of the [`calls`]; any other name (`inf`, `nan`,
    /// `set`) is refused.
    fn word(&mut self) -> Option<Value> {
        let text = self.text;
        let rest = &text[self.at..];
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.'))
            .unwrap_or(rest.len());
        if rest.get(end) == Some(&b'(') {
            self.at += end;
            return self.call(&rest[..end]);
        }
        let value = match &rest[..end] {
            b"True" => Value::Bool(true),
            b"False" => Value::Bool(false),
            b"None" => Value::Null,
            _ => return None,
        };
        self.at += end;
        Some(value)
    }

    /// An int (no leading zeros, within 64 bits) or a float in `repr()`'s forms (`1.5`,
    /// `1e+16`, `-0.0`, `1e-05`), read exactly.
    fn number(&mut self) -> Option<Number> {
        let rest = &self.text[self.at..];
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_digit() || b"+-.eE".contains(b)))
            .unwrap_or(rest.len());
        let token = std::str::from_utf8(&rest[..end]).ok()?;
        // `1j` (complex) or `1_000` continue with a letter or underscore: not ours.
        if rest
            .get(end)
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        {
            return None;
        }
        let digits = token.strip_prefix('-').unwrap_or(token);
        let leading_zero =
            digits.len() > 1 && digits.starts_with('0') && digits.as_bytes()[1].is_ascii_digit();
        if digits.is_empty() || !digits.as_bytes()[0].is_ascii_digit() || leading_zero {
            return None;
        }
        let number = if token.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
            // Ints of any size, their digits kept (serde_json's `arbitrary_precision`).
            token.parse::<Number>().ok()?
        } else {
            // A float is a double: written as the double (as the Python binding writes a
            // `float`), so `1e-05` and `1e-5` are one number's one spelling. JSON's number
            // grammar is Python's float grammar without `1.` and `.5`, which repr() never
            // writes; the grammar is checked first.
            serde_json::from_slice::<Number>(token.as_bytes()).ok()?;
            token
                .parse::<f64>()
                .ok()
                .and_then(crate::json::write::number_from_f64)?
        };
        self.at += end;
        Some(number)
    }

    /// A `'...'` or `"..."` string with the escapes `repr()` writes.
    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.at += 1;
        let mut out = String::new();
        loop {
            let rest = &self.text[self.at..];
            let stop = memchr::memchr3(quote, b'\\', b'\n', rest)?;
            // The text is UTF-8 (it came as a str) and a stop byte is ASCII: a char boundary.
            out.push_str(std::str::from_utf8(&rest[..stop]).ok()?);
            self.at += stop + 1;
            match rest[stop] {
                b'\n' => return None,
                b'\\' => out.push(self.escape()?),
                _ => return Some(out),
            }
        }
    }

    fn escape(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        let simple = match c {
            b'\\' => '\\',
            b'\'' => '\'',
            b'"' => '"',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'a' => '\u{7}',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'v' => '\u{b}',
            b'x' => return self.hex(2),
            b'u' => return self.hex(4),
            b'U' => return self.hex(8),
            _ => return None,
        };
        Some(simple)
    }

    /// `digits` hex digits naming a code point; surrogates are refused.
    fn hex(&mut self, digits: usize) -> Option<char> {
        let text = self.text.get(self.at..self.at + digits)?;
        if !text.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let code = u32::from_str_radix(std::str::from_utf8(text).ok()?, 16).ok()?;
        self.at += digits;
        char::from_u32(code)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Python's `repr()` of a value made of what the reader accepts (arrays as lists or
    /// tuples, chosen by `tuples`); non-ASCII is written raw as Python writes printable text.
    pub(crate) fn repr(value: &Value, tuples: bool) -> String {
        match value {
            Value::Null => "None".into(),
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => i.to_string(),
                (_, Some(u), _) => u.to_string(),
                (_, _, Some(f)) => float_repr(f),
                _ => unreachable!("a JSON number is one of the three"),
            },
            Value::String(s) => str_repr(s),
            Value::Array(items) => {
                let inner: Vec<String> = items.iter().map(|v| repr(v, tuples)).collect();
                match (tuples, inner.len()) {
                    (true, 1) => format!("({},)", inner[0]),
                    (true, _) => format!("({})", inner.join(", ")),
                    (false, _) => format!("[{}]", inner.join(", ")),
                }
            }
            Value::Object(map) => {
                let inner: Vec<String> = map
                    .iter()
                    .map(|(k, v)| format!("{}: {}", str_repr(k), repr(v, tuples)))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
        }
    }

    /// Python's float repr: the shortest round-trip digits, `1.0` for integral values,
    /// exponent form as `1e+16` / `1e-05`.
    fn float_repr(f: f64) -> String {
        let s = format!("{f:?}");
        let Some((mantissa, exp)) = s.split_once('e') else {
            return if s.contains('.') || s.contains("inf") || s.contains("NaN") {
                s
            } else {
                format!("{s}.0")
            };
        };
        let exp: i32 = exp.parse().unwrap();
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }

    fn str_repr(s: &str) -> String {
        let quote = if s.contains('\'') && !s.contains('"') {
            '"'
        } else {
            '\''
        };
        let mut out = String::from(quote);
        for c in s.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c == quote => {
                    out.push('\\');
                    out.push(c);
                }
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
                c => out.push(c),
            }
        }
        out.push(quote);
        out
    }

    #[test]
    fn reads_what_python_writes() {
        let text = r#"[{'id': 0, 'region': 'amer', 'name': "O'Brien", 'note': 'say "hi"\n', 'score': 1.5, 'ok': True, 'none': None}, {'id': -1, 'big': 18446744073709551615, 'tiny': 1e-05, 'huge': 1e+16, 'wide': 123456789012345678901234567890, 'neg': -0.0, 'esc': '\x00\t\u00e9\U0001f600', 'raw': 'é😀'}]"#;
        assert_eq!(
            parse(text),
            Some(json!([
                {"id": 0, "region": "amer", "name": "O'Brien", "note": "say \"hi\"\n", "score": 1.5, "ok": true, "none": null},
                {"id": -1, "big": 18446744073709551615u64, "tiny": 1e-05, "huge": 1e16, "wide": serde_json::from_str::<Value>("123456789012345678901234567890").unwrap(), "neg": -0.0, "esc": "\u{0}\té😀", "raw": "é😀"}
            ]))
        );
        assert_eq!(
            parse("[(0, 'cust-1', 2.5), (1, 'cust-2', None)]"),
            Some(json!([[0, "cust-1", 2.5], [1, "cust-2", null]]))
        );
        assert_eq!(
            parse("((1,), (), {1: 'a', -2: 'b'})"),
            Some(json!([[1], [], {"1": "a", "-2": "b"}]))
        );
        assert_eq!(
            parse("[\n  {'a': 1,\n   'b': [1, 2,]},\n]\n"),
            Some(json!([{"a": 1, "b": [1, 2]}]))
        );
    }

    #[test]
    fn refuses_anything_it_cannot_read_exactly() {
        for text in [
            "",
            "'just a string'",
            "42",
            "[1, 2",
            "[1 2]",
            "[1, 2]]",
            "[1, 2] trailing",
            "[inf]",
            "[nan]",
            "[-inf]",
            "[007]",
            "[1_000]",
            "[1j]",
            "[.5]",
            "[{1, 2}]",
            "[datetime.timedelta(days=1)]",
            "[true]",
            "[null]",
            "[(1)]",
            "{'a': 1, 'a': 2}",
            "{1: 'x', '1': 'y'}",
            "{1.5: 'x'}",
            "{None: 'x'}",
            "{'a' 1}",
            "['\\ud800']",
            "['\\q']",
            "['\\x4']",
            "['unterminated]",
            "['line\nbreak']",
            "[1,,2]",
            "[,]",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(parse(&deep), None);
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(&ok).is_some());
    }

    proptest! {
        #[test]
        fn reads_back_the_repr_of_any_value(
            value in lro_json::strategy::arb_json(),
            tuples in any::<bool>(),
        ) {
            let container = Value::Array(vec![value]);
            let text = repr(&container, tuples);
            prop_assert_eq!(parse(&text), Some(container), "{}", text);
        }
    }
}
