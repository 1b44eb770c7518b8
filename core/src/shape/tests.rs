use super::*;
use proptest::prelude::*;
use serde_json::json;

fn names<'l>(layout: &'l Layout<'_>) -> Vec<Option<&'l str>> {
    layout.sections.iter().map(|s| s.name.as_deref()).collect()
}

fn records(section: &Section<'_>) -> Vec<Value> {
    section.records.to_vec()
}

#[test]
fn every_array_of_an_object_is_a_section() {
    let entities: Vec<Value> = (0..5)
        .map(|i| json!({"name": format!("e{i}"), "entityType": "person", "observations": ["x"]}))
        .collect();
    let relations: Vec<Value> = (0..3)
        .map(|i| json!({"from": format!("e{i}"), "to": "e0", "relationType": "knows"}))
        .collect();
    let graph = json!({"entities": entities, "relations": relations});
    let layout = Layout::of(&graph);
    assert_eq!(names(&layout), [Some("entities"), Some("relations")]);
    assert_eq!(records(&layout.sections[0]), entities);
    assert_eq!(records(&layout.sections[1]), relations);
    assert!(layout.envelope.is_empty());
    assert!(
        matches!(layout.sections[0].records, Cow::Borrowed(_)),
        "arrays of the input are not copied"
    );
}

#[test]
fn small_fields_stay_inline_nested_as_given() {
    let items: Vec<Value> = (0..3).map(|i| json!({"id": i})).collect();
    let github = json!({"total_count": 3, "incomplete_results": false, "items": items});
    let layout = Layout::of(&github);
    assert_eq!(names(&layout), [Some("items")]);
    assert_eq!(
        Value::Object(layout.envelope),
        json!({"total_count": 3, "incomplete_results": false})
    );

    let big_meta = "m".repeat(300);
    let nested = json!({"data": {"users": [{"id": 1}], "posts": [{"id": 2}], "total": 2, "note": big_meta},
                        "apiVersion": "v1", "metadata": {"resourceVersion": "12"}});
    let layout = Layout::of(&nested);
    assert_eq!(
        names(&layout),
        [Some("data.users"), Some("data.posts"), Some("data.note")]
    );
    assert_eq!(layout.sections[2].format, Format::Text);
    assert_eq!(
        Value::Object(layout.envelope),
        json!({"data": {"total": 2}, "apiVersion": "v1", "metadata": {"resourceVersion": "12"}})
    );
}

#[test]
fn strings_that_hold_data_are_read() {
    let files: Vec<Value> = (0..12)
        .map(|i| json!({"name": format!("f{i}.ts"), "type": "file"}))
        .collect();
    let tree = json!([{"name": "src", "type": "directory", "children": files}]);
    let wrapped = json!({"content": serde_json::to_string(&tree).unwrap()});
    let layout = Layout::of(&wrapped);
    assert_eq!(names(&layout), [Some("content")]);
    let section = &layout.sections[0];
    assert_eq!(
        section.tree.as_ref().map(|t| t.key.as_str()),
        Some("children")
    );
    assert_eq!(section.records.len(), 13);
    assert_eq!(
        records(section)[..2],
        [
            json!({"path": "src", "depth": 0, "name": "src", "type": "directory"}),
            json!({"path": "src/f0.ts", "depth": 1, "name": "f0.ts", "type": "file"})
        ]
    );

    let rows = "[{'id': 0, 'region': 'amer'}, {'id': 1, 'region': 'emea'}]";
    let rows = json!(rows);
    let layout = Layout::of(&rows);
    assert_eq!(names(&layout), [None]);
    assert_eq!(layout.sections[0].format, Format::PythonLiteral);
    assert_eq!(
        records(&layout.sections[0]),
        [
            json!({"id": 0, "region": "amer"}),
            json!({"id": 1, "region": "emea"})
        ]
    );

    let result = json!({"result": "commit 1\nAuthor: a\n\ncommit 2\n"});
    let layout = Layout::of(&result);
    assert_eq!(names(&layout), [None], "a short string is a small field");
    let long = "commit abc\nAuthor: x\n".repeat(20);
    let result = json!({"result": long, "exit_code": 0});
    let layout = Layout::of(&result);
    assert_eq!(names(&layout), [Some("result")]);
    assert_eq!(layout.sections[0].format, Format::Text);
    assert_eq!(layout.sections[0].records.len(), 40);
    assert_eq!(Value::Object(layout.envelope), json!({"exit_code": 0}));
}

