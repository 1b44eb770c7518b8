//! One pass over the records for what the descriptor needs: namespace counts over all
//! records (`top_namespaces`) and the most frequent namespace, memory type and tag of the
//! first [`SAMPLE_SIZE`] (the recipes' example values).
//!
//! Two sources, one answer: the compact lines of the file body ([`Tally::of`], the path for
//! records that arrived as text) or the `Value` records they were written from
//! ([`Tally::of_values`]: a map lookup per field instead of a walk along each line). The
//! fields read here survive every projection unchanged, so both see the same strings; a
//! property test holds them equal.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::Hash;

use serde_json::Value;

use crate::json::fields::{self, as_str};
use crate::jsonl::{Body, Landmarks};
use crate::profile::SAMPLE_SIZE;
use crate::recipes::MifExamples;

/// Distinct values counted in a list before switching to a hash map: results rarely have
/// more namespaces or types than this, and a short list beats hashing.
const LIST_LIMIT: usize = 16;

/// How a counted string is held: its compact JSON text (one spelling per string, decoded
/// only for the answer) or the string itself.
trait Spelling: Copy + Eq + Hash {
    fn decoded(self) -> Option<String>;
}

impl Spelling for &[u8] {
    fn decoded(self) -> Option<String> {
        as_str(self).map(Cow::into_owned)
    }
}

impl Spelling for &str {
    fn decoded(self) -> Option<String> {
        Some(self.to_owned())
    }
}

/// Counts of strings, ties broken by first appearance.
struct Counts<K> {
    /// `(string, count)` in first-seen order, while there are few.
    list: Vec<(K, usize)>,
    /// `string -> (count, first seen)`, once there are many.
    map: HashMap<K, (usize, usize)>,
}

impl<K: Spelling> Counts<K> {
    fn new() -> Self {
        Self {
            list: Vec::new(),
            map: HashMap::new(),
        }
    }

