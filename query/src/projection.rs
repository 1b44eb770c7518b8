//! Shaping a structured query's records: `fields` (projection) and `sort`.
//!
//! `fields` lists dotted paths to keep (`["title", "provenance.confidence"]`), or, as a
//! MongoDB projection document, paths to keep (`{"title": 1}`) or to drop
//! (`{"content": 0}`), not both. Kept fields stay in the record's own order; through an
//! array, a nested path keeps that part of each element object (elements that are not
//! objects are dropped when keeping, kept when dropping). Nothing is added: these records
//! have no `_id`.
//!
//! `sort` is `{"created": -1, "title": 1}` (keys in order), or `"-created"`, or a list of
//! such names. MongoDB's sort order: the values of the path in [`crate::order`]'s order,
//! an array by its smallest element ascending and its largest descending, an empty array
//! before null, a missing field as null; ties keep the file's order.

use jaq_json::Val;
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::filter::{Path, path};
use crate::matcher::{Leaf, any_leaf};
use crate::order::compare;

fn bad(what: &str, why: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidArgument, format!("{what}: {why}"))
}

/// Which fields of a record to keep, or to drop, as a tree of path components.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// `true`: keep only these paths; `false`: drop them.
    pub include: bool,
    /// The paths as a tree of keys.
    pub tree: Tree,
    /// The paths as given.
    pub paths: Vec<String>,
}

/// Path components: `None` ends a path (the whole value), `Some` goes on below.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tree(pub Vec<(String, Option<Tree>)>);

impl Tree {
    fn get(&self, key: &str) -> Option<&Option<Tree>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, t)| t)
    }

    fn add(&mut self, parts: &[&str], whole: &str) -> Result<()> {
        let (first, rest) = parts.split_first().expect("paths have a component");
        let collision = || bad("fields", format!("{whole:?} overlaps another path"));
        match self.0.iter_mut().find(|(k, _)| k == first) {
            None => {
                let below = if rest.is_empty() {
                    None
                } else {
                    let mut t = Tree::default();
                    t.add(rest, whole)?;
                    Some(t)
                };
                self.0.push(((*first).to_owned(), below));
            }
            // The same path twice is the same projection.
            Some((_, None)) if rest.is_empty() => {}
            Some((_, Some(t))) if !rest.is_empty() => t.add(rest, whole)?,
            Some(_) => return Err(collision()),
        }
        Ok(())
    }

    /// The tree as the JSON literal the jq equivalent takes (`{"a": true, "b": {"c": true}}`).
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(k, t)| {
                    (
                        k.clone(),
                        t.as_ref().map_or(Value::Bool(true), Tree::to_json),
                    )
                })
                .collect(),
        )
    }
}

impl Projection {
    /// Reads `fields`.
    pub fn parse(spec: &Value) -> Result<Self> {
        let (include, paths): (bool, Vec<String>) = match spec {
            Value::String(list) => (true, list.split(',').map(|s| s.trim().to_owned()).collect()),
            Value::Array(items) => (
                true,
                items
                    .iter()
                    .map(|item| match item {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(bad("fields", format!("expected field names, got {other}"))),
                    })
                    .collect::<Result<_>>()?,
            ),
            Value::Object(map) => {
                let mut include = None;
                let mut paths = Vec::with_capacity(map.len());
                for (key, flag) in map {
                    let keep = match flag {
                        Value::Bool(b) => *b,
                        Value::Number(n) if n.as_f64() == Some(1.0) => true,
                        Value::Number(n) if n.as_f64() == Some(0.0) => false,
                        other => {
                            return Err(bad(
                                "fields",
                                format!("{key:?}: expected 1 (keep) or 0 (drop), got {other}"),
                            ));
                        }
                    };
                    if include.is_some_and(|i| i != keep) {
                        return Err(bad(
                            "fields",
                            "cannot both keep and drop fields: list the fields to keep, or the fields to drop",
                        ));
                    }
                    include = Some(keep);
                    paths.push(key.clone());
                }
                (include.unwrap_or(true), paths)
            }
            other => {
                return Err(bad(
                    "fields",
                    format!("expected a list of field names, got {other}"),
                ));
            }
        };
        if paths.is_empty() {
            return Err(bad("fields", "expected at least one field name"));
        }
        let mut tree = Tree::default();
        for p in &paths {
            // The same rules as filter paths (no empty component, no `$`), as arguments.
            path(p, "fields")
                .map_err(|e| bad("fields", e.message().trim_start_matches("fields: ")))?;
            let parts: Vec<&str> = p.split('.').collect();
            tree.add(&parts, p)?;
        }
        Ok(Self {
            include,
            tree,
            paths,
        })
    }

