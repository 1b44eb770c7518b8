//! Filter documents (`where`): MongoDB's query language, read from JSON into a [`Filter`].
//!
//! Everything is checked here, before any record is read: an unknown operator, a malformed
//! operand or a regular expression that does not compile is `invalid_query`, and the
//! message names where in the document it is (`where.tags.$size: ...`).

use jaq_json::Val;
use lro_regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::order::BsonType;
use crate::program::value_to_val;

/// Deepest nesting of `$and`/`$or`/`$nor`/`$not`/`$elemMatch` a filter may have.
const MAX_DEPTH: usize = 32;
/// Most memory a compiled `$regex` may take (the `search` verb's limit).
const REGEX_SIZE_LIMIT: usize = 4 * 1024 * 1024;
/// Longest `$regex` pattern.
const MAX_PATTERN_BYTES: usize = 16 * 1024;

/// A filter document.
#[derive(Debug)]
pub enum Filter {
    /// `{}`: every record.
    Always,
    /// Every sub-filter holds (a document of several keys, or `$and`).
    And(Vec<Filter>),
    /// At least one holds.
    Or(Vec<Filter>),
    /// None holds.
    Nor(Vec<Filter>),
    /// Every condition holds for the values at the path.
    Field(Path, Vec<Cond>),
}

/// One component of a dotted path.
#[derive(Debug, Clone)]
pub struct Part {
    /// The component as an object key.
    pub key: Val,
    /// The component as an array position, when it is one (`0`, `12`; not `01`).
    pub index: Option<usize>,
}

/// A dotted path (`provenance.confidence`, `tags.0`).
#[derive(Debug, Clone)]
pub struct Path {
    /// As written.
    pub text: String,
    /// Its components, in order.
    pub parts: Vec<Part>,
}

/// Comparison operators, on values of the same type bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `$gt`.
    Gt,
    /// `$gte`.
    Gte,
    /// `$lt`.
    Lt,
    /// `$lte`.
    Lte,
}

/// A condition on the values at a path.
#[derive(Debug)]
pub enum Cond {
    /// `$eq` (or a plain value): a value, or an array element, equals it.
    Eq(Val),
    /// `$ne`: no value nor array element equals it.
    Ne(Val),
    /// `$gt`, `$gte`, `$lt`, `$lte`: a value of the same type bracket compares so.
    Cmp(CmpOp, Val),
    /// `$in`: a value equals one of these.
    In(Vec<Val>),
    /// `$nin`: no value equals any of these.
    Nin(Vec<Val>),
    /// `$exists`: the path has a value (`true`) or has none (`false`).
    Exists(bool),
    /// `$type`: a value is of one of these types.
    Type(Vec<BsonType>),
    /// `$regex` (with `$options`): a string value matches the pattern.
    Regex(Box<Pattern>),
    /// `$size`: the value is an array of this length.
    Size(usize),
    /// `$all`: the array holds every item.
    All(Vec<AllItem>),
    /// `$elemMatch`: one array element matches.
    ElemMatch(Box<ElemMatch>),
    /// `$not`: the conditions do not all hold.
    Not(Vec<Cond>),
}

/// An item of `$all`: a value the array must hold, or an `$elemMatch` one element must match.
#[derive(Debug)]
pub enum AllItem {
    /// A value the array must hold.
    Value(Val),
    /// An `$elemMatch` one element must match.
    ElemMatch(ElemMatch),
}

/// `$elemMatch`: conditions on each element itself, or a filter on element documents.
#[derive(Debug)]
pub enum ElemMatch {
    /// Operators on the element itself (`{"$gt": 3}`).
    Values(Vec<Cond>),
    /// A filter document on the element (`{"kind": "a"}`).
    Document(Filter),
}

/// A compiled `$regex` with its `$options`.
#[derive(Debug)]
pub struct Pattern {
    /// The pattern as written.
    pub source: String,
    /// The options, in the order `imsx`, as the inline flags `(?ims)` take them.
    pub flags: String,
    /// The compiled pattern, the flags applied.
    pub regex: Regex,
}

