//! Offloaded files as MCP resources, for clients that cannot reach the file.
//!
//! A descriptor's `file_path` serves an agent with a shell on the same machine. Chat clients,
//! sandboxed agents and clients of a remote server read an offload as an MCP resource
//! instead: every offload file of the output directory is the resource
//! `lro://offloads/{file name}` (the file as written: its header line, then one record per
//! line), and `lro://offloads/{file name}/records` is the same file without its header.
//! An offloaded `tools/call` result may carry a `resource_link` to it ([`resource_link`],
//! added by [`crate::intercept_tool_result`] with `mcp.resource_link`).
//!
//! This module is the logic every MCP surface shares (the `lro proxy`, the Python and Node
//! helpers): the URI scheme, the listing (newest first, in pages with a cursor), the read,
//! and the JSON-RPC error code of each failure. Files are reached through the [`Host`] only.
//! The URI grammar itself is how the core names an offload file ([`lro_core::files`]):
//! extraction takes the URI wherever it takes a path.
//!
//! Only offload files are served: names of the configured prefix, directly inside the output
//! directory, regular files (never a symbolic link), not expired. Every other URI is an
//! error, and an expired file is gone from the list even before cleanup removes it.
//!
//! ```
//! use lro_core::{MemoryHost, OffloadConfig, OffloadRequest, Offloader};
//! use serde_json::json;
//!
//! let lro = Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap();
//! let rows: Vec<_> = (0..400).map(|i| json!({"id": i, "name": format!("row number {i}")})).collect();
//! let outcome = lro.offload(&json!(rows), &OffloadRequest::new("query")).unwrap();
//! let file_path = &outcome.offloaded().unwrap().file_path;
//!
//! let page = lro_mcp::list_resources(&lro, None).unwrap();
//! let resource = &page.resources[0];
//! assert!(resource.uri.starts_with("lro://offloads/atlatl-query-"));
//! assert_eq!(resource.mime_type, "application/jsonl");
//! let read = lro_mcp::read_resource(&lro, &resource.uri).unwrap();
//! assert_eq!(read.contents[0].text.lines().count(), 401); // the header, then 400 records
//! // lro_extract takes the URI wherever it takes a file path.
//! let request = serde_json::from_value(json!({"count": true})).unwrap();
//! assert_eq!(lro.extract(&resource.uri, &request).unwrap().results, vec![json!(400)]);
//! # let _ = file_path;
//! ```

use std::cmp::Reverse;
use std::io::{BufReader, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use lro_core::descriptor::{OffloadHeader, RAW_SCHEMA_VERSION};
use lro_core::error::{ErrorCode, LroError, Result};
pub use lro_core::files::{
    MIME_TYPE, OffloadUri, RECORDS_SUFFIX, URI_PREFIX, View, is_offload_uri, parse_uri,
    resource_link, uri_for, uri_for_path,
};
use lro_core::files::{OffloadFileName, parse_offload_file_name};
use lro_core::host::{EntryKind, Host};
use lro_core::offload::Offloader;
use lro_core::shape::Format;

/// Resources in one page of [`list_resources`].
pub const PAGE_SIZE: usize = 100;

/// A query string is quoted in a description up to this many characters.
const MAX_QUERY_CHARS: usize = 80;

/// The `resources/templates/list` entries: the two forms of an offload URI.
pub fn resource_templates() -> Vec<Value> {
    vec![
        json!({
            "uriTemplate": format!("{URI_PREFIX}{{file}}"),
            "name": "lro-offload",
            "title": "Offloaded tool result (LRO)",
            "description": "A large tool result LRO wrote to a JSONL file: a header line (operation, \
                count, sections), then one record per line. {file} is the file name of the \
                result's file_path.",
            "mimeType": MIME_TYPE,
        }),
        json!({
            "uriTemplate": format!("{URI_PREFIX}{{file}}{RECORDS_SUFFIX}"),
            "name": "lro-offload-records",
            "title": "Records of an offloaded tool result (LRO)",
            "description": "The records of an offloaded result, one JSON value per line, without \
                the header line.",
            "mimeType": MIME_TYPE,
        }),
    ]
}

/// The JSON-RPC error code a failed resource request answers with: MCP's "resource not
/// found" (-32002) for a missing or expired file, "invalid params" (-32602) for a URI or
/// cursor that names no offload file (traversal, a symbolic link, another scheme), and
/// "internal error" (-32603) for the rest (the file cannot be read).
pub fn jsonrpc_error_code(code: ErrorCode) -> i64 {
    match code {
        ErrorCode::NotFound => -32002,
        ErrorCode::InvalidArgument | ErrorCode::PathDenied => -32602,
        _ => -32603,
    }
}

/// One offload file, as `resources/list` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// `lro://offloads/{file name}`.
    pub uri: String,
    /// The file name.
    pub name: String,
    /// `{operation}: {count} {records}`, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the file holds, from its header: operation, count, tokens, detail, query,
    /// sections, when it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// [`MIME_TYPE`].
    pub mime_type: String,
    /// Bytes of the file, when the host can tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// One page of `resources/list`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcePage {
    /// The resources of this page, newest first.
    pub resources: Vec<Resource>,
    /// The cursor of the next page; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The text of a resource, as `resources/read` returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The URI read.
    pub uri: String,
    /// [`MIME_TYPE`].
    pub mime_type: String,
    /// The file, or its records.
    pub text: String,
}

