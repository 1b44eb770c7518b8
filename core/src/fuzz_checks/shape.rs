//! The readers of text shapes, against their own inverse: a value read from a Python
//! literal, or rows read from a table, written back the way Python or a table writer would,
//! read the same again.

use serde_json::{Number, Value};

use crate::shape::table::{self, TableFormat};
use crate::shape::{TextRead, literal, read_text};

/// A value [`literal::parse`] reads is a list or dict that JSON can carry (serde_json reads
/// its text back), and its `repr()` reads back as the same value.
pub fn check_shape_literal(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(value) = literal::parse(text) else {
        return;
    };
    assert!(value.is_array() || value.is_object(), "top level {value:?}");
    let json = serde_json::to_string(&value).expect("serde_json writes every Value");
    let again: Value = serde_json::from_str(&json).expect("a literal read is valid JSON");
    assert_eq!(again, value, "through JSON");
    let mut repr = String::new();
    write_repr(&mut repr, &value);
    assert_eq!(literal::parse(&repr), Some(value), "repr: {repr}");
}

/// `value` as Python's `repr()` writes the list, dict, str, int, float, bool or None it
/// stands for.
fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(out, key);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
    }
}

/// `repr(float)`: the shortest digits that read back, positional from 1e-4 to 1e16,
/// scientific (`1e+16`, `1.5e-05`) outside.
fn write_number(out: &mut String, n: &Number) {
    let Some(f) = n.as_f64().filter(|_| n.is_f64()) else {
        out.push_str(&n.to_string());
        return;
    };
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    if (-4..16).contains(&exponent) {
        let fixed = format!("{f}");
        out.push_str(&fixed);
        if !fixed.contains('.') {
            out.push_str(".0");
        }
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        out.push_str(&format!("{mantissa}e{sign}{:02}", exponent.abs()));
    }
}

/// `repr(str)`: single quotes, backslash escapes for quotes, backslashes and control
/// characters.
fn write_str(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// Rows [`table::parse`] reads all have the header's columns, in order, with strings or
/// numbers; written back in their format they read the same.
pub fn check_shape_table(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((format, rows)) = table::parse(text) else {
        return;
    };
    let header: Vec<String> = match rows.first() {
        Some(Value::Object(first)) => first.keys().cloned().collect(),
        other => panic!("first row {other:?}"),
    };
    assert!(header.len() >= 2, "header {header:?}");
    let mut cells: Vec<Vec<String>> = Vec::new();
    for row in &rows {
        let Value::Object(row) = row else {
            panic!("row {row:?}");
        };
        assert!(row.keys().eq(header.iter()), "columns {row:?}");
        cells.push(
            row.values()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    other => panic!("cell {other:?}"),
                })
                .collect(),
        );
    }
    let written = write_table(format, &header, &cells);
    assert_eq!(
        table::parse(&written),
        Some((format, rows)),
        "written back: {written:?}"
    );
}

fn write_table(format: TableFormat, header: &[String], rows: &[Vec<String>]) -> String {
    match format {
        TableFormat::Markdown => {
            let line = |cells: &[String]| {
                let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
                format!("| {} |\n", cells.join(" | "))
            };
            let mut out = line(header);
            out.push_str(&format!("|{}\n", " --- |".repeat(header.len())));
            rows.iter().for_each(|row| out.push_str(&line(row)));
            out
        }
        TableFormat::Csv | TableFormat::Tsv => {
            let tsv = format == TableFormat::Tsv;
            let mut writer = csv::WriterBuilder::new()
                .delimiter(if tsv { b'\t' } else { b',' })
                .quote_style(if tsv {
                    csv::QuoteStyle::Never
                } else {
                    csv::QuoteStyle::Necessary
                })
                .from_writer(Vec::new());
            for record in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
                writer.write_record(record).expect("writing to memory");
            }
            let bytes = writer.into_inner().expect("writing to memory");
            String::from_utf8(bytes).expect("cells are UTF-8")
        }
    }
}

/// [`read_text`] never panics, and what it reads as lines of text is the text it was
/// given (or a JSON string's contents), numbered from 1, nothing dropped.
pub fn check_shape_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match read_text(text) {
        TextRead::Value(value, _) => assert!(value.is_array() || value.is_object()),
        TextRead::Table(rows, _) => assert!(!rows.is_empty()),
        TextRead::Lines(records) => {
            let mut lines = Vec::new();
            for (i, record) in records.iter().enumerate() {
                assert_eq!(record["line"], i + 1, "numbering");
                lines.push(record["text"].as_str().expect("text is a string"));
            }
            let joined = lines.join("\n");
            let unwrapped = text.trim().starts_with('"');
            assert!(
                unwrapped || joined == text.strip_suffix('\n').unwrap_or(text),
                "lines {joined:?} of {text:?}"
            );
        }
    }
}