fn bad(at: &str, why: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidQuery, format!("{at}: {why}"))
}

const FIELD_OPERATORS: &str = "$eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $type, $regex \
    (with $options), $all, $size, $elemMatch, $not";

/// Reads a filter document (the request's `where`).
pub fn parse(doc: &Value) -> Result<Filter> {
    match doc {
        Value::Object(map) => document(map, "where", 0),
        other => Err(bad(
            "where",
            format!(
                "a filter document must be a JSON object such as {{\"kind\": \"person\"}}, \
                 got {other}"
            ),
        )),
    }
}

fn document(map: &Map<String, Value>, at: &str, depth: usize) -> Result<Filter> {
    if depth > MAX_DEPTH {
        return Err(bad(at, format!("nested deeper than {MAX_DEPTH} levels")));
    }
    let mut all = Vec::with_capacity(map.len());
    for (key, value) in map {
        let here = format!("{at}.{key}");
        match key.as_str() {
            "$and" | "$or" | "$nor" => {
                let list = logical(value, &here, depth)?;
                all.push(match key.as_str() {
                    "$and" => Filter::And(list),
                    "$or" => Filter::Or(list),
                    _ => Filter::Nor(list),
                });
            }
            // A note for the logs of a database; nothing to match.
            "$comment" => {}
            k if k.starts_with('$') => {
                return Err(bad(
                    &here,
                    format!(
                        "unknown top-level operator {k} (a filter document takes field names, \
                         $and, $or, $nor and $comment)"
                    ),
                ));
            }
            _ => all.push(Filter::Field(
                path(key, at)?,
                conditions(value, &here, depth)?,
            )),
        }
    }
    Ok(match all.len() {
        0 => Filter::Always,
        1 => all.remove(0),
        _ => Filter::And(all),
    })
}

