//! A structured query checked whole before the file is read: its filter document, projection,
//! sort, skip and limit, or its aggregate.

use serde_json::Value;

use super::spec::Spec;
use crate::aggregate::Aggregate;
use crate::error::{Error, ErrorKind, Result};
use crate::filter::{self, Filter, Path};
use crate::projection::{self, Projection, SortKey};

/// A checked structured query, ready to run over lines ([`Query::run`]).
#[derive(Debug)]
pub struct Query {
    pub(crate) filter: Filter,
    pub(crate) projection: Option<Projection>,
    pub(crate) sort: Vec<SortKey>,
    pub(crate) skip: u64,
    /// `None`: no limit (`limit: 0` too, as in MongoDB).
    pub(crate) limit: Option<u64>,
    pub(crate) aggregate: Option<Aggregate>,
}

fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidArgument, message)
}

impl Query {
    /// Checks the arguments of `spec`: [`ErrorKind::InvalidQuery`] for the filter document,
    /// [`ErrorKind::InvalidArgument`] for the rest.
    pub fn compile(spec: &Spec<'_>) -> Result<Self> {
        let filter = match spec.filter {
            None => Filter::Always,
            // Some clients send an object argument as its JSON text.
            Some(Value::String(text)) => {
                let doc: Value = serde_json::from_slice(text.as_bytes()).map_err(|e| {
                    Error::new(
                        ErrorKind::InvalidQuery,
                        format!(
                            "where: not a JSON filter document such as \
                             {{\"kind\": \"person\"}}: {e}"
                        ),
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
        if spec.count {
            aggregates.push(Aggregate::Count);
        }
        if let Some(p) = spec.group_by {
            aggregates.push(Aggregate::GroupBy(field("group_by", p)?));
        }
        if let Some(p) = spec.distinct {
            aggregates.push(Aggregate::Distinct(field("distinct", p)?));
        }
        if let Some(p) = spec.stats {
            aggregates.push(Aggregate::Stats(field("stats", p)?));
        }
        if aggregates.len() > 1 {
            return Err(bad("give at most one of count, group_by, distinct, stats"));
        }
        let aggregate = aggregates.pop();
        let projection = spec.fields.map(Projection::parse).transpose()?;
        if projection.is_some() && aggregate.is_some() {
            return Err(bad(
                "fields shapes the records a query returns; count, group_by, distinct and stats \
                 return a summary instead: give one or the other",
            ));
        }
        let sort = spec
            .sort
            .map(projection::parse_sort)
            .transpose()?
            .unwrap_or_default();
        Ok(Self {
            filter,
            projection,
            sort,
            skip: spec.skip.unwrap_or(0),
            limit: spec.limit.filter(|&l| l > 0),
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
