//! What an extraction is asked for and what it answers: the request (one verb and its
//! options), the ranges and search it may name, the response, and the check that a request
//! names exactly one verb.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(feature = "extract")]
use crate::error::{ErrorCode, LroError, Result};

/// What to extract from an offloaded file: exactly one of `recipe`, `query`, `lines`,
/// `search`, or a structured query (`where`, shaped by `fields`, `sort`, `skip`, `limit`, or
/// summarized by one of `count`, `group_by`, `distinct`, `stats`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractRequest {
    /// A recipe number, 1-10, as listed in the file's descriptor.
    pub recipe: Option<u8>,
    /// Any jq filter, run over each record (not slurped; use `[inputs]`-free jq: see the docs).
    pub query: Option<String>,
    /// Values bound as jq variables: a recipe's parameters (`{"keyword": "cache"}` becomes
    /// `$keyword`; a parameter left out takes the example shown in the descriptor), or any
    /// variables a `query` uses (any JSON value).
    pub params: Option<Map<String, Value>>,
    /// A range of records (or characters) of the file body.
    pub lines: Option<LineRange>,
    /// A regular expression over the raw record lines.
    pub search: Option<SearchSpec>,
    /// A MongoDB filter document (`{"tags": "cache", "confidence": {"$gte": 0.8}}`): the
    /// records it matches. Named `where` in JSON; an object, or its JSON text.
    #[serde(rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<Value>,
    /// The fields of each record to return: dotted paths (`["id", "provenance.confidence"]`
    /// or `"id,title"`), or a projection document to keep (`{"title": 1}`) or drop
    /// (`{"content": 0}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Value>,
    /// Sort order: `{"created": -1}`, `"-created"`, or a list such as `["-created", "title"]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<Value>,
    /// Matching records to pass over first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<u64>,
    /// Most matching records to return (0: no limit, as in MongoDB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Return the number of matching records instead of the records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<bool>,
    /// Return `[{"<field>": value, "count": n}, ...]` for this field, largest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_by: Option<String>,
    /// Return the distinct values of this field (arrays unwound) as one array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct: Option<String>,
    /// Return `{count, min, max, sum, avg}` of the numbers in this field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<String>,
    /// The name of one section of the file (its `sections` in the header and descriptor):
    /// `where`, `query`, `lines` and `search` then read that section's records only (`lines` counts
    /// from the section's first record). Recipes read their own section already.
    pub section: Option<String>,
    /// Return the file's full descriptor (summary, line schema, the ten recipes with their
    /// commands, guidance), rebuilt from the file: for a result described by the `compact`
    /// or `pointer` profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub describe: Option<bool>,
    /// The extract tool's name that a `describe` descriptor's guidance gives, when it is not
    /// the configured one: set by the MCP surface that lists the tool (`lro proxy` names it
    /// after its server once the server has said its name), never read from a request's JSON.
    #[serde(skip)]
    pub extract_tool: Option<String>,
}

/// What a [`LineRange`] counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineUnit {
    /// Records (lines after the header), from 0; each result is the record's JSON value.
    #[default]
    Records,
    /// Unicode characters of the body (the file after the header line), from 0; the single
    /// result is the text, never split inside a character.
    Chars,
}

/// The half-open range `[start, end)` of records or characters: the Go peer's `read`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LineRange {
    /// First record (or character), counted from 0.
    pub start: u64,
    /// One past the last; `None` reads to the end (output limits still apply).
    pub end: Option<u64>,
    /// Records (default) or characters.
    pub unit: LineUnit,
}

/// A regex search over the raw record lines (the header is not searched).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSpec {
    /// The pattern, in the `regex` crate's syntax (Perl-like, no look-around or
    /// back-references, linear time).
    pub pattern: String,
    /// Match without regard to case.
    pub ignore_case: bool,
    /// Most matching lines to return; more matches set `truncated`.
    pub max_results: Option<u64>,
}

