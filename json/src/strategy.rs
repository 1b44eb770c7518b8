//! Random JSON values for property tests (proptest strategies): every kind of value, strings
//! with escapes and any Unicode, numbers of every width, nested up to four levels
//! ([`arb_json`]); and values shaped as tool results are (records, trees, maps, JSON inside
//! strings, tables, text: [`arb_data`]), with [`render`] to write them as JSON text three ways.
//!
//! Compiled for this crate's tests and, with the `proptest` feature, for other crates' tests
//! that check their own JSON handling against the same values.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Any JSON value: the leaves serde_json can hold (finite doubles only), in arrays and
/// objects up to four levels deep, keys among short strings that need escapes.
pub fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        "[\\x00-\\x7f]{0,24}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"\\\\\\n]{0,4}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A record of the kinds tool results hold: flat, with a tag list, a MIF memory, a node of
/// a tree (or of something that only looks like one), or anything.
pub fn arb_record() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0u32..1000, "[a-z /]{0,12}", any::<bool>()).prop_map(|(i, label, ok)| {
            json!({"id": format!("r{i}"), "label": label, "ok": ok, "score": i % 97})
        }),
        (0u32..1000, prop::collection::vec("[a-z]{1,5}", 0..3)).prop_map(|(i, tags)| {
            json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": "_semantic/x",
                   "title": format!("Title {i}"), "tags": tags, "content": "c\n/\u{e9}",
                   "provenance": {"confidence": 0.5}})
        }),
        arb_node(),
        arb_json(),
    ]
}

/// A node with `children` (or `nodes`) of its own, `null`, or a value that breaks the tree.
pub fn arb_node() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        "[a-z]{1,4}".prop_map(|name| json!({"name": name})),
        "[a-z]{1,4}".prop_map(|name| json!({"name": name, "children": null})),
        "[a-z]{1,4}".prop_map(|name| json!({"name": name, "children": "x"})),
        "[a-z]{1,4}".prop_map(|name| json!({"name": name, "labels": [{"id": 1}]})),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        (
            "[a-z]{1,4}",
            prop::sample::select(vec!["children", "nodes", "items"]),
            prop::collection::vec(inner, 0..3),
        )
            .prop_map(|(name, key, children)| json!({"name": name, key: children}))
    })
}

/// What a tool returns: arrays of records, objects with several arrays, maps of many
/// large fields, envelopes too large to stay inline, deep objects, JSON inside strings,
/// tables, Python literals, text.
pub fn arb_data() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        4 => prop::collection::vec(arb_record(), 0..8).prop_map(Value::Array),
        2 => arb_json(),
        1 => "[a-z\n ,/]{0,300}".prop_map(Value::from),
        1 => "[ -~]{250,300}".prop_map(Value::from),
        1 => Just(json!("id,name\n1,x\n2,y\n3,z\n")),
        1 => Just(json!("[{'a': None, 'b': (1, 2.5)}, {'a': True}]")),
        1 => (33usize..36).prop_map(|n| {
            Value::Object((0..n).map(|i| (format!("k{i}"), json!([i]))).collect())
        }),
        1 => (0usize..30).prop_map(|n| {
            let mut fields: Map<String, Value> =
                (0..n).map(|i| (format!("f{i}"), json!("x".repeat(90)))).collect();
            fields.insert("items".into(), json!([{"a": 1}, {"a": 2}]));
            Value::Object(fields)
        }),
        1 => prop::collection::vec(arb_record(), 1..4).prop_map(|records| {
            let mut value = json!({"deep": records, "n": 1});
            for _ in 0..5 {
                value = json!({"level": value, "pad": "y".repeat(300)});
            }
            value
        }),
    ];
    leaf.prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            3 => prop::collection::vec(("[a-z.]{1,6}", inner.clone()), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            1 => prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            2 => (inner, 0usize..3).prop_map(|(value, style)| Value::String(render(&value, style))),
        ]
    })
}

/// `value` as JSON text: compact (0), pretty (1), or pretty with `\/` and `\u` escapes (2).
pub fn render(value: &Value, style: usize) -> String {
    match style % 3 {
        0 => serde_json::to_string(value).unwrap(),
        1 => serde_json::to_string_pretty(value).unwrap(),
        _ => {
            let pretty = serde_json::to_string_pretty(value).unwrap();
            let mut text = String::with_capacity(pretty.len());
            for c in pretty.chars() {
                match c {
                    '/' => text.push_str("\\/"),
                    c if !c.is_ascii() => {
                        for unit in c.encode_utf16(&mut [0u16; 2]) {
                            text.push_str(&format!("\\u{unit:04X}"));
                        }
                    }
                    c => text.push(c),
                }
            }
            text
        }
    }
}
