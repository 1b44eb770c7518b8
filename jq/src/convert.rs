//! Between JSON text, jaq values and `serde_json` values.
//!
//! Records are parsed by serde_json straight into jaq values: its parser stops at 128 levels
//! of nesting, where jaq's own recurses without bound.
//!
//! Numbers keep their digits when they are only passed through (as jq 1.7 keeps literals):
//! an integer is exact (a machine integer, or a big integer beyond it), and a number whose
//! text is not the one its double prints as (`1.50`, `3.0`, `1E2`, `-0`, `1e400`, a long
//! decimal) is a decimal literal (`Num::Dec`), written back as it was read, byte for byte
//! (`1E2` stays `1E2`: records are read with their tokens, see [`parse_val`]). A number that
//! a filter computes with becomes a double there and is printed the way jq prints a double:
//! an integral double is an integer (`1.5 * 2` prints as `3`), NaN is `null`, and
//! infinities are the largest finite doubles.

use serde_json::{Map, Value};

use lro_json::size::{json_size, string_size};

use jaq_json::{Num, Val};

/// Deepest output value converted; deeper values are an error, not a stack overflow.
const MAX_OUTPUT_DEPTH: usize = 512;

/// Deepest JSON text `fromjson` parses (serde_json's limit for records, too).
pub(crate) const MAX_INPUT_DEPTH: usize = 128;

