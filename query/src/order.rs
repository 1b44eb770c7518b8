//! MongoDB's order of values (BSON comparison order), its equality, and `$type`.
//!
//! Types come in brackets, lowest first: null, numbers, strings, objects, arrays, booleans
//! (JSON has no other BSON type). Within a bracket: numbers by value, strings byte by byte
//! (UTF-8, MongoDB's simple binary collation), booleans false before true, arrays element by
//! element, objects pair by pair in their own key order (the value's bracket, then the key,
//! then the value), a prefix before a longer value. Two values are equal when they compare
//! equal: `1` equals `1.0`, and objects with the same pairs in another order differ, as
//! MongoDB's documentation says of embedded documents.

use std::cmp::Ordering;

use jaq_json::{Num, Val};
use serde_json::Value;

/// The bracket of a value; comparisons (`$gt`, ...) only match values of the same bracket.
pub fn rank(v: &Val) -> u8 {
    match v {
        Val::Null => 1,
        Val::Num(_) => 2,
        Val::TStr(_) | Val::BStr(_) => 3,
        Val::Obj(_) => 4,
        Val::Arr(_) => 5,
        Val::Bool(_) => 8,
    }
}

/// A number as a double (what jq holds; exact for integers up to 2^53).
pub fn to_f64(n: &Num) -> f64 {
    match n {
        // Beyond 2^53 the nearest double, as jq reads it.
        #[allow(clippy::cast_precision_loss, reason = "jq's own conversion")]
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        Num::BigInt(b) => b.to_string().parse().unwrap_or(f64::NAN),
        Num::Dec(d) => d.parse().unwrap_or(f64::NAN),
    }
}

fn num_cmp(a: &Num, b: &Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(y),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        // A big integer or a decimal kept as text: exactly, by the digits (a double would
        // make 10^29 and 10^29 + 1 equal).
        _ => crate::decimal::compare(&num_text(a), &num_text(b))
            .unwrap_or_else(|| to_f64(a).partial_cmp(&to_f64(b)).unwrap_or(Ordering::Equal)),
    }
}

/// A number's decimal text: a double's shortest, the text it was read from or prints as.
fn num_text(n: &Num) -> std::borrow::Cow<'_, str> {
    match n {
        Num::Dec(text) => std::borrow::Cow::Borrowed(text.as_str()),
        Num::Float(f) if f.is_finite() => zmij::Buffer::new().format_finite(*f).to_owned().into(),
        other => other.to_string().into(),
    }
}

fn bytes(v: &Val) -> &[u8] {
    match v {
        Val::TStr(b) | Val::BStr(b) => b,
        _ => &[],
    }
}

/// The total order of values described in the module documentation.
pub fn compare(a: &Val, b: &Val) -> Ordering {
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (Val::Num(x), Val::Num(y)) => num_cmp(x, y),
        (Val::Bool(x), Val::Bool(y)) => x.cmp(y),
        (Val::Arr(x), Val::Arr(y)) => x
            .iter()
            .zip(y.iter())
            .map(|(p, q)| compare(p, q))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Val::Obj(x), Val::Obj(y)) => x
            .iter()
            .zip(y.iter())
            .map(|((ka, va), (kb, vb))| {
                rank(va)
                    .cmp(&rank(vb))
                    .then_with(|| bytes(ka).cmp(bytes(kb)))
                    .then_with(|| compare(va, vb))
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| x.len().cmp(&y.len())),
        (Val::Null, Val::Null) => Ordering::Equal,
        _ => bytes(a).cmp(bytes(b)),
    })
}

/// Equality as MongoDB matches values.
pub fn equal(a: &Val, b: &Val) -> bool {
    rank(a) == rank(b) && compare(a, b).is_eq()
}

/// A value wrapped in [`compare`]'s order, for sorted maps and sorting.
#[derive(Debug, Clone)]
pub struct Ordered(pub Val);

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        equal(&self.0, &other.0)
    }
}
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> Ordering {
        compare(&self.0, &other.0)
    }
}

