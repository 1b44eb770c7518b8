//! Facts about a JSON text, read with serde_json's deserializer but without building a
//! `Value`: what the text path of a large result needs before it decides how to read a part
//! (whether a `Value` would read it at all, how long its compact JSON is, an object's fields,
//! a string's content).
//!
//! Each answer is the one the `Value` of the text would give, or `None` when that cannot be
//! vouched for (the caller then parses the `Value`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

/// Whether `serde_json::from_str::<Value>(text)` reads `text`: the same grammar, strings,
/// numbers (any size: serde_json's `arbitrary_precision` keeps their text) and nesting
/// limit, without building the tree.
pub fn is_value(text: &str) -> bool {
    measure(text, usize::MAX, false).is_some()
}

/// The length of the compact JSON of the `Value` that `text` holds, counted as
/// [`crate::write::unescaped_len`] counts it (escapes are not counted), up to `cap`: reading
/// stops once the count passes `cap`, which is then the answer. `None` when the text is not
/// a `Value`, or when an object it reads before stopping names a key twice (its `Value`
/// keeps only the last).
pub fn compact_len(text: &str, cap: usize) -> Option<usize> {
    if crate::parse::respelled(text.as_bytes()) {
        // serde_json's reader spells `1E5` as `1e+5`, one byte longer than the text keeps it
        // ([`crate::parse`]): measured whole, less those bytes.
        let spelled = measure(text, usize::MAX, true)?;
        let kept = spelled.saturating_sub(crate::parse::unsigned_exponents(text.as_bytes()));
        return Some(kept.min(cap));
    }
    measure(text, cap, true)
}

fn measure(text: &str, cap: usize, exact_keys: bool) -> Option<usize> {
    let mut count = Count {
        total: 0,
        cap,
        exact_keys,
        duplicate: false,
    };
    let mut reader = serde_json::Deserializer::from_slice(text.as_bytes());
    let read = Measure(&mut count)
        .deserialize(&mut reader)
        .and_then(|()| reader.end());
    if count.duplicate {
        return None;
    }
    match read {
        Ok(()) => Some(count.total.min(cap)),
        Err(_) if count.total > cap => Some(cap),
        Err(_) => None,
    }
}

/// The first JSON value in `text` (after JSON whitespace) as its text, and the text after it.
/// serde_json reads over the value without building it and says where it ends (it checks the
/// grammar, not what a `Value` would also refuse, such as a lone surrogate).
pub fn split_value(text: &str) -> Option<(&str, &str)> {
    let start = text.len() - skip_space(text).len();
    let mut values =
        serde_json::Deserializer::from_slice(text.as_bytes()).into_iter::<IgnoredAny>();
    values.next()?.ok()?;
    let end = values.byte_offset();
    Some((&text[start..end], &text[end..]))
}

/// Reads the JSON object at the start of `text` one entry at a time: each key decoded and
/// handed with the text its value starts at to `entry`, which reads the value and returns
/// the text after it. Returns the text after the object. Keys given twice are all handed
/// over, in order.
pub fn read_object<'t>(
    text: &'t str,
    mut entry: impl FnMut(String, &'t str) -> Option<&'t str>,
) -> Option<&'t str> {
    let mut rest = skip_space(skip_space(text).strip_prefix('{')?);
    if let Some(after) = rest.strip_prefix('}') {
        return Some(after);
    }
    loop {
        let (key, after) = split_value(rest)?;
        let key = key
            .starts_with('"')
            .then(|| decode_whole(key))??
            .into_owned();
        let value = skip_space(skip_space(after).strip_prefix(':')?);
        rest = skip_space(entry(key, value)?);
        match rest.as_bytes().first()? {
            b',' => rest = &rest[1..],
            b'}' => return Some(&rest[1..]),
            _ => return None,
        }
    }
}

