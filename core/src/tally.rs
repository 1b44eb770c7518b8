//! One pass over the written lines for what the descriptor needs: namespace counts over
//! all records (`top_namespaces`) and the most frequent namespace, memory type and tag of
//! the first [`SAMPLE_SIZE`] (the recipes' example values).
//!
//! It reads the compact lines of the file body rather than `Value` trees, so every path to
//! a file (values, JSON text, bindings) describes it the same way, from what was written.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::json::fields::{self, as_str};
use crate::jsonl::Body;
use crate::profile::SAMPLE_SIZE;
use crate::recipes::MifExamples;

/// Distinct values counted in a list before switching to a hash map: results rarely have
/// more namespaces or types than this, and a short list beats hashing.
const LIST_LIMIT: usize = 16;

/// Counts of JSON string values (keyed by their compact text: one spelling per string,
/// decoded only for the answer), ties broken by first appearance.
#[derive(Default)]
pub struct Counts<'a> {
    /// `(text, count)` in first-seen order, while there are few.
    list: Vec<(&'a [u8], usize)>,
    /// `text -> (count, first seen)`, once there are many.
    map: HashMap<&'a [u8], (usize, usize)>,
}

impl<'a> Counts<'a> {
    /// Counts `value` when it is a JSON string.
    fn add(&mut self, value: &'a [u8]) {
        if value.first() != Some(&b'"') {
            return;
        }
        if self.map.is_empty() {
            if let Some(entry) = self.list.iter_mut().find(|(text, _)| *text == value) {
                entry.1 += 1;
                return;
            }
            if self.list.len() < LIST_LIMIT {
                self.list.push((value, 1));
                return;
            }
            self.map = self
                .list
                .drain(..)
                .enumerate()
                .map(|(i, (text, n))| (text, (n, i)))
                .collect();
        }
        let next = self.map.len();
        self.map.entry(value).or_insert((0, next)).0 += 1;
    }

    /// The `n` most frequent values, most frequent first.
    pub fn top(&self, n: usize) -> Vec<String> {
        let mut ranked: Vec<(&[u8], (usize, usize))> = if self.map.is_empty() {
            self.list
                .iter()
                .enumerate()
                .map(|(i, (text, count))| (*text, (*count, i)))
                .collect()
        } else {
            self.map.iter().map(|(text, v)| (*text, *v)).collect()
        };
        ranked.sort_unstable_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
        ranked
            .into_iter()
            .take(n)
            .filter_map(|(text, _)| as_str(text).map(Cow::into_owned))
            .collect()
    }

    fn first(&self) -> Option<String> {
        self.top(1).pop()
    }
}

/// What one pass over the lines found.
pub struct Tally<'a> {
    /// Namespace counts over every record.
    pub namespaces: Counts<'a>,
    /// Example values from the first [`SAMPLE_SIZE`] records.
    pub examples: MifExamples,
}

impl<'a> Tally<'a> {
    /// Walks the top-level fields of every line of `body` once.
    pub fn of(body: &'a Body) -> Self {
        let mut namespaces = Counts::default();
        let mut sample_namespaces = Counts::default();
        let mut types = Counts::default();
        let mut tags = Counts::default();
        for (i, line) in body.lines().enumerate() {
            let sampled = i < SAMPLE_SIZE;
            // Stop walking a line once every field it is read for has been seen: past the
            // sample only `namespace` is, and long content often comes after it.
            let mut wanted = if sampled { 3 } else { 1 };
            for (key, value) in fields::fields(line) {
                match key {
                    b"namespace" => {
                        namespaces.add(value);
                        if sampled {
                            sample_namespaces.add(value);
                        }
                    }
                    b"memory_type" if sampled => types.add(value),
                    b"tags" if sampled => {
                        for item in fields::array_items(value) {
                            tags.add(item);
                        }
                    }
                    _ => continue,
                }
                wanted -= 1;
                if wanted == 0 {
                    break;
                }
            }
        }
        let examples = MifExamples {
            namespace: sample_namespaces.first(),
            memory_type: types.first(),
            tag: tags.first(),
        };
        Self {
            namespaces,
            examples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_namespaces_and_examples() {
        let records = json!([
            {"id": "1", "namespace": "b", "memory_type": "x", "tags": ["t1", "t2"]},
            {"id": "2", "namespace": "a", "memory_type": "y", "tags": ["t2", 3]},
            {"id": "3", "namespace": "a", "memory_type": "y", "tags": "t9"},
            {"id": "4", "namespace": "b\"q", "tags": []},
            [1, 2],
        ]);
        let body = Body::of_values(records.as_array().unwrap());
        let tally = Tally::of(&body);
        assert_eq!(tally.namespaces.top(5), ["a", "b", "b\"q"]);
        assert_eq!(tally.examples.namespace.as_deref(), Some("a"));
        assert_eq!(tally.examples.memory_type.as_deref(), Some("y"));
        assert_eq!(tally.examples.tag.as_deref(), Some("t2"));
    }

    #[test]
    fn many_values_keep_first_seen_order_for_ties() {
        // 20 namespaces, the odd ones twice: past the list limit, into the map.
        let mut records = Vec::new();
        for i in 0..20 {
            records.push(json!({"namespace": format!("n{i}")}));
        }
        for i in (1..20).step_by(2).rev() {
            records.push(json!({"namespace": format!("n{i}")}));
        }
        records.push(json!({"namespace": "né\"q"}));
        let body = Body::of_values(&records);
        let tally = Tally::of(&body);
        assert_eq!(
            tally.namespaces.top(6),
            ["n1", "n3", "n5", "n7", "n9", "n11"]
        );
        assert_eq!(tally.namespaces.top(100).len(), 21);
        assert!(tally.namespaces.top(100).contains(&"né\"q".to_owned()));
    }
}
