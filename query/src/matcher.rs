//! Whether a record matches a [`Filter`]: MongoDB's query semantics over engine values.
//!
//! A path leads to *leaves*: the values it reaches, or "missing" where it stops short. An
//! object's field is followed; an array is followed into each of its elements that is an
//! object (a numeric component, `tags.0`, picks a position instead), and an element that is
//! not an object leaves the rest of the path missing; anything else leaves it missing. An
//! empty array reached before the end of the path gives no leaf at all.
//!
//! Conditions hold when some leaf satisfies them (`$ne`, `$nin`, `$not` and
//! `$exists: false` when none does). A leaf that is an array stands for itself and for each
//! of its elements (`{"tags": "cache"}` finds "cache" in an array), except for `$size`,
//! `$elemMatch` and the conditions inside a value `$elemMatch`, which see the element
//! itself. `null` matches a missing leaf.

use jaq_json::Val;

use crate::filter::{AllItem, CmpOp, Cond, ElemMatch, Filter, Part};
use crate::order::{compare, equal, rank};

/// What a path reaches.
#[derive(Clone, Copy)]
pub enum Leaf<'v> {
    /// No value: a key absent, an index past the end, a step into a scalar.
    Missing,
    /// The value there.
    Value(&'v Val),
}

/// Calls `f` on each leaf of `parts` from `v` until it returns `true`; whether it did.
pub fn any_leaf<'v>(v: &'v Val, parts: &[Part], f: &mut dyn FnMut(Leaf<'v>) -> bool) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return f(Leaf::Value(v));
    };
    match v {
        Val::Obj(map) => match map.get(&first.key) {
            Some(x) => any_leaf(x, rest, f),
            None => f(Leaf::Missing),
        },
        Val::Arr(items) => match first.index {
            Some(i) => match items.get(i) {
                Some(x) => any_leaf(x, rest, f),
                None => f(Leaf::Missing),
            },
            None => items.iter().any(|e| match e {
                Val::Obj(_) => any_leaf(e, parts, f),
                _ => f(Leaf::Missing),
            }),
        },
        _ => f(Leaf::Missing),
    }
}

/// Calls `f` on `v` and, when `expand` and `v` is an array, on each element, until it
/// returns `true`.
fn any_candidate(v: &Val, expand: bool, f: &mut dyn FnMut(&Val) -> bool) -> bool {
    if f(v) {
        return true;
    }
    match v {
        Val::Arr(items) if expand => items.iter().any(f),
        _ => false,
    }
}

/// The leaves a condition is tested on.
type Leaves<'a, 'v> = &'a dyn Fn(&mut dyn FnMut(Leaf<'v>) -> bool) -> bool;

impl Filter {
    /// `record` matches.
    pub fn matches<'v>(&self, record: &'v Val) -> bool {
        match self {
            Self::Always => true,
            Self::And(all) => all.iter().all(|f| f.matches(record)),
            Self::Or(any) => any.iter().any(|f| f.matches(record)),
            Self::Nor(none) => !none.iter().any(|f| f.matches(record)),
            Self::Field(path, conds) => {
                let leaves = |f: &mut dyn FnMut(Leaf<'v>) -> bool| any_leaf(record, &path.parts, f);
                conds.iter().all(|c| c.holds(&leaves, true))
            }
        }
    }
}

fn leaf_equals(leaf: Leaf<'_>, x: &Val, expand: bool) -> bool {
    match leaf {
        Leaf::Missing => matches!(x, Val::Null),
        Leaf::Value(v) => any_candidate(v, expand, &mut |c| equal(c, x)),
    }
}

impl CmpOp {
    fn test(self, ordering: std::cmp::Ordering) -> bool {
        match self {
            Self::Gt => ordering.is_gt(),
            Self::Gte => ordering.is_ge(),
            Self::Lt => ordering.is_lt(),
            Self::Lte => ordering.is_le(),
        }
    }
}

