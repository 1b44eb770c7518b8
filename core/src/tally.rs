//! One pass over MIF records for what the descriptor needs: namespace counts over all
//! records (`top_namespaces`) and the most frequent namespace, memory type and tag of the
//! first [`SAMPLE_SIZE`] (the recipes' example values).
//!
//! Each record's fields are walked once, matching keys by name: cheaper than three hashed
//! lookups per record in an order-preserving map.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::Value;

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
    counts: HashMap<&'a str, (usize, usize), BuildHasherDefault<FxHasher>>,
}

impl<'a> Counts<'a> {
    fn add(&mut self, value: &'a Value) {
        if let Value::String(s) = value {
            let next = self.counts.len();
            self.counts.entry(s).or_insert((0, next)).0 += 1;
        }
    }

    /// The `n` most frequent values, most frequent first.
    pub fn top(&self, n: usize) -> Vec<String> {
        let mut ranked: Vec<(&str, (usize, usize))> = self.counts.iter().map(|(k, v)| (*k, *v)).collect();
        ranked.sort_unstable_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
        ranked.into_iter().take(n).map(|(s, _)| s.to_owned()).collect()
    }

    fn first(&self) -> Option<String> {
        self.top(1).pop()
    }
}

/// What one pass over MIF records found.
pub struct MifTally<'a> {
    /// Namespace counts over every record.
    pub namespaces: Counts<'a>,
    /// Example values from the first [`SAMPLE_SIZE`] records.
    pub examples: MifExamples,
}

impl<'a> MifTally<'a> {
    /// Walks `records` once.
    pub fn of(records: &'a [Value]) -> Self {
        let mut namespaces = Counts::default();
        let mut sample_namespaces = Counts::default();
        let mut types = Counts::default();
        let mut tags = Counts::default();
        for (i, record) in records.iter().enumerate() {
            let Value::Object(fields) = record else { continue };
            let sampled = i < SAMPLE_SIZE;
            for (key, value) in fields {
                match key.as_str() {
                    "namespace" => {
                        namespaces.add(value);
                        if sampled {
                            sample_namespaces.add(value);
                        }
                    }
                    "memory_type" if sampled => types.add(value),
                    "tags" if sampled => {
                        if let Value::Array(items) = value {
                            items.iter().for_each(|t| tags.add(t));
                        }
                    }
                    _ => {}
                }
            }
        }
        let examples = MifExamples { namespace: sample_namespaces.first(), memory_type: types.first(), tag: tags.first() };
        Self { namespaces, examples }
    }
}