fn logical(value: &Value, at: &str, depth: usize) -> Result<Vec<Filter>> {
    let Value::Array(items) = value else {
        return Err(bad(
            at,
            format!("expected an array of filter documents, got {value}"),
        ));
    };
    if items.is_empty() {
        return Err(bad(at, "expected a non-empty array of filter documents"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(map) => document(map, &format!("{at}[{i}]"), depth + 1),
            other => Err(bad(
                &format!("{at}[{i}]"),
                format!("expected a filter document, got {other}"),
            )),
        })
        .collect()
}

/// Most components a dotted path may have: a record nests at most this deep (the limit the
/// record parser keeps, serde_json's), so a longer path names nothing, and what follows a path
/// (`fields`' tree of components, its projection, the jq equivalent) recurses on its length.
pub const MAX_PATH_COMPONENTS: usize = lro_jq::MAX_PARSE_DEPTH;

/// Parses a dotted field path.
pub fn path(text: &str, at: &str) -> Result<Path> {
    if text.is_empty() {
        return Err(bad(at, "a field name cannot be empty"));
    }
    let components = text.split('.').count();
    if components > MAX_PATH_COMPONENTS {
        let start: String = text.chars().take(40).collect();
        return Err(bad(
            at,
            format!(
                "field path \"{start}...\" has {components} components; the limit is \
                 {MAX_PATH_COMPONENTS} (no record nests deeper)"
            ),
        ));
    }
    let parts = text
        .split('.')
        .map(|part| {
            if part.is_empty() {
                return Err(bad(
                    at,
                    format!("field path {text:?} has an empty component"),
                ));
            }
            if part.starts_with('$') {
                return Err(bad(
                    at,
                    format!("field path {text:?}: a component cannot start with $"),
                ));
            }
            let index = (part.bytes().all(|b| b.is_ascii_digit())
                && (part.len() == 1 || !part.starts_with('0')))
            .then(|| part.parse::<usize>().ok())
            .flatten();
            Ok(Part {
                key: Val::utf8_str(part.as_bytes().to_vec()),
                index,
            })
        })
        .collect::<Result<_>>()?;
    Ok(Path {
        text: text.to_owned(),
        parts,
    })
}

/// The value of a field in a filter document: an operator document, or a value to equal.
fn conditions(value: &Value, at: &str, depth: usize) -> Result<Vec<Cond>> {
    match value {
        Value::Object(map) if map.keys().any(|k| k.starts_with('$')) => operators(map, at, depth),
        other => Ok(vec![Cond::Eq(val(other, at)?)]),
    }
}

/// An operator document (`{"$gt": 1, "$lt": 5}`); plain keys mixed in are an error.
fn operators(map: &Map<String, Value>, at: &str, depth: usize) -> Result<Vec<Cond>> {
    if depth > MAX_DEPTH {
        return Err(bad(at, format!("nested deeper than {MAX_DEPTH} levels")));
    }
    if let Some(plain) = map.keys().find(|k| !k.starts_with('$')) {
        return Err(bad(
            at,
            format!(
                "mixes operators with the plain key {plain:?}: use either operators ({FIELD_OPERATORS}) \
                 or a document to equal"
            ),
        ));
    }
    let options = map.get("$options");
    if options.is_some() && !map.contains_key("$regex") {
        return Err(bad(&format!("{at}.$options"), "$options needs $regex"));
    }
    let mut conds = Vec::with_capacity(map.len());
    for (op, operand) in map {
        let here = format!("{at}.{op}");
        let cond = match op.as_str() {
            "$eq" => Cond::Eq(val(operand, &here)?),
            "$ne" => Cond::Ne(val(operand, &here)?),
            "$gt" => Cond::Cmp(CmpOp::Gt, val(operand, &here)?),
            "$gte" => Cond::Cmp(CmpOp::Gte, val(operand, &here)?),
            "$lt" => Cond::Cmp(CmpOp::Lt, val(operand, &here)?),
            "$lte" => Cond::Cmp(CmpOp::Lte, val(operand, &here)?),
            "$in" => Cond::In(values(operand, &here)?),
            "$nin" => Cond::Nin(values(operand, &here)?),
            "$exists" => Cond::Exists(match operand {
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
                other => {
                    return Err(bad(&here, format!("expected true or false, got {other}")));
                }
            }),
            "$type" => Cond::Type(types(operand, &here)?),
            "$regex" => Cond::Regex(Box::new(pattern(operand, options, &here)?)),
            "$options" => continue,
            "$size" => Cond::Size(size(operand, &here)?),
            "$all" => Cond::All(all_items(operand, &here, depth)?),
            "$elemMatch" => Cond::ElemMatch(Box::new(elem_match(operand, &here, depth)?)),
            "$not" => match operand {
                Value::Object(inner) if !inner.is_empty() => {
                    if let Some(plain) = inner.keys().find(|k| !k.starts_with('$')) {
                        return Err(bad(
                            &here,
                            format!("$not takes operators, not the plain key {plain:?}"),
                        ));
                    }
                    Cond::Not(operators(inner, &here, depth + 1)?)
                }
                other => {
                    return Err(bad(
                        &here,
                        format!(
                            "$not takes a non-empty operator document such as {{\"$regex\": \"x\"}}, got {other}"
                        ),
                    ));
                }
            },
            unknown => {
                return Err(bad(
                    &here,
                    format!("unknown operator {unknown} (supported: {FIELD_OPERATORS})"),
                ));
            }
        };
        conds.push(cond);
    }
    Ok(conds)
}

fn val(value: &Value, at: &str) -> Result<Val> {
    value_to_val(value).map_err(|e| bad(at, e.message()))
}

fn values(operand: &Value, at: &str) -> Result<Vec<Val>> {
    match operand {
        Value::Array(items) => items.iter().map(|v| val(v, at)).collect(),
        other => Err(bad(at, format!("expected an array of values, got {other}"))),
    }
}

fn size(operand: &Value, at: &str) -> Result<usize> {
    operand
        .as_f64()
        .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u32::MAX as f64)
        // Integral and in range, so the cast is exact.
        .map(|f| f as usize)
        .ok_or_else(|| {
            bad(
                at,
                format!("expected a non-negative integer, got {operand}"),
            )
        })
}

