//! Tables in text: CSV or TSV with a header row, and Markdown (GFM) tables, become one object
//! per row, keyed by the header.
//!
//! Detection is strict, since prose with commas is no table: the whole text must be the
//! table; the header has at least two names, each non-empty, unique and short; every row has
//! exactly as many cells as the header (a ragged row means text); CSV and TSV need at least
//! two data rows. Cells are kept as written (Markdown cells without the padding around them,
//! which Markdown ignores); a column becomes numbers only when every one of its cells is a
//! JSON number spelled exactly as JSON writes it (`42`, `-3.5`, not `007`, `1e5` or `3.50`),
//! so nothing changes on the way.

use serde_json::{Map, Number, Value};

/// How a table was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated values (RFC 4180 quoting).
    Csv,
    /// Tab-separated values (no quoting).
    Tsv,
    /// A Markdown (GitHub-flavoured) pipe table.
    Markdown,
}

/// Whether `name` reads as a column name rather than prose: short, a few words at most,
/// and not ending like a sentence. Prose with one comma per line is no table.
fn is_column_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= 64
        && name.matches(' ').count() <= 3
        && !name.ends_with(['.', '!', '?', ';', ','])
}

/// The rows of `text` when it is a table, with the table's format.
pub fn parse(text: &str) -> Option<(TableFormat, Vec<Value>)> {
    let body = text.trim_matches(|c| c == '\n' || c == '\r');
    let first = body.lines().next()?.trim();
    if first.starts_with('|') {
        return markdown(body).map(|rows| (TableFormat::Markdown, rows));
    }
    let (format, delimiter) = if first.contains('\t') {
        (TableFormat::Tsv, b'\t')
    } else if first.contains(',') {
        (TableFormat::Csv, b',')
    } else {
        return None;
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .quoting(format == TableFormat::Csv)
        .from_reader(body.as_bytes());
    let mut rows: Vec<Vec<String>> = Vec::new();
    for record in reader.records() {
        let record = record.ok()?;
        rows.push(record.iter().map(str::to_owned).collect());
    }
    if rows.len() < 3 {
        return None;
    }
    let header: Vec<String> = rows.remove(0).iter().map(|h| h.trim().to_owned()).collect();
    objects(&header, rows).map(|rows| (format, rows))
}

/// A Markdown table: header row, delimiter row (`---`, `:--`, `--:`, `:-:`), body rows.
fn markdown(body: &str) -> Option<Vec<Value>> {
    let mut lines = body.lines().map(str::trim);
    let header = cells(lines.next()?)?;
    let delimiter = cells(lines.next()?)?;
    let is_delimiter = |cell: &String| {
        let dashes = cell.strip_prefix(':').unwrap_or(cell);
        let dashes = dashes.strip_suffix(':').unwrap_or(dashes);
        !dashes.is_empty() && dashes.bytes().all(|b| b == b'-')
    };
    if delimiter.len() != header.len() || !delimiter.iter().all(is_delimiter) {
        return None;
    }
    let rows: Vec<Vec<String>> = lines.map(cells).collect::<Option<_>>()?;
    if rows.is_empty() {
        return None;
    }
    objects(&header, rows)
}

/// The cells of one `| a | b |` row (the outer pipes required), `\|` read as a pipe.
fn cells(line: &str) -> Option<Vec<String>> {
    let inner = line.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').filter(|i| !i.ends_with('\\'))?;
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('|') => cell.push('|'),
                Some(other) => {
                    cell.push('\\');
                    cell.push(other);
                }
                None => cell.push('\\'),
            },
            '|' => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            c => cell.push(c),
        }
    }
    cells.push(cell.trim().to_owned());
    Some(cells)
}