    /// The top-level fields the projection reads.
    pub fn roots(&self) -> impl Iterator<Item = &str> {
        self.tree.0.iter().map(|(k, _)| k.as_str())
    }

    /// `record` projected. A record that is not an object is left as it is.
    pub fn apply(&self, record: Value) -> Value {
        match record {
            Value::Object(map) if self.include => Value::Object(keep_object(map, &self.tree)),
            Value::Object(map) => Value::Object(drop_object(map, &self.tree)),
            other => other,
        }
    }
}

fn keep_object(map: Map<String, Value>, tree: &Tree) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        match tree.get(&key) {
            None => {}
            Some(None) => {
                out.insert(key, value);
            }
            Some(Some(below)) => {
                if let Some(kept) = keep_value(value, below) {
                    out.insert(key, kept);
                }
            }
        }
    }
    out
}

/// The part of `value` a nested path keeps: objects are projected, arrays element by
/// element, anything else is dropped.
fn keep_value(value: Value, tree: &Tree) -> Option<Value> {
    match value {
        Value::Object(map) => Some(Value::Object(keep_object(map, tree))),
        Value::Array(items) => Some(Value::Array(
            items
                .into_iter()
                .filter_map(|v| keep_value(v, tree))
                .collect(),
        )),
        _ => None,
    }
}

fn drop_object(map: Map<String, Value>, tree: &Tree) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        match tree.get(&key) {
            Some(None) => {}
            Some(Some(below)) => {
                out.insert(key, drop_value(value, below));
            }
            None => {
                out.insert(key, value);
            }
        }
    }
    out
}

fn drop_value(value: Value, tree: &Tree) -> Value {
    match value {
        Value::Object(map) => Value::Object(drop_object(map, tree)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| drop_value(v, tree)).collect())
        }
        other => other,
    }
}

/// One sort key: a path and a direction.
#[derive(Debug)]
pub struct SortKey {
    /// The field sorted on.
    pub path: Path,
    /// `true`: largest first.
    pub descending: bool,
}

/// Reads `sort`.
pub fn parse_sort(spec: &Value) -> Result<Vec<SortKey>> {
    let named = |name: &str| -> Result<SortKey> {
        let (text, descending) = match name.trim().strip_prefix('-') {
            Some(rest) => (rest, true),
            None => (name.trim().strip_prefix('+').unwrap_or(name.trim()), false),
        };
        Ok(SortKey {
            path: path(text, "sort")
                .map_err(|e| bad("sort", e.message().trim_start_matches("sort: ")))?,
            descending,
        })
    };
    let keys = match spec {
        Value::String(list) => list.split(',').map(named).collect::<Result<Vec<_>>>()?,
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => named(s),
                other => Err(bad("sort", format!("expected field names, got {other}"))),
            })
            .collect::<Result<_>>()?,
        Value::Object(map) => map
            .iter()
            .map(|(key, dir)| {
                let descending = match dir.as_f64() {
                    Some(1.0) => false,
                    Some(-1.0) => true,
                    _ => {
                        return Err(bad(
                            "sort",
                            format!(
                                "{key:?}: expected 1 (ascending) or -1 (descending), got {dir}"
                            ),
                        ));
                    }
                };
                Ok(SortKey {
                    path: path(key, "sort")
                        .map_err(|e| bad("sort", e.message().trim_start_matches("sort: ")))?,
                    descending,
                })
            })
            .collect::<Result<_>>()?,
        other => {
            return Err(bad(
                "sort",
                format!("expected {{\"field\": 1 or -1}} or \"-field\", got {other}"),
            ));
        }
    };
    if keys.is_empty() {
        return Err(bad("sort", "expected at least one field"));
    }
    Ok(keys)
}

/// The sort value of a record for one key; `None` is an empty array, before everything.
pub type SortValue = Option<Val>;

/// The value `record` sorts by for `key`.
pub fn sort_value(record: &Val, key: &SortKey) -> SortValue {
    let mut best: Option<SortValue> = None;
    let mut consider = |candidate: SortValue| {
        let better = match &best {
            None => true,
            Some(current) => {
                let o = compare_sort(&candidate, current);
                if key.descending { o.is_gt() } else { o.is_lt() }
            }
        };
        if better {
            best = Some(candidate);
        }
    };
    any_leaf(record, &key.path.parts, &mut |leaf| {
        match leaf {
            Leaf::Missing => consider(Some(Val::Null)),
            Leaf::Value(Val::Arr(items)) if items.is_empty() => consider(None),
            Leaf::Value(Val::Arr(items)) => items.iter().for_each(|e| consider(Some(e.clone()))),
            Leaf::Value(v) => consider(Some(v.clone())),
        }
        false
    });
    best.unwrap_or(Some(Val::Null))
}

