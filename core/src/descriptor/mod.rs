//! The specification's wire types (`OffloadHeader`, `OffloadResponse`, `OffloadSummary`,
//! `JqRecipe`), with LRO's additions for results that are not one flat array (sections,
//! formats, the envelope), and the guidance templates ([`guidance`]).

mod guidance;
#[doc(hidden)]
pub mod labels;
mod preview;
mod profiles;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::estimate::EstimateReport;
use crate::shape::{Format, TableInfo, TreeInfo};

pub use guidance::{guidance, short_guidance};
pub use preview::Preview;
pub(crate) use preview::{NOTE_RESERVE_TOKENS, fitted as fitted_preview};
pub use profiles::{
    Brief, COMPACT_BUDGET_TOKENS, CompactDescriptor, POINTER_BUDGET_TOKENS, PointerDescriptor,
};
pub(crate) use profiles::{Parts, compact, nominal_tokens, pointer};

/// The MIF schema version written in headers of MIF files.
pub const MIF_SCHEMA_VERSION: &str = "1.0";
/// The `schema_version` of files holding raw (non-MIF) records.
pub const RAW_SCHEMA_VERSION: &str = "raw";
/// The header's `type` marker.
pub const HEADER_TYPE: &str = "lro_header";

/// Metadata header written as the first line of an offloaded JSONL file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadHeader {
    /// Marker identifying this as an LRO header. Always `"lro_header"`.
    #[serde(rename = "type")]
    pub header_type: String,
    /// The operation that produced these results.
    pub operation: String,
    /// The query string (if applicable).
    pub query: Option<String>,
    /// Total number of record lines following the header.
    pub count: usize,
    /// MIF schema version of the memory objects (`raw` for other data).
    pub schema_version: String,
    /// ISO 8601 timestamp of when the file was written.
    pub timestamp: String,
    /// Estimated total tokens of the result set.
    pub estimated_tokens: usize,
    /// How `estimated_tokens` were counted, when an estimator counted them (`o200k`,
    /// `cl100k`; absent for the heuristic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<EstimateReport>,
    /// Detail level used for serialization (`light`, `medium`, `full`, or `raw`).
    pub detail: String,
    /// How the records were read, when not JSON and the file has no `sections`.
    #[serde(default, skip_serializing_if = "Format::is_json")]
    pub format: Format,
    /// Where each group of records sits, when the result was not one plain array.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionInfo>,
    /// The small fields of an object result, which the descriptor carries inline: in the
    /// file too, so that it holds the whole result whatever the descriptor showed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Map<String, Value>>,
    /// Keys the result's JSON text named again in the same object: each object kept the
    /// last value of such a key (a record cannot hold two), and this says so.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub duplicate_keys: usize,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The descriptor's warning when the result's JSON text named `n` keys twice (`None` for 0).
pub fn duplicate_keys_warning(n: usize) -> Option<String> {
    (n > 0).then(|| format!("{n} duplicate key(s) in the JSON: the last value of each was kept."))
}

/// [`duplicate_keys_warning`] for the pointer descriptor, whose budget is a few lines: a
/// count of any size fits it.
pub fn duplicate_keys_note(n: usize) -> Option<String> {
    (n > 0).then(|| format!("{n} duplicate key(s): last values kept."))
}

/// A group of records on consecutive lines of an offload file: the records of one array (or
/// string, or tree) of the result. Listed in the header and the descriptor when a result is
/// more than one plain array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionInfo {
    /// Where the records were found in the result: its keys, dot-joined (`entities`,
    /// `data.users`); absent for the result itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The file line (1 = the header) of the section's first record.
    pub first_line: usize,
    /// Records in the section.
    pub count: usize,
    /// How the records were read, when not JSON.
    #[serde(default, skip_serializing_if = "Format::is_json")]
    pub format: Format,
    /// Set when a tree was flattened into one record per node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<TreeInfo>,
    /// The records are a map's `{"key", "value"}` entries.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub entries: bool,
    /// Set when the records are the rows of a table given as column names beside
    /// positional rows (`pandas_split`, `clickhouse`, `trino`, `bigquery`, `spreadsheet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableInfo>,
}

impl SectionInfo {
    /// The file line of the section's last record.
    pub fn last_line(&self) -> usize {
        self.first_line + self.count.saturating_sub(1)
    }

    /// The section's name, or `records` for the result itself.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("records")
    }
}

impl OffloadHeader {
    /// Refuses a header whose sections lie about its records ([`check_sections`] against
    /// the header's own `count`): what every reader of a section checks before trusting one.
    pub fn check_sections(&self) -> crate::error::Result<()> {
        check_sections(&self.sections, self.count)
    }

    /// Every section of the file: the listed ones, or the whole body as one.
    pub fn all_sections(&self) -> Vec<SectionInfo> {
        if !self.sections.is_empty() {
            return self.sections.clone();
        }
        vec![SectionInfo {
            name: None,
            first_line: 2,
            count: self.count,
            format: self.format,
            tree: None,
            entries: false,
            table: None,
        }]
    }
}