/// Reads the JSON array at the start of `text` one element at a time: `element` gets the
/// text the element starts at and returns the text after it. Returns the text after the
/// array.
pub fn read_array<'t>(
    text: &'t str,
    mut element: impl FnMut(&'t str) -> Option<&'t str>,
) -> Option<&'t str> {
    let mut rest = skip_space(skip_space(text).strip_prefix('[')?);
    if let Some(after) = rest.strip_prefix(']') {
        return Some(after);
    }
    loop {
        rest = skip_space(element(rest)?);
        match rest.as_bytes().first()? {
            b',' => rest = skip_space(&rest[1..]),
            b']' => return Some(&rest[1..]),
            _ => return None,
        }
    }
}

/// The entries of the JSON object `text` (nothing after it but whitespace), in order, keys
/// given twice included.
pub fn object_entries(text: &str) -> Option<Vec<(String, &str)>> {
    let mut entries = Vec::new();
    let rest = read_object(text, |key, value| {
        let (value, rest) = split_value(value)?;
        entries.push((key, value));
        Some(rest)
    })?;
    skip_space(rest).is_empty().then_some(entries)
}

/// The fields of a JSON object, in order: each key decoded, each value as its text. `None`
/// when the text is not an object, or names a key twice.
pub fn object_fields(text: &str) -> Option<Vec<(String, &str)>> {
    let fields = object_entries(text)?;
    let mut keys: Vec<&str> = fields.iter().map(|(key, _)| key.as_str()).collect();
    keys.sort_unstable();
    keys.windows(2).all(|w| w[0] != w[1]).then_some(fields)
}

fn skip_space(text: &str) -> &str {
    text.trim_start_matches([' ', '\n', '\r', '\t'])
}

/// Strings whose text is longer than this are decoded a piece at a time (see
/// [`decode_str`]).
const DECODE_PIECE: usize = 1 << 16;

/// The content of a JSON string, borrowed from `text` when it has no escapes. `None` when
/// the text is not a string.
///
/// serde_json decodes a string with escapes into a scratch buffer that grows as it goes,
/// then the visitor copies it out: for a tool result that is one 50 MB string, two transient
/// copies of the result. A long string is therefore cut into pieces between escapes, each
/// decoded by serde_json (which checks it as it would the whole: escapes, surrogate pairs,
/// control characters) straight onto the end of the content.
pub fn decode_str(text: &str) -> Option<Cow<'_, str>> {
    let trimmed = trim(text);
    if trimmed.len() > 4 * DECODE_PIECE && memchr::memchr(b'\\', trimmed.as_bytes()).is_some() {
        let inner = trimmed.strip_prefix('"')?.strip_suffix('"')?;
        return decode_pieces(inner, DECODE_PIECE).map(Cow::Owned);
    }
    decode_whole(text)
}

/// The content of the string whose text (without its quotes) is `inner`, decoded `piece`
/// bytes at a time, each piece ending between escapes (a surrogate pair stays together) at a
/// character boundary.
fn decode_pieces(inner: &str, piece: usize) -> Option<String> {
    let bytes = inner.as_bytes();
    let mut content = String::with_capacity(bytes.len());
    let mut quoted = String::with_capacity(piece + 16);
    let (mut start, mut pos) = (0, 0);
    while start < bytes.len() {
        let target = start + piece;
        let next = memchr::memchr(b'\\', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        if next < target.min(bytes.len()) {
            pos = escape_end(bytes, next)?;
            continue;
        }
        // In the run of plain text from `pos` to `next`, at or past the target.
        let mut cut = target.max(pos).min(next);
        while !inner.is_char_boundary(cut) {
            cut += 1;
        }
        quoted.clear();
        quoted.push('"');
        quoted.push_str(&inner[start..cut]);
        quoted.push('"');
        content.push_str(&decode_whole(&quoted)?);
        (start, pos) = (cut, cut);
    }
    Some(content)
}

/// Where the escape at `at` ends, and the one after it when it is the low half of a
/// surrogate pair whose high half is at `at`.
fn escape_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at + 1)? != &b'u' {
        return Some(at + 2);
    }
    let end = at + 6;
    let hex = std::str::from_utf8(bytes.get(at + 2..end)?).ok()?;
    let high = u16::from_str_radix(hex, 16).is_ok_and(|unit| (0xD800..0xDC00).contains(&unit));
    if high && bytes[end..].starts_with(b"\\u") {
        return Some(end + 6).filter(|&e| e <= bytes.len());
    }
    Some(end)
}