/// The types `$type` names. JSON numbers are typed by value: an integral number is an
/// `int` (a `long` beyond 32 bits, a `double` beyond 63), any other a `double`; JSON keeps
/// `3.0` no more apart from `3` than jq does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BsonType {
    /// `double` (1): a number not integral, or integral beyond 63 bits.
    Double,
    /// `string` (2).
    String,
    /// `object` (3).
    Object,
    /// `array` (4).
    Array,
    /// `bool` (8).
    Bool,
    /// `null` (10).
    Null,
    /// `int` (16): an integral number within 32 bits.
    Int,
    /// `long` (18): an integral number within 64 bits, beyond 32.
    Long,
    /// Any number.
    Number,
    /// A BSON type JSON cannot hold (`date`, `objectId`, `decimal`, ...): matches nothing.
    Absent,
}

const INT32: f64 = 2_147_483_648.0;
const INT64: f64 = 9_223_372_036_854_775_808.0;

impl BsonType {
    /// A `$type` operand: an alias (`"string"`) or a BSON type number (`2`).
    pub fn from_json(v: &Value) -> Option<Self> {
        let t = match v {
            Value::String(name) => match name.as_str() {
                "double" => Self::Double,
                "string" => Self::String,
                "object" => Self::Object,
                "array" => Self::Array,
                "bool" => Self::Bool,
                "null" => Self::Null,
                "int" => Self::Int,
                "long" => Self::Long,
                "number" => Self::Number,
                "decimal"
                | "binData"
                | "undefined"
                | "objectId"
                | "date"
                | "regex"
                | "dbPointer"
                | "javascript"
                | "symbol"
                | "javascriptWithScope"
                | "timestamp"
                | "minKey"
                | "maxKey" => Self::Absent,
                _ => return None,
            },
            Value::Number(n) => match n.as_f64()? {
                1.0 => Self::Double,
                2.0 => Self::String,
                3.0 => Self::Object,
                4.0 => Self::Array,
                8.0 => Self::Bool,
                10.0 => Self::Null,
                16.0 => Self::Int,
                18.0 => Self::Long,
                5.0 | 6.0 | 7.0 | 9.0 | 11.0 | 12.0 | 13.0 | 14.0 | 15.0 | 17.0 | 19.0 | -1.0
                | 127.0 => Self::Absent,
                _ => return None,
            },
            _ => return None,
        };
        Some(t)
    }

    /// `v` is of this type.
    pub fn holds(self, v: &Val) -> bool {
        match (self, v) {
            (Self::String, Val::TStr(_) | Val::BStr(_))
            | (Self::Object, Val::Obj(_))
            | (Self::Array, Val::Arr(_))
            | (Self::Bool, Val::Bool(_))
            | (Self::Null, Val::Null)
            | (Self::Number, Val::Num(_)) => true,
            (Self::Int | Self::Long | Self::Double, Val::Num(n)) => {
                let f = to_f64(n);
                let integral = f.fract() == 0.0;
                match self {
                    Self::Int => integral && (-INT32..INT32).contains(&f),
                    Self::Long => {
                        integral && (-INT64..INT64).contains(&f) && !(-INT32..INT32).contains(&f)
                    }
                    _ => !integral || !(-INT64..INT64).contains(&f),
                }
            }
            _ => false,
        }
    }

    /// A jq test of `.` for this type (jq 1.6 holds numbers as doubles).
    pub fn jq_test(self) -> &'static str {
        match self {
            Self::Double => {
                r#"(type == "number" and (. != floor or . < -9223372036854775808 or . >= 9223372036854775808))"#
            }
            Self::String => r#"type == "string""#,
            Self::Object => r#"type == "object""#,
            Self::Array => r#"type == "array""#,
            Self::Bool => r#"type == "boolean""#,
            Self::Null => r#"type == "null""#,
            Self::Int => {
                r#"(type == "number" and . == floor and . >= -2147483648 and . < 2147483648)"#
            }
            Self::Long => {
                r#"(type == "number" and . == floor and . >= -9223372036854775808 and . < 9223372036854775808 and (. < -2147483648 or . >= 2147483648))"#
            }
            Self::Number => r#"type == "number""#,
            Self::Absent => "false",
        }
    }
}