/// Refuses sections that lie about the `records` a file holds (`invalid_input`): each must
/// start after the header (line 2 on), after the section before it ends (in order, not
/// overlapping), and end within the records; a first line or count whose sum does not fit
/// is refused too, never wrapped. `describe` checks them against the records it read, every
/// other reader against the header's `count` (then the file ending before a section's last
/// record is `invalid_input` too, see `lro_query::reader::LineReader::section`).
pub fn check_sections(sections: &[SectionInfo], records: usize) -> crate::error::Result<()> {
    let mut next = 2usize;
    for section in sections {
        let end = section.first_line.checked_add(section.count);
        let within = end.is_some_and(|end| records.checked_add(2).is_none_or(|last| end <= last));
        if section.first_line < next || !within {
            return Err(crate::error::LroError::new(
                crate::error::ErrorCode::InvalidInput,
                format!(
                    "the header's section {:?} (file lines {} to {}) does not lie within the \
                     {records} records the file holds, after the sections before it",
                    section.label(),
                    section.first_line,
                    section
                        .first_line
                        .saturating_add(section.count)
                        .saturating_sub(1)
                ),
            ));
        }
        next = section.first_line + section.count;
    }
    Ok(())
}

/// Summary of the result set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadSummary {
    /// Total number of records in the file.
    pub count: usize,
    /// Estimated total tokens saved by offloading.
    pub estimated_tokens: usize,
    /// How `estimated_tokens` were counted, when an estimator counted them (absent for the
    /// heuristic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<EstimateReport>,
    /// The operation that was performed.
    pub operation: String,
    /// Top namespaces represented (up to 5, most frequent first).
    pub top_namespaces: Vec<String>,
    /// Score range (min, max) if scores were given.
    pub score_range: Option<(f64, f64)>,
    /// Detail level used for serialization.
    pub detail: String,
}

/// A ready-to-run jq command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JqRecipe {
    /// Human-readable description of what this recipe does.
    pub description: String,
    /// The jq command to execute.
    pub command: String,
}

/// Compact response returned when results are offloaded to JSONL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OffloadResponse {
    /// Indicates this is an offloaded result. Always `true`.
    pub offloaded: bool,
    /// Summary of the result set.
    pub summary: OffloadSummary,
    /// Absolute path to the JSONL file.
    pub file_path: String,
    /// The file as an MCP resource, `lro://offloads/{file name}` (LRO's MCP surfaces serve
    /// it with `resources/read`), for a client that cannot open `file_path`.
    #[serde(default)]
    pub resource_uri: String,
    /// The extract tool's name as the MCP server lists it (`lro_extract_memory`), with the
    /// native guidance, which names it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract_tool: Option<String>,
    /// JSON Schema describing each record line in the JSONL file.
    pub line_schema: Value,
    /// Ready-to-use jq recipes (exactly 10).
    pub jq_recipes: Vec<JqRecipe>,
    /// Usage guidance for the AI assistant.
    pub guidance: String,
    /// How the records were read, when not JSON and there are no `sections`.
    #[serde(default, skip_serializing_if = "Format::is_json")]
    pub format: Format,
    /// Where each group of records sits (line ranges), when the result was not one plain
    /// array; the header lists them all, this list at most [`MAX_LISTED_SECTIONS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionInfo>,
    /// The small fields of an object result, kept inline (everything else is in the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Map<String, Value>>,
    /// The threshold applied, when the call gave `context_remaining_tokens` (the adaptive
    /// threshold); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_tokens: Option<usize>,
    /// What the records do not show: keys the result's JSON text named twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The file's first records, with `preview_records` (as many as fit the budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
    /// The smaller descriptor the profile chose (`compact`, `pointer`), which is what the
    /// caller receives ([`crate::Outcome`] serializes it); `None` for the full descriptor.
    /// The full descriptor's fields stay available to Rust callers either way.
    #[serde(skip)]
    pub brief: Option<Brief>,
}

impl OffloadResponse {
    /// What the caller receives as JSON: the chosen profile's descriptor.
    pub fn to_value(&self) -> Value {
        match &self.brief {
            Some(brief) => serde_json::to_value(brief),
            None => serde_json::to_value(self),
        }
        .unwrap_or(Value::Null)
    }
}

/// Most sections a descriptor lists (the file's header lists every one).
pub const MAX_LISTED_SECTIONS: usize = 12;

/// Estimated tokens a descriptor takes at most, as compact JSON, its file path reckoned as
/// [`NOMINAL_PATH_BYTES`] long.
/// An offloaded MCP result carries it twice, as a text block and as `structuredContent`, so
/// the whole response stays within twice this: 2,000.
pub const DESCRIPTOR_BUDGET_TOKENS: usize = 1000;

/// The file path length the budget is reckoned with: the default location (the system temp
/// dir, `/tmp/atlatl-recall-{ulid}.jsonl`, 51 bytes) with room for a longer operation name or
/// a short output directory. A longer path adds its extra bytes at each of the dozen places
/// it appears (the specification puts it in every recipe).
pub const NOMINAL_PATH_BYTES: usize = 64;
