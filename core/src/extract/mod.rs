//! Native extraction (`lro_extract`): recipes, jq filters, record ranges and regex search over
//! an offloaded file, in-process and bounded.
//!
//! The specification's native extraction tool (spec 000, "native extraction") lets agents
//! without a shell read an offloaded file through the library itself. Four verbs, exactly one
//! per request:
//! - `recipe` (1-10) with `params`: the descriptor's own recipes, rebuilt from the file's
//!   header (and, for raw data, from a profile of its first records, as offload does);
//! - `query`: any jq filter, run by the embedded engine (jaq), never a `jq` binary or a shell;
//! - `lines`: a range of records, or of characters, of the file body;
//! - `search`: a regular expression over the raw record lines.
//!
//! Safety is by construction: the file must resolve inside the output directory and be an
//! offload file ([`safety`]); reads, output and time are bounded by
//! [`ExtractLimits`](crate::ExtractLimits), and a result cut by a limit says so
//! (`truncated` + `limit`). Parameters reach filters as jq variables (`$keyword`), so no value
//! can change a program.
//!
//! ```
//! use lro_core::{ExtractRequest, MemoryHost, OffloadConfig, OffloadRequest, Offloader};
//! use serde_json::json;
//!
//! let memories: Vec<_> = (0..200)
//!     .map(|i| json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": "_semantic/decisions",
//!                     "title": format!("Decision {i} about caching and storage layout")}))
//!     .collect();
//! let lro = Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap();
//! let outcome = lro.offload(&json!(memories), &OffloadRequest::new("recall")).unwrap();
//! let file = &outcome.offloaded().unwrap().file_path;
//!
//! let request = ExtractRequest { recipe: Some(6), ..ExtractRequest::default() };
//! let counts = lro.extract(file, &request).unwrap();
//! assert_eq!(counts.results, vec![json!([{"namespace": "_semantic/decisions", "count": 200}])]);
//!
//! let request: ExtractRequest = serde_json::from_value(json!({
//!     "query": "select(.title | test($word)) | .id", "params": {"word": "Decision 7\\b"}
//! })).unwrap();
//! assert_eq!(lro.extract(file, &request).unwrap().results, vec![json!("m7")]);
//! ```

mod batches;
mod bounds;
mod budget;
mod convert;
mod describe;
mod engine;
// The invariants of the `extract_*` fuzz targets (see `crate::fuzz_checks`).
#[cfg(any(test, fuzzing))]
pub(crate) mod fuzz_checks;
mod lines;
mod natives;
mod parse;
mod query;
mod reader;
mod recipe;
mod records;
mod regex_test;
mod run;
pub mod safety;
mod sandbox;
mod search;
#[cfg(target_family = "wasm")]
mod tabular;
mod time_zones;

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{ErrorCode, LroError, Result};
use crate::host::Host;
use crate::offload::Offloader;

pub use sandbox::{MAX_FILTER_BYTES, MAX_FILTER_NESTING};

/// The native stack a thread that calls [`Offloader::extract`] should have (the proxy's
/// extraction threads and the core's workers have it). The bounds of the sandbox (values
/// at most 1024 levels deep, 1 MiB of recursion) are sized to fit 2 MiB, Rust's default for
/// spawned threads; this leaves a wide margin for debug builds and for the host's own frames.
pub const EXTRACT_STACK_BYTES: usize = 8 * 1024 * 1024;

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

/// The section of the file called `name`, from the file's header line.
fn section_named(header: Option<&str>, name: &str) -> Result<crate::descriptor::SectionInfo> {
    let header = header
        .and_then(crate::jsonl::parse_header)
        .ok_or_else(|| LroError::new(ErrorCode::InvalidInput, "the file has no LRO header line"))?;
    let sections = header.all_sections();
    crate::descriptor::labels::find(&sections, name)
        .cloned()
        .ok_or_else(|| {
            // The labels a descriptor shows: the full names may be any length.
            let shown = crate::descriptor::labels::shown(&sections);
            let names: Vec<&str> = shown.iter().map(|s| s.label()).collect();
            LroError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "no section {name:?} in this file; its sections: {}",
                    names.join(", ")
                ),
            )
        })
}

