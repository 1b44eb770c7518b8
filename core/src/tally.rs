//! One pass over the written lines for what the descriptor needs: namespace counts over
//! all records (`top_namespaces`) and the most frequent namespace, memory type and tag of
//! the first [`SAMPLE_SIZE`] (the recipes' example values).
//!
//! It reads the compact lines of the file body rather than `Value` trees, so every path to
//! a file (values, JSON text, bindings) describes it the same way, from what was written.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::json::fields::{self, as_str};
use crate::jsonl::Body;
use crate::profile::SAMPLE_SIZE;
use crate::recipes::MifExamples;

/// FxHash (rustc's hasher): fast for the short keys counted here; HashDoS is no concern
/// for counting a tool's own result.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Counts of string values with their first-seen position (ties go to the first seen).
#[derive(Default)]
pub struct Counts<'a> {
    counts: HashMap<Cow<'a, str>, (usize, usize), BuildHasherDefault<FxHasher>>,
}

impl<'a> Counts<'a> {
    /// Counts `value` when it is a JSON string.
    fn add(&mut self, value: &'a [u8]) {
        if let Some(s) = as_str(value) {
            let next = self.counts.len();
            self.counts.entry(s).or_insert((0, next)).0 += 1;
        }
    }

    /// The `n` most frequent values, most frequent first.
    pub fn top(&self, n: usize) -> Vec<String> {
        let mut ranked: Vec<(&str, (usize, usize))> = self.counts.iter().map(|(k, v)| (k.as_ref(), *v)).collect();
        ranked.sort_unstable_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
        ranked.into_iter().take(n).map(|(s, _)| s.to_owned()).collect()
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
        let examples = MifExamples { namespace: sample_namespaces.first(), memory_type: types.first(), tag: tags.first() };
        Self { namespaces, examples }
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
}