fn types(operand: &Value, at: &str) -> Result<Vec<BsonType>> {
    let one = |v: &Value| {
        BsonType::from_json(v).ok_or_else(|| {
            bad(
                at,
                format!(
                    "unknown type {v} (names: double, string, object, array, bool, null, int, long, \
                     decimal, number, ... or their numbers 1, 2, 3, 4, 8, 10, 16, 18, 19)"
                ),
            )
        })
    };
    match operand {
        Value::Array(items) if !items.is_empty() => items.iter().map(one).collect(),
        Value::Array(_) => Err(bad(at, "expected at least one type")),
        other => Ok(vec![one(other)?]),
    }
}

fn pattern(operand: &Value, options: Option<&Value>, at: &str) -> Result<Pattern> {
    let Value::String(source) = operand else {
        return Err(bad(at, format!("expected a pattern string, got {operand}")));
    };
    if source.len() > MAX_PATTERN_BYTES {
        return Err(bad(
            at,
            format!("pattern longer than {MAX_PATTERN_BYTES} bytes"),
        ));
    }
    let given = match options {
        None => "",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(bad(
                &at.replace("$regex", "$options"),
                format!("expected a string of i, m, s, x, got {other}"),
            ));
        }
    };
    if let Some(c) = given.chars().find(|c| !"imsx".contains(*c)) {
        return Err(bad(
            &at.replace("$regex", "$options"),
            format!("unknown option {c:?} (supported: i, m, s, x)"),
        ));
    }
    let flags: String = "imsx".chars().filter(|c| given.contains(*c)).collect();
    let inline = if flags.is_empty() {
        source.clone()
    } else {
        format!("(?{flags}){source}")
    };
    let regex = RegexBuilder::new(&inline)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| bad(at, format!("bad regular expression {source:?}: {e}")))?;
    Ok(Pattern {
        source: source.clone(),
        flags,
        regex,
    })
}

fn all_items(operand: &Value, at: &str, depth: usize) -> Result<Vec<AllItem>> {
    let Value::Array(items) = operand else {
        return Err(bad(
            at,
            format!("expected an array of values, got {operand}"),
        ));
    };
    items
        .iter()
        .map(|item| match item {
            Value::Object(map) if map.len() == 1 && map.contains_key("$elemMatch") => Ok(
                AllItem::ElemMatch(elem_match(&map["$elemMatch"], at, depth)?),
            ),
            other => Ok(AllItem::Value(val(other, at)?)),
        })
        .collect()
}

/// `$elemMatch`: operators apply to each element itself; anything else is a filter
/// document on element objects.
fn elem_match(operand: &Value, at: &str, depth: usize) -> Result<ElemMatch> {
    let Value::Object(map) = operand else {
        return Err(bad(at, format!("expected a document, got {operand}")));
    };
    if map.is_empty() {
        return Err(bad(at, "expected at least one condition"));
    }
    let logical = |k: &str| matches!(k, "$and" | "$or" | "$nor" | "$comment");
    let value_form = map.keys().any(|k| k.starts_with('$') && !logical(k));
    if value_form {
        Ok(ElemMatch::Values(operators(map, at, depth + 1)?))
    } else {
        Ok(ElemMatch::Document(document(map, at, depth + 1)?))
    }
}

impl Path {
    /// The top-level field.
    pub fn root(&self) -> &str {
        self.text.split('.').next().unwrap_or(&self.text)
    }
}

impl Filter {
    /// Every path the filter reads, in order of appearance (nested `$elemMatch` documents
    /// read paths below their array's path: those are not listed).
    pub fn paths<'f>(&'f self, out: &mut Vec<&'f Path>) {
        match self {
            Self::Always => {}
            Self::And(all) | Self::Or(all) | Self::Nor(all) => {
                for f in all {
                    f.paths(out);
                }
            }
            Self::Field(path, _) => out.push(path),
        }
    }
}
