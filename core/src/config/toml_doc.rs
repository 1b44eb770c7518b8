//! A TOML document read with `toml`'s own parse tree ([`DeTable`]), not through serde: the
//! configuration reads a few keys and shows a bad value, so a typed tree (serde's visitors,
//! `toml::Value`) and a serializer to show it again were code the wasm module carried for
//! nothing. The parse tree keeps each value's place in the text, so a bad value is shown as
//! the user wrote it (`1e3`, `'x'`, `0x10`), not as a serializer would write it.
//!
//! The parse tree leaves numbers as text; [`parse`] checks every one (a TOML integer is
//! 64-bit, a float finite unless written `inf` or `nan`) so that a number out of range
//! anywhere in the document is an error, as the TOML specification asks.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeFloat, DeInteger, DeTable, DeValue};

use crate::error::{ErrorCode, LroError, Result};

/// A parsed TOML document, borrowing its text.
pub(crate) type Doc<'a> = Spanned<DeTable<'a>>;

/// Parses `text`, checking its numbers; any error is `invalid_config` `invalid TOML: ...`.
pub(crate) fn parse(text: &str) -> Result<Doc<'_>> {
    let doc = DeTable::parse(text)
        .map_err(|e| LroError::new(ErrorCode::InvalidConfig, format!("invalid TOML: {e}")))?;
    check_numbers(doc.get_ref(), text)?;
    Ok(doc)
}

/// A TOML value with the text it was parsed from, to show it as written.
#[derive(Clone, Copy)]
pub(crate) struct TomlValue<'a> {
    value: &'a Spanned<DeValue<'a>>,
    source: &'a str,
}

impl<'a> TomlValue<'a> {
    pub(crate) fn new(value: &'a Spanned<DeValue<'a>>, source: &'a str) -> Self {
        Self { value, source }
    }

    pub(crate) fn get(&self) -> &'a DeValue<'a> {
        self.value.get_ref()
    }

    /// The value of a table's key.
    pub(crate) fn key(&self, name: &str) -> Option<Self> {
        let value = self.get().as_table()?.get(name)?;
        Some(Self::new(value, self.source))
    }

    /// A table's entries, in the order the document gives them (as a JSON configuration's
    /// keys are read); `None` for any other value.
    pub(crate) fn entries(&self) -> Option<impl Iterator<Item = (&'a str, Self)> + use<'a>> {
        let source = self.source;
        let table = self.get().as_table()?;
        Some(
            table
                .iter()
                .map(move |(key, value)| (key.get_ref().as_ref(), Self::new(value, source))),
        )
    }

    /// The value as the user wrote it. An array or a table is shown item by item on one
    /// line (`[1, "a"]`, `{ a = 1 }`): its text may span lines and hold comments, and a
    /// table from a `[header]` has no text of its own.
    pub(crate) fn shown(&self) -> String {
        match self.get() {
            DeValue::Array(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|item| Self::new(item, self.source).shown())
                    .collect();
                format!("[{}]", items.join(", "))
            }
            DeValue::Table(table) if table.is_empty() => "{}".to_owned(),
            DeValue::Table(table) => {
                let entries: Vec<String> = table
                    .iter()
                    .map(|(key, value)| {
                        let shown = Self::new(value, self.source).shown();
                        format!("{} = {shown}", key_shown(key.get_ref()))
                    })
                    .collect();
                format!("{{ {} }}", entries.join(", "))
            }
            scalar => match self.source.get(self.value.span()) {
                Some(text) if !text.is_empty() && !text.contains('\n') => text.to_owned(),
                // A multi-line string, on one line.
                _ => match scalar {
                    DeValue::String(s) => format!("{s:?}"),
                    DeValue::Integer(i) => i.to_string(),
                    DeValue::Float(f) => f.as_str().to_owned(),
                    DeValue::Boolean(b) => b.to_string(),
                    DeValue::Datetime(d) => d.to_string(),
                    DeValue::Array(_) | DeValue::Table(_) => unreachable!("matched above"),
                },
            },
        }
    }
}

/// A key bare when TOML allows it, quoted otherwise.
fn key_shown(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        key.to_owned()
    } else {
        format!("{key:?}")
    }
}

/// The integer's value; `None` beyond 64 bits (which [`parse`] refuses).
pub(crate) fn integer(value: &DeInteger<'_>) -> Option<i64> {
    i64::from_str_radix(value.as_str(), value.radix()).ok()
}

/// The float's value; `None` when it overflows (`1e400`, which [`parse`] refuses): only
/// `inf` is infinite.
pub(crate) fn float(value: &DeFloat<'_>) -> Option<f64> {
    let text = value.as_str();
    let parsed: f64 = text.parse().ok()?;
    (!parsed.is_infinite() || text.contains("inf")).then_some(parsed)
}