impl Cond {
    /// The condition holds for `leaves` (array leaves stand for their elements too when
    /// `expand`).
    fn holds<'v>(&self, leaves: Leaves<'_, 'v>, expand: bool) -> bool {
        match self {
            Self::Eq(x) => leaves(&mut |l| leaf_equals(l, x, expand)),
            Self::Ne(x) => !leaves(&mut |l| leaf_equals(l, x, expand)),
            Self::In(xs) => leaves(&mut |l| xs.iter().any(|x| leaf_equals(l, x, expand))),
            Self::Nin(xs) => !leaves(&mut |l| xs.iter().any(|x| leaf_equals(l, x, expand))),
            // `null` is no bracket to compare in: `$gte`/`$lte` null mean equal to null.
            Self::Cmp(CmpOp::Gte | CmpOp::Lte, Val::Null) => {
                leaves(&mut |l| leaf_equals(l, &Val::Null, expand))
            }
            Self::Cmp(_, Val::Null) => false,
            Self::Cmp(op, x) => leaves(&mut |l| match l {
                Leaf::Missing => false,
                Leaf::Value(v) => any_candidate(v, expand, &mut |c| {
                    rank(c) == rank(x) && op.test(compare(c, x))
                }),
            }),
            Self::Exists(wanted) => leaves(&mut |l| matches!(l, Leaf::Value(_))) == *wanted,
            Self::Type(types) => leaves(&mut |l| match l {
                Leaf::Missing => false,
                Leaf::Value(v) => {
                    any_candidate(v, expand, &mut |c| types.iter().any(|t| t.holds(c)))
                }
            }),
            Self::Regex(p) => leaves(&mut |l| match l {
                Leaf::Missing => false,
                Leaf::Value(v) => any_candidate(v, expand, &mut |c| match c {
                    Val::TStr(s) | Val::BStr(s) => p.regex.is_match(s),
                    _ => false,
                }),
            }),
            Self::Size(n) => {
                leaves(&mut |l| matches!(l, Leaf::Value(Val::Arr(a)) if a.len() == *n))
            }
            Self::All(items) => {
                !items.is_empty()
                    && items.iter().all(|item| match item {
                        AllItem::Value(x) => leaves(&mut |l| leaf_equals(l, x, expand)),
                        AllItem::ElemMatch(m) => leaves(&mut |l| m.matches_leaf(l)),
                    })
            }
            Self::ElemMatch(m) => leaves(&mut |l| m.matches_leaf(l)),
            Self::Not(conds) => !conds.iter().all(|c| c.holds(leaves, expand)),
        }
    }
}

