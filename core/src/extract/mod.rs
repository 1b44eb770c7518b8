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
//! What is the core's here is the file: resolving and checking it, its header and sections,
//! its recipes (rebuilt in `recipe.rs`) and `describe`. Running a verb over the file's lines
//! is lro-query's: `lro_query::verbs` (`query`, `lines`, `search`, and the program of a
//! recipe) and `lro_query::structured` (a structured query and its jq command), which this
//! module hands the request's values, the file's reader and the limits, and whose errors
//! keep their codes and messages (`From<lro_query::Error> for LroError`).
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

// The file commands and their pieces: with the `extract` feature (the jq engine, lro-query).
#[cfg(feature = "extract")]
mod describe;
// The invariants of the `extract_*` fuzz targets (see `crate::fuzz_checks`).
#[cfg(all(feature = "extract", any(test, fuzzing)))]
pub(crate) mod fuzz_checks;
#[cfg(feature = "extract")]
mod recipe;
// Always: the request and response types (plain data), and where an offload file may be.
mod request;
pub mod safety;

#[cfg(feature = "extract")]
use std::sync::atomic::AtomicBool;

#[cfg(feature = "extract")]
use lro_query::structured::{self, Query};
#[cfg(feature = "extract")]
use lro_query::verbs::{jq_filter, lines, search};
#[cfg(feature = "extract")]
use serde_json::Value;

#[cfg(feature = "extract")]
use crate::error::{ErrorCode, LroError, Result};
#[cfg(feature = "extract")]
use crate::host::Host;
#[cfg(feature = "extract")]
use crate::offload::Offloader;
#[cfg(feature = "extract")]
use crate::recipes::shell_quote;

#[cfg(feature = "extract")]
pub use lro_jq::{MAX_FILTER_BYTES, MAX_FILTER_DEPTH, MAX_FILTER_NESTING};
#[cfg(feature = "extract")]
pub use lro_query::batches::EXTRACT_STACK_BYTES;
#[cfg(feature = "extract")]
pub use request::Verb;
pub use request::{ExtractRequest, ExtractResponse, LineRange, LineUnit, SearchSpec};

/// A filter the engine refused is the request's `invalid_query`, with the engine's message.
#[cfg(feature = "extract")]
impl From<lro_jq::InvalidFilter> for LroError {
    fn from(error: lro_jq::InvalidFilter) -> Self {
        LroError::new(ErrorCode::InvalidQuery, error.message())
    }
}

/// A query refused, or a filter failed, keeps its code and message.
#[cfg(feature = "extract")]
impl From<lro_query::Error> for LroError {
    fn from(error: lro_query::Error) -> Self {
        let code = match error.kind() {
            lro_query::ErrorKind::InvalidQuery => ErrorCode::InvalidQuery,
            lro_query::ErrorKind::InvalidArgument => ErrorCode::InvalidArgument,
            lro_query::ErrorKind::QueryFailed => ErrorCode::QueryFailed,
            lro_query::ErrorKind::ResourceLimit => ErrorCode::ResourceLimit,
            lro_query::ErrorKind::InvalidInput => ErrorCode::InvalidInput,
            lro_query::ErrorKind::Io => {
                if let Some(io) = error.io_error() {
                    return LroError::from_io(io, "cannot read the offload file");
                }
                ErrorCode::Io
            }
        };
        LroError::new(code, error.message())
    }
}

/// The bounds of a run over the lines of an offload file.
#[cfg(feature = "extract")]
fn query_limits(limits: &crate::config::ExtractLimits) -> lro_query::budget::Limits {
    lro_query::budget::Limits {
        max_read_bytes: limits.max_read_bytes,
        max_output_records: limits.max_output_records,
        max_output_bytes: limits.max_output_bytes,
        max_memory_bytes: limits.max_memory_bytes,
    }
}

/// The response of a run's output (the jq equivalent is added by structured queries).
#[cfg(feature = "extract")]
fn response_of(output: lro_query::budget::Output) -> ExtractResponse {
    ExtractResponse {
        count: output.results.len(),
        results: output.results,
        truncated: output.truncated,
        limit: output.limit,
        returned: output.returned,
        total: output.total,
        hint: output.hint,
        bytes_read: output.bytes_read,
        records_read: output.records_read,
        jq: None,
        warnings: output.warnings,
    }
}

