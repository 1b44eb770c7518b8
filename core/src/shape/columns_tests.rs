use serde_json::{Value, json};

use super::*;
use crate::shape::Layout;

/// The records and table info of the one table section `value` is laid out into, with the
/// envelope.
fn read(value: &Value) -> (Vec<Value>, Option<TableInfo>, Value, Vec<Option<String>>) {
    let layout = Layout::of(value);
    let names = layout.sections.iter().map(|s| s.name.clone()).collect();
    let table = layout.sections.iter().find(|s| s.table.is_some());
    let (records, info) = table.map_or((Vec::new(), None), |s| {
        (s.records.to_vec(), s.table.clone())
    });
    (records, info, Value::Object(layout.envelope), names)
}

fn form(value: &Value) -> Option<TableForm> {
    read(value).1.map(|info| info.form)
}

#[test]
fn pandas_split_rows_are_named_and_carry_their_index() {
    let split: Value = serde_json::from_str(
        r#"{"columns": ["city", "pop"], "index": [10, 11], "data": [["Oslo", 709037], ["Bergen", 1.50e2]]}"#,
    )
    .unwrap();
    let (records, info, envelope, names) = read(&split);
    assert_eq!(
        records[0],
        json!({"index": 10, "city": "Oslo", "pop": 709037})
    );
    assert_eq!(
        info,
        Some(TableInfo {
            form: TableForm::PandasSplit,
            index_field: Some("index".into())
        })
    );
    assert_eq!(envelope, json!({"columns": ["city", "pop"]}));
    assert_eq!(names, [Some("data".to_owned())]);
    // The number is moved, not converted: its text is the input's (no trip through f64).
    assert_eq!(records[1]["pop"], split["data"][1][1]);
    assert_eq!(
        records[1]["pop"].to_string(),
        split["data"][1][1].to_string()
    );
    assert_ne!(records[1]["pop"].to_string(), "150.0");
}

#[test]
fn a_column_named_index_moves_the_index_aside() {
    let split = json!({"columns": ["index", "_index"], "index": ["a"], "data": [[1, 2]]});
    let (records, info, ..) = read(&split);
    assert_eq!(records, [json!({"__index": "a", "index": 1, "_index": 2})]);
    assert_eq!(info.unwrap().index_field.as_deref(), Some("__index"));
}

#[test]
fn every_form_is_read() {
    let clickhouse = json!({"meta": [{"name": "id", "type": "UInt64"}, {"name": "n", "type": "String"}],
                            "data": [["1", "a"], ["2", "b"]], "rows": 2, "statistics": {"elapsed": 0.001}});
    let (records, _, envelope, _) = read(&clickhouse);
    assert_eq!(records[1], json!({"id": "2", "n": "b"}));
    assert_eq!(envelope["rows"], 2);
    assert_eq!(form(&clickhouse), Some(TableForm::Clickhouse));

    let trino = json!({"id": "q1", "columns": [{"name": "id", "type": "bigint"}],
                       "data": [[1], [2]], "stats": {"state": "FINISHED"}});
    assert_eq!(form(&trino), Some(TableForm::Trino));

    let bigquery = json!({"kind": "bigquery#queryResponse",
                          "schema": {"fields": [{"name": "word", "type": "STRING"}, {"name": "n", "type": "INTEGER"}]},
                          "rows": [{"f": [{"v": "the"}, {"v": "42"}]}, {"f": [{"v": "a"}, {"v": null}]}],
                          "totalRows": "2"});
    let (records, info, envelope, _) = read(&bigquery);
    assert_eq!(
        records,
        [
            json!({"word": "the", "n": "42"}),
            json!({"word": "a", "n": null})
        ]
    );
    assert_eq!(info.unwrap().form, TableForm::Bigquery);
    assert_eq!(envelope["schema"]["fields"][1]["type"], "INTEGER");

    let sheet = json!({"range": "Sheet1!A1:B3", "majorDimension": "ROWS",
                       "values": [["Name", "Age"], ["Ann", "30"], ["Bo", "41"]]});
    let (records, info, envelope, _) = read(&sheet);
    assert_eq!(
        records,
        [
            json!({"Name": "Ann", "Age": "30"}),
            json!({"Name": "Bo", "Age": "41"})
        ]
    );
    assert_eq!(info.unwrap().form, TableForm::Spreadsheet);
    assert_eq!(
        envelope,
        json!({"range": "Sheet1!A1:B3", "majorDimension": "ROWS"})
    );
}

#[test]
fn anything_not_exactly_a_table_is_laid_out_as_before() {
    let not_tables = [
        // A row shorter than the names.
        json!({"columns": ["a", "b"], "data": [[1, 2], [3]]}),
        // A name twice, a name not a string, an empty name.
        json!({"columns": ["a", "a"], "data": [[1, 2]]}),
        json!({"columns": ["a", 1], "data": [[1, 2]]}),
        json!({"meta": [{"name": ""}], "data": [[1]]}),
        json!({"meta": [{"type": "x"}], "data": [[1]]}),
        // No rows; rows that are not arrays.
        json!({"columns": ["a"], "data": []}),
        json!({"columns": ["a"], "data": [{"a": 1}]}),
        // An index that is not one value per row.
        json!({"columns": ["a"], "index": [0], "data": [[1], [2]]}),
        // A spreadsheet needs a header and two rows, of scalars, by rows.
        json!({"values": [["a"], [1]]}),
        json!({"values": [["a"], [[1]], [2]]}),
        json!({"values": [[1, 2], [3, 4], [5, 6]]}),
        json!({"majorDimension": "COLUMNS", "values": [["a"], [1], [2]]}),
        // A BigQuery row with a cell short, or a field beside `f`.
        json!({"schema": {"fields": [{"name": "a"}, {"name": "b"}]}, "rows": [{"f": [{"v": 1}]}]}),
        json!({"schema": {"fields": [{"name": "a"}]}, "rows": [{"f": [{"v": 1}], "x": 1}]}),
    ];
    for value in &not_tables {
        let layout = Layout::of(value);
        assert!(
            layout.sections.iter().all(|s| s.table.is_none()),
            "{value} is not a table"
        );
    }
}

#[test]
fn a_table_in_a_string_or_deeper_is_read_and_its_other_fields_laid_out() {
    let rows: Vec<Value> = (1..=60).map(|i| json!([i])).collect();
    let table = json!({"columns": ["a"], "data": rows});
    let wrapped = json!({"result": table.to_string(), "ok": true});
    let (records, _, envelope, names) = read(&wrapped);
    assert_eq!(records[..2], [json!({"a": 1}), json!({"a": 2})]);
    assert_eq!(names, [Some("result.data".to_owned())]);
    assert_eq!(envelope, json!({"ok": true, "result": {"columns": ["a"]}}));

    // A column list too long for the envelope goes to the file with it, whole.
    let wide: Vec<String> = (0..100).map(|i| format!("column_{i}")).collect();
    let row: Vec<usize> = (0..100).collect();
    let table = json!({"columns": wide, "data": [row, row], "note": "n"});
    let layout = Layout::of(&table);
    let names: Vec<_> = layout.sections.iter().map(|s| s.name.as_deref()).collect();
    assert_eq!(names, [Some("data"), Some(crate::shape::OTHER_FIELDS)]);
    assert_eq!(layout.sections[0].records[0]["column_99"], 99);
    assert_eq!(
        layout.sections[1].records[0],
        json!({"columns": wide, "note": "n"})
    );
}
