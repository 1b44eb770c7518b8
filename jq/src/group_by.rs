//! `group_by(f)` with jaq's result and errors, without sorting every record when it can.
//!
//! jaq's standard library collects each record's keys into a vector of their own, sorts the
//! (keys, record) pairs (stably) and cuts the sorted run where the keys change. On the
//! records of a file (count by namespace: 100,000 records, a handful of keys) that sort was
//! most of the filter's time. Here the keys of all records go into one vector; when every
//! key is null, a boolean, a string or an integer, equality and order agree and are
//! transitive, so the groups are found by comparing keys (hashing them past a few groups)
//! and only the distinct keys are sorted: the same groups, in the same order, each holding its records in file order, as
//! the stable sort gives. Any other key (a float, a decimal, an array, an object: values
//! where jaq's equality and order can disagree) runs jaq's algorithm as it is.

use std::collections::HashMap;

use jaq_core::box_iter::box_once;
use jaq_core::native::Fun;
use jaq_core::{Bind, Error, Native, ValX, ValXs};
use jaq_json::{Num, Val};
use jaq_std::ValT as _;

use crate::data::Data;

/// Up to this many groups, a record's group is found by comparing its keys with each
/// group's (a handful of namespaces or types, the common case); past it, by hashing.
const FEW: usize = 16;

/// The native behind `group_by(f)` (the prelude's `group_by` guards it).
pub(crate) fn native(name: &'static str) -> Fun<Data> {
    let run = Native::<Data>::new(|mut cv| {
        let (f, fc) = cv.0.pop_fun();
        let f = move |v| f.run((fc.clone(), v));
        box_once(match cv.1.into_seq::<Vec<Val>>() {
            Ok(xs) => group_by(xs, f),
            Err(v) => Err(Error::typ(v, "array").into()),
        })
    });
    (name, [Bind::Fun(())].into(), run)
}

/// The groups of `xs` by the outputs of `f`, ordered by them.
fn group_by<'a>(xs: Vec<Val>, f: impl Fn(Val) -> ValXs<'a, Val>) -> ValX<'a, Val> {
    // The keys of every record, one record after the other, and where each record's end.
    let mut keys = Vec::with_capacity(xs.len());
    let mut ends = Vec::with_capacity(xs.len());
    for x in &xs {
        for y in f(x.clone()) {
            keys.push(y?);
        }
        ends.push(keys.len());
    }
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let spans: Vec<(usize, usize)> = starts.zip(ends.iter().copied()).collect();
    let groups = if keys.iter().all(ordered_as_equal) {
        by_distinct_keys(xs, &keys, &spans)
    } else {
        by_sorting(xs, &keys, &spans)
    };
    Ok(groups.into_iter().map(Val::from_iter).collect())
}

/// A key whose equality and order agree with each other and are transitive.
fn ordered_as_equal(key: &Val) -> bool {
    matches!(
        key,
        Val::Null | Val::Bool(_) | Val::TStr(_) | Val::BStr(_) | Val::Num(Num::Int(_))
    )
}

/// The groups found by equal keys: distinct keys sorted, records in their order.
fn by_distinct_keys(xs: Vec<Val>, keys: &[Val], spans: &[(usize, usize)]) -> Vec<Vec<Val>> {
    let key = |i: usize| &keys[spans[i].0..spans[i].1];
    // Each group's first record, in the order the groups appear.
    let mut firsts: Vec<usize> = Vec::new();
    // Filled once there are more than `FEW` groups: before, comparing with each is faster.
    let mut group_of: HashMap<&[Val], usize> = HashMap::new();
    let mut members = Vec::with_capacity(xs.len());
    for i in 0..xs.len() {
        let k = key(i);
        let found = if group_of.is_empty() && firsts.len() <= FEW {
            firsts.iter().position(|&first| key(first) == k)
        } else {
            if group_of.is_empty() {
                group_of.extend(firsts.iter().enumerate().map(|(g, &first)| (key(first), g)));
            }
            group_of.get(k).copied()
        };
        let group = found.unwrap_or_else(|| {
            firsts.push(i);
            if !group_of.is_empty() {
                group_of.insert(k, firsts.len() - 1);
            }
            firsts.len() - 1
        });
        members.push(group);
    }
    let mut order: Vec<usize> = (0..firsts.len()).collect();
    order.sort_by(|&a, &b| key(firsts[a]).cmp(key(firsts[b])));
    let mut sizes = vec![0usize; firsts.len()];
    for &group in &members {
        sizes[group] += 1;
    }
    let mut groups: Vec<Vec<Val>> = sizes.into_iter().map(Vec::with_capacity).collect();
    for (x, group) in xs.into_iter().zip(members) {
        groups[group].push(x);
    }
    let mut groups: Vec<Option<Vec<Val>>> = groups.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|group| groups[group].take())
        .collect()
}