/// The shell command that prints the records' lines of `file` (its lines `first..=last`
/// only, for a section, as recipes of a file of sections read theirs): what a structured
/// query's jq command reads.
#[cfg(feature = "extract")]
fn jq_source(file: &str, window: Option<(u64, u64)>) -> String {
    match window {
        Some((first, last)) => format!("sed -n '{first},{last}p' {}", shell_quote(file)),
        None => format!("tail -n +2 {}", shell_quote(file)),
    }
}

/// The section of the file called `name`, from the file's header line (checked:
/// [`crate::jsonl::checked_header`]).
#[cfg(feature = "extract")]
fn section_named(header: Option<&str>, name: &str) -> Result<crate::descriptor::SectionInfo> {
    let header = crate::jsonl::checked_header(header)?;
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

#[cfg(feature = "extract")]
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
        self.extract_within(file_path, request, &self.config.extract, cancel)
    }

    /// [`Self::extract_cancellable`] under `limits` instead of the configured ones: what
    /// reads a result whole for a tool (result handles, saved extractions) raises the output
    /// limits to its own cap, so that the engine never cuts below it unnoticed.
    pub fn extract_within(
        &self,
        file_path: &str,
        request: &ExtractRequest,
        limits: &crate::config::ExtractLimits,
        cancel: &AtomicBool,
    ) -> Result<ExtractResponse> {
        let verb = request.verb()?;
        let structured = match verb {
            Verb::Structured => Some(Query::compile(&request.structured())?),
            _ => None,
        };
        let file = self.offload_file(file_path)?;
        let path = file.path();
        let deadline = lro_jq::Deadline::new(|| self.host.now_millis(), limits.timeout_ms)
            .cancelled_by(cancel);
        let mut budget = lro_query::budget::Budget::new(&query_limits(limits), &deadline);
        let reader = file.open(&self.host, file_path)?.reader;
        let mut lines = lro_query::reader::LineReader::new(reader, limits.max_read_bytes);
        if let Verb::Describe = verb {
            return describe::describe_file(
                self,
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
            lines.section(section.first_line as u64, section.count as u64)?;
        }
        match verb {
            Verb::Recipe(number) => {
                recipe::run(&mut lines, &mut budget, number, request.params.as_ref())?
            }
            Verb::Query(filter) => {
                jq_filter::run(&mut lines, &mut budget, filter, request.params.as_ref())?
            }
            Verb::Lines(range) => lines::read_range(&mut lines, &mut budget, &range.into())?,
            Verb::Search(spec) => search::search(&mut lines, &mut budget, &spec.into())?,
            Verb::Describe => unreachable!("answered above"),
            Verb::Structured => {
                if let Some(q) = &structured {
                    missing = q.run(&mut lines, &mut budget)?;
                }
            }
        }
        let mut response = response_of(budget.finish(&lines));
        if let Some(q) = &structured {
            response.jq = q.jq_command(&jq_source(&path.to_string_lossy(), window));
            if !missing.is_empty() {
                response.warnings = structured::warnings(&missing, &self.first_records(&file));
            }
            if response.jq.is_none() {
                response.warnings.push(format!(
                    "the equivalent jq command is left out: it would be longer than {} bytes",
                    structured::MAX_JQ_COMMAND
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
        let mut lines =
            lro_query::reader::LineReader::new(reader, self.config.extract.max_read_bytes);
        if let Some(name) = section {
            let section = section_named(lines.header()?.as_deref(), name)?;
            lines.section(section.first_line as u64, section.count as u64)?;
        }
        Ok(lines::chars_before(&mut lines, index)?)
    }

    /// The first records of an offload file (for the names of its fields); none when it
    /// cannot be read again.
    fn first_records(&self, file: &safety::OffloadFile) -> Vec<Value> {
        let Ok(opened) = file.open(&self.host, &file.name) else {
            return Vec::new();
        };
        let reader = opened.reader;
        let mut lines =
            lro_query::reader::LineReader::new(reader, self.config.extract.max_read_bytes);
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
