//! Nothing is lost: for every shape LRO reads, the file (its records and its header's
//! envelope) holds every value of the input exactly once, and the descriptor's `count` is the number of
//! records written. Objects are rebuilt from their sections and envelope and compared whole;
//! text is joined back; trees, tables and literals are checked node by node, row by row.

use lro_core::descriptor::{OffloadHeader, SectionInfo};
use lro_core::jsonl::parse_header;
use lro_core::shape::{OTHER_FIELDS, TableForm, TableInfo};
use lro_core::{OffloadConfig, OffloadRequest, Offloader, StdHost};
use serde_json::{Map, Value, json};

struct Written {
    header: OffloadHeader,
    records: Vec<Value>,
    envelope: Map<String, Value>,
}

fn offload(data: &Value) -> Written {
    let dir = tempfile::tempdir().unwrap();
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        threshold_tokens: 50,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let outcome = lro.offload(data, &OffloadRequest::new("tool")).unwrap();
    let descriptor = outcome.offloaded().expect("offloaded").clone();
    let text = std::fs::read_to_string(&descriptor.file_path).unwrap();
    let mut lines = text.lines();
    let header = parse_header(lines.next().unwrap()).unwrap();
    let records: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(
        descriptor.summary.count,
        records.len(),
        "count = records written"
    );
    assert_eq!(header.count, records.len());
    // The file alone holds the whole result: the envelope is in its header too.
    assert_eq!(header.envelope, descriptor.envelope);
    let envelope = header.envelope.clone().unwrap_or_default();
    Written {
        header,
        records,
        envelope,
    }
}

fn section_records<'w>(written: &'w Written, section: &SectionInfo) -> &'w [Value] {
    &written.records[section.first_line - 2..section.first_line - 2 + section.count]
}

/// The object `written` came from, rebuilt: each section's records put back under its path
/// (entries as an object), the envelope's fields around them.
fn rebuild(written: &Written) -> Value {
    let mut object = Value::Object(written.envelope.clone());
    for section in written.header.all_sections() {
        let records = section_records(written, &section).to_vec();
        if let Some(table) = &section.table {
            put_table(
                &mut object,
                section.name.as_deref().unwrap(),
                table,
                records,
            );
            continue;
        }
        let value = if section.entries {
            Value::Object(
                records
                    .into_iter()
                    .map(|e| (e["key"].as_str().unwrap().to_owned(), e["value"].clone()))
                    .collect(),
            )
        } else {
            Value::Array(records)
        };
        match section.name.as_deref() {
            None => return value,
            Some(OTHER_FIELDS) => {
                for (k, v) in value[0].as_object().unwrap() {
                    object[k] = v.clone();
                }
            }
            Some(name) => {
                let mut slot = &mut object;
                for key in name.split('.') {
                    slot = &mut slot[key];
                }
                *slot = value;
            }
        }
    }
    object
}

/// A table's rows put back in the form they came in, under `name` (its path of keys), with
/// a pandas index taken back out of the records.
fn put_table(object: &mut Value, name: &str, table: &TableInfo, records: Vec<Value>) {
    let keys: Vec<&str> = name.split('.').collect();
    let (rows_key, parent) = keys.split_last().unwrap();
    let mut slot = &mut *object;
    for key in parent {
        slot = &mut slot[*key];
    }
    let mut index = Vec::new();
    let mut header = Vec::new();
    let mut rows = Vec::new();
    for record in records {
        let Value::Object(mut fields) = record else {
            panic!("a table's record is an object")
        };
        if let Some(field) = &table.index_field {
            index.push(fields.shift_remove(field).unwrap());
        }
        header = fields.keys().map(|k| json!(k)).collect();
        let cells: Vec<Value> = fields.into_iter().map(|(_, v)| v).collect();
        rows.push(match table.form {
            TableForm::Bigquery => {
                json!({"f": cells.into_iter().map(|v| json!({"v": v})).collect::<Vec<_>>()})
            }
            _ => Value::Array(cells),
        });
    }
    if table.form == TableForm::Spreadsheet {
        rows.insert(0, Value::Array(header));
    }
    if table.index_field.is_some() {
        slot["index"] = Value::Array(index);
    }
    slot[*rows_key] = Value::Array(rows);
}

