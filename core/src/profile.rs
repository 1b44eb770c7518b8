//! What fields raw records have: the basis of their line schema and recipes.
//!
//! Profiles look at the first [`SAMPLE_SIZE`] records only, so that offloading and native
//! extraction (which rebuilds recipes from the file) agree and stay cheap on huge files.

use std::collections::HashMap;

use serde_json::Value;

/// How many records a profile looks at.
pub const SAMPLE_SIZE: usize = 1000;

/// Most distinct string values tracked per field.
const DISTINCT_CAP: usize = 64;

/// What is known of one top-level field.
#[derive(Debug, Clone, Default)]
pub struct FieldStats {
    /// The field name.
    pub name: String,
    /// Records (of the sample) in which the field is present and not null.
    pub present: usize,
    /// JSON Schema type names seen, in first-seen order (`string`, `number`, ...).
    pub types: Vec<&'static str>,
    /// Distinct string values with their counts, in first-seen order, capped.
    pub values: Vec<(String, usize)>,
    /// More distinct string values exist than were tracked.
    pub values_capped: bool,
    /// Every present value is an array whose items are strings.
    pub string_array: bool,
    /// The most frequent string item of string arrays.
    pub items: Vec<(String, usize)>,
}

impl FieldStats {
    /// Every present value has JSON type `ty`.
    pub fn only(&self, ty: &str) -> bool {
        self.present > 0 && self.types.iter().all(|t| *t == ty || *t == "null")
    }

    /// The most frequent string value (first seen wins ties).
    pub fn top_value(&self) -> Option<&str> {
        top(&self.values)
    }

    /// The most frequent string-array item.
    pub fn top_item(&self) -> Option<&str> {
        top(&self.items)
    }
}

fn top(counts: &[(String, usize)]) -> Option<&str> {
    let mut best: Option<&(String, usize)> = None;
    for entry in counts {
        if best.is_none_or(|b| entry.1 > b.1) {
            best = Some(entry);
        }
    }
    best.map(|(v, _)| v.as_str())
}

/// JSON Schema's name for a value's type.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if crate::json::write::number_is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn bump(counts: &mut Vec<(String, usize)>, value: &str) -> bool {
    if let Some(entry) = counts.iter_mut().find(|(v, _)| v == value) {
        entry.1 += 1;
        true
    } else if counts.len() < DISTINCT_CAP {
        counts.push((value.to_owned(), 1));
        true
    } else {
        false
    }
}

/// The profile of a sample of raw records.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Records looked at.
    pub sampled: usize,
    /// Every sampled record is an object.
    pub all_objects: bool,
    /// Types of the records themselves, first-seen order.
    pub record_types: Vec<&'static str>,
    /// Top-level fields, in first-seen order.
    pub fields: Vec<FieldStats>,
}

impl Profile {
    /// Profiles the first [`SAMPLE_SIZE`] of `records`.
    pub fn of<'v>(records: impl IntoIterator<Item = &'v Value>) -> Self {
        let mut profile = Self {
            all_objects: true,
            ..Self::default()
        };
        let mut index: HashMap<String, usize> = HashMap::new();
        for record in records.into_iter().take(SAMPLE_SIZE) {
            profile.sampled += 1;
            let ty = type_name(record);
            if !profile.record_types.contains(&ty) {
                profile.record_types.push(ty);
            }
            let Value::Object(map) = record else {
                profile.all_objects = false;
                continue;
            };
            for (key, value) in map {
                let i = *index.entry(key.clone()).or_insert_with(|| {
                    profile.fields.push(FieldStats {
                        name: key.clone(),
                        string_array: true,
                        ..FieldStats::default()
                    });
                    profile.fields.len() - 1
                });
                let stats = &mut profile.fields[i];
                let vt = type_name(value);
                if !stats.types.contains(&vt) {
                    stats.types.push(vt);
                }
                if value.is_null() {
                    continue;
                }
                stats.present += 1;
                if let Value::String(s) = value {
                    if !bump(&mut stats.values, s) {
                        stats.values_capped = true;
                    }
                }
                match value {
                    Value::Array(items) if items.iter().all(Value::is_string) => {
                        for item in items.iter().filter_map(Value::as_str) {
                            bump(&mut stats.items, item);
                        }
                    }
                    _ => stats.string_array = false,
                }
            }
        }
        if profile.sampled == 0 {
            profile.all_objects = false;
        }
        profile
    }

    /// The stats of field `name`.
    pub fn field(&self, name: &str) -> Option<&FieldStats> {
        self.fields.iter().find(|f| f.name == name)
    }
}
