//! The invariants the `json_*` fuzz targets check (`fuzz/`, `make fuzz`), one function per
//! target: the writer, the canonical scan and the field reader, against serde_json. A check
//! takes any bytes and panics when an invariant fails; [`TARGETS`] names them, and the tests
//! replay the seed corpora and every saved crash (`fuzz/regressions/TARGET/`) in every
//! `cargo test` run.
//!
//! Compiled for tests and for fuzzing builds only (cargo-fuzz sets `--cfg fuzzing`).

use serde_json::Value;

use crate::{canonical, fields, write};

pub use crate::fuzz_replay::Check;

/// This crate's targets: the name (the file in `fuzz/fuzz_targets/` and the corpus
/// directory) and the check.
pub const TARGETS: &[(&str, Check)] = &[
    ("json_write", check_json_write),
    ("json_canonical", check_json_canonical),
    ("json_fields", check_json_fields),
];

/// serde_json's compact text of `value`.
fn compact(value: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(value).expect("serde_json writes every Value")
}

/// A key as it stands between its quotes in compact JSON (escaped).
fn escaped_key(key: &str) -> Vec<u8> {
    let quoted = compact(&key);
    quoted[1..quoted.len() - 1].to_vec()
}

/// [`write::write_value`] and [`write::write_str`] give serde_json's bytes, for every value
/// serde_json reads from `data` and for every string.
pub fn check_json_write(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut out = Vec::new();
    write::write_str(&mut out, &text);
    assert_eq!(out, compact(&text), "write_str({text:?})");
    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        assert_eq!(
            write::to_string(&value).as_bytes(),
            compact(&value),
            "write_value({value:?})"
        );
    }
}

/// When the canonical scan vouches for a text, it is a JSON array and each element's line
/// and field spans are serde_json's (of the `Value` [`crate::parse`] reads, numbers as
/// written); when it gives up, the `Value` path decides (nothing to check). Stopping early
/// hands over exactly the leading elements. A single value the scan compacts is serde_json's
/// compact text of it.
pub fn check_json_canonical(data: &[u8]) {
    if let Some(compacted) = canonical::compact_value(data) {
        let reference = crate::parse::from_slice(data);
        let Ok(value) = reference else {
            panic!("compact_value accepted a text serde_json refuses: {reference:?}");
        };
        assert_eq!(compacted, compact(&value), "compact_value of {value:?}");
    }
    type Seen = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>);
    let mut seen: Vec<Seen> = Vec::new();
    let scanned = canonical::for_each_element(data, |element| {
        let spans = element
            .fields
            .iter()
            .map(|f| (element.key(f).to_vec(), element.value(f).to_vec()))
            .collect();
        seen.push((element.text.to_vec(), spans));
        true
    });
    let Some(complete) = scanned else {
        assert!(
            canonical::array_lines(data).is_none(),
            "array_lines accepted what for_each_element refused"
        );
        return;
    };
    assert!(complete, "every element was wanted");
    let reference = crate::parse::from_slice(data);
    let Ok(Value::Array(items)) = reference else {
        panic!("the scan accepted a text serde_json reads as {reference:?}");
    };
    assert_eq!(seen.len(), items.len(), "element count");
    for ((text, spans), item) in seen.iter().zip(&items) {
        assert_eq!(*text, compact(item), "element {item:?}");
        let expected: Vec<(Vec<u8>, Vec<u8>)> = match item {
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (escaped_key(k), compact(v)))
                .collect(),
            _ => Vec::new(),
        };
        assert_eq!(*spans, expected, "field spans of {item:?}");
    }
    let lines = canonical::array_lines(data).expect("array_lines agrees with for_each_element");
    let joined: Vec<u8> = seen
        .iter()
        .flat_map(|(text, _)| text.iter().copied().chain([b'\n']))
        .collect();
    assert_eq!(lines.bytes, joined);
    let ends: Vec<usize> = seen
        .iter()
        .scan(0, |end, (text, _)| {
            *end += text.len() + 1;
            Some(*end)
        })
        .collect();
    assert_eq!(lines.line_ends, ends);
    // Stop after `wanted` elements: those are handed over, and the call says it stopped.
    let wanted = data.len() % (items.len() + 1);
    let mut taken = 0;
    let stopped = canonical::for_each_element(data, |_| {
        taken += 1;
        taken < wanted
    });
    if wanted > 0 && wanted < items.len() {
        assert_eq!(stopped, Some(false));
        assert_eq!(taken, wanted);
    }
}

/// On a compact line (what the writers produce), [`fields::fields`], [`fields::get`],
/// [`fields::as_str`] and [`fields::array_items`] read what serde_json reads.
pub fn check_json_fields(data: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    check_fields_of(&value);
    // Nested containers are read the same way when a caller walks into them.
    match &value {
        Value::Object(map) => map.values().for_each(check_fields_of),
        Value::Array(items) => items.iter().for_each(check_fields_of),
        _ => {}
    }
}

fn check_fields_of(value: &Value) {
    let line = compact(value);
    let got: Vec<(&[u8], &[u8])> = fields::fields(&line).collect();
    let items: Vec<&[u8]> = fields::array_items(&line).collect();
    match value {
        Value::Object(map) => {
            let expected: Vec<(Vec<u8>, Vec<u8>)> = map
                .iter()
                .map(|(k, v)| (escaped_key(k), compact(v)))
                .collect();
            let got_owned: Vec<(Vec<u8>, Vec<u8>)> =
                got.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect();
            assert_eq!(got_owned, expected, "fields of {value:?}");
            assert!(items.is_empty(), "array_items of an object");
            for (key, item) in map {
                // `get` takes a key that needs no escapes (the names LRO looks up).
                if escaped_key(key) == key.as_bytes() {
                    assert_eq!(
                        fields::get(&line, key),
                        Some(&compact(item)[..]),
                        "get {key:?}"
                    );
                }
                let text = compact(item);
                let as_str = fields::as_str(&text).map(|s| s.into_owned());
                assert_eq!(as_str.as_deref(), item.as_str(), "as_str of {item:?}");
            }
        }
        Value::Array(array) => {
            let expected: Vec<Vec<u8>> = array.iter().map(compact).collect();
            let got_items: Vec<Vec<u8>> = items.iter().map(|i| i.to_vec()).collect();
            assert_eq!(got_items, expected, "array_items of {value:?}");
            assert!(got.is_empty(), "fields of an array");
        }
        _ => {
            assert!(got.is_empty() && items.is_empty(), "fields of a scalar");
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every seed of the repository's corpora and every input a fuzzer once crashed on
    /// (`fuzz/regressions/TARGET/`) passes its check.
    #[test]
    fn corpora_and_regressions_pass_their_checks() {
        crate::fuzz_replay::replay(super::TARGETS);
    }
}