fn decode_whole(text: &str) -> Option<Cow<'_, str>> {
    struct Content;
    impl<'de> Visitor<'de> for Content {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON string")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_owned()))
        }
    }
    let mut reader = serde_json::Deserializer::from_slice(text.as_bytes());
    let content = reader.deserialize_str(Content).ok()?;
    reader.end().ok()?;
    Some(content)
}

/// Whether the JSON text is an array with at least one element (the text is known to be
/// JSON).
pub fn is_nonempty_array(text: &str) -> bool {
    let mut bytes = text
        .bytes()
        .filter(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'));
    bytes.next() == Some(b'[') && bytes.next() != Some(b']')
}

/// JSON's whitespace (not Unicode's) around `text`.
pub fn trim(text: &str) -> &str {
    text.trim_matches([' ', '\n', '\r', '\t'])
}

/// What [`Measure`] has counted.
struct Count {
    total: usize,
    cap: usize,
    /// Keys are compared (to find one given twice) rather than only counted.
    exact_keys: bool,
    duplicate: bool,
}

impl Count {
    fn add<E: de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        self.total = self.total.saturating_add(bytes);
        if self.total > self.cap {
            // Not an error in the text: reading simply stops here.
            Err(E::custom("counted past the cap"))
        } else {
            Ok(())
        }
    }
}

/// Reads one value, adding its compact length to the count; every number is read as the
/// `Value` visitor reads it (and refused where it refuses it).
struct Measure<'c>(&'c mut Count);

impl<'de> DeserializeSeed<'de> for Measure<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<(), D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Measure<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.add(4)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.0.add(if v { 4 } else { 5 })
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.0.add(itoa::Buffer::new().format(v).len())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.0.add(itoa::Buffer::new().format(v).len())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        // The `Value` visitor keeps a float as a Number (or null when not finite).
        self.0
            .add(crate::write::number_from_f64(v).map_or(4, |n| crate::write::number_len(&n)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.add(v.len() + 2)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.add(2)?;
        let mut first = true;
        while let Some(()) = seq.next_element_seed(Measure(&mut *self.0))? {
            if !first {
                self.0.add(1)?;
            }
            first = false;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys: Vec<String> = Vec::new();
        let mut first = true;
        while let Some(key) = map.next_key_seed(Key(self.0.exact_keys))? {
            if first {
                if let KeyRead::Number = key {
                    // serde_json's `arbitrary_precision` gives a number as this one-key map
                    // (an object of that key in the text reads alike, as for a `Value`).
                    let number: Number = map.next_value::<NumberText>()?.0;
                    if map.next_key_seed(Key(false))?.is_some() {
                        return Err(de::Error::custom("a number's map with another key"));
                    }
                    return self.0.add(crate::write::number_len(&number));
                }
                self.0.add(2)?;
            }
            let (len, key) = match key {
                KeyRead::Number => (NUMBER_TOKEN.len(), Some(NUMBER_TOKEN.to_owned())),
                KeyRead::Len(len) => (len, None),
                KeyRead::Text(key) => (key.len(), Some(key)),
            };
            self.0.add(len + 3 + usize::from(!first))?;
            first = false;
            if let Some(key) = key {
                if keys.contains(&key) {
                    self.0.duplicate = true;
                    return Err(de::Error::custom("a key given twice"));
                }
                keys.push(key);
            }
            map.next_value_seed(Measure(&mut *self.0))?;
        }
        if first {
            self.0.add(2)?;
        }
        Ok(())
    }
}

/// The key serde_json's `arbitrary_precision` gives a number's text under.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A number's text as that map holds it (a string that must be a number, as for `Value`).
struct NumberText(Number);

impl<'de> de::Deserialize<'de> for NumberText {
    fn deserialize<D: Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        let text = <String as de::Deserialize>::deserialize(reader)?;
        text.parse::<Number>()
            .map(NumberText)
            .map_err(|_| de::Error::custom("not a number"))
    }
}

