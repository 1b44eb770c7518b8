//! The text layout against [`Layout`] and [`read_text`](super::text::read_text): the same
//! lines, sections and envelope for every result, however its parts were read, for the
//! shapes tool results have (`lro_json::strategy`'s generators, which lro-mcp's interceptor
//! tests use too).

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::shape::TextRead;
use lro_json::strategy::{arb_data, arb_node, arb_record, render};

/// What [`Layout`] gives for `value`, in the text layout's terms: the body, each section's
/// name, count, format, tree and entries, and the envelope.
fn by_value(value: &Value) -> (Vec<u8>, Vec<String>, Map<String, Value>) {
    let layout = Layout::of(value);
    let mut body = Body::default();
    let mut sections = Vec::new();
    for section in &layout.sections {
        let part = Body::of_values(&section.records);
        sections.push(format!(
            "{:?} {} {:?} {:?} {} {:?}",
            section.name,
            part.len(),
            section.format,
            section.tree,
            section.entries,
            section.table
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
                "{:?} {} {:?} {:?} {} {:?}",
                s.name, s.count, s.format, s.tree, s.entries, s.table
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
    let rows: Vec<Value> = (0..40).map(|i| json!([format!("x{i}"), i])).collect();
    let sheet: Vec<Value> = std::iter::once(json!(["a", "b"]))
        .chain(rows.iter().cloned())
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
        // Tables given as JSON, found where they sit, and what only looks like one.
        json!({"columns": ["a", "b"], "index": (0..40).collect::<Vec<_>>(), "data": rows}),
        json!({"result": {"meta": [{"name": "a"}, {"name": "b"}], "data": rows, "rows": 40}}),
        json!({"schema": {"fields": [{"name": "a"}, {"name": "b"}]},
               "rows": rows.iter().map(|r| json!({"f": [{"v": r[0]}, {"v": r[1]}]})).collect::<Vec<_>>()}),
        json!({"range": "A1:B41", "values": sheet}),
        json!({"content": render(&json!({"columns": [{"name": "a"}, {"name": "b"}], "data": rows}), 1)}),
        json!({"columns": ["a"], "data": rows, "values": records}),
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
