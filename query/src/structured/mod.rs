//! Structured queries: MongoDB-style filter documents (`where`), shaped by `fields`,
//! `sort`, `skip` and `limit`, or summarized by one aggregate (`count`, `group_by`,
//! `distinct`, `stats`), run over lines of JSON records.
//!
//! Agents fill structured arguments far more reliably than they write jq, and MongoDB's
//! query document is the filter language every model has seen most. A query is checked
//! whole before any line is read ([`Query::compile`], from the arguments in a [`Spec`]); the
//! scan reads only the top-level fields the query touches ([`Query::run`], on worker
//! threads); [`Query::jq_command`] writes the equivalent jq command and, for a field no
//! record has, [`warnings`] names the closest fields ([`crate::suggest`]). The semantics,
//! and where they part from MongoDB or its emulators, are in LRO's `docs/extraction.md`
//! ("Structured queries").
//!
//! ```
//! use lro_jq::Deadline;
//! use lro_query::budget::{Budget, Limits};
//! use lro_query::reader::LineReader;
//! use lro_query::structured::{Query, Spec};
//! use serde_json::json;
//!
//! let text = "header\n{\"id\": 1, \"tags\": [\"cache\"]}\n{\"id\": 2, \"tags\": []}\n";
//! let filter = json!({"tags": "cache"});
//! let spec = Spec { filter: Some(&filter), count: true, ..Spec::default() };
//! assert!(spec.is_structured() && spec.is_summary());
//! let query = Query::compile(&spec).unwrap();
//!
//! let limits = Limits {
//!     max_read_bytes: 1 << 20,
//!     max_output_records: 100,
//!     max_output_bytes: 1 << 16,
//!     max_memory_bytes: 1 << 26,
//! };
//! let deadline = Deadline::new(|| 0, 1_000);
//! let mut budget = Budget::new(&limits, &deadline);
//! let mut lines = LineReader::new(Box::new(text.as_bytes()), limits.max_read_bytes);
//! assert!(query.run(&mut lines, &mut budget).unwrap().is_empty());
//! assert_eq!(budget.finish(&lines).results, [json!(1)]);
//! assert_eq!(
//!     query.jq_command("tail -n +2 f.jsonl").unwrap().split(" | jq ").next(),
//!     Some("tail -n +2 f.jsonl")
//! );
//! ```

mod compiled;
mod jq_command;
mod scan;
mod spec;

use serde_json::Value;

use crate::budget::Budget;
use crate::error::Result;
use crate::filter::{self, Path};
use crate::reader::LineReader;
use crate::suggest;
pub use compiled::Query;
pub use jq_command::MAX_JQ_COMMAND;
pub use spec::Spec;

impl Query {
    /// The equivalent shell command: `source` (a shell command that prints the records'
    /// lines, such as `tail -n +2 FILE`, quoted by the caller) piped into `jq`; `None` past
    /// [`MAX_JQ_COMMAND`] bytes of program.
    pub fn jq_command(&self, source: &str) -> Option<String> {
        jq_command::command(self, source)
    }

    /// Runs the query over the records of `lines` (after their header line) into `budget`.
    /// Returns the paths the query names that no record has a value at, when every record
    /// was read (empty otherwise).
    pub fn run(&self, lines: &mut LineReader<'_>, budget: &mut Budget<'_>) -> Result<Vec<String>> {
        let mut paths = self.paths();
        // Projected paths are worth a warning too; a path named twice once.
        let projected: Vec<Path> = self
            .projection
            .as_ref()
            .map(|p| {
                p.paths
                    .iter()
                    .filter_map(|t| filter::path(t, "fields").ok())
                    .collect()
            })
            .unwrap_or_default();
        paths.extend(projected.iter());
        let mut unique: Vec<&Path> = Vec::with_capacity(paths.len());
        for p in paths {
            if !unique.iter().any(|u| u.text == p.text) {
                unique.push(p);
            }
        }
        let scanned = scan::scan(lines, budget, self, &unique)?;
        // Only a scan of every record can say that no record has a field.
        if !scanned.complete || lines.cut() || lines.records_read() == 0 {
            return Ok(Vec::new());
        }
        Ok(unique
            .iter()
            .zip(&scanned.seen)
            .filter(|(_, seen)| !**seen)
            .map(|(p, _)| p.text.clone())
            .collect())
    }
}

/// The warnings for `missing` paths (as [`Query::run`] returns them), given the first
/// records of the file: each names the closest field paths those records have.
pub fn warnings(missing: &[String], records: &[Value]) -> Vec<String> {
    let known = suggest::field_paths(records.iter());
    missing
        .iter()
        .map(|m| suggest::warning(m, &known))
        .collect()
}
