//! A structured query checked whole before the file is read: its filter document, projection,
//! sort, skip and limit, or its aggregate.

use serde_json::Value;

use lro_query::aggregate::Aggregate;
use lro_query::filter::{self, Filter, Path};
use lro_query::projection::{self, Projection, SortKey};

use crate::error::{ErrorCode, LroError, Result};
use crate::extract::request::ExtractRequest;

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
            .map(projection::parse_sort)
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
    pub(super) fn roots(&self) -> Vec<&str> {
        let mut roots: Vec<&str> = self.paths().iter().map(|p| p.root()).collect();
        if let Some(projection) = &self.projection {
            roots.extend(projection.roots());
        }
        roots
    }

    /// Every path the query names (filter, sort, aggregate), in order.
    pub(super) fn paths(&self) -> Vec<&Path> {
        let mut paths = Vec::new();
        self.filter.paths(&mut paths);
        paths.extend(self.sort.iter().map(|k| &k.path));
        paths.extend(self.aggregate.as_ref().and_then(Aggregate::path));
        paths
    }
}
