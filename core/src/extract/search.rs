//! `search`: a regular expression over the raw record lines, like `grep -n` (the Go peer's
//! `search`, without spawning `rg`). The `regex` crate matches in linear time, so no pattern
//! can make the search hang.

use regex::bytes::RegexBuilder;
use serde_json::{Map, Value};

use lro_jq::MAX_FILTER_BYTES;
use lro_query::budget::Budget;
use lro_query::reader::LineReader;

use super::request::SearchSpec;
use crate::error::{ErrorCode, LroError, Result};

/// Most memory a compiled pattern may take.
const REGEX_SIZE_LIMIT: usize = 4 * 1024 * 1024;

/// Searches the record lines for `spec.pattern`. Each match is
/// `{"index": RECORD_INDEX, "line": FILE_LINE, "text": LINE}`: `index` counts records from 0
/// (as `lines` does), `line` counts file lines from 1 with the header as line 1 (as
/// `grep -n` does).
pub(crate) fn search(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    spec: &SearchSpec,
) -> Result<()> {
    let bad = |why: String| {
        LroError::new(
            ErrorCode::InvalidArgument,
            format!("search pattern {:?}: {why}", spec.pattern),
        )
    };
    if spec.pattern.len() > MAX_FILTER_BYTES {
        return Err(bad(format!("longer than {MAX_FILTER_BYTES} bytes")));
    }
    let regex = RegexBuilder::new(&spec.pattern)
        .case_insensitive(spec.ignore_case)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| bad(e.to_string()))?;
    lines.header()?;
    let mut found = 0u64;
    while budget.in_time() {
        let number = lines.line_number() + 1;
        let Some(line) = lines.next_line()? else {
            break;
        };
        if !regex.is_match(line) {
            continue;
        }
        if spec.max_results.is_some_and(|max| found >= max) {
            budget.cut(format!(
                "max_results ({})",
                spec.max_results.unwrap_or_default()
            ));
            break;
        }
        found += 1;
        let mut hit = Map::with_capacity(3);
        hit.insert("index".to_owned(), Value::from(number.saturating_sub(2)));
        hit.insert("line".to_owned(), Value::from(number));
        hit.insert(
            "text".to_owned(),
            Value::from(String::from_utf8_lossy(line).into_owned()),
        );
        if !budget.push(Value::Object(hit)) {
            break;
        }
    }
    Ok(())
}