/// The order of sort values.
pub fn compare_sort(a: &SortValue, b: &SortValue) -> std::cmp::Ordering {
    match (a, b) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(x), Some(y)) => compare(x, y),
    }
}

/// Orders two records' sort values by the keys, in order.
pub fn compare_records(keys: &[SortKey], a: &[SortValue], b: &[SortValue]) -> std::cmp::Ordering {
    keys.iter()
        .zip(a.iter().zip(b))
        .map(|(key, (x, y))| {
            let o = compare_sort(x, y);
            if key.descending { o.reverse() } else { o }
        })
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::MAX_PATH_COMPONENTS;
    use lro_jq::convert::parse_val;
    use serde_json::json;

    #[test]
    fn projections_keep_order_and_follow_arrays() {
        let record = json!({"id": 1, "title": "t", "a": [{"b": 1, "c": 2}, 5, {"c": 3}], "p": {"x": 1, "y": 2}, "s": 3});
        let keep = Projection::parse(&json!(["p.y", "a.b", "id", "s.z"])).unwrap();
        assert_eq!(
            keep.apply(record.clone()),
            json!({"id": 1, "a": [{"b": 1}, {}], "p": {"y": 2}})
        );
        let drop = Projection::parse(&json!({"a.c": 0, "title": 0})).unwrap();
        assert_eq!(
            drop.apply(record),
            json!({"id": 1, "a": [{"b": 1}, 5, {}], "p": {"x": 1, "y": 2}, "s": 3})
        );
        assert_eq!(
            Projection::parse(&json!("id, title")).unwrap().paths,
            ["id", "title"]
        );
        for bad in [
            json!(["a", "a.b"]),
            json!({"a": 1, "b": 0}),
            json!([]),
            json!([1]),
            json!(["a..b"]),
            json!(3),
        ] {
            let err = Projection::parse(&bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{bad}");
            assert!(err.message().starts_with("fields: "), "{}", err.message());
        }
    }

    #[test]
    fn paths_are_at_most_as_long_as_records_are_deep() {
        // A path of 30,000 components built a tree as deep, whose walks overflowed the stack.
        let long = |n: usize| vec!["a"; n].join(".");
        let deepest = long(MAX_PATH_COMPONENTS);
        let keep = Projection::parse(&json!([deepest])).unwrap();
        let mut record = json!(1);
        for _ in 0..MAX_PATH_COMPONENTS {
            record = json!({ "a": record });
        }
        assert_eq!(keep.apply(record.clone()), record);
        assert_eq!(parse_sort(&json!(deepest)).unwrap().len(), 1);
        let too_long = long(30_000);
        for spec in [
            json!(too_long),
            json!([too_long]),
            json!({ too_long.clone(): 0 }),
        ] {
            let err = Projection::parse(&spec).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidArgument);
            assert!(
                err.message().starts_with("fields: field path \"a.a.a.")
                    && err.message().ends_with(&format!(
                        "has 30000 components; the limit is {MAX_PATH_COMPONENTS} (no record nests deeper)"
                    )),
                "{}",
                err.message()
            );
            assert!(err.message().len() < 200);
        }
        let err = parse_sort(&json!(long(MAX_PATH_COMPONENTS + 1))).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArgument);
        assert!(
            err.message().starts_with("sort: field path"),
            "{}",
            err.message()
        );
        let err = crate::filter::parse(&json!({ too_long: 1 })).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidQuery);
    }

    #[test]
    fn sort_values_follow_mongodb() {
        let key = |spec: Value| parse_sort(&spec).unwrap().remove(0);
        let v = |t: Value| parse_val(t.to_string().as_bytes()).unwrap();
        let asc = key(json!({"a": 1}));
        let desc = key(json!("-a"));
        let r = v(json!({"a": [3, 1, "x"]}));
        assert_eq!(
            sort_value(&r, &asc).map(|x| crate::order::to_json(&x)),
            Some(json!(1))
        );
        assert_eq!(
            sort_value(&r, &desc).map(|x| crate::order::to_json(&x)),
            Some(json!("x"))
        );
        assert_eq!(sort_value(&v(json!({"a": []})), &asc), None);
        assert!(matches!(sort_value(&v(json!({})), &asc), Some(Val::Null)));
        assert_eq!(parse_sort(&json!("-created,title")).unwrap().len(), 2);
        for bad in [json!({"a": 2}), json!([]), json!(""), json!(3)] {
            assert_eq!(
                parse_sort(&bad).unwrap_err().kind(),
                ErrorKind::InvalidArgument,
                "{bad}"
            );
        }
    }
}