/// Refuses the first number out of range, where it is in the text. The parser bounds the
/// nesting (of arrays, inline tables and dotted keys), so the walk's depth is bounded too.
fn check_numbers(table: &DeTable<'_>, text: &str) -> Result<()> {
    table
        .values()
        .try_for_each(|value| check_number(value, text))
}

fn check_number(value: &Spanned<DeValue<'_>>, text: &str) -> Result<()> {
    match value.get_ref() {
        DeValue::Integer(i) if integer(i).is_none() => Err(out_of_range(
            text,
            value.span(),
            "integer out of range: a TOML integer is from -9223372036854775808 to 9223372036854775807",
        )),
        DeValue::Float(f) if float(f).is_none() => Err(out_of_range(
            text,
            value.span(),
            "float out of range: beyond the largest 64-bit float (write inf for infinity)",
        )),
        DeValue::Array(items) => items.iter().try_for_each(|item| check_number(item, text)),
        DeValue::Table(table) => check_numbers(table, text),
        _ => Ok(()),
    }
}

/// An error pointing into the text as the parser's own errors do:
/// `TOML parse error at line 2, column 20`, the line, a caret under the value, the message.
fn out_of_range(text: &str, span: Range<usize>, message: &str) -> LroError {
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..line_start].matches('\n').count() + 1;
    let content = text[line_start..].split('\n').next().unwrap_or_default();
    let column = text[line_start..start].chars().count();
    let width = text
        .get(span)
        .map_or(1, |value| value.chars().count())
        .min(content.chars().count().saturating_sub(column))
        .max(1);
    let gutter = " ".repeat(line.to_string().len() + 1);
    LroError::new(
        ErrorCode::InvalidConfig,
        format!(
            "invalid TOML: TOML parse error at line {line}, column {}\n{gutter}|\n{line} | \
             {content}\n{gutter}|{}{}\n{message}\n",
            column + 1,
            " ".repeat(column + 1),
            "^".repeat(width),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> String {
        let doc = parse(text).unwrap();
        let (_, value) = doc.get_ref().iter().next().unwrap();
        TomlValue::new(value, text).shown()
    }

    #[test]
    fn values_are_shown_as_written() {
        for (text, shown) in [
            ("a = 1e3", "1e3"),
            ("a = 0x1_F", "0x1_F"),
            ("a = +nan", "+nan"),
            ("a = 'lit'", "'lit'"),
            ("a = \"esc\\t\\u00e9\"", "\"esc\\t\\u00e9\""),
            ("a = 1979-05-27T07:32:00Z", "1979-05-27T07:32:00Z"),
            ("a = \"\"\"two\nlines\"\"\"", "\"two\\nlines\""),
            ("a = [ 1,\n  'x', # note\n]", "[1, 'x']"),
            (
                "a = {b = true, c.d = 2, \"e f\" = []}",
                "{ b = true, c = { d = 2 }, \"e f\" = [] }",
            ),
            ("[a]\nb = 1\n[a.c]", "{ b = 1, c = {} }"),
            ("[[a]]\nb = 1\n[[a]]", "[{ b = 1 }, {}]"),
        ] {
            assert_eq!(first(text), shown, "{text}");
        }
    }

    #[test]
    fn numbers_out_of_range_anywhere_are_errors_that_point_at_them() {
        for (text, says) in [
            ("x = 9223372036854775808", "integer out of range"),
            ("x = -9223372036854775809", "integer out of range"),
            ("x = 0xffffffffffffffff", "integer out of range"),
            ("[t]\nx = [{y = 1e400}]", "float out of range"),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig);
            let message = err.message();
            assert!(
                message.starts_with("invalid TOML: TOML parse error at line "),
                "{message}"
            );
            assert!(message.contains(says), "{message}");
        }
        let err = parse("a = 1\nbig = 99999999999999999999 # far\n").unwrap_err();
        assert_eq!(
            err.message(),
            "invalid TOML: TOML parse error at line 2, column 7\n  |\n2 | big = \
             99999999999999999999 # far\n  |       ^^^^^^^^^^^^^^^^^^^^\ninteger out of range: \
             a TOML integer is from -9223372036854775808 to 9223372036854775807\n"
        );
        for text in [
            "x = 9223372036854775807",
            "x = -9223372036854775808",
            "x = 0x7fffffffffffffff",
            "x = [inf, -inf, nan, 1e-400, 1.7976931348623157e308]",
        ] {
            assert!(parse(text).is_ok(), "{text}");
        }
    }
}