/// The result of `resources/read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// One entry: the file (or its records).
    pub contents: Vec<ResourceContents>,
}

/// An offload file found in the output directory.
struct Candidate {
    name: String,
    parsed: OffloadFileName,
    /// Its [`lro_core::files::file_time`]: the time in its name, or its modification time when
    /// the name is dated ahead of the clock; `None` when expired for want of a time.
    time: Option<u64>,
}

impl Candidate {
    /// Newest first (by [`Candidate::time`], so a name dated ahead is never first for its
    /// name); files of one millisecond (replicas) by ULID, then name.
    fn order(&self) -> (Reverse<u64>, Reverse<u128>, &str) {
        (
            Reverse(self.time.unwrap_or(0)),
            Reverse(u128::from(self.parsed.ulid)),
            &self.name,
        )
    }
}

/// The candidate `name` of `dir`, with its time (see [`Offloader::created_at`]).
fn candidate<H: Host>(
    lro: &Offloader<H>,
    dir: &Path,
    name: String,
    parsed: OffloadFileName,
    now: u64,
) -> Candidate {
    let time = lro.created_at(dir, &name, parsed.ulid, now);
    Candidate { name, parsed, time }
}

/// Whether `file` has outlived the time-to-live, or has no time to trust (see
/// [`lro_core::files::file_time`]): cleanup would remove it, and it is no resource any more.
fn expired<H: Host>(lro: &Offloader<H>, file: &Candidate, now: u64) -> bool {
    lro_core::files::is_expired_at(file.time, lro.config().ttl_seconds, now)
}

/// One page of the offload files of `lro`'s output directory as MCP resources, newest
/// first, [`PAGE_SIZE`] at most. `cursor` is the `next_cursor` of the page before (`None`
/// for the first page); a cursor that is not one is `invalid_argument`. A missing output
/// directory has none.
pub fn list_resources<H: Host>(lro: &Offloader<H>, cursor: Option<&str>) -> Result<ResourcePage> {
    list_resources_page(lro, cursor, PAGE_SIZE)
}