impl ElemMatch {
    /// The leaf is an array with an element that matches.
    fn matches_leaf<'v>(&self, leaf: Leaf<'v>) -> bool {
        let Leaf::Value(Val::Arr(items)) = leaf else {
            return false;
        };
        items.iter().any(|e| match self {
            Self::Document(filter) => matches!(e, Val::Obj(_)) && filter.matches(e),
            Self::Values(conds) => {
                let single = |f: &mut dyn FnMut(Leaf<'v>) -> bool| f(Leaf::Value(e));
                conds.iter().all(|c| c.holds(&single, false))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::filter::parse;
    use lro_jq::convert::parse_val;
    use serde_json::{Value, json};

    /// The indexes of `docs` that `filter` matches.
    fn hits(filter: Value, docs: &[Value]) -> Vec<usize> {
        let filter = parse(&filter).unwrap();
        docs.iter()
            .enumerate()
            .filter(|(_, d)| filter.matches(&parse_val(d.to_string().as_bytes()).unwrap()))
            .map(|(i, _)| i)
            .collect()
    }

    fn docs() -> Vec<Value> {
        vec![
            json!({"a": {"x": 1, "y": 2}}),
            json!({"a": {"y": 2, "x": 1}}),
            json!({"a": [1, 2]}),
            json!({"a": [{"b": 1}, {"c": 2}]}),
            json!({"a": [1, {"b": null}]}),
            json!({}),
            json!({"a": null}),
            json!({"a": []}),
            json!({"a": "abc"}),
            json!({"a": 5}),
            json!({"a": [[1, 2], 3]}),
            json!({"a": true}),
            json!({"a": 2.5}),
        ]
    }

    #[test]
    fn operators_follow_mongodb() {
        let d = docs();
        let cases = [
            (json!({"a": {"x": 1, "y": 2}}), vec![0]),
            (
                json!({"a.b": null}),
                vec![0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12],
            ),
            (json!({"a": null}), vec![5, 6]),
            (json!({"a": {"$gt": 1}}), vec![2, 9, 10, 12]),
            (json!({"a": {"$gt": "a"}}), vec![8]),
            (json!({"a": {"$gte": null}}), vec![5, 6]),
            (json!({"a": {"$gt": null}}), vec![]),
            (json!({"a": {"$type": "array"}}), vec![2, 3, 4, 7, 10]),
            (json!({"a": {"$type": "number"}}), vec![2, 4, 9, 10, 12]),
            (json!({"a": {"$type": "double"}}), vec![12]),
            (
                json!({"a": {"$exists": true}}),
                vec![0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12],
            ),
            (json!({"a.b": {"$exists": true}}), vec![3, 4]),
            (json!({"a.0": 1}), vec![2, 4, 10]),
            (json!({"a.0": {"$exists": true}}), vec![2, 3, 4, 10]),
            (json!({"a": {"$size": 2}}), vec![2, 3, 4, 10]),
            (json!({"a": {"$all": []}}), vec![]),
            (json!({"a": {"$all": [1]}}), vec![2, 4]),
            (json!({"a": [1, 2]}), vec![2, 10]),
            (
                json!({"a": {"$ne": 1}}),
                vec![0, 1, 3, 5, 6, 7, 8, 9, 10, 11, 12],
            ),
            (
                json!({"a": {"$nin": [1, null]}}),
                vec![0, 1, 3, 7, 8, 9, 10, 11, 12],
            ),
            (json!({"a": {"$in": [null]}}), vec![5, 6]),
            (json!({"a": {"$elemMatch": {"$gt": 1}}}), vec![2, 10]),
            (json!({"a": {"$elemMatch": {"b": 1}}}), vec![3]),
            (
                json!({"a": {"$not": {"$gt": 1}}}),
                vec![0, 1, 3, 4, 5, 6, 7, 8, 11],
            ),
            (json!({"a": {"$regex": "^A", "$options": "i"}}), vec![8]),
            (json!({"a": {"$gt": [1]}}), vec![2, 3, 4, 10]),
            (json!({"a": {"$lt": {"z": 1}}}), vec![0, 1, 3, 4]),
            (json!({"$or": [{"a": 5}, {"a": true}]}), vec![9, 11]),
            (json!({"$nor": [{"a": {"$exists": true}}]}), vec![5]),
            (json!({"a": {"$all": [{"$elemMatch": {"b": 1}}]}}), vec![3]),
            (json!({"a": 1, "$comment": "x"}), vec![2, 4]),
        ];
        for (filter, want) in cases {
            assert_eq!(hits(filter.clone(), &d), want, "{filter}");
        }
    }

    #[test]
    fn malformed_documents_name_the_part() {
        for (filter, part) in [
            (json!({"a": {"$foo": 1}}), "where.a.$foo"),
            (json!({"$or": []}), "where.$or"),
            (json!({"a": {"$gt": 1, "b": 2}}), "where.a"),
            (json!({"a": {"$regex": "("}}), "where.a.$regex"),
            (
                json!({"a": {"$regex": "x", "$options": "q"}}),
                "where.a.$options",
            ),
            (json!({"a": {"$options": "i"}}), "where.a.$options"),
            (json!({"a": {"$size": -1}}), "where.a.$size"),
            (json!({"a": {"$type": "datetime"}}), "where.a.$type"),
            (json!({"a": {"$in": 3}}), "where.a.$in"),
            (json!({"a": {"$not": 3}}), "where.a.$not"),
            (json!({"$where": "1"}), "where.$where"),
            (json!({"a..b": 1}), "where"),
            (json!([1]), "where"),
        ] {
            let err = parse(&filter).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidQuery, "{filter}");
            assert!(
                err.message().starts_with(part),
                "{filter}: {}",
                err.message()
            );
        }
    }
}
