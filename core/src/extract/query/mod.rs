//! Structured queries: MongoDB-style filter documents (`where`), shaped by `fields`,
//! `sort`, `skip` and `limit`, or summarized by one aggregate (`count`, `group_by`,
//! `distinct`, `stats`).
//!
//! Agents fill structured arguments far more reliably than they write jq, and MongoDB's
//! query document is the filter language every model has seen most. A query is checked
//! whole before the file is read ([`Query::compile`]); the scan reads only the top-level
//! fields the query touches ([`scan`]); the response carries the equivalent jq command
//! ([`jq`]) and, for a field no record has, a warning with the closest names ([`suggest`]).
//! The semantics, and where they part from MongoDB or its emulators, are in
//! `docs/extraction.md` ("Structured queries").

mod compiled;
mod jq;
mod scan;

use lro_query::budget::Budget;
use lro_query::filter::{self, Path};
use lro_query::reader::LineReader;
use lro_query::suggest;
use serde_json::Value;

use super::request::ExtractRequest;
use crate::error::Result;
pub(crate) use compiled::Query;
pub(crate) use jq::MAX_JQ_COMMAND;

impl ExtractRequest {
    /// The request is a structured query: it has `where` or a field that shapes or
    /// summarizes one.
    pub(crate) fn is_structured(&self) -> bool {
        self.filter.is_some()
            || self.fields.is_some()
            || self.sort.is_some()
            || self.skip.is_some()
            || self.limit.is_some()
            || self.count == Some(true)
            || self.group_by.is_some()
            || self.distinct.is_some()
            || self.stats.is_some()
    }

    /// The structured query summarizes the records (`count`, `group_by`, `distinct`,
    /// `stats`) rather than returning them.
    pub fn is_summary(&self) -> bool {
        self.count == Some(true)
            || self.group_by.is_some()
            || self.distinct.is_some()
            || self.stats.is_some()
    }
}

impl Query {
    /// The equivalent shell command over `file` (over its lines `first..=last` only, for
    /// a section); `None` past [`jq::MAX_JQ_COMMAND`] bytes.
    pub(crate) fn jq_command(&self, file: &str, window: Option<(u64, u64)>) -> Option<String> {
        jq::command(self, file, window)
    }
}

/// Runs `query` over `lines` into `budget`. Returns the paths no record has a value at,
/// when every record was read (empty otherwise).
pub(crate) fn run(
    lines: &mut LineReader<'_>,
    budget: &mut Budget<'_>,
    query: &Query,
) -> Result<Vec<String>> {
    let mut paths = query.paths();
    // Projected paths are worth a warning too; a path named twice once.
    let projected: Vec<Path> = query
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
    let scanned = scan::scan(lines, budget, query, &unique)?;
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

/// The warnings for `missing` paths, given the first records of the file.
pub(crate) fn warnings(missing: &[String], records: &[Value]) -> Vec<String> {
    let known = suggest::field_paths(records.iter());
    missing
        .iter()
        .map(|m| suggest::warning(m, &known))
        .collect()
}