/// Rows as objects keyed by `header`; `None` unless the header and every row fit the rules.
fn objects(header: &[String], rows: Vec<Vec<String>>) -> Option<Vec<Value>> {
    let names_ok = header.len() >= 2
        && header.iter().all(|h| is_column_name(h))
        && header
            .iter()
            .enumerate()
            .all(|(i, h)| !header[..i].contains(h));
    if !names_ok || rows.iter().any(|row| row.len() != header.len()) {
        return None;
    }
    let numeric: Vec<bool> = (0..header.len())
        .map(|column| rows.iter().all(|row| exact_number(&row[column]).is_some()))
        .collect();
    let records = rows
        .into_iter()
        .map(|row| {
            let fields: Map<String, Value> = header
                .iter()
                .zip(row)
                .zip(&numeric)
                .map(|((name, cell), numeric)| {
                    let value = match exact_number(&cell) {
                        Some(n) if *numeric => Value::Number(n),
                        _ => Value::String(cell),
                    };
                    (name.clone(), value)
                })
                .collect();
            Value::Object(fields)
        })
        .collect();
    Some(records)
}

/// The number `cell` spells, when JSON writes that number exactly as `cell` (so reading it
/// as a number loses nothing).
fn exact_number(cell: &str) -> Option<Number> {
    if !cell
        .bytes()
        .next()
        .is_some_and(|b| b == b'-' || b.is_ascii_digit())
    {
        return None;
    }
    match serde_json::from_slice::<Value>(cell.as_bytes()).ok()? {
        Value::Number(n) if n.to_string() == cell => Some(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_csv_with_quotes_and_typed_columns() {
        let text = "id,name,score,code\n1,\"O'Brien, Pat\",2.5,007\n2,\"say \"\"hi\"\"\",3,010\n3,Zoë,-1.25,x\n";
        let (format, rows) = parse(text).unwrap();
        assert_eq!(format, TableFormat::Csv);
        assert_eq!(
            rows,
            vec![
                json!({"id": 1, "name": "O'Brien, Pat", "score": 2.5, "code": "007"}),
                json!({"id": 2, "name": "say \"hi\"", "score": 3, "code": "010"}),
                json!({"id": 3, "name": "Zoë", "score": -1.25, "code": "x"}),
            ]
        );
    }

    #[test]
    fn reads_tsv_and_keeps_inexact_numbers_as_text() {
        let text = "when\tcount\n2026-01-01\t3.50\n2026-01-02\t1e5\n";
        let (format, rows) = parse(text).unwrap();
        assert_eq!(format, TableFormat::Tsv);
        assert_eq!(rows[0], json!({"when": "2026-01-01", "count": "3.50"}));
        assert_eq!(rows[1], json!({"when": "2026-01-02", "count": "1e5"}));
    }

    #[test]
    fn reads_markdown_tables() {
        let text = "| Name | Size | Note |\n|:-----|-----:|:----:|\n| a.ts | 10 | pipe \\| inside |\n| b.ts | 20 |  |\n";
        let (format, rows) = parse(text).unwrap();
        assert_eq!(format, TableFormat::Markdown);
        assert_eq!(
            rows,
            vec![
                json!({"Name": "a.ts", "Size": 10, "Note": "pipe | inside"}),
                json!({"Name": "b.ts", "Size": 20, "Note": ""}),
            ]
        );
    }

    #[test]
    fn text_that_is_not_exactly_a_table_stays_text() {
        for text in [
            "",
            "just one line, with a comma",
            "a,b\n1,2\n",                            // one data row
            "a,b\n1,2\n3\n",                         // ragged
            "a,b\n1,2\n3,4,5\n",                     // ragged
            "a,a\n1,2\n3,4\n",                       // duplicate names
            "a,\n1,2\n3,4\n",                        // empty name
            "single\ncolumn\nonly\n",                // no delimiter
            "a,\"b\n1,2\n3,4\n",                     // unterminated quote
            "| a | b |\n| 1 | 2 |\n",                // no delimiter row
            "| a | b |\n|---|---|\n| 1 | 2 | 3 |\n", // ragged
            "| a | b |\n|---|---|\n",                // no rows
            "| a | b |\n|---|---|\n| 1 | 2 |\ntail", // prose after
            "Hello there, friend.\nNice to see you, truly.\nSee you soon, then.\n",
            "We met again early on Monday, as planned, and then\nwe left rather late on Tuesday, as agreed, and so\nit all went on Friday, as usual, and done\n",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }
}