/// Key order aside (an envelope's fields come first), two objects are equal.
fn same(a: &Value, b: &Value) {
    let sorted = |v: &Value| serde_json::from_str::<Value>(&v.to_string()).unwrap();
    // serde_json's Map keeps insertion order; compare as sorted maps.
    fn canon(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<_> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), canon(&m[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(canon).collect()),
            other => other.clone(),
        }
    }
    assert_eq!(canon(&sorted(a)), canon(&sorted(b)));
}

#[test]
fn objects_come_back_whole_from_sections_and_envelope() {
    let entities: Vec<Value> = (0..120)
        .map(|i| json!({"name": format!("e{i}"), "entityType": "t", "observations": [format!("o{i}")]}))
        .collect();
    let relations: Vec<Value> = (0..90)
        .map(|i| json!({"from": format!("e{i}"), "to": format!("e{}", i + 1), "relationType": "knows"}))
        .collect();
    let cases = [
        json!({"entities": entities, "relations": relations}),
        json!({"total_count": 120, "incomplete_results": false, "items": entities}),
        json!({"data": {"users": entities, "posts": relations, "total": 2, "meta": {"page": 1}}, "ok": true}),
        Value::Object(
            (0..50)
                .map(|i| (format!("k{i}"), json!([i, {"x": i}])))
                .collect(),
        ),
        {
            let mut wide: Map<String, Value> = (0..90)
                .map(|i| (format!("meta_{i}"), json!(format!("value {i}"))))
                .collect();
            wide.insert("items".into(), json!(relations));
            Value::Object(wide)
        },
    ];
    for data in &cases {
        same(&rebuild(&offload(data)), data);
    }
}

#[test]
fn tables_come_back_whole_from_their_records_and_envelope() {
    let rows: Vec<Value> = (0..80)
        .map(|i| json!([format!("name {i}"), i, null, [i, {"nested": true}], i % 2 == 0]))
        .collect();
    let named = |names: &[&str]| {
        names
            .iter()
            .map(|n| json!({"name": n, "type": "t"}))
            .collect::<Vec<_>>()
    };
    let names = ["name", "index", "missing", "nested", "even"];
    let cases = [
        json!({"columns": names, "index": (0..80).map(|i| format!("i{i}")).collect::<Vec<_>>(), "data": rows}),
        json!({"columns": names, "data": rows}),
        json!({"meta": named(&names), "data": rows, "rows": 80, "statistics": {"elapsed": 0.5}, "totals": [1, 2]}),
        json!({"id": "q", "columns": named(&names), "data": rows, "stats": {"state": "FINISHED"}}),
        json!({"result": {"schema": {"fields": named(&names)}, "totalRows": "80",
               "rows": rows.iter().map(|r| json!({"f": r.as_array().unwrap().iter().map(|v| json!({"v": v})).collect::<Vec<_>>()})).collect::<Vec<_>>()}}),
        json!({"range": "A1:C81", "values": std::iter::once(json!(["a", "b", "c"]))
               .chain((0..80).map(|i| json!([i, format!("v{i}"), null]))).collect::<Vec<_>>()}),
    ];
    for data in &cases {
        let written = offload(data);
        assert!(
            written
                .header
                .all_sections()
                .iter()
                .any(|s| s.table.is_some()),
            "{data} is read as a table"
        );
        same(&rebuild(&written), data);
    }
}

