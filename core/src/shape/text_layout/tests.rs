//! The text layout against [`Layout`] and [`read_text`](super::text::read_text): the same
//! lines, sections and envelope for every result, however its parts were read. The
//! generators here make the shapes tool results have (records, trees, maps, JSON inside
//! strings, tables, text); lro-mcp's interceptor tests use the same ones.

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::shape::TextRead;
use lro_json::strategy::arb_json;

/// A record of the kinds tool results hold: flat, with a tag list, a MIF memory, a node of
/// a tree (or of something that only looks like one), or anything.
pub(crate) fn arb_record() -> impl Strategy<Value = Value> {
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
fn arb_node() -> impl Strategy<Value = Value> {
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
pub(crate) fn arb_data() -> impl Strategy<Value = Value> {
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
pub(crate) fn render(value: &Value, style: usize) -> String {
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

/// What [`Layout`] gives for `value`, in the text layout's terms: the body, each section's
/// name, count, format, tree and entries, and the envelope.
fn by_value(value: &Value) -> (Vec<u8>, Vec<String>, Map<String, Value>) {
    let layout = Layout::of(value);
    let mut body = Body::default();
    let mut sections = Vec::new();
    for section in &layout.sections {
        let part = Body::of_values(&section.records);
        sections.push(format!(
            "{:?} {} {:?} {:?} {}",
            section.name,
            part.len(),
            section.format,
            section.tree,
            section.entries
        ));
        body.append(part);
    }
    (body.bytes, sections, layout.envelope)
}

fn by_text(layout: TextLayout) -> (Vec<u8>, Vec<String>, Map<String, Value>) {
    let (body, written, envelope, _) = layout.into_parts();
    let sections = written
        .iter()
        .map(|s| {
            format!(
                "{:?} {} {:?} {:?} {}",
                s.name, s.count, s.format, s.tree, s.entries
            )
        })
        .collect();
    (body.bytes, sections, envelope)
}

/// The text layout of `value` rendered in `style` with parts above `min_text` read from
/// their text is [`Layout`]'s, unless it declines.
fn agrees(value: &Value, style: usize, min_text: usize) -> bool {
    let text = render(value, style);
    let expected = by_value(value);
    let json = TextLayout::of_json(&text, min_text).map(by_text);
    if let Some(got) = &json {
        assert_eq!(*got, expected, "JSON {text}");
    }
    let string = Value::String(text.clone());
    if let Some(got) = TextLayout::of_text(&text, min_text).map(by_text) {
        assert_eq!(got, by_value(&string), "text {text}");
    }
    json.is_some()
}

#[test]
fn shapes_of_real_results() {
    let records: Vec<Value> = (0..40)
        .map(|i| json!({"id": format!("r{i}"), "kind": "alpha", "label": format!("record {i}"), "score": i}))
        .collect();
    let cases = [
        json!({"total": 40, "items": records}),
        json!({"result": records}),
        json!({"result": render(&json!(records), 1)}),
        json!({"entities": records, "relations": records, "note": "small"}),
        json!({"data": {"users": records, "page": 1}, "ok": true}),
        json!({"content": render(&json!({"items": records}), 0)}),
        json!({"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}], "pad": "p".repeat(300)}),
        json!([{"name": "a", "nodes": [{"name": "b", "nodes": [{"name": "c"}]}]}]),
        json!({"text": "line one\nline two\n".repeat(40)}),
        json!({"csv": "id,name\n1,x\n2,y\n3,z\n".repeat(30)}),
        json!({"literal": "[{'a': None}]".to_owned() + &" ".repeat(300)}),
        json!({"twice": serde_json::to_string(&render(&json!({"items": records}), 1)).unwrap()}),
        Value::Object(
            (0..40)
                .map(|i| (format!("k{i}"), json!([i, {"x": "y"}])))
                .collect(),
        ),
    ];
    for value in &cases {
        for style in 0..3 {
            for min_text in [0, 64, 1024] {
                assert!(agrees(value, style, min_text), "declined {value}");
            }
        }
    }
}

#[test]
fn what_it_declines_the_value_path_decides() {
    // A key given twice (serde_json's Value keeps the last), deep nesting: declined.
    let twice = r#"{"items": [1, 2], "items": [3]}"#;
    assert!(TextLayout::of_json(twice, 0).is_none());
    let deep = format!("{{\"a\": {}1{}}}", "[".repeat(120), "]".repeat(120));
    assert!(TextLayout::of_json(&deep, 0).is_none());
    // Text that looks like JSON but is not: read as lines, as read_text reads it.
    let log = "[INFO] started\n[INFO] done\n";
    let (body, sections, _) = by_text(TextLayout::of_text(log, 0).unwrap());
    assert_eq!((body, sections), {
        let (body, sections, _) = by_value(&json!(log));
        (body, sections)
    });
    // JSON inside a string that is valid but declined: the whole text goes to the Value path.
    let inner = serde_json::to_string(twice).unwrap();
    assert!(TextLayout::of_text(&inner, 0).is_none());
    // A number beyond a double is JSON (its text kept): records on both paths.
    let huge = format!("[1e400, {}3]", "2, ".repeat(10));
    let (body, sections, _) = by_text(TextLayout::of_text(&huge, 0).unwrap());
    assert!(body.starts_with(b"1e400\n2\n"), "{body:?}");
    assert_eq!((body, sections), {
        let (body, sections, _) = by_value(&json!(huge));
        (body, sections)
    });
}

#[test]
fn nesting_depths() {
    assert_eq!(depth_of(&json!(1)), 0);
    assert_eq!(depth_of(&json!([])), 1);
    assert_eq!(depth_of(&json!({"a": [[1], {}]})), 3);
}

#[test]
fn records_as_lines_are_the_arrays_layout() {
    let records = vec![
        json!({"a": 1}),
        json!({"name": "x", "children": [{"name": "y"}]}),
    ];
    assert!(
        TextLayout::of_records(Body::of_values(&records)).is_none(),
        "a tree"
    );
    let flat = vec![json!({"a": 1}), json!([2])];
    let (body, sections, envelope) =
        by_text(TextLayout::of_records(Body::of_values(&flat)).unwrap());
    assert_eq!((body, sections, envelope), by_value(&json!(flat)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn text_layout_is_the_value_layout(value in arb_data(), style in 0usize..3, min_text in prop::sample::select(vec![0usize, 48, 300])) {
        agrees(&value, style, min_text);
    }

    #[test]
    fn tree_checks_on_text_are_detect(records in prop::collection::vec(prop_oneof![arb_node(), arb_record()], 0..6)) {
        let lines = Body::of_values(&records);
        prop_assert_eq!(lines_form_a_tree(&lines, 0), tree::detect(&records).is_some());
        let array = serde_json::to_string_pretty(&records).unwrap();
        for key in ["children", "nodes", "items"] {
            let root = json!({key: records.clone()});
            prop_assert_eq!(
                root_of_text(key, &array),
                Some(tree::detect(std::slice::from_ref(&root)).as_deref() == Some(key)),
                "{}", key
            );
        }
    }

    #[test]
    fn records_read_from_blocks_are_read_texts(value in arb_data(), style in 0usize..3) {
        let text = match &value {
            Value::String(text) => text.clone(),
            other => render(other, style),
        };
        let expected = match crate::shape::read_text(&text) {
            TextRead::Value(value, _) => Some(write::to_string(&value).into_bytes()),
            _ => None,
        };
        prop_assert_eq!(read_record(&text).map(|(record, _)| record), expected);
    }
}

#[test]
fn records_with_many_array_keys_are_left_to_the_value_path() {
    // A key of its own per record, each holding an array: undecided, not checked pairwise.
    let records: Vec<Value> = (0..200).map(|i| json!({format!("k{i}"): [i]})).collect();
    let body = Body::of_values(&records);
    assert!(lines_form_a_tree(&body, 0));
    assert!(tree::detect(&records).is_none());
    let text = render(&json!({"items": records, "n": 1}), 0);
    // Declined for the array, laid out by the Value path: the same layout.
    assert!(agrees(&serde_json::from_str(&text).unwrap(), 0, 0));
}

/// FastMCP returns a dict as its indented JSON in one text block: a large one is laid out
/// from its text, not declined to the `Value` path (the interceptor's tests in lro-mcp take
/// the same result through `intercept_tool_result_text`).
#[test]
fn a_fastmcp_dict_text_is_laid_out_from_its_text() {
    let items: Vec<Value> = (0..3000)
        .map(|i| json!({"id": format!("r{i}"), "kind": if i % 2 == 0 { "alpha" } else { "beta" }, "label": format!("record number {i}"), "score": i % 97}))
        .collect();
    let text = render(&json!({"total": items.len(), "items": items}), 1);
    assert!(text.len() > TEXT_PART_MIN);
    assert!(TextLayout::of_text(&text, TEXT_PART_MIN).is_some());
}
