//! The aggregates of a structured query: `count`, `group_by`, `distinct`, `stats`.
//!
//! The values of a field are those of MongoDB's `distinct`: each value the path reaches,
//! an array standing for its elements (one level), a missing field for none.
//! - `group_by` counts the records per value, largest count first, ties in value order
//!   (each record once per value; a record with no value counts under `null`);
//! - `distinct` lists the values once each, in value order;
//! - `stats` summarizes the numbers among them: `{count, min, max, sum, avg}` (`sum` and
//!   `avg` added in file order in doubles, as jq's `add` does).

use std::collections::BTreeMap;

use jaq_json::Val;
use serde_json::{Map, Value};

use crate::filter::Path;
use crate::matcher::{Leaf, any_leaf};
use crate::order::{Ordered, equal, to_f64, to_json};

/// Which aggregate, and on which field.
#[derive(Debug)]
pub enum Aggregate {
    /// `count`: how many records match.
    Count,
    /// `group_by`: how many matching records hold each value of the field.
    GroupBy(Path),
    /// `distinct`: the field's distinct values, in order.
    Distinct(Path),
    /// `stats`: count, min, max, sum and average of the field's values.
    Stats(Path),
}

impl Aggregate {
    /// The field the aggregate reads.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Count => None,
            Self::GroupBy(p) | Self::Distinct(p) | Self::Stats(p) => Some(p),
        }
    }
}

/// The values of `path` in `record`, in order (see the module documentation).
pub fn values_of(record: &Val, path: &Path) -> Vec<Val> {
    let mut out = Vec::new();
    any_leaf(record, &path.parts, &mut |leaf| {
        match leaf {
            Leaf::Missing => {}
            Leaf::Value(Val::Arr(items)) => out.extend(items.iter().cloned()),
            Leaf::Value(v) => out.push(v.clone()),
        }
        false
    });
    out
}

/// An aggregate being computed, record by record in file order.
pub enum Accumulator {
    /// The records counted so far.
    Count(u64),
    /// Each value seen, with how many records held it.
    Groups(BTreeMap<Ordered, u64>),
    /// Each value seen.
    Distinct(BTreeMap<Ordered, ()>),
    /// The statistics so far.
    Stats(Stats),
}

/// The running statistics of a field's values (`stats`).
#[derive(Default)]
pub struct Stats {
    count: u64,
    min: Option<Val>,
    max: Option<Val>,
    sum: f64,
}

impl Accumulator {
    /// An empty accumulator for `aggregate`.
    pub fn new(aggregate: &Aggregate) -> Self {
        match aggregate {
            Aggregate::Count => Self::Count(0),
            Aggregate::GroupBy(_) => Self::Groups(BTreeMap::new()),
            Aggregate::Distinct(_) => Self::Distinct(BTreeMap::new()),
            Aggregate::Stats(_) => Self::Stats(Stats::default()),
        }
    }

    /// Adds one matching record, given by the values of the aggregate's field.
    pub fn add(&mut self, values: Vec<Val>) {
        match self {
            Self::Count(n) => *n += 1,
            Self::Groups(groups) => {
                let mut seen: Vec<Val> = Vec::with_capacity(values.len());
                for v in values {
                    if !seen.iter().any(|s| equal(s, &v)) {
                        seen.push(v);
                    }
                }
                if seen.is_empty() {
                    seen.push(Val::Null);
                }
                for v in seen {
                    *groups.entry(Ordered(v)).or_insert(0) += 1;
                }
            }
            Self::Distinct(set) => {
                for v in values {
                    set.entry(Ordered(v)).or_insert(());
                }
            }
            Self::Stats(stats) => {
                for v in values {
                    let Val::Num(n) = &v else { continue };
                    stats.count += 1;
                    stats.sum += to_f64(n);
                    if stats
                        .min
                        .as_ref()
                        .is_none_or(|m| crate::order::compare(&v, m).is_lt())
                    {
                        stats.min = Some(v.clone());
                    }
                    if stats
                        .max
                        .as_ref()
                        .is_none_or(|m| crate::order::compare(&v, m).is_gt())
                    {
                        stats.max = Some(v);
                    }
                }
            }
        }
    }

    /// The result: a number, or one JSON array (group_by, distinct), or one object (stats).
    pub fn finish(self, aggregate: &Aggregate) -> Value {
        match self {
            Self::Count(n) => Value::from(n),
            Self::Groups(groups) => {
                let name = aggregate.path().map_or("value", group_name);
                let mut list: Vec<(Ordered, u64)> = groups.into_iter().collect();
                // Stable: equal counts stay in value order.
                list.sort_by_key(|g| std::cmp::Reverse(g.1));
                Value::Array(
                    list.into_iter()
                        .map(|(v, n)| {
                            let mut group = Map::with_capacity(2);
                            group.insert(name.to_owned(), to_json(&v.0));
                            group.insert("count".to_owned(), Value::from(n));
                            Value::Object(group)
                        })
                        .collect(),
                )
            }
            Self::Distinct(set) => Value::Array(set.into_keys().map(|v| to_json(&v.0)).collect()),
            Self::Stats(s) => {
                let mut out = Map::with_capacity(5);
                out.insert("count".to_owned(), Value::from(s.count));
                out.insert(
                    "min".to_owned(),
                    s.min.as_ref().map_or(Value::Null, to_json),
                );
                out.insert(
                    "max".to_owned(),
                    s.max.as_ref().map_or(Value::Null, to_json),
                );
                out.insert("sum".to_owned(), jq_number(s.sum));
                #[allow(clippy::cast_precision_loss, reason = "jq divides doubles")]
                let avg = if s.count == 0 {
                    Value::Null
                } else {
                    jq_number(s.sum / s.count as f64)
                };
                out.insert("avg".to_owned(), avg);
                Value::Object(out)
            }
        }
    }
}

/// A double as jq 1.6 prints it: integral values as integers.
fn jq_number(f: f64) -> Value {
    to_json(&Val::Num(jaq_json::Num::Float(f)))
}

/// The group key name of a `group_by` field in its output objects: the path, or `value`
/// when the path is `count` (the name of the count).
pub fn group_name(path: &Path) -> &str {
    if path.text == "count" {
        "value"
    } else {
        &path.text
    }
}
