//! `search`: a regular expression over the raw record lines, like `grep -n` (the Go peer's
//! `search`, without spawning `rg`). The `regex` crate matches in linear time, so no pattern
//! can make the search hang.

use lro_jq::MAX_FILTER_BYTES;
use lro_regex::RegexBuilder;
use serde_json::{Map, Value};

use crate::budget::Budget;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::LineReader;

/// Most memory a compiled pattern may take.
const REGEX_SIZE_LIMIT: usize = 4 * 1024 * 1024;

/// A search over the raw record lines (the header is not searched).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Search<'a> {
    /// The pattern, in the `regex` crate's syntax (Perl-like, no look-around or
    /// back-references, linear time).
    pub pattern: &'a str,
    /// Match without regard to case.
    pub ignore_case: bool,
    /// Most matching lines to return; more matches cut the result (`max_results (N)`).
    pub max_results: Option<u64>,
}

/// Searches the record lines for `spec.pattern`. Each match is
/// `{"index": RECORD_INDEX, "line": FILE_LINE, "text": LINE}`: `index` counts records from 0
/// (as `lines` does), `line` counts file lines from 1 with the header as line 1 (as
/// `grep -n` does). A pattern that does not compile, or is longer than
/// [`MAX_FILTER_BYTES`], is [`ErrorKind::InvalidArgument`], before any line is read.
///
/// ```
/// use lro_jq::Deadline;
/// use lro_query::budget::{Budget, Limits};
/// use lro_query::reader::LineReader;
/// use lro_query::verbs::search::{Search, search};
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
/// let text = "header\n{\"t\": \"Cache\"}\n{\"t\": \"disk\"}\n";
/// let mut budget = Budget::new(&limits, &deadline);
/// let mut lines = LineReader::new(Box::new(text.as_bytes()), limits.max_read_bytes);
/// let unclosed = Search { pattern: "(cache", ..Search::default() };
/// let refused = search(&mut lines, &mut budget, &unclosed).unwrap_err();
/// assert_eq!(refused.kind(), ErrorKind::InvalidArgument);
/// assert!(refused.message().starts_with("search pattern \"(cache\": "));
///
/// let spec = Search { pattern: "cache", ignore_case: true, max_results: None };
/// search(&mut lines, &mut budget, &spec).unwrap();
/// assert_eq!(
///     budget.finish(&lines).results,
///     [json!({"index": 0, "line": 2, "text": "{\"t\": \"Cache\"}"})]
/// );
/// ```
pub fn search(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    spec: &Search<'_>,
) -> Result<()> {
    let bad = |why: String| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("search pattern {:?}: {why}", spec.pattern),
        )
    };
    if spec.pattern.len() > MAX_FILTER_BYTES {
        return Err(bad(format!("longer than {MAX_FILTER_BYTES} bytes")));
    }
    let regex = RegexBuilder::new(spec.pattern)
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