    fn add(&mut self, value: K) {
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
    fn top(&self, n: usize) -> Vec<String> {
        let mut ranked: Vec<(K, (usize, usize))> = if self.map.is_empty() {
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
            .filter_map(|(text, _)| text.decoded())
            .collect()
    }

    fn first(&self) -> Option<String> {
        self.top(1).pop()
    }
}

/// The counts kept while walking the records.
struct Counter<K> {
    namespaces: Counts<K>,
    sample_namespaces: Counts<K>,
    types: Counts<K>,
    tags: Counts<K>,
}

impl<K: Spelling> Counter<K> {
    fn new() -> Self {
        Self {
            namespaces: Counts::new(),
            sample_namespaces: Counts::new(),
            types: Counts::new(),
            tags: Counts::new(),
        }
    }

    fn namespace(&mut self, value: K, sampled: bool) {
        self.namespaces.add(value);
        if sampled {
            self.sample_namespaces.add(value);
        }
    }

    fn finish(self) -> Tally {
        Tally {
            top_namespaces: self.namespaces.top(TOP_NAMESPACES),
            examples: MifExamples {
                namespace: self.sample_namespaces.first(),
                memory_type: self.types.first(),
                tag: self.tags.first(),
            },
        }
    }
}

/// How many namespaces the summary lists.
const TOP_NAMESPACES: usize = 5;

/// A JSON string's compact text (`None` for other values).
fn string_text(value: &[u8]) -> Option<&[u8]> {
    (value.first() == Some(&b'"')).then_some(value)
}

/// What one pass over the records found.
#[derive(Debug, PartialEq, Eq)]
pub struct Tally {
    /// The most frequent namespaces over every record (up to 5), most frequent first.
    pub top_namespaces: Vec<String>,
    /// Example values from the first [`SAMPLE_SIZE`] records.
    pub examples: MifExamples,
}

impl Tally {
    /// Walks the top-level fields of every line of `body` once (or reads where they are,
    /// when the body noted it while being written).
    pub fn of(body: &Body) -> Self {
        if let Some(landmarks) = body.landmarks() {
            return Self::of_landmarks(body, landmarks);
        }
        let mut counter = Counter::new();
        for (i, line) in body.lines().enumerate() {
            let sampled = i < SAMPLE_SIZE;
            // Stop walking a line once every field it is read for has been seen: past the
            // sample only `namespace` is, and long content often comes after it.
            let mut wanted = if sampled { 3 } else { 1 };
            for (key, value) in fields::fields(line) {
                match key {
                    b"namespace" => {
                        if let Some(text) = string_text(value) {
                            counter.namespace(text, sampled);
                        }
                    }
                    b"memory_type" if sampled => {
                        if let Some(text) = string_text(value) {
                            counter.types.add(text);
                        }
                    }
                    b"tags" if sampled => {
                        for text in fields::array_items(value).filter_map(string_text) {
                            counter.tags.add(text);
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
        counter.finish()
    }

    /// [`Tally::of`] from the fields' places noted while writing `body`.
    fn of_landmarks(body: &Body, landmarks: &[Landmarks]) -> Self {
        let text = |(start, end): (usize, usize)| &body.bytes[start..end];
        let mut counter = Counter::new();
        for (i, marks) in landmarks.iter().enumerate() {
            let sampled = i < SAMPLE_SIZE;
            if let Some(namespace) = marks.namespace.map(text).and_then(string_text) {
                counter.namespace(namespace, sampled);
            }
            if !sampled {
                continue;
            }
            if let Some(memory_type) = marks.memory_type.map(text).and_then(string_text) {
                counter.types.add(memory_type);
            }
            if let Some(tags) = marks.tags.map(text) {
                for tag in fields::array_items(tags).filter_map(string_text) {
                    counter.tags.add(tag);
                }
            }
        }
        counter.finish()
    }

    /// [`Tally::of`] the lines `records` are written as, read from the records themselves.
    pub fn of_values(records: &[Value]) -> Self {
        let mut counter = Counter::new();
        for (i, record) in records.iter().enumerate() {
            let Value::Object(fields) = record else {
                continue;
            };
            let sampled = i < SAMPLE_SIZE;
            // One walk along the fields: records have a dozen, where a walk costs less
            // than hashing three names.
            for (key, value) in fields {
                match (key.as_str(), value) {
                    ("namespace", Value::String(namespace)) => {
                        counter.namespace(namespace.as_str(), sampled);
                    }
                    ("memory_type", Value::String(memory_type)) if sampled => {
                        counter.types.add(memory_type.as_str());
                    }
                    ("tags", Value::Array(tags)) if sampled => {
                        for tag in tags.iter().filter_map(Value::as_str) {
                            counter.tags.add(tag);
                        }
                    }
                    _ => {}
                }
            }
        }
        counter.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Detail;
    use lro_json::strategy::arb_json;
    use proptest::prelude::*;
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
        assert_eq!(tally.top_namespaces, ["a", "b", "b\"q"]);
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
        assert_eq!(
            Tally::of(&body).top_namespaces,
            ["n1", "n3", "n5", "n7", "n9"]
        );
        let mut counts = Counts::new();
        for line in body.lines() {
            counts.add(fields::get(line, "namespace").unwrap());
        }
        assert_eq!(counts.top(6), ["n1", "n3", "n5", "n7", "n9", "n11"]);
        assert_eq!(counts.top(100).len(), 21);
        assert!(counts.top(100).contains(&"né\"q".to_owned()));
    }

    /// Records that exercise the tally: MIF-like fields with strings (some needing
    /// escapes), other JSON values in their place, and unrelated fields around them.
    fn arb_record() -> impl Strategy<Value = Value> {
        let text = prop_oneof![
            Just("a".to_owned()),
            Just("b".to_owned()),
            Just("é\"\\\n".to_owned()),
            "[a-c]{0,2}",
        ];
        let field = prop_oneof![
            text.clone().prop_map(Value::from),
            Just(Value::Null),
            any::<i32>().prop_map(Value::from),
            proptest::collection::vec(
                prop_oneof![text.prop_map(Value::from), Just(Value::from(1))],
                0..4
            )
            .prop_map(Value::Array),
        ];
        let record = proptest::collection::vec(
            (
                prop_oneof![
                    Just("namespace"),
                    Just("memory_type"),
                    Just("tags"),
                    Just("id"),
                    Just("other"),
                ],
                prop_oneof![field, arb_json()],
            ),
            0..6,
        )
        .prop_map(|fields| {
            Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
        });
        prop_oneof![8 => record, 1 => arb_json()]
    }

    proptest! {
        #[test]
        fn values_and_lines_tally_the_same(records in proptest::collection::vec(arb_record(), 0..40)) {
            let from_lines = Tally::of(&Body::of_values(&records));
            prop_assert_eq!(&from_lines, &Tally::of_values(&records));
            // Bodies scanned from text note their landmarks: every way in, one body, one tally.
            let text = serde_json::to_vec(&records).unwrap();
            let scanned = Body::from_json(&text).unwrap();
            prop_assert!(scanned.landmarks().is_some());
            prop_assert_eq!(&scanned.bytes, &Body::of_values(&records).bytes);
            prop_assert_eq!(&Tally::of(&scanned), &from_lines);
            for detail in [Detail::Light, Detail::Medium, Detail::Full] {
                let (kind, body) = Body::from_json_classified(&text, "recall", Some(detail)).unwrap();
                let (want_kind, want) = Body::of_values(&records).classify("recall", Some(detail));
                prop_assert_eq!(kind, want_kind);
                prop_assert_eq!(body.as_str(), want.as_str());
                prop_assert_eq!(&body.line_ends, &want.line_ends);
                prop_assert_eq!(&Tally::of(&body), &from_lines);
                prop_assert_eq!(&Tally::of(&want), &from_lines);
            }
        }
    }
}