/// The result of an extraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractResponse {
    /// The output values, in order. Raw-output recipes (#1) give strings; `search` gives
    /// `{"index", "line", "text"}` objects; `lines` gives records, or one string of characters.
    pub results: Vec<Value>,
    /// `results.len()`.
    pub count: usize,
    /// Set when a limit cut the result: there was more input or more output.
    pub truncated: bool,
    /// Which limit cut the result, human readable (`max_output_records (10000)`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// When cut: how many items were returned (the results, or the items of a single
    /// array result cut to its leading items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<u64>,
    /// When cut and known: how many items the full result has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// When cut: how to ask for less.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Bytes of the file read, header included.
    pub bytes_read: u64,
    /// Records (lines after the header) read.
    pub records_read: u64,
    /// Structured queries: the equivalent shell command (`tail -n +2 FILE | jq ...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jq: Option<String>,
    /// Things worth knowing about the query, such as a field no record has (with the
    /// closest names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The range as lro-query reads it.
#[cfg(feature = "extract")]
impl From<&LineRange> for lro_query::verbs::lines::Range {
    fn from(range: &LineRange) -> Self {
        Self {
            start: range.start,
            end: range.end,
            unit: match range.unit {
                LineUnit::Records => lro_query::verbs::lines::Unit::Records,
                LineUnit::Chars => lro_query::verbs::lines::Unit::Chars,
            },
        }
    }
}

/// The search as lro-query runs it.
#[cfg(feature = "extract")]
impl<'a> From<&'a SearchSpec> for lro_query::verbs::search::Search<'a> {
    fn from(spec: &'a SearchSpec) -> Self {
        Self {
            pattern: &spec.pattern,
            ignore_case: spec.ignore_case,
            max_results: spec.max_results,
        }
    }
}

/// The verb of a validated request (the extract tool shapes its answer by it).
#[cfg(feature = "extract")]
#[doc(hidden)]
pub enum Verb<'r> {
    Recipe(u8),
    Query(&'r str),
    Lines(&'r LineRange),
    Search(&'r SearchSpec),
    Structured,
    Describe,
}

#[cfg(feature = "extract")]
impl ExtractRequest {
    /// The structured query's arguments (`where`, `fields`, `sort`, ...), unchecked.
    pub(crate) fn structured(&self) -> lro_query::structured::Spec<'_> {
        lro_query::structured::Spec {
            filter: self.filter.as_ref(),
            fields: self.fields.as_ref(),
            sort: self.sort.as_ref(),
            skip: self.skip,
            limit: self.limit,
            count: self.count == Some(true),
            group_by: self.group_by.as_deref(),
            distinct: self.distinct.as_deref(),
            stats: self.stats.as_deref(),
        }
    }

    /// The request is a structured query: it has `where` or a field that shapes or
    /// summarizes one.
    pub(crate) fn is_structured(&self) -> bool {
        self.structured().is_structured()
    }

    /// The structured query summarizes the records (`count`, `group_by`, `distinct`,
    /// `stats`) rather than returning them.
    pub fn is_summary(&self) -> bool {
        self.structured().is_summary()
    }

    /// The one verb this request names, or `invalid_argument`.
    #[doc(hidden)]
    pub fn verb(&self) -> Result<Verb<'_>> {
        let mut verbs = Vec::with_capacity(1);
        if let Some(n) = self.recipe {
            verbs.push(Verb::Recipe(n));
        }
        if let Some(q) = &self.query {
            verbs.push(Verb::Query(q));
        }
        if let Some(l) = &self.lines {
            verbs.push(Verb::Lines(l));
        }
        if let Some(s) = &self.search {
            verbs.push(Verb::Search(s));
        }
        if self.is_structured() {
            verbs.push(Verb::Structured);
        }
        if self.describe == Some(true) {
            verbs.push(Verb::Describe);
        }
        if verbs.len() != 1 {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "give exactly one of recipe, query, lines, search, where, describe (got {}); fields, \
                     sort, skip, limit, count, group_by, distinct and stats belong to where",
                    if verbs.is_empty() {
                        "none".to_owned()
                    } else {
                        verbs.len().to_string()
                    }
                ),
            ));
        }
        if self.section.is_some() && matches!(verbs[0], Verb::Describe) {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                "describe returns the whole file's descriptor: it takes no section",
            ));
        }
        if self.section.is_some() && matches!(verbs[0], Verb::Recipe(_)) {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                "section applies to where, query, lines and search: each recipe reads its own section",
            ));
        }
        if self.params.as_ref().is_some_and(|p| !p.is_empty())
            && matches!(
                verbs[0],
                Verb::Lines(_) | Verb::Search(_) | Verb::Structured | Verb::Describe
            )
        {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                "params apply to recipe and query only",
            ));
        }
        Ok(verbs.remove(0))
    }
}