/// [`list_resources`] with pages of `page_size` (at least 1).
pub fn list_resources_page<H: Host>(
    lro: &Offloader<H>,
    cursor: Option<&str>,
    page_size: usize,
) -> Result<ResourcePage> {
    let prefix = &lro.config().file_prefix;
    let dir = lro.output_dir();
    let now = lro.host().now_millis();
    let after = match cursor {
        None => None,
        // A cursor's time is found as the listing found it (a cursor file gone meanwhile and
        // dated ahead sorts last: the next page is then empty, not a repeat).
        Some(name) => Some(candidate(
            lro,
            &dir,
            name.to_owned(),
            parse_offload_file_name(name, prefix).ok_or_else(|| {
                LroError::new(
                    ErrorCode::InvalidArgument,
                    format!("{name:?} is not a cursor of resources/list"),
                )
            })?,
            now,
        )),
    };
    lro.check_output_dir(&dir)?;
    let entries = match lro.host().list_dir(&dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => {
            return Err(LroError::from_io(
                &err,
                &format!("cannot list {}", dir.display()),
            ));
        }
    };
    let mut files: Vec<Candidate> = entries
        .into_iter()
        .filter(|entry| entry.kind == EntryKind::File)
        .filter_map(|entry| {
            let parsed = parse_offload_file_name(&entry.name, prefix)?;
            Some(candidate(lro, &dir, entry.name, parsed, now))
        })
        .filter(|file| !expired(lro, file, now))
        .filter(|file| after.as_ref().is_none_or(|a| file.order() > a.order()))
        .collect();
    files.sort_by(|a, b| a.order().cmp(&b.order()));
    let page_size = page_size.max(1);
    let more = files.len() > page_size;
    files.truncate(page_size);
    let next_cursor = more.then(|| files.last().map(|f| f.name.clone())).flatten();
    let resources = files
        .iter()
        .filter_map(|file| describe_resource(lro, &dir, file))
        .collect();
    Ok(ResourcePage {
        resources,
        next_cursor,
    })
}

/// The resource of one listed file; `None` when it went away meanwhile (a cleanup), when
/// the checked open refuses it (a link, FIFO, hard link or another user's file swapped in
/// after the listing: never waited on, never served, so never listed), or when its name
/// could be another prefix's ([`lro_core::files::is_ambiguous`]) and its header does not
/// confirm it is this prefix's (a page then holds fewer files; its cursor is unchanged).
fn describe_resource<H: Host>(
    lro: &Offloader<H>,
    dir: &Path,
    file: &Candidate,
) -> Option<Resource> {
    let (line, size) = match lro.host().open_file(dir, &file.name) {
        Ok(opened) => (read_first_line(opened.reader), opened.size),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
        Err(err) if lro_core::host::is_refused(&err) => return None,
        Err(_) => (None, None),
    };
    if lro_core::files::is_ambiguous(&lro.config().file_prefix, &file.parsed)
        && line
            .as_deref()
            .map(|line| lro_core::files::owner_of(&file.parsed, line))
            != Some(lro_core::files::Owner::Prefix)
    {
        return None;
    }
    let header = line.as_deref().and_then(header_of);
    let operation = &file.parsed.operation;
    let (title, description) = match &header {
        Some(header) => (
            Some(format!(
                "{operation}: {} {}",
                header.count,
                record_noun(header)
            )),
            Some(describe_header(header)),
        ),
        None => (
            None,
            Some(format!(
                "Offloaded result of {operation} (its header line cannot be read or is not valid)."
            )),
        ),
    };
    Some(Resource {
        uri: uri_for(&file.name),
        name: file.name.clone(),
        title,
        description,
        mime_type: MIME_TYPE.to_owned(),
        size,
    })
}