/// The verb of a validated request (the extract tool shapes its answer by it).
#[doc(hidden)]
pub enum Verb<'r> {
    Recipe(u8),
    Query(&'r str),
    Lines(&'r LineRange),
    Search(&'r SearchSpec),
    Structured,
    Describe,
}

impl ExtractRequest {
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

impl<H: Host> Offloader<H> {
    /// The offload file `file_path` names (a path or an `lro://` URI), once the output
    /// directory passed its checks and the name resolved inside it: every read starts here.
    fn offload_file(&self, file_path: &str) -> Result<safety::OffloadFile> {
        let output_dir = self.output_dir();
        self.check_output_dir(&output_dir)?;
        safety::resolve_offload_file(&self.host, &output_dir, &self.config.file_prefix, file_path)
    }

    /// Runs one extraction over the offloaded file at `file_path` (the descriptor's
    /// `file_path`): a recipe, a jq filter, a range of records or a regex search.
    ///
    /// Errors: `invalid_argument` (not exactly one verb, unknown recipe, bad parameter),
    /// `invalid_query` (the filter does not parse or compile), `query_failed` (it failed on a
    /// record), `path_denied` (outside the output directory, a symbolic link out of it, not
    /// an offload file), `not_found`, `invalid_input` (a record line is not JSON), `io_error`.
    pub fn extract(&self, file_path: &str, request: &ExtractRequest) -> Result<ExtractResponse> {
        self.extract_cancellable(file_path, request, &AtomicBool::new(false))
    }

    /// [`Self::extract`], stopped early once `cancel` is set (by another thread: a client
    /// that cancelled the call). The extraction ends as at its time limit, within the same
    /// granularity; the caller, which wants no answer any more, drops the (truncated)
    /// response.
    pub fn extract_cancellable(
        &self,
        file_path: &str,
        request: &ExtractRequest,
        cancel: &AtomicBool,
    ) -> Result<ExtractResponse> {
        let verb = request.verb()?;
        let structured = match verb {
            Verb::Structured => Some(query::Query::compile(request)?),
            _ => None,
        };
        let file = self.offload_file(file_path)?;
        let path = file.path();
        let deadline =
            budget::Deadline::new(&self.host, self.config.extract.timeout_ms).cancelled_by(cancel);
        let mut budget = budget::Budget::new(&self.config.extract, &deadline);
        let reader = file.open(&self.host, file_path)?.reader;
        let mut lines = reader::LineReader::new(reader, self.config.extract.max_read_bytes);
        if let Verb::Describe = verb {
            return self.describe_file(
                &mut lines,
                path.to_string_lossy().into_owned(),
                request.extract_tool.as_deref(),
                &deadline,
            );
        }
        let mut missing = Vec::new();
        // The file lines a section spans, for the jq equivalent too.
        let mut window = None;
        if let Some(name) = &request.section {
            let section = section_named(lines.header()?.as_deref(), name)?;
            window = Some((section.first_line as u64, section.last_line() as u64));
            lines.window(section.first_line as u64, section.last_line() as u64)?;
        }
        match verb {
            Verb::Recipe(number) => {
                run::recipe(&mut lines, &mut budget, number, request.params.as_ref())?
            }
            Verb::Query(filter) => {
                run::query(&mut lines, &mut budget, filter, request.params.as_ref())?
            }
            Verb::Lines(range) => lines::read_range(&mut lines, &mut budget, range)?,
            Verb::Search(spec) => search::search(&mut lines, &mut budget, spec)?,
            Verb::Describe => unreachable!("answered above"),
            Verb::Structured => {
                if let Some(q) = &structured {
                    missing = query::run(&mut lines, &mut budget, q)?;
                }
            }
        }
        let mut response = budget.finish(&lines);
        if let Some(q) = &structured {
            response.jq = q.jq_command(&path.to_string_lossy(), window);
            if !missing.is_empty() {
                response.warnings = query::warnings(&missing, &self.first_records(&file));
            }
            if response.jq.is_none() {
                response.warnings.push(format!(
                    "the equivalent jq command is left out: it would be longer than {} bytes",
                    query::MAX_JQ_COMMAND
                ));
            }
        }
        Ok(response)
    }

    /// Where record `index` (from 0, in `section` when given) starts, in the characters
    /// that `lines` with unit `chars` counts: the extract tool's next character range
    /// for a record too large for one answer.
    #[doc(hidden)]
    pub fn record_char_offset(
        &self,
        file_path: &str,
        section: Option<&str>,
        index: u64,
    ) -> Result<u64> {
        let file = self.offload_file(file_path)?;
        let reader = file.open(&self.host, file_path)?.reader;
        let mut lines = reader::LineReader::new(reader, self.config.extract.max_read_bytes);
        if let Some(name) = section {
            let section = section_named(lines.header()?.as_deref(), name)?;
            lines.window(section.first_line as u64, section.last_line() as u64)?;
        }
        lines::chars_before(&mut lines, index)
    }

    /// The first records of an offload file (for the names of its fields); none when it
    /// cannot be read again.
    fn first_records(&self, file: &safety::OffloadFile) -> Vec<Value> {
        let Ok(opened) = file.open(&self.host, &file.name) else {
            return Vec::new();
        };
        let reader = opened.reader;
        let mut lines = reader::LineReader::new(reader, self.config.extract.max_read_bytes);
        let mut records = Vec::new();
        if lines.header().is_err() {
            return records;
        }
        while records.len() < crate::profile::SAMPLE_SIZE {
            match lines.next_line() {
                Ok(Some(line)) => records.extend(serde_json::from_slice::<Value>(line).ok()),
                _ => break,
            }
        }
        records
    }
}
