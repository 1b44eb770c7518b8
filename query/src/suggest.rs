//! Warnings for a query that names a field no record has, with the closest field names.

use serde_json::Value;

/// Most field paths collected from the sampled records.
const MAX_PATHS: usize = 1000;
/// Deepest nesting followed.
const MAX_DEPTH: usize = 8;

/// Every dotted field path of `records` (through objects, and through arrays into their
/// element objects), first seen first.
pub fn field_paths<'r>(records: impl Iterator<Item = &'r Value>) -> Vec<String> {
    let mut paths = Vec::new();
    for record in records {
        collect(record, "", 0, &mut paths);
        if paths.len() >= MAX_PATHS {
            break;
        }
    }
    paths
}

fn collect(value: &Value, prefix: &str, depth: usize, paths: &mut Vec<String>) {
    if depth > MAX_DEPTH || paths.len() >= MAX_PATHS {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                collect(v, &path, depth + 1, paths);
                if !paths.contains(&path) {
                    paths.push(path);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect(item, prefix, depth + 1, paths);
            }
        }
        _ => {}
    }
}

/// Edit distance between `a` and `b` (case-insensitive), in characters.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The warning for `missing`, a path no record has, given the `known` paths.
pub fn warning(missing: &str, known: &[String]) -> String {
    let last = |p: &str| p.rsplit('.').next().unwrap_or(p).to_lowercase();
    let mut scored: Vec<(usize, &String)> = known
        .iter()
        .filter_map(|k| {
            let d = distance(missing, k);
            let close = d <= (missing.chars().count() / 3).max(2);
            // `confidence` for `provenance.confidence`, and the other way round.
            let same_leaf = last(k) == last(missing);
            (close || same_leaf).then_some((if same_leaf { d.min(1) } else { d }, k))
        })
        .collect();
    scored.sort_by_key(|(d, _)| *d);
    let names: Vec<String> = scored
        .iter()
        .take(3)
        .map(|(_, k)| Value::from(k.as_str()).to_string())
        .collect();
    if names.is_empty() {
        let top: Vec<&str> = known
            .iter()
            .filter(|k| !k.contains('.'))
            .take(12)
            .map(String::as_str)
            .collect();
        if top.is_empty() {
            format!("no record has the field {missing:?} (the records have no fields)")
        } else {
            format!(
                "no record has the field {missing:?}; the records' fields are: {}",
                top.join(", ")
            )
        }
    } else {
        format!(
            "no record has the field {missing:?}; closest field names: {}",
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn suggests_near_names_and_nested_paths() {
        let records = [
            json!({"id": 1, "namespace": "a", "provenance": {"confidence": 0.5}, "tags": ["x"], "entities": [{"name": "n"}]}),
        ];
        let known = field_paths(records.iter());
        assert_eq!(
            known,
            [
                "id",
                "namespace",
                "provenance.confidence",
                "provenance",
                "tags",
                "entities.name",
                "entities"
            ]
        );
        assert!(warning("namepsace", &known).ends_with("closest field names: \"namespace\""));
        assert!(warning("confidence", &known).contains("\"provenance.confidence\""));
        assert!(warning("entities.nmae", &known).contains("\"entities.name\""));
        let far = warning("zzzzzzzzzz", &known);
        assert!(
            far.contains("fields are: id, namespace, provenance, tags, entities"),
            "{far}"
        );
    }
}