/// A key, read as its length or as its text.
enum KeyRead {
    Len(usize),
    Text(String),
    /// [`NUMBER_TOKEN`], whatever was asked.
    Number,
}

struct Key(bool);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = KeyRead;
    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<KeyRead, D::Error> {
        reader.deserialize_str(self)
    }
}

impl Visitor<'_> for Key {
    type Value = KeyRead;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyRead, E> {
        Ok(if v == NUMBER_TOKEN {
            KeyRead::Number
        } else if self.0 {
            KeyRead::Text(v.to_owned())
        } else {
            KeyRead::Len(v.len())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::arb_json;
    use proptest::prelude::*;
    use serde_json::Value;

    fn value_len(text: &str, cap: usize) -> Option<usize> {
        serde_json::from_str::<Value>(text)
            .ok()
            .map(|v| crate::write::unescaped_len(&v, cap))
    }

    #[test]
    fn validity_is_the_value_parsers() {
        for text in [
            "1",
            " [1, 2] ",
            "1e400",
            "[1e400]",
            "{\"a\": [-1e999]}",
            "\"\\ud800\"",
            "[\"\\ud83e\\udd80\"]",
            "{\"a\": 1, \"a\": 2}",
            "[1,]",
            "{} x",
            "",
            "nul",
            "-0",
            "123456789012345678901234567890",
        ] {
            assert_eq!(
                is_value(text),
                serde_json::from_str::<Value>(text).is_ok(),
                "{text}"
            );
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for n in [100, 127, 128, 129, 200] {
            assert_eq!(
                is_value(&deep(n)),
                serde_json::from_str::<Value>(&deep(n)).is_ok(),
                "{n}"
            );
        }
    }

    /// [`decode_pieces`] of the inside of `text` is serde_json's decoding of it, or both
    /// refuse it, whatever the piece size.
    fn decodes_like_serde(text: &str) {
        let expected = serde_json::from_str::<String>(text).ok();
        let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
            return;
        };
        for piece in [1, 2, 3, 5, 7, 16, 1000] {
            assert_eq!(
                decode_pieces(inner, piece),
                expected,
                "{text:?} in pieces of {piece}"
            );
        }
    }

    #[test]
    fn strings_in_pieces() {
        for text in [
            r#""""#,
            r#""plain text""#,
            r#""a\nb\"c\\d\/e\u00e9f\ud83e\udd80g""#,
            r#""\ud83e\udd80\ud83e\udd80""#,
            r#""lone \ud800 high""#,
            r#""lone \udc00 low""#,
            r#""high then other \ud800\u0041""#,
            r#""bad \x escape""#,
            r#""ends in \""#,
            r#""ends in \u00""#,
            r#""quote " inside""#,
            "\"tab\tinside\"",
            "\"\u{e9}\u{6771}\u{1f980} wide\"",
        ] {
            decodes_like_serde(text);
        }
        let long = serde_json::to_string(&"line \"one\"\n\u{e9}\u{1f980}/".repeat(40_000)).unwrap();
        assert!(long.len() > 4 * DECODE_PIECE);
        let decoded = decode_str(&long).unwrap();
        assert_eq!(
            Some(decoded.into_owned()),
            serde_json::from_str::<String>(&long).ok()
        );
    }

    #[test]
    fn values_objects_and_arrays_read_over() {
        assert_eq!(split_value(" 12 , 3"), Some(("12", " , 3")));
        assert_eq!(split_value("\t\"a\\\"b\"}"), Some(("\"a\\\"b\"", "}")));
        assert_eq!(split_value("[1, [2]] x"), Some(("[1, [2]]", " x")));
        assert_eq!(split_value("1e400,"), Some(("1e400", ",")));
        assert_eq!(split_value("12x"), None);
        assert_eq!(split_value("[1,]"), None);
        assert_eq!(split_value(""), None);
        assert_eq!(
            object_entries(r#" {"a": 1, "a" : [2], "\u0062":{}} "#),
            Some(vec![
                ("a".into(), "1"),
                ("a".into(), "[2]"),
                ("b".into(), "{}")
            ])
        );
        assert_eq!(object_entries("{}"), Some(vec![]));
        for bad in [
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{1:2}",
            "{} x",
            "[]",
            "{\"a\":1 \"b\":2}",
        ] {
            assert_eq!(object_entries(bad), None, "{bad}");
        }
        let mut items = Vec::new();
        let rest = read_array(" [ 1 , {\"a\": [2]} ,\"x\"] tail", |item| {
            let (item, rest) = split_value(item)?;
            items.push(item);
            Some(rest)
        });
        assert_eq!(
            (items, rest),
            (vec!["1", "{\"a\": [2]}", "\"x\""], Some(" tail"))
        );
        for bad in ["[1,]", "[1 2]", "[", "{}"] {
            assert_eq!(
                read_array(bad, |item| split_value(item).map(|(_, r)| r)),
                None,
                "{bad}"
            );
        }
    }

    /// serde_json's `raw_value` feature reads an object whose first key is its private token
    /// as raw JSON text: with it on, a literal or a tool result holding that key stopped
    /// reading as a `Value` (a fuzzing finding). The workspace keeps the feature off.
    #[test]
    fn the_raw_value_token_is_an_ordinary_key() {
        let text = r#"{"$serde_json::private::RawValue": "not JSON"}"#;
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(value["$serde_json::private::RawValue"], "not JSON");
        assert_eq!(
            object_fields(text),
            Some(vec![(
                "$serde_json::private::RawValue".into(),
                "\"not JSON\""
            )])
        );
    }

    #[test]
    fn fields_strings_and_arrays() {
        let fields = object_fields(r#" {"a": [1, 2], "\u0062": {"c": null}} "#).unwrap();
        assert_eq!(
            fields,
            vec![("a".into(), "[1, 2]"), ("b".into(), r#"{"c": null}"#)]
        );
        assert_eq!(object_fields(r#"{"a": 1, "\u0061": 2}"#), None);
        assert_eq!(object_fields("[1]"), None);
        assert_eq!(
            object_fields("{\"a\": 1e400}"),
            Some(vec![("a".into(), "1e400")])
        );
        assert!(matches!(
            decode_str(r#""plain""#),
            Some(Cow::Borrowed("plain"))
        ));
        assert_eq!(decode_str(r#""a\nb\u00e9""#).as_deref(), Some("a\nb\u{e9}"));
        assert_eq!(decode_str("1"), None);
        assert_eq!(decode_str(r#""\ud800""#), None);
        assert!(is_nonempty_array(" [ 0 ]"));
        assert!(!is_nonempty_array("[ \n ]"));
        assert!(!is_nonempty_array("{}"));
        assert_eq!(compact_len(r#"{"a": 1, "a": 2}"#, 100), None);
        assert_eq!(
            compact_len(r#"[1.50, "\u00e9", -0, true]"#, 100),
            value_len(r#"[1.50, "\u00e9", -0, true]"#, 100)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        #[test]
        fn pieces_decode_like_serde(
            content in "\\PC{0,40}",
            escaped in prop::collection::vec(any::<bool>(), 1..8),
            cut in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            // Some characters as \u escapes (surrogate pairs for the wide ones).
            let mut text = String::from("\"");
            for (c, escape) in content.chars().zip(escaped.iter().cycle()) {
                if *escape {
                    for unit in c.encode_utf16(&mut [0u16; 2]) {
                        text.push_str(&format!("\\u{unit:04x}"));
                    }
                } else {
                    let quoted = serde_json::to_string(&c.to_string()).unwrap();
                    text.push_str(&quoted[1..quoted.len() - 1]);
                }
            }
            text.push('"');
            decodes_like_serde(&text);
            // And mangled: a byte replaced (when the text stays UTF-8).
            let mut bytes = text.clone().into_bytes();
            let at = cut.index(bytes.len());
            bytes[at] = byte;
            if let Ok(mangled) = String::from_utf8(bytes) {
                decodes_like_serde(&mangled);
            }
        }

        #[test]
        fn lengths_are_the_values(value in arb_json(), cap in 0usize..400) {
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(compact_len(&pretty, cap), Some(crate::write::unescaped_len(&value, cap)));
            prop_assert!(is_value(&pretty));
        }
    }
}