/// Reads the resource `uri` of `lro`'s output directory: the whole offload file, or its
/// records (`.../records`). Errors: `invalid_argument` (not an LRO URI, or larger than
/// `extract.max_read_bytes`), `path_denied` (no offload file name, a symbolic link, out of
/// the output directory), `not_found` (missing or expired), `invalid_input` (not UTF-8),
/// `io_error`. [`jsonrpc_error_code`] gives each its JSON-RPC code.
pub fn read_resource<H: Host>(lro: &Offloader<H>, uri: &str) -> Result<ReadResourceResult> {
    let config = lro.config();
    let target = parse_uri(uri, &config.file_prefix)?;
    let dir = lro.output_dir();
    lro.check_output_dir(&dir)?;
    let named = dir.join(&target.file_name);
    // A resource is the file itself, opened and checked by the host: a link (even to an
    // offload file), a FIFO, a hard link or another user's file is refused.
    let file = lro_core::extract::safety::resolve_offload_file(
        lro.host(),
        &dir,
        &config.file_prefix,
        &named.to_string_lossy(),
    )?;
    let opened = file.open(lro.host(), uri)?;
    let now = lro.host().now_millis();
    let target_file = candidate(
        lro,
        &dir,
        target.file_name.clone(),
        target.parsed.clone(),
        now,
    );
    if expired(lro, &target_file, now) {
        return Err(LroError::new(
            ErrorCode::NotFound,
            format!("{uri:?} has expired (ttl_seconds = {})", config.ttl_seconds),
        ));
    }
    let limit = config.extract.max_read_bytes;
    // Sized once from the size the host learnt (growing by doubling held up to twice the file
    // at the last step); a file known to be too large is not read at all.
    let too_large = || {
        LroError::new(
            ErrorCode::InvalidArgument,
            format!(
                "{uri:?} is larger than extract.max_read_bytes ({limit}); read parts of it with lro_extract"
            ),
        )
    };
    let known = opened.size.unwrap_or(0);
    if known > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(known).unwrap_or(0));
    opened
        .reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| LroError::from_io(&e, &format!("cannot read {uri}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    let mut text = String::from_utf8(bytes).map_err(|_| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!("{uri:?} is not UTF-8 text"),
        )
    })?;
    if target.view == View::Records {
        let body = text.find('\n').map_or(text.len(), |i| i + 1);
        text.drain(..body);
    }
    Ok(ReadResourceResult {
        contents: vec![ResourceContents {
            uri: uri.to_owned(),
            mime_type: MIME_TYPE.to_owned(),
            text,
        }],
    })
}

/// The first line of an offload file (bounded: [`lro_core::files::MAX_HEADER_BYTES`], so a longer header
/// gives a description from the file name alone); `None` when it cannot be read.
fn read_first_line(reader: Box<dyn Read + '_>) -> Option<Vec<u8>> {
    lro_core::files::first_line(&mut BufReader::new(reader)).ok()
}

/// The header a first line holds, checked ([`lro_core::jsonl::checked_header`]: a header
/// whose sections lie describes nothing).
fn header_of(line: &[u8]) -> Option<OffloadHeader> {
    lro_core::jsonl::checked_header(Some(std::str::from_utf8(line).ok()?)).ok()
}

/// What a file's records are called: memories, lines of text, or records.
fn record_noun(header: &OffloadHeader) -> &'static str {
    if header.schema_version != RAW_SCHEMA_VERSION {
        "memories"
    } else if header.format == Format::Text && header.sections.is_empty() {
        "lines"
    } else {
        "records"
    }
}

/// A resource's description, from the file's header.
fn describe_header(header: &OffloadHeader) -> String {
    let mut text = format!(
        "Offloaded result of {}: {} {}, ~{} tokens",
        header.operation,
        header.count,
        record_noun(header),
        header.estimated_tokens
    );
    if header.detail != "raw" {
        text.push_str(&format!(", {} detail", header.detail));
    }
    if let Some(query) = header.query.as_deref().filter(|q| !q.is_empty()) {
        let mut quoted: String = query.chars().take(MAX_QUERY_CHARS).collect();
        if quoted.len() < query.len() {
            quoted.push('…');
        }
        text.push_str(&format!(", query {quoted:?}"));
    }
    let sections = lro_core::descriptor::labels::shown(&header.all_sections());
    if sections.len() > 1 {
        let listed: Vec<String> = sections
            .iter()
            .take(4)
            .map(|s| format!("{} ({})", s.label(), s.count))
            .collect();
        let more = sections.len().saturating_sub(4);
        text.push_str(&format!("; sections: {}", listed.join(", ")));
        if more > 0 {
            text.push_str(&format!(" and {more} more"));
        }
    }
    text.push_str(&format!(
        "; written {}. Line 1 is the LRO header, records follow one per line.",
        header.timestamp
    ));
    text
}