/// jaq's own algorithm: (keys, record) pairs sorted stably, cut where the keys change.
fn by_sorting(xs: Vec<Val>, keys: &[Val], spans: &[(usize, usize)]) -> Vec<Vec<Val>> {
    let mut yx: Vec<(Vec<Val>, Val)> = spans
        .iter()
        .zip(xs)
        .map(|(&(start, end), x)| (keys[start..end].to_vec(), x))
        .collect();
    yx.sort_by(|(y1, _), (y2, _)| y1.cmp(y2));
    let mut grouped = Vec::new();
    let mut yx = yx.into_iter();
    if let Some((mut group_y, first_x)) = yx.next() {
        let mut group = Vec::from([first_x]);
        for (y, x) in yx {
            if group_y != y {
                grouped.push(std::mem::take(&mut group));
                group_y = y;
            }
            group.push(x);
        }
        if !group.is_empty() {
            grouped.push(group);
        }
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;
    use jaq_core::box_iter::box_once;
    use proptest::prelude::*;

    /// Runs [`group_by`] with each record's keys being its first item's items.
    fn grouped(xs: &[Val]) -> String {
        let keys = |x: Val| -> ValXs<'static, Val> {
            match x {
                Val::Arr(items) => {
                    let keys: Vec<Val> = match items.first() {
                        Some(Val::Arr(keys)) => keys.iter().cloned().collect(),
                        _ => Vec::new(),
                    };
                    Box::new(keys.into_iter().map(Ok))
                }
                other => box_once(Ok(other)),
            }
        };
        format!("{:?}", group_by(xs.to_vec(), keys).ok().unwrap())
    }

    /// The same through jaq's algorithm.
    fn sorted(xs: &[Val]) -> String {
        let keys: Vec<Vec<Val>> = xs
            .iter()
            .map(|x| match x {
                Val::Arr(items) => match items.first() {
                    Some(Val::Arr(keys)) => keys.iter().cloned().collect(),
                    _ => Vec::new(),
                },
                other => vec![other.clone()],
            })
            .collect();
        let mut flat = Vec::new();
        let mut spans = Vec::new();
        for k in keys {
            let start = flat.len();
            flat.extend(k);
            spans.push((start, flat.len()));
        }
        let groups = by_sorting(xs.to_vec(), &flat, &spans);
        format!(
            "{:?}",
            Val::from_iter(groups.into_iter().map(Val::from_iter))
        )
    }

    /// Keys of the kinds hashed (few distinct values, so groups hold several records), and
    /// now and then one that is not (then jaq's algorithm runs).
    fn key(hashed_only: bool) -> impl Strategy<Value = Val> {
        let hashed = prop_oneof![
            Just(Val::Null),
            any::<bool>().prop_map(Val::Bool),
            (-3i64..3).prop_map(|n| Val::Num(Num::from_integral(n))),
            "[ab\u{e9}]{0,2}".prop_map(|s| Val::utf8_str(s.into_bytes())),
            "[ab]{0,2}".prop_map(|s| Val::byte_str(s.into_bytes())),
        ];
        let other = prop_oneof![
            (-3i64..3).prop_map(|n| Val::Num(Num::Float(n as f64 / 2.0))),
            Just(Val::Num(Num::Float(f64::NAN))),
            Just(Val::Arr(Default::default())),
        ];
        if hashed_only {
            hashed.boxed()
        } else {
            prop_oneof![9 => hashed, 1 => other].boxed()
        }
    }

    /// Records: the list of their keys, then their position (so the order within a group shows).
    fn records(hashed_only: bool) -> impl Strategy<Value = Vec<Val>> {
        prop::collection::vec(prop::collection::vec(key(hashed_only), 0..3), 0..40).prop_map(
            |all| {
                all.into_iter()
                    .enumerate()
                    .map(|(i, keys)| {
                        Val::from_iter([
                            Val::from_iter(keys),
                            Val::Num(Num::from_integral(i as i64)),
                        ])
                    })
                    .collect()
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Hashing the keys gives the groups, their order and the order in each that jaq's
        /// stable sort gives.
        #[test]
        fn hashing_the_keys_groups_as_jaq_sorts(xs in records(true)) {
            prop_assert_eq!(grouped(&xs), sorted(&xs));
        }

        /// With keys of every kind, the result is still jaq's.
        #[test]
        fn any_keys_group_as_jaq_sorts(xs in records(false)) {
            prop_assert_eq!(grouped(&xs), sorted(&xs));
        }
    }

    /// The outputs of `filter` on `null` through the engine, or its error.
    fn run(filter: &str) -> Result<Vec<serde_json::Value>, String> {
        let _alone = crate::TEST_BUDGET
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let program = crate::Program::compile(filter, &[]).map_err(|e| e.message().to_owned())?;
        let flag = std::sync::atomic::AtomicBool::new(false);
        let guard = crate::Guard::new(crate::Clock::Flag(&flag), 1 << 24);
        let mut out = Vec::new();
        program
            .run(Val::Null, &[], &guard, &mut |v| {
                out.push(crate::convert::to_value(&v).unwrap());
                true
            })
            .map_err(|e| e.0)?;
        Ok(out)
    }

    #[test]
    fn the_engine_groups_with_it_and_keeps_jaqs_errors() {
        use serde_json::json;
        assert_eq!(
            run(
                r#"[{"n": "b", "i": 1}, {"i": 2}, {"n": "a", "i": 3}, {"n": "b", "i": 4}] | group_by(.n) | map(map(.i))"#
            ),
            Ok(vec![json!([[2], [3], [1, 4]])])
        );
        assert_eq!(
            run("[3, 1.5, 1, 2, 1.0] | group_by(.)"),
            Ok(vec![json!([[1, 1.0], [1.5], [2], [3]])])
        );
        assert_eq!(run("[] | group_by(.)"), Ok(vec![json!([])]));
        let error = run("1 | group_by(.)").unwrap_err();
        assert!(error.contains("cannot use 1 as array"), "{error}");
        let error = run(r#"[1, "x", 2] | group_by(. + 1)"#).unwrap_err();
        assert!(
            error.contains("cannot") && error.contains("\"x\""),
            "{error}"
        );
    }
}
