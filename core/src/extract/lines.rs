//! `lines`: a range of records, or of characters, of the file body (the Go peer's `read`).

use serde_json::Value;

use lro_json::size::escaped_len;
use lro_query::budget::Budget;
use lro_query::reader::LineReader;

use super::request::{LineRange, LineUnit};
use crate::error::{ErrorCode, LroError, Result};

/// Reads `range` of the body into the budget.
pub(crate) fn read_range(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    range: &LineRange,
) -> Result<()> {
    if range.end.is_some_and(|end| end < range.start) {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            format!(
                "lines: end ({}) is before start ({})",
                range.end.unwrap_or_default(),
                range.start
            ),
        ));
    }
    lines.header()?;
    match range.unit {
        LineUnit::Records => records(lines, budget, range.start, range.end),
        LineUnit::Chars => chars(lines, budget, range.start, range.end),
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
            let value = crate::json::parse::from_slice(line)
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

/// The characters (as [`chars`] counts them: each line and its newline) of the records
/// before record `index`.
pub(crate) fn chars_before(lines: &mut LineReader<'_>, index: u64) -> Result<u64> {
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
