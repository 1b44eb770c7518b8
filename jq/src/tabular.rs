//! jq's `@csv` and `@tsv` (and jaq's `tocsv`, `totsv`, `fromcsv`, `fromtsv`) for wasm builds.
//!
//! Natively the engine takes every format filter of `jaq_fmts::funs`. On wasm the YAML, XML,
//! TOML and CBOR filters (jaq extensions that jq does not have, and that no recipe uses) are
//! left out to keep the artifacts within their size budgets, and `jaq_fmts::funs` only exists
//! with all of them; so the tabular filters are defined here, exactly as jaq-fmts 0.1 defines
//! them (same rows, same escapes, same error texts), over its public tabular reader. The
//! writer is jaq-fmts' too, rewritten here: its `tabular` feature escapes TSV fields with an
//! aho-corasick automaton (about 60 KB of the module) where a loop over the bytes does.

use jaq_core::box_iter::then;
use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_core::{Exn, RunPtr};
use jaq_fmts::read::tabular::{read_csv, read_tsv};
use jaq_json::{Error, Val, bytes_valrs};

use crate::data::Data;

/// jaq-fmts' `ser!`: converts the input to a row, then writes it as text.
macro_rules! ser {
    ($cv:ident, $fmt:expr, $escape:expr, $delim:expr) => {{
        let fail = |e| Error::str(format_args!("cannot serialise {} as {}: {e}", $cv.1, $fmt));
        bome(
            row(&$cv.1)
                .map_err(fail)
                .map(|fields| Val::utf8_str(write_row(fields, $delim, $escape))),
        )
    }};
}

/// Why a value is not a row, worded as jaq-fmts' `write::tabular::Error`.
enum NotARow<'a> {
    Row(&'a Val),
    Field(&'a Val),
}

impl std::fmt::Display for NotARow<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let field = "null, bool, number, or string";
        match self {
            Self::Field(v) => write!(f, "expected table field ({field}), found {v}"),
            Self::Row(v) => write!(f, "expected table row (array), found {v}"),
        }
    }
}

/// The fields of a row: an array of nulls, booleans, numbers and text strings.
fn row(v: &Val) -> Result<&[Val], NotARow<'_>> {
    let Val::Arr(fields) = v else {
        return Err(NotARow::Row(v));
    };
    match fields
        .iter()
        .find(|v| !matches!(v, Val::Null | Val::Bool(_) | Val::Num(_) | Val::TStr(_)))
    {
        Some(field) => Err(NotARow::Field(field)),
        None => Ok(fields),
    }
}

/// A row as jaq-fmts writes it: fields between delimiters, null as nothing, strings through
/// `escape`, booleans and numbers as jq prints them.
fn write_row(fields: &[Val], delim: u8, escape: fn(&[u8], &mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(delim);
        }
        match field {
            Val::Null => {}
            Val::TStr(s) => escape(s, &mut out),
            other => out.extend_from_slice(other.to_string().as_bytes()),
        }
    }
    out
}

/// A CSV field: quoted, its quotes doubled.
fn csv_field(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &b in s {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// A TSV field: newline, carriage return, tab, backslash and NUL escaped with a backslash.
fn tsv_field(s: &[u8], out: &mut Vec<u8>) {
    for &b in s {
        let escaped: &[u8] = match b {
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            b'\\' => b"\\\\",
            0 => b"\\0",
            _ => {
                out.push(b);
                continue;
            }
        };
        out.extend_from_slice(escaped);
    }
}

/// The six tabular filters, as natives of the engine.
#[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
pub(crate) fn funs() -> impl Iterator<Item = Fun<Data>> {
    let filters: [Filter<RunPtr<Data>>; 6] = [
        ("fromcsv", v(0), |cv| {
            let rows = then(cv.1.try_as_bytes_owned(), |s| {
                bytes_valrs(s, |s| Box::new(read_csv(s.iter().copied().map(Ok))))
            });
            Box::new(rows.map(|r| r.map_err(Exn::from)))
        }),
        ("fromtsv", v(0), |cv| {
            let rows = then(cv.1.try_as_bytes_owned(), |s| {
                bytes_valrs(s, |s| Box::new(read_tsv(s.iter().copied().map(Ok))))
            });
            Box::new(rows.map(|r| r.map_err(Exn::from)))
        }),
        ("tocsv", v(0), |cv| ser!(cv, "CSV", csv_field, b',')),
        ("totsv", v(0), |cv| ser!(cv, "TSV", tsv_field, b'\t')),
        ("@csv", v(0), |cv| ser!(cv, "CSV", csv_field, b',')),
        ("@tsv", v(0), |cv| ser!(cv, "TSV", tsv_field, b'\t')),
    ];
    filters.into_iter().map(run::<Data>)
}

#[cfg(test)]
mod tests {
    use jaq_fmts::write::tabular::Row;
    use jaq_json::Val;

    use super::{csv_field, row, tsv_field, write_row};

    fn val(json: &str) -> Val {
        crate::convert::parse_val(json.as_bytes()).unwrap()
    }

    /// The writer here and jaq-fmts' (the native engine's) give the same text and errors.
    #[test]
    fn rows_are_written_as_jaq_fmts_writes_them() {
        let rows = [
            r#"[1, "a,b", null, true, false, -2.5e300, "say \"hi\"", "", "tab\there"]"#,
            r#"["line\nbreak\r\u0000nul", "back\\slash", 12345678901234567890123, 0.1]"#,
            r#"[]"#,
            r#"["é😀", "\"\"", "\\t"]"#,
            r#"{"a": 1}"#,
            r#""text""#,
            r#"[1, [2]]"#,
            r#"[{"a": 1}, [2]]"#,
        ];
        for json in rows {
            let v = val(json);
            let theirs = Row::try_from(&v).map_err(|e| e.to_string());
            let ours = row(&v).map_err(|e| e.to_string());
            match (theirs, ours) {
                (Ok(r), Ok(fields)) => {
                    let (mut csv, mut tsv) = (Vec::new(), Vec::new());
                    r.write_csv(&mut csv).unwrap();
                    r.write_tsv(&mut tsv).unwrap();
                    assert_eq!(write_row(fields, b',', csv_field), csv, "{json}");
                    assert_eq!(write_row(fields, b'\t', tsv_field), tsv, "{json}");
                }
                (theirs, ours) => assert_eq!(ours.err(), theirs.err(), "{json}"),
            }
        }
    }
}