#[test]
fn maps_become_entries_and_large_envelopes_go_to_the_file() {
    let map: Map<String, Value> = (0..40)
        .map(|i| (format!("day-{i}"), json!([i, i + 1])))
        .collect();
    let value = Value::Object(map);
    let layout = Layout::of(&value);
    assert_eq!(names(&layout), [None]);
    assert!(layout.sections[0].entries);
    assert_eq!(layout.sections[0].records.len(), 40);
    assert_eq!(
        layout.sections[0].records[3],
        json!({"key": "day-3", "value": [3, 4]})
    );

    let mut wide: Map<String, Value> = (0..80)
        .map(|i| (format!("field_{i}"), json!(format!("value {i}"))))
        .collect();
    wide.insert("items".into(), json!([{"id": 1}, {"id": 2}]));
    let value = Value::Object(wide.clone());
    let layout = Layout::of(&value);
    assert_eq!(names(&layout), [Some("items"), Some(OTHER_FIELDS)]);
    assert!(layout.envelope.is_empty());
    wide.remove("items");
    assert_eq!(layout.sections[1].records[0], Value::Object(wide));
}

#[test]
fn records_without_parts_are_one_record() {
    let small = json!({"status": "ok", "count": 3});
    let layout = Layout::of(&small);
    assert_eq!(names(&layout), [None]);
    assert_eq!(records(&layout.sections[0]), [small]);
    let deep = json!({"a": {"b": {"c": {"d": {"e": {"f": [1, 2, 3], "pad": "p".repeat(300)}}}}}});
    let layout = Layout::of(&deep);
    assert_eq!(
        names(&layout),
        [Some("a.b.c.d")],
        "below MAX_DEPTH an object is whole"
    );
    assert_eq!(layout.sections[0].records[0], deep["a"]["b"]["c"]["d"]);
    let seven = json!(7);
    assert_eq!(Layout::of(&seven).sections[0].records[0], json!(7));
}

/// Every scalar of `value`, as text, with its count (object keys are not values).
fn leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| leaves(v, out)),
        Value::Object(fields) => fields.values().for_each(|v| leaves(v, out)),
        Value::String(s) => out.push(format!("s{s}")),
        other => out.push(other.to_string()),
    }
}

proptest! {
    /// Nothing is lost: every scalar of the input is in a record or in the envelope at least
    /// as many times (trees, entries and lines add their paths, keys and numbers).
    #[test]
    fn nothing_is_lost(value in lro_json::strategy::arb_json()) {
        let layout = Layout::of(&value);
        let mut input = Vec::new();
        leaves(&value, &mut input);
        let mut output = Vec::new();
        for section in &layout.sections {
            if section.format == Format::Text || section.format != Format::Json {
                // Text is read line by line: compare the text, not the value.
                continue;
            }
            section.records.iter().for_each(|r| leaves(r, &mut output));
        }
        leaves(&Value::Object(layout.envelope.clone()), &mut output);
        let read_from_text = layout.sections.iter().any(|s| s.format != Format::Json);
        if !read_from_text {
            for leaf in &input {
                let wanted = input.iter().filter(|l| *l == leaf).count();
                let found = output.iter().filter(|l| *l == leaf).count();
                prop_assert!(found >= wanted, "{leaf} lost: {wanted} in, {found} out");
            }
        }
    }
}
