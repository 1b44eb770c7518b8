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

mod aggregate;
mod decimal;
mod filter;
mod jq;
mod matcher;
mod order;
mod scan;
mod shape;
mod suggest;

use serde_json::Value;

use super::budget::Budget;
use super::reader::LineReader;
use super::request::ExtractRequest;
use crate::error::{ErrorCode, LroError, Result};
pub(crate) use aggregate::Aggregate;
pub(crate) use filter::{Filter, Path};
pub(crate) use jq::MAX_JQ_COMMAND;
pub(crate) use shape::{Projection, SortKey};

/// A checked structured query.
#[derive(Debug)]
pub(crate) struct Query {
    pub(crate) filter: Filter,
    pub(crate) projection: Option<Projection>,
    pub(crate) sort: Vec<SortKey>,
    pub(crate) skip: u64,
    /// `None`: no limit (`limit: 0` too, as in MongoDB).
    pub(crate) limit: Option<u64>,
    pub(crate) aggregate: Option<Aggregate>,
}

fn bad(message: impl Into<String>) -> LroError {
    LroError::new(ErrorCode::InvalidArgument, message)
}

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
    pub(crate) fn is_summary(&self) -> bool {
        self.count == Some(true)
            || self.group_by.is_some()
            || self.distinct.is_some()
            || self.stats.is_some()
    }
}

impl Query {
    /// Checks the structured part of `request`: `invalid_query` for the filter document,
    /// `invalid_argument` for the rest.
    pub(crate) fn compile(request: &ExtractRequest) -> Result<Self> {
        let filter = match &request.filter {
            None => Filter::Always,
            // Some clients send an object argument as its JSON text.
            Some(Value::String(text)) => {
                let doc: Value = serde_json::from_str(text).map_err(|e| {
                    LroError::new(
                        ErrorCode::InvalidQuery,
                        format!("where: not a JSON filter document: {e}"),
                    )
                })?;
                filter::parse(&doc)?
            }
            Some(doc) => filter::parse(doc)?,
        };
        let field = |name: &str, value: &str| {
            filter::path(value, name).map_err(|e| bad(e.message().to_owned()))
        };
        let mut aggregates = Vec::new();
        if request.count == Some(true) {
            aggregates.push(Aggregate::Count);
        }
        if let Some(p) = &request.group_by {
            aggregates.push(Aggregate::GroupBy(field("group_by", p)?));
        }
        if let Some(p) = &request.distinct {
            aggregates.push(Aggregate::Distinct(field("distinct", p)?));
        }
        if let Some(p) = &request.stats {
            aggregates.push(Aggregate::Stats(field("stats", p)?));
        }
        if aggregates.len() > 1 {
            return Err(bad("give at most one of count, group_by, distinct, stats"));
        }
        let aggregate = aggregates.pop();
        let projection = request.fields.as_ref().map(Projection::parse).transpose()?;
        if projection.is_some() && aggregate.is_some() {
            return Err(bad(
                "fields shapes the records a query returns; count, group_by, distinct and stats \
                 return a summary instead: give one or the other",
            ));
        }
        let sort = request
            .sort
            .as_ref()
            .map(shape::parse_sort)
            .transpose()?
            .unwrap_or_default();
        Ok(Self {
            filter,
            projection,
            sort,
            skip: request.skip.unwrap_or(0),
            limit: request.limit.filter(|&l| l > 0),
            aggregate,
        })
    }

    /// The top-level fields the query reads.
    fn roots(&self) -> Vec<&str> {
        let mut roots: Vec<&str> = self.paths().iter().map(|p| p.root()).collect();
        if let Some(projection) = &self.projection {
            roots.extend(projection.roots());
        }
        roots
    }

    /// Every path the query names (filter, sort, aggregate), in order.
    fn paths(&self) -> Vec<&Path> {
        let mut paths = Vec::new();
        self.filter.paths(&mut paths);
        paths.extend(self.sort.iter().map(|k| &k.path));
        paths.extend(self.aggregate.as_ref().and_then(Aggregate::path));
        paths
    }

    /// The equivalent shell command over `file` (over its lines `first..=last` only, for
    /// a section); `None` past [`jq::MAX_JQ_COMMAND`] bytes.
    pub(crate) fn jq_command(&self, file: &str, window: Option<(u64, u64)>) -> Option<String> {
        jq::command(self, file, window)
    }
}

impl Path {
    /// The top-level field.
    fn root(&self) -> &str {
        self.text.split('.').next().unwrap_or(&self.text)
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