/// The deepest bracket nesting of a JSON text, strings skipped.
pub(crate) fn nesting_depth(text: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Largest integer a double holds exactly; integral floats up to it print as integers.
const EXACT_INT: f64 = 9_007_199_254_740_992.0;

/// Parses one JSON text into a jaq value.
///
/// Like jq 1.6, which holds every number as a double, an integral number written as a float
/// (`3.0`) is read as the integer `3`, so `tostring` and `@tsv` give `"3"` as jq does.
pub fn parse_val(bytes: &[u8]) -> Result<Val, serde_json::Error> {
    if lro_json::parse::respelled(bytes) {
        // serde_json's reader would respell an exponent (`1E5` as `1e+5`): read the text
        // with its tokens kept, then take the value apart.
        return lro_json::parse::from_slice(bytes).map(val_of);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let val = serde::de::DeserializeSeed::deserialize(JqVal, &mut de)?;
    de.end()?;
    Ok(val)
}

/// The jaq value of a `Value` read from text (at most serde_json's 128 levels deep), as
/// [`JqVal`] reads the same text.
fn val_of(value: Value) -> Val {
    match value {
        Value::Null => Val::Null,
        Value::Bool(b) => Val::Bool(b),
        Value::Number(n) => Val::Num(number_of_literal(n.as_str())),
        Value::String(s) => Val::utf8_str(s.into_bytes()),
        Value::Array(items) => Val::Arr(items.into_iter().map(val_of).collect::<Vec<_>>().into()),
        Value::Object(map) => {
            let mut entries = jaq_json::Map::default();
            for (key, value) in map {
                entries.insert(Val::utf8_str(key.into_bytes()), val_of(value));
            }
            Val::obj(entries)
        }
    }
}

/// Longest integer literal read as an exact (big) integer: converting decimal digits to
/// binary costs time quadratic in their number (10,000 digits: a fraction of a millisecond,
/// a million: seconds), so a longer one is kept as its text (printed back as written,
/// computed with as a double, as jq does with every integer past 2^53).
pub const MAX_INTEGER_DIGITS: usize = 10_000;

/// The jaq number of a JSON number token `literal` (valid JSON number grammar): an exact
/// integer (up to [`MAX_INTEGER_DIGITS`] digits), a double when the double prints back as
/// `literal`, else the literal itself.
pub(crate) fn number_of_literal(literal: &str) -> Num {
    // `1E2` is no double's text nor an integer's: a literal, kept as written.
    let integral = !literal.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
        && literal.len() <= MAX_INTEGER_DIGITS;
    let exact = if integral {
        // `-0` is no integer's text: a literal.
        (literal != "-0")
            .then(|| Num::from_str_radix(literal, 10))
            .flatten()
    } else {
        literal
            .parse::<f64>()
            .ok()
            .filter(|f| {
                // An integral double prints as an integer (`3.0` as `3`): a literal.
                f.is_finite()
                    && f.fract() != 0.0
                    && zmij::Buffer::new().format_finite(*f) == literal
            })
            .map(Num::Float)
    };
    exact.unwrap_or_else(|| Num::Dec(literal.to_owned().into()))
}

/// Builds jaq values from serde events (jaq-json's own visitor keeps `3.0` a float).
#[derive(Clone, Copy)]
struct JqVal;

impl<'de> serde::de::DeserializeSeed<'de> for JqVal {
    type Value = Val;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Val, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for JqVal {
    type Value = Val;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Val, E> {
        Ok(Val::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Val, E> {
        Ok(Val::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(i)))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(u)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Val, E> {
        // Not from serde_json's text (its numbers come as text, above): a double.
        Ok(Val::Num(Num::Float(f)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Val, E> {
        Ok(Val::utf8_str(s.as_bytes().to_vec()))
    }
    fn visit_string<E>(self, s: String) -> Result<Val, E> {
        Ok(Val::utf8_str(s.into_bytes()))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Val::Arr(items.into()))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Val, A::Error> {
        let mut entries = jaq_json::Map::default();
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Val::obj(entries));
        };
        // serde_json's `arbitrary_precision` hands a number that fits no 64-bit integer over
        // as a map of this one key and the number's text. An object of that one key and a
        // number's text in the input reads the same way (ARCHITECTURE.md, "Nothing lost, or
        // said"); with another value or another key, it stays an object.
        let value = map.next_value_seed(self)?;
        let number_text = match &value {
            Val::TStr(text) if first == NUMBER_TOKEN && is_number_text(text) => {
                std::str::from_utf8(text).ok().map(str::to_owned)
            }
            _ => None,
        };
        entries.insert(Val::utf8_str(first.into_bytes()), value);
        if let Some(text) = number_text {
            match map.next_key::<String>()? {
                Some(key) => {
                    let value = map.next_value_seed(self)?;
                    entries.insert(Val::utf8_str(key.into_bytes()), value);
                }
                None => return Ok(Val::Num(number_of_literal(&text))),
            }
        }
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self)?;
            entries.insert(Val::utf8_str(key.into_bytes()), value);
        }
        Ok(Val::obj(entries))
    }
}

/// Whether `text` is one JSON number token.
fn is_number_text(text: &[u8]) -> bool {
    lro_json::scan::number_end(text, 0) == Some(text.len())
}

/// The key serde_json's `arbitrary_precision` gives a number's text under.
pub(crate) const NUMBER_TOKEN: &str = "$serde_json::private::Number";

fn float(f: f64) -> Value {
    if f.is_nan() {
        Value::Null
    } else if f.is_infinite() {
        Value::from(if f > 0.0 { f64::MAX } else { f64::MIN })
    } else if f.fract() == 0.0 && f.abs() < EXACT_INT {
        // In range, so the cast is exact.
        Value::from(f as i64)
    } else {
        lro_json::write::number_from_f64(f).map_or(Value::Null, Value::Number)
    }
}

fn number(n: &Num) -> Value {
    match n {
        Num::Int(i) => Value::from(*i as i64),
        Num::Float(f) => float(*f),
        // Big integers and decimal literals: their digits (serde_json's `Number` keeps its
        // text); a literal that is not JSON (a filter's own, say) as the double it means.
        Num::BigInt(i) => json_number(&i.to_string()).unwrap_or(Value::Null),
        Num::Dec(text) => {
            json_number(text).unwrap_or_else(|| text.parse::<f64>().map_or(Value::Null, float))
        }
    }
}

/// `text` as a JSON number kept as written, byte for byte, when it is one.
fn json_number(text: &str) -> Option<Value> {
    is_number_text(text.as_bytes()).then(|| Value::Number(lro_json::parse::number_of_token(text)))
}

fn text(bytes: &[u8]) -> String {
    // Checking first is much faster than the lossy conversion on valid text (all text, unless
    // a filter built invalid bytes).
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Converts an output value; `Err` when it is nested deeper than [`MAX_OUTPUT_DEPTH`].
pub fn to_value(val: &Val) -> Result<Value, String> {
    convert(val, 0, u64::MAX).map(|(value, _)| value)
}

/// [`to_value`] with the value's [`json_size`], counted while converting: serializing every
/// output a second time just to measure it cost as much as the conversion.
pub fn to_value_sized(val: &Val) -> Result<(Value, u64), String> {
    convert(val, 0, u64::MAX)
}

/// [`to_value_sized`] that stops once the output is larger than `room` bytes of JSON: an
/// output that shares its parts (`[., .]` again and again) can be exponentially larger than
/// the memory it takes as a value.
pub fn to_value_capped(val: &Val, room: u64) -> Result<(Value, u64), String> {
    let (value, size) = convert(val, 0, room)?;
    if size > room {
        return Err(too_large(room));
    }
    Ok((value, size))
}

fn too_large(room: u64) -> String {
    format!("output value larger than extract.max_memory_bytes ({room} bytes)")
}

fn number_size(value: &Value) -> u64 {
    match value {
        // Its text, as serde_json writes it.
        Value::Number(n) => lro_json::write::number_len(n) as u64,
        other => json_size(other),
    }
}

fn convert(val: &Val, depth: usize, room: u64) -> Result<(Value, u64), String> {
    if depth > MAX_OUTPUT_DEPTH {
        return Err(format!(
            "output value nested more than {MAX_OUTPUT_DEPTH} levels deep"
        ));
    }
    Ok(match val {
        Val::Null => (Value::Null, 4),
        Val::Bool(b) => (Value::Bool(*b), if *b { 4 } else { 5 }),
        Val::Num(n) => {
            let value = number(n);
            let size = number_size(&value);
            (value, size)
        }
        Val::TStr(s) | Val::BStr(s) => {
            let s = text(s);
            let size = string_size(&s);
            (Value::String(s), size)
        }
        Val::Arr(items) => {
            let mut size = 2 + items.len().saturating_sub(1) as u64;
            let mut array = Vec::with_capacity(items.len());
            for item in items.iter() {
                let (value, item_size) = convert(item, depth + 1, room)?;
                size += item_size;
                if size > room {
                    return Err(too_large(room));
                }
                array.push(value);
            }
            (Value::Array(array), size)
        }
        Val::Obj(entries) => {
            let mut map = Map::with_capacity(entries.len());
            let mut size = 2 + entries.len().saturating_sub(1) as u64;
            let mut merged = false;
            for (k, v) in entries.iter() {
                let key = match k {
                    Val::TStr(s) | Val::BStr(s) => text(s),
                    other => other.to_string(),
                };
                let (value, value_size) = convert(v, depth + 1, room)?;
                size += string_size(&key) + 1 + value_size;
                if size > room {
                    return Err(too_large(room));
                }
                // Two keys that print alike (`"1"` and `1`) make one entry.
                merged |= map.insert(key, value).is_some();
            }
            let object = Value::Object(map);
            if merged {
                let size = json_size(&object);
                (object, size)
            } else {
                (object, size)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integer_literals_past_the_digit_bound_keep_their_text() {
        let long = "7".repeat(MAX_INTEGER_DIGITS + 1);
        let v = parse_val(format!("[{long}]").as_bytes()).unwrap();
        let fast = crate::RecordParser::projecting(None)
            .parse(format!("[{long}]").as_bytes())
            .unwrap();
        for v in [v, fast] {
            let Val::Arr(items) = &v else {
                panic!("not an array")
            };
            assert!(matches!(&items[0], Val::Num(Num::Dec(_))));
            assert_eq!(
                lro_json::write::to_string(&to_value(&v).unwrap()),
                format!("[{long}]")
            );
        }
        let exact = "7".repeat(MAX_INTEGER_DIGITS);
        assert!(matches!(
            parse_val(exact.as_bytes()).unwrap(),
            Val::Num(Num::BigInt(_))
        ));
    }

    #[test]
    fn numbers_print_as_jq_prints_them() {
        let text = br#"{"a": 1.0, "b": 1.5, "c": [null, true, "x"], "d": 12345678901234567890, "e": 123456789012345678901234567890, "f": -9223372036854775809, "g": 3.14159265358979323846264338327950288, "h": 1e400, "i": -0, "j": 1E2, "k": 1.50}"#;
        let v = parse_val(text).unwrap();
        // Passed through, every number keeps its text, byte for byte (jq 1.7 keeps literals
        // alike), whichever reader read it: serde's, and the fast record parser.
        let fast = crate::RecordParser::projecting(None).parse(text).unwrap();
        assert_eq!(to_value(&fast).unwrap(), to_value(&v).unwrap());
        assert_eq!(
            lro_json::write::to_string(&to_value(&v).unwrap()),
            r#"{"a":1.0,"b":1.5,"c":[null,true,"x"],"d":12345678901234567890,"e":123456789012345678901234567890,"f":-9223372036854775809,"g":3.14159265358979323846264338327950288,"h":1e400,"i":-0,"j":1E2,"k":1.50}"#
        );
        assert_eq!(float(f64::NAN), Value::Null);
        assert_eq!(float(f64::INFINITY), json!(f64::MAX));
        assert_eq!(float(1e300), json!(1e300));
        // A computed integral double prints as an integer, as jq prints it.
        assert_eq!(to_value(&Val::Num(Num::Float(3.0))).unwrap(), json!(3));
        assert!(matches!(parse_val(b"3.0").unwrap(), Val::Num(Num::Dec(_))));
        assert!(matches!(parse_val(b"3").unwrap(), Val::Num(Num::Int(3))));
        assert!(matches!(
            parse_val(b"3.5").unwrap(),
            Val::Num(Num::Float(_))
        ));
        assert!(matches!(
            parse_val(b"123456789012345678901234567890").unwrap(),
            Val::Num(Num::BigInt(_))
        ));
        assert!(parse_val(b"1 2").is_err());
    }

    #[test]
    fn an_object_of_the_number_key_stays_an_object_unless_it_is_a_number() {
        for (text, out) in [
            (
                r#"{"$serde_json::private::Number":"abc"}"#,
                r#"{"$serde_json::private::Number":"abc"}"#,
            ),
            (
                r#"{"$serde_json::private::Number":1}"#,
                r#"{"$serde_json::private::Number":1}"#,
            ),
            (
                r#"{"$serde_json::private::Number":"1","b":2}"#,
                r#"{"$serde_json::private::Number":"1","b":2}"#,
            ),
        ] {
            let value = to_value(&parse_val(text.as_bytes()).unwrap()).unwrap();
            assert_eq!(lro_json::write::to_string(&value), out);
        }
    }

    #[test]
    fn sizes_are_counted_as_serde_json_writes() {
        let texts: [&[u8]; 6] = [
            br#"{"a": 1.0, "b": -1.5e-7, "c": [null, true, false, "x\"\\\n\u0001\u007f"], "d": 12345678901234567890}"#,
            br#"[0, -0, 9, 10, -10, 99, 100, 9007199254740993, -9223372036854775808, 1e300, 2.5, []]"#,
            r#"{"é": "日本 \u2028 😀", "": {}, "k": [{}, [], ""]}"#.as_bytes(),
            br#"{"a": 1, "a": 2}"#,
            b"\"plain\"",
            b"123456789012345678901234567890",
        ];
        for text in texts {
            let (value, size) = to_value_sized(&parse_val(text).unwrap()).unwrap();
            assert_eq!(size, json_size(&value), "{}", String::from_utf8_lossy(text));
        }
        for f in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.1,
            1e-300,
            4e15,
            9.1e15,
        ] {
            let (value, size) = to_value_sized(&Val::Num(Num::Float(f))).unwrap();
            assert_eq!(size, json_size(&value), "{f}");
        }
        // Keys that print alike merge into one entry: measured on the result.
        let mut map = jaq_json::Map::default();
        map.insert(Val::utf8_str(b"1".to_vec()), Val::Null);
        map.insert(Val::Num(Num::Int(1)), Val::Bool(true));
        let (value, size) = to_value_sized(&Val::obj(map)).unwrap();
        assert_eq!(
            (value.clone(), size),
            (json!({"1": true}), json_size(&value))
        );
    }

    #[test]
    fn deep_values_are_refused_not_overflowed() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(
            parse_val(deep.as_bytes()).is_err(),
            "serde_json stops at 128"
        );
        assert_eq!(nesting_depth(deep.as_bytes()), 200);
        assert_eq!(nesting_depth(br#"[{"a": "[[[\"[["}]"#), 2);
    }
}
