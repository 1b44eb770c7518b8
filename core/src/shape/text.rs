//! What a string holds: JSON, a Python literal, a table, or text.
//!
//! Tools return data as text more often than as structured content: JSON text (often with a
//! JSON string inside, when a server encoded twice), `repr()` of Python lists, CSV, Markdown
//! tables. [`read_text`] tries each reading in turn, the strictest first, and falls back to
//! lines of text; a reading that is not exact is never taken.

use serde_json::{Map, Value};

use super::{Format, literal, table};

pub(crate) use lro_json::nested::{MAX_UNWRAP, skip_bom};

/// What a string was read as.
#[derive(Debug, Clone, PartialEq)]
pub enum TextRead {
    /// A JSON array or object (from JSON text or a Python literal), and how it was read.
    Value(Value, Format),
    /// The rows of a table, one object per row.
    Table(Vec<Value>, Format),
    /// Text: one `{"line": N, "text": "..."}` record per line.
    Lines(Vec<Value>),
}

/// Reads `text` as the first of: a JSON array or object (also when the JSON is a string that
/// holds one), JSON lines, a Python container literal, a CSV/TSV/Markdown table, lines of
/// text.
pub fn read_text(text: &str) -> TextRead {
    let text = skip_bom(text);
    let mut current = text;
    let mut unwrapped: String;
    for _ in 0..=MAX_UNWRAP {
        let trimmed = current.trim();
        if !trimmed.starts_with(['[', '{', '"']) {
            break;
        }
        match crate::json::parse::from_str(trimmed) {
            Ok(value @ (Value::Array(_) | Value::Object(_))) => {
                return TextRead::Value(value, Format::Json);
            }
            Ok(Value::String(inner)) => {
                unwrapped = inner;
                current = &unwrapped;
            }
            // Lone surrogates: an array's element with one becomes text alone; elsewhere
            // each is kept as the text of its escape.
            Err(_) => match super::odd::value_with_lone_surrogates(trimmed) {
                Some(value) => return TextRead::Value(value, Format::Json),
                None => break,
            },
            _ => break,
        }
    }
    if let Some(values) = json_lines(current) {
        return TextRead::Value(Value::Array(values), Format::Json);
    }
    if let Some(value) = literal::parse(current) {
        return TextRead::Value(value, Format::PythonLiteral);
    }
    if let Some((rows, format)) = read_table(current) {
        return TextRead::Table(rows, format);
    }
    TextRead::Lines(text_records(current))
}

/// The values of `text` when it is JSON lines (NDJSON, what `jq -c` and log tools write): at
/// least two JSON objects or arrays, each starting a line of its own (at its first column),
/// and nothing else but white space. A line that is anything else (a scalar, a broken
/// value) makes it text.
pub(crate) fn json_lines(text: &str) -> Option<Vec<Value>> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with(['[', '{']) {
        return None;
    }
    // Checked before parsing: a later value opens a line of its own. A JSON text that failed
    // to parse (truncated, say; pretty-printed or on one line) has no such line, and is not
    // parsed a second time, which on a large text would also build its tree.
    if !trimmed
        .split('\n')
        .skip(1)
        .any(|line| line.starts_with(['[', '{']))
    {
        return None;
    }
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_slice(trimmed.as_bytes()).into_iter::<Value>();
    let mut end = 0;
    while let Some(value) = stream.next() {
        let mut value = value.ok()?;
        let segment = &trimmed[end..stream.byte_offset()];
        if crate::json::parse::respelled(segment.as_bytes()) {
            // Numbers as written (`1E5`), not as serde_json's reader spells them.
            crate::json::parse::restore(segment.trim_start().as_bytes(), &mut value);
        }
        let gap = &segment[..segment.len() - segment.trim_start().len()];
        // Values side by side on one line (`{}{}`, `[1] [2]`) are not JSON lines.
        let own_line = values.is_empty() || gap.contains('\n');
        if !own_line || !(value.is_array() || value.is_object()) {
            return None;
        }
        values.push(value);
        end = stream.byte_offset();
    }
    (values.len() >= 2).then_some(values)
}

/// The rows of `text` when it is a table (see [`table::parse`]), and its format.
pub(crate) fn read_table(text: &str) -> Option<(Vec<Value>, Format)> {
    let (format, rows) = table::parse(text)?;
    let format = match format {
        table::TableFormat::Csv => Format::Csv,
        table::TableFormat::Tsv => Format::Tsv,
        table::TableFormat::Markdown => Format::MarkdownTable,
    };
    Some((rows, format))
}

/// Splits plain text into `{"line": N, "text": ...}` records. A final newline does not
/// start an empty record; every other character is kept.
pub fn text_records(text: &str) -> Vec<Value> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let mut m = Map::with_capacity(2);
            m.insert("line".to_owned(), Value::from(i + 1));
            m.insert("text".to_owned(), Value::from(line));
            Value::Object(m)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_reading_in_turn() {
        assert_eq!(
            read_text(" [1, 2]\n"),
            TextRead::Value(json!([1, 2]), Format::Json)
        );
        let twice =
            serde_json::to_string(&serde_json::to_string(&json!({"a": [1]})).unwrap()).unwrap();
        assert_eq!(
            read_text(&twice),
            TextRead::Value(json!({"a": [1]}), Format::Json)
        );
        assert_eq!(
            read_text("[{'a': None}]"),
            TextRead::Value(json!([{"a": null}]), Format::PythonLiteral)
        );
        assert_eq!(
            read_text("a,b\n1,x\n2,y\n"),
            TextRead::Table(
                vec![json!({"a": 1, "b": "x"}), json!({"a": 2, "b": "y"})],
                Format::Csv
            )
        );
        assert_eq!(
            read_text("42"),
            TextRead::Lines(vec![json!({"line": 1, "text": "42"})])
        );
        assert_eq!(
            read_text("[1, 2"),
            TextRead::Lines(vec![json!({"line": 1, "text": "[1, 2"})])
        );
        // A JSON string holding plain text is read as that text.
        assert_eq!(
            read_text("\"one\\ntwo\""),
            TextRead::Lines(vec![
                json!({"line": 1, "text": "one"}),
                json!({"line": 2, "text": "two"})
            ])
        );
    }
}