#[test]
fn text_trees_tables_and_literals_keep_every_value_once() {
    // Text: the lines joined back are the text.
    let log: String = (0..500)
        .map(|i| format!("line {i}: \"quoted\" \\ back\tslash é 東京\n"))
        .collect();
    let written = offload(&json!(log));
    let joined: Vec<&str> = written
        .records
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(format!("{}\n", joined.join("\n")), log);

    // A tree: every node once, with its fields, its path unique.
    let tree: Vec<Value> = (0..20)
        .map(|i| json!({"name": format!("d{i}"), "children": (0..10).map(|j| json!({"name": format!("f{j}.ts"), "size": i * j, "children": []})).collect::<Vec<_>>()}))
        .collect();
    let written = offload(&json!({"content": serde_json::to_string(&tree).unwrap()}));
    assert_eq!(written.records.len(), 20 * 11);
    let mut paths: Vec<&str> = written
        .records
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    assert_eq!(paths.len(), 220, "each node once");
    for i in 0..20 {
        for j in 0..10 {
            let path = format!("d{i}/f{j}.ts");
            let node = written
                .records
                .iter()
                .find(|r| r["path"] == json!(path))
                .unwrap();
            assert_eq!(node["size"], json!(i * j));
        }
    }

    // A Python literal: the rows, as Python wrote them.
    let rows: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "name": format!("O'Brien \"{i}\" é"), "amount": i as f64 / 4.0, "note": null, "ok": i % 2 == 0}))
        .collect();
    let literal = format!(
        "[{}]",
        rows.iter()
            .map(|r| format!(
                "{{'id': {}, 'name': 'O\\'Brien \"{}\" é', 'amount': {:?}, 'note': None, 'ok': {}}}",
                r["id"],
                r["id"],
                r["amount"].as_f64().unwrap(),
                if r["ok"] == json!(true) { "True" } else { "False" }
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(offload(&json!(literal)).records, rows);

    // A CSV table: every cell once, in its row and column.
    let csv: String = std::iter::once("id,name,code\n".to_owned())
        .chain((0..200).map(|i| format!("{i},\"n, {i}\",{i:03}\n")))
        .collect();
    let written = offload(&json!(csv));
    for (i, record) in written.records.iter().enumerate() {
        assert_eq!(
            record,
            &json!({"id": i, "name": format!("n, {i}"), "code": format!("{i:03}")})
        );
    }
    assert_eq!(written.records.len(), 200);
}

// ---- Numbers keep their digits ----

/// The records of the file `lro` wrote for the JSON text `json`, as lines.
fn offload_text(json: &str) -> (tempfile::TempDir, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        threshold_tokens: 50,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let outcome = lro
        .offload_json(json.as_bytes(), &OffloadRequest::new("tool"))
        .unwrap();
    let path = outcome.offloaded().expect("offloaded").file_path.clone();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines = text.lines().skip(1).map(str::to_owned).collect();
    (dir, path, lines)
}

/// `.` over every record of the file at `path` in `dir`, each result as compact JSON.
fn extract_all(dir: &tempfile::TempDir, path: &str, query: &str) -> Vec<String> {
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let request = lro_core::ExtractRequest {
        query: Some(query.to_owned()),
        ..Default::default()
    };
    lro.extract(path, &request)
        .unwrap()
        .results
        .iter()
        .map(|v| serde_json::to_string(v).unwrap())
        .collect()
}

/// A number as LRO writes it when it only passes through: as written, byte for byte (`1E2`
/// too, which serde_json's own reader would respell `1e+2`).
fn canonical(number: &str) -> String {
    number.to_owned()
}

fn records_with(numbers: &[String]) -> String {
    let items: Vec<String> = numbers
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let pad = "text to pass the threshold ".repeat(12);
            format!(r#"{{"id": {i}, "n": {n}, "pad": "{pad}"}}"#)
        })
        .collect();
    format!("[{}]", items.join(", "))
}

#[test]
fn a_tables_numbers_keep_their_digits_in_its_records() {
    let numbers = [
        "123456789012345678901234567890",
        "-9223372036854775809",
        "3.14159265358979323846264338327950288",
        "1e400",
        "-1E-400",
        "1.50",
        "-0",
        "1E2",
    ];
    let rows: Vec<String> = numbers
        .iter()
        .enumerate()
        .map(|(i, n)| format!(r#"["row {i} {}", {n}]"#, "padding ".repeat(8)))
        .collect();
    for table in [
        format!(
            r#"{{"columns": ["label", "n"], "data": [{}]}}"#,
            rows.join(", ")
        ),
        format!(
            r#"{{"meta": [{{"name": "label"}}, {{"name": "n"}}], "data": [{}], "rows": 8}}"#,
            rows.join(", ")
        ),
    ] {
        let (_dir, _path, lines) = offload_text(&table);
        assert_eq!(lines.len(), numbers.len(), "one record per row");
        for (line, number) in lines.iter().zip(numbers) {
            assert!(
                line.ends_with(&format!(r#","n":{number}}}"#)),
                "{line} keeps {number}"
            );
        }
    }
}

#[test]
fn hostile_numbers_keep_their_digits_in_the_file_and_through_extraction() {
    let numbers: Vec<String> = [
        "123456789012345678901234567890",
        "-9223372036854775809",
        "18446744073709551616",
        "3.14159265358979323846264338327950288",
        "1e400",
        "-1E-400",
        "1.50",
        "-0",
        "0.1",
        "1E2",
        "100000000000000000000000000000000000000000000000000000.000000000000000000001",
    ]
    .map(str::to_owned)
    .to_vec();
    let (dir, path, lines) = offload_text(&records_with(&numbers));
    assert_eq!(lines.len(), numbers.len(), "every record a record");
    for (line, number) in lines.iter().zip(&numbers) {
        assert!(
            line.contains(&format!(r#""n":{}"#, canonical(number))),
            "{line} keeps {number}"
        );
    }
    // Passed through, the digits come back; computed with, a double.
    assert_eq!(extract_all(&dir, &path, "."), lines);
    let ns = extract_all(&dir, &path, ".n");
    assert_eq!(ns, numbers.iter().map(|n| canonical(n)).collect::<Vec<_>>());
    assert_eq!(
        extract_all(&dir, &path, ".n | tojson"),
        ns.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>()
    );
    assert_eq!(
        extract_all(&dir, &path, "select(.id == 0) | .n + 1"),
        ["123456789012345678901234567891"]
    );
    assert_eq!(
        extract_all(&dir, &path, "select(.id == 8) | .n + 1"),
        ["1.1"]
    );
}

#[test]
fn one_odd_value_leaves_the_other_records_records() {
    let plain: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"id": {i}, "name": "record {i}"}}"#))
        .collect();
    for odd in [
        r#"{"x": 1e400}"#,
        r#"{"x": "\ud800"}"#,
        r#"{"x": "\udfff tail"}"#,
    ] {
        let text = format!("[{}, {odd}]", plain.join(", "));
        let (dir, path, lines) = offload_text(&text);
        assert_eq!(lines.len(), 301, "{odd}");
        assert_eq!(lines[0], r#"{"id":0,"name":"record 0"}"#);
        // The odd one is a number as written, or its own text record holding its bytes.
        let last: Value = serde_json::from_str(&lines[300]).unwrap();
        assert!(
            last == json!({"x": serde_json::from_str::<Value>("1e+400").unwrap()})
                || last == json!({"text": odd}),
            "{odd}: {last}"
        );
        // Extraction reads the whole file.
        assert_eq!(extract_all(&dir, &path, ".id // \"odd\"").len(), 301);
    }
    // A byte-order mark before the text is skipped.
    let (_dir, _path, lines) = offload_text(&format!("\u{feff}[{}]", plain.join(", ")));
    assert_eq!(lines.len(), 300);
}

// ---- Duplicate keys are said, not merged silently ----

/// An offloader writing to `dir` with the descriptor `profile`.
fn offloader_in(dir: &tempfile::TempDir, profile: &str) -> Offloader<StdHost> {
    let config: OffloadConfig = serde_json::from_value(json!({
        "output_dir": dir.path().to_string_lossy(),
        "threshold_tokens": 50,
        "descriptor": profile,
    }))
    .unwrap();
    Offloader::new(config, StdHost::new()).unwrap()
}

/// The outcome as JSON, the header and the record lines of its file.
fn file_of(outcome: &lro_core::Outcome) -> (Value, OffloadHeader, Vec<String>) {
    let descriptor = outcome.to_value();
    let path = descriptor["file_path"].as_str().expect("offloaded");
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = parse_header(lines.next().unwrap()).unwrap();
    (descriptor, header, lines.map(str::to_owned).collect())
}

#[test]
fn duplicate_keys_keep_their_records_and_are_counted_in_header_and_descriptor() {
    // 3,000 records; every 100th names `name` twice, record 7 names `id` three times.
    let records: Vec<String> = (0..3000)
        .map(|i| match i {
            7 => r#"{"id": 7, "id": 70, "id": 700, "name": "r7"}"#.to_owned(),
            _ if i % 100 == 0 => format!(r#"{{"id": {i}, "name": "first", "name": "last {i}"}}"#),
            _ => format!(r#"{{"id": {i}, "name": "r{i}"}}"#),
        })
        .collect();
    let array = format!("[{}]", records.join(", "));
    let expected = 30 + 2;
    for profile in ["full", "compact", "pointer"] {
        let dir = tempfile::tempdir().unwrap();
        let lro = offloader_in(&dir, profile);
        let request = OffloadRequest::new("tool");
        let by_json = lro.offload_json(array.as_bytes(), &request).unwrap();
        let by_text = lro.offload_text(&array, &request).unwrap();
        let (descriptor, header, lines) = file_of(&by_json);
        let (text_descriptor, text_header, text_lines) = file_of(&by_text);
        assert_eq!(lines.len(), 3000, "{profile}: every record kept");
        assert_eq!(lines, text_lines, "{profile}: the same file either way");
        assert_eq!(lines[100], r#"{"id":100,"name":"last 100"}"#);
        assert_eq!(lines[7], r#"{"id":700,"name":"r7"}"#);
        assert_eq!(header.duplicate_keys, expected, "{profile}");
        assert_eq!(text_header.duplicate_keys, expected, "{profile}");
        let warning = descriptor["warning"].as_str().expect("a warning");
        assert!(
            warning.starts_with(&format!("{expected} duplicate key")),
            "{warning}"
        );
        assert!(warning.contains("last value"), "{warning}");
        assert_eq!(text_descriptor["warning"], descriptor["warning"]);
        if profile == "full" {
            // Rebuilt from the file, the descriptor says it again.
            let request = lro_core::ExtractRequest {
                describe: Some(true),
                ..Default::default()
            };
            let path = descriptor["file_path"].as_str().unwrap();
            let rebuilt = lro.extract(path, &request).unwrap().results[0].clone();
            assert_eq!(rebuilt["warning"], descriptor["warning"]);
        }
    }
    // The same records under a key, with large text (the object's text path), and small.
    let object = format!(r#"{{"page": 1, "page": 2, "items": {array}}}"#);
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader_in(&dir, "full");
    let (descriptor, header, lines) = file_of(
        &lro.offload_json(object.as_bytes(), &OffloadRequest::new("tool"))
            .unwrap(),
    );
    assert_eq!(lines.len(), 3000);
    assert_eq!(header.duplicate_keys, expected + 1);
    assert_eq!(header.envelope.unwrap()["page"], 2);
    assert!(
        descriptor["warning"]
            .as_str()
            .unwrap()
            .starts_with("33 duplicate")
    );
    // Inline, the result says it too.
    let inline = lro
        .offload_json(br#"{"a": 1, "a": 2}"#, &OffloadRequest::new("tool"))
        .unwrap()
        .to_value();
    assert_eq!(inline["offloaded"], false);
    assert_eq!(inline["results"], json!({"a": 2}));
    assert!(
        inline["warning"]
            .as_str()
            .unwrap()
            .starts_with("1 duplicate key")
    );
    // None: no field, no warning (every existing vector stays as it was).
    let plain = format!("[{}]", records[101..200].join(", "));
    let (descriptor, header, _) = file_of(
        &lro.offload_json(plain.as_bytes(), &OffloadRequest::new("tool"))
            .unwrap(),
    );
    assert_eq!(header.duplicate_keys, 0);
    assert!(descriptor.get("warning").is_none());
}

mod number_properties {
    use super::*;
    use proptest::prelude::*;

    fn json_number() -> impl Strategy<Value = String> {
        (
            any::<bool>(),
            "(0|[1-9][0-9]{0,60})",
            proptest::option::of("[0-9]{1,40}"),
            proptest::option::of(("[eE]", "[+-]?", "[0-9]{1,3}")),
        )
            .prop_map(|(negative, int, frac, exp)| {
                let mut n = String::new();
                if negative {
                    n.push('-');
                }
                n.push_str(&int);
                if let Some(frac) = frac {
                    n.push('.');
                    n.push_str(&frac);
                }
                if let Some((e, sign, digits)) = exp {
                    n.push_str(&e);
                    n.push_str(&sign);
                    n.push_str(&digits);
                }
                n
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn any_number_keeps_its_digits_through_file_and_extraction(numbers in prop::collection::vec(json_number(), 1..12)) {
            let (dir, path, lines) = offload_text(&records_with(&numbers));
            prop_assert_eq!(lines.len(), numbers.len());
            let expected: Vec<String> = numbers.iter().map(|n| canonical(n)).collect();
            for (line, n) in lines.iter().zip(&expected) {
                prop_assert!(line.contains(&format!(r#""n":{n},"#)), "{} keeps {}", line, n);
            }
            prop_assert_eq!(extract_all(&dir, &path, ".n"), expected);
            prop_assert_eq!(extract_all(&dir, &path, "."), lines);
        }
    }
}