/// The jq definitions of the order: `_r` (the bracket) and `_k` (a key whose jq order is
/// [`compare`]'s, so jq's `==`, `<`, `sort_by` and `group_by` on keys follow MongoDB).
pub const JQ_ORDER: &str = r#"def _r: if type == "null" then 1 elif type == "number" then 2 elif type == "string" then 3 elif type == "object" then 4 elif type == "array" then 5 else 8 end; def _k: if type == "object" then [4, [to_entries[] | [(.value | _r), .key, (.value | _k)]]] elif type == "array" then [5, map(_k)] else [_r, .] end;"#;

/// [`JQ_ORDER`]'s `_k` of `v`, computed here, as a JSON literal for jq programs.
pub fn jq_key(v: &Val) -> Value {
    match v {
        Val::Obj(map) => Value::Array(vec![
            Value::from(4),
            Value::Array(
                map.iter()
                    .map(|(k, v)| {
                        Value::Array(vec![
                            Value::from(rank(v)),
                            Value::from(String::from_utf8_lossy(bytes(k)).into_owned()),
                            jq_key(v),
                        ])
                    })
                    .collect(),
            ),
        ]),
        Val::Arr(items) => Value::Array(vec![
            Value::from(5),
            Value::Array(items.iter().map(jq_key).collect()),
        ]),
        other => Value::Array(vec![Value::from(rank(other)), to_json(other)]),
    }
}

/// `v` as JSON, as extraction prints values (jq's way: `3.0` is `3`).
pub fn to_json(v: &Val) -> Value {
    lro_jq::convert::to_value_sized(v).map_or(Value::Null, |(value, _)| value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lro_jq::convert::parse_val;

    fn v(text: &str) -> Val {
        parse_val(text.as_bytes()).unwrap()
    }

    #[test]
    fn brackets_then_values() {
        let ascending = [
            "null",
            "-3",
            "1",
            "2.5",
            "10",
            "\"\"",
            "\"B\"",
            "\"a\"",
            "\"é\"",
            "{}",
            r#"{"a":1}"#,
            r#"{"b":0}"#,
            r#"{"b":0,"c":1}"#,
            r#"{"a":"x"}"#,
            "[]",
            "[1]",
            "[1,2]",
            r#"["a"]"#,
            "false",
            "true",
        ];
        for w in ascending.windows(2) {
            assert_eq!(
                compare(&v(w[0]), &v(w[1])),
                Ordering::Less,
                "{} < {}",
                w[0],
                w[1]
            );
            assert_eq!(compare(&v(w[1]), &v(w[0])), Ordering::Greater);
        }
        assert!(equal(&v("1"), &v("1.0")));
        assert!(
            !equal(&v(r#"{"a":1,"b":2}"#), &v(r#"{"b":2,"a":1}"#)),
            "order matters"
        );
        assert!(equal(
            &v(r#"{"a":[1,{"b":2}]}"#),
            &v(r#"{"a":[1.0,{"b":2}]}"#)
        ));
    }

    #[test]
    fn numbers_are_typed_by_value() {
        let t = |name: &str, text: &str| {
            BsonType::from_json(&Value::from(name))
                .unwrap()
                .holds(&v(text))
        };
        assert!(t("int", "3") && t("int", "3.0") && !t("int", "3.5") && !t("int", "4294967296"));
        assert!(t("long", "4294967296") && !t("long", "3"));
        assert!(t("double", "3.5") && !t("double", "3") && t("double", "1e300"));
        assert!(t("number", "3.5") && !t("number", "\"3\""));
        assert!(!t("date", "\"2026-01-01\""));
        assert!(BsonType::from_json(&Value::from("datetime")).is_none());
        assert_eq!(
            BsonType::from_json(&serde_json::json!(2)),
            Some(BsonType::String)
        );
    }
}
