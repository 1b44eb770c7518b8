//! `lines`: a range of records, or of characters, of the lines after the header (the Go
//! peer's `read`).

use lro_json::size::escaped_len;
use serde_json::Value;

use crate::budget::Budget;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::LineReader;

/// What a [`Range`] counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unit {
    /// Records (lines after the header), from 0; each result is the record's JSON value.
    #[default]
    Records,
    /// Unicode characters of the body (the lines after the header, each with its newline),
    /// from 0; the single result is the text, never split inside a character.
    Chars,
}

/// The half-open range `[start, end)` of records or characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Range {
    /// First record (or character), counted from 0.
    pub start: u64,
    /// One past the last; `None` reads to the end (output limits still apply).
    pub end: Option<u64>,
    /// Records or characters.
    pub unit: Unit,
}

/// Reads `range` of the body into the budget: [`ErrorKind::InvalidArgument`] when it ends
/// before it starts.
///
/// ```
/// use lro_jq::Deadline;
/// use lro_query::budget::{Budget, Limits};
/// use lro_query::reader::LineReader;
/// use lro_query::verbs::lines::{Range, Unit, read_range};
/// use lro_query::ErrorKind;
/// use serde_json::json;
///
/// let limits = Limits {
///     max_read_bytes: 1 << 20,
///     max_output_records: 100,
///     max_output_bytes: 1 << 16,
///     max_memory_bytes: 1 << 26,
/// };
/// let deadline = Deadline::new(|| 0, 1_000);
/// let text = "header\n{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}\n";
/// let mut budget = Budget::new(&limits, &deadline);
/// let mut lines = LineReader::new(Box::new(text.as_bytes()), limits.max_read_bytes);
/// // A range that ends before it starts is refused before any line is read.
/// let backwards = Range { start: 2, end: Some(1), unit: Unit::Chars };
/// let refused = read_range(&mut lines, &mut budget, &backwards).unwrap_err();
/// assert_eq!(refused.kind(), ErrorKind::InvalidArgument);
/// assert_eq!(refused.message(), "lines: end (1) is before start (2)");
///
/// let range = Range { start: 1, end: Some(2), unit: Unit::Records };
/// read_range(&mut lines, &mut budget, &range).unwrap();
/// assert_eq!(budget.finish(&lines).results, [json!({"id": 2})]);
/// ```
pub fn read_range(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    range: &Range,
) -> Result<()> {
    if range.end.is_some_and(|end| end < range.start) {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!(
                "lines: end ({}) is before start ({})",
                range.end.unwrap_or_default(),
                range.start
            ),
        ));
    }
    lines.header()?;
    match range.unit {
        Unit::Records => records(lines, budget, range.start, range.end),
        Unit::Chars => chars(lines, budget, range.start, range.end),
    }
}

fn records(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    start: u64,
    end: Option<u64>,
) -> Result<()> {
    let mut index = 0u64;
    while budget.in_time() && end.is_none_or(|end| index < end) {
        let Some(line) = lines.next_line()? else {
            break;
        };
        if index >= start {
            // Every line of an offload file is JSON; anything else is returned as text.
            let value = lro_json::parse::from_slice(line)
                .unwrap_or_else(|_| Value::from(String::from_utf8_lossy(line).into_owned()));
            if !budget.push(value) {
                break;
            }
        }
        index += 1;
    }
    Ok(())
}

fn chars(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    start: u64,
    end: Option<u64>,
) -> Result<()> {
    let mut text = String::new();
    // The JSON string's quotes, then each character as escaped.
    let mut size = 2u64;
    let mut position = 0u64;
    let max_bytes = budget.max_output_bytes();
    'read: while budget.in_time() {
        let Some(line) = lines.next_line()? else {
            break;
        };
        let line = String::from_utf8_lossy(line);
        for c in line.chars().chain(['\n']) {
            if end.is_some_and(|end| position >= end) {
                break 'read;
            }
            if position >= start {
                size += escaped_len(c);
                if size > max_bytes {
                    budget.cut(format!("max_output_bytes ({max_bytes})"));
                    break 'read;
                }
                text.push(c);
            }
            position += 1;
        }
    }
    budget.push(Value::from(text));
    Ok(())
}

/// The characters (as [`Unit::Chars`] counts them: each line and its newline) of the records
/// before record `index`.
pub fn chars_before(lines: &mut LineReader<'_>, index: u64) -> Result<u64> {
    lines.header()?;
    let mut position = 0u64;
    for _ in 0..index {
        let Some(line) = lines.next_line()? else {
            break;
        };
        position += String::from_utf8_lossy(line).chars().count() as u64 + 1;
    }
    Ok(position)
}
