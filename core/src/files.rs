//! Offload file names (`{prefix}-{operation}-{ulid}.jsonl`) and the resource URIs that name
//! the same files (`lro://offloads/{file name}`, `.../records` for the records alone).
//!
//! The URI is how a client without a shell names an offload file: extraction takes it
//! wherever it takes a path ([`crate::extract::safety`]), the descriptor gives it as
//! `resource_uri`, and the MCP surfaces serve it.
//!
//! ```
//! use lro_core::files::{View, parse_uri, uri_for_path};
//! let uri = uri_for_path("/tmp/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl");
//! assert_eq!(uri, "lro://offloads/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl");
//! let parsed = parse_uri(&format!("{uri}/records"), "atlatl").unwrap();
//! assert_eq!((parsed.parsed.operation.as_str(), parsed.view), ("recall", View::Records));
//! assert!(parse_uri("lro://offloads/../etc/passwd", "atlatl").is_err());
//! ```

use serde_json::{Value, json};
use ulid::Ulid;

use crate::descriptor::NOMINAL_PATH_BYTES;
use crate::error::{ErrorCode, LroError, Result};

/// The parts of an offload file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadFileName {
    /// The operation that produced the file.
    pub operation: String,
    /// Its ULID; the timestamp part is the file's `created_at`.
    pub ulid: Ulid,
}

/// How far ahead of the clock a file's ULID time may lie (clock skew between replicas that
/// share a directory) and still be the file's time. Past it, the name is not trusted: the file
/// is judged by its modification time instead ([`file_time`]).
pub const FUTURE_SKEW_MS: u64 = 60_000;

/// How old (by its ULID time) a temporary file of an unfinished write must be before cleanup
/// removes it: a write that was killed (`kill -9`, a crash) leaves one behind, and no write
/// takes an hour.
pub const STALE_TEMP_MS: u64 = 3_600_000;

/// The time a file counts as created at, for its time to live and its place in listings:
/// the time in its name, unless that lies more than [`FUTURE_SKEW_MS`] ahead of `now_ms`.
/// Then the name was written by a clock far ahead of this one (a replica sharing the
/// directory) or by hand, and the file is judged by `modified_ms`, its modification time (the
/// file system's clock, one for every replica), when the host knows it and it is not itself
/// ahead. `None` when there is no time to trust (no modification time, or one in the future
/// too): the file counts as expired, so a planted far-future name is never listed first and
/// never outlives cleanup.
///
/// ```
/// use lro_core::files::file_time;
/// let now = 1_000_000_000;
/// assert_eq!(file_time(now - 5, None, now), Some(now - 5));
/// assert_eq!(file_time(now + 120_000, Some(now - 7), now), Some(now - 7));
/// assert_eq!(file_time(now + 120_000, None, now), None);
/// assert_eq!(file_time(now + 120_000, Some(now + 120_000), now), None);
/// ```
pub fn file_time(name_ms: u64, modified_ms: Option<u64>, now_ms: u64) -> Option<u64> {
    let limit = now_ms.saturating_add(FUTURE_SKEW_MS);
    if name_ms <= limit {
        return Some(name_ms);
    }
    modified_ms.filter(|&modified| modified <= limit)
}

/// Whether a file of [`file_time`] `created` has expired at `now_ms` with `ttl_seconds`:
/// its time to live has passed, or it has no time to trust.
pub fn is_expired_at(created: Option<u64>, ttl_seconds: u64, now_ms: u64) -> bool {
    created.is_none_or(|created| created.saturating_add(ttl_seconds.saturating_mul(1000)) <= now_ms)
}

/// Whether a file named with the time `created_ms`, its modification time unknown, has
/// expired at `now_ms` with `ttl_seconds` (a name more than [`FUTURE_SKEW_MS`] ahead has).
pub fn is_expired(created_ms: u64, ttl_seconds: u64, now_ms: u64) -> bool {
    is_expired_at(file_time(created_ms, None, now_ms), ttl_seconds, now_ms)
}

/// Parses `name` as an offload file of `prefix`; `None` for anything else (including the
/// temporary names used while writing, and a ULID not written as LRO writes it: 26
/// upper-case Crockford characters, so `parse(name)` then re-encoding gives `name` back).
///
/// ```
/// use lro_core::files::parse_offload_file_name;
/// let f = parse_offload_file_name("atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl", "atlatl").unwrap();
/// assert_eq!(f.operation, "recall");
/// assert!(parse_offload_file_name("atlatl-recall-x.jsonl", "atlatl").is_none());
/// assert!(parse_offload_file_name("atlatl-recall-01jh5x3q7y0000000000000000.jsonl", "atlatl").is_none());
/// assert!(parse_offload_file_name("other-recall-01JH5X3Q7Y0000000000000000.jsonl", "atlatl").is_none());
/// ```
pub fn parse_offload_file_name(name: &str, prefix: &str) -> Option<OffloadFileName> {
    let rest = name
        .strip_prefix(prefix)?
        .strip_prefix('-')?
        .strip_suffix(".jsonl")?;
    let (operation, ulid) = rest.rsplit_once('-')?;
    if ulid.len() != 26 || !crate::config::is_safe_name(operation) {
        return None;
    }
    let parsed = Ulid::from_string(ulid).ok()?;
    if parsed.to_string() != ulid {
        return None;
    }
    Some(OffloadFileName {
        operation: operation.to_owned(),
        ulid: parsed,
    })
}

/// The longest first line read to tell whose a file is ([`owner_of`]) or to describe it.
pub const MAX_HEADER_BYTES: u64 = 1 << 20;

/// Whether the name of `parsed` (read as a file of `prefix`) could also be another prefix's
/// file: prefixes and operations may both hold `-`, so `team-a-data-{ulid}.jsonl` is prefix
/// `team`'s operation `a-data` or prefix `team-a`'s operation `data`. Only when neither the
/// prefix nor the operation holds a `-` does the name alone tell (the one `-` before the
/// ULID's is then where the prefix ends); otherwise the file's header says
/// ([`owner_of`]).
///
/// ```
/// use lro_core::files::{is_ambiguous, parse_offload_file_name};
/// let name = "team-a-data-01JH5X3Q7Y0000000000000000.jsonl";
/// assert!(is_ambiguous("team", &parse_offload_file_name(name, "team").unwrap()));
/// assert!(is_ambiguous("team-a", &parse_offload_file_name(name, "team-a").unwrap()));
/// let name = "atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl";
/// assert!(!is_ambiguous("atlatl", &parse_offload_file_name(name, "atlatl").unwrap()));
/// ```
pub fn is_ambiguous(prefix: &str, parsed: &OffloadFileName) -> bool {
    prefix.contains('-') || parsed.operation.contains('-')
}

/// Whose a file is, by its first line, when its name alone cannot tell ([`is_ambiguous`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// An LRO header naming the operation the file's name holds after the prefix: the
    /// prefix's file (LRO names a file `{prefix}-{header's operation}-{ulid}.jsonl`).
    Prefix,
    /// An LRO header naming another operation: another prefix's file.
    Other,
    /// No LRO header to tell (none yet in a write's temporary file, or not an LRO file).
    Unknown,
}

/// Whose the file named `parsed` (as a file of some prefix) is, by its `first_line` (read
/// with at most [`MAX_HEADER_BYTES`], its line ending included or not).
///
/// ```
/// use lro_core::files::{Owner, owner_of, parse_offload_file_name};
/// let name = "team-a-data-01JH5X3Q7Y0000000000000000.jsonl";
/// let as_team = parse_offload_file_name(name, "team").unwrap();
/// let header = br#"{"type":"lro_header","operation":"data","count":1}"#;
/// assert_eq!(owner_of(&as_team, header), Owner::Other);
/// let as_team_a = parse_offload_file_name(name, "team-a").unwrap();
/// assert_eq!(owner_of(&as_team_a, header), Owner::Prefix);
/// assert_eq!(owner_of(&as_team_a, br#"{"type":"lro_header","oper"#), Owner::Unknown);
/// ```
pub fn owner_of(parsed: &OffloadFileName, first_line: &[u8]) -> Owner {
    #[derive(serde::Deserialize)]
    struct Named {
        #[serde(rename = "type")]
        header_type: String,
        operation: String,
    }
    match serde_json::from_slice::<Named>(first_line.trim_ascii_end()) {
        Ok(named) if named.header_type == crate::descriptor::HEADER_TYPE => {
            if named.operation == parsed.operation {
                Owner::Prefix
            } else {
                Owner::Other
            }
        }
        _ => Owner::Unknown,
    }
}

/// The first line of `reader`, at most [`MAX_HEADER_BYTES`] of it (with its `\n` when
/// that was read): what [`owner_of`] reads.
pub fn first_line(reader: &mut impl std::io::BufRead) -> std::io::Result<Vec<u8>> {
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    reader.take(MAX_HEADER_BYTES).read_until(b'\n', &mut line)?;
    Ok(line)
}

/// Parses `name` as the temporary file of an unfinished write of an offload file of `prefix`
/// (`{offload file name}.tmp-{n}`, as `StdHost::temp_name` makes it: `n` a decimal `u64`
/// without leading zeros); `None` for anything else.
///
/// ```
/// use lro_core::files::parse_temp_file_name;
/// let f = "atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl.tmp-42";
/// assert_eq!(parse_temp_file_name(f, "atlatl").unwrap().operation, "recall");
/// assert!(parse_temp_file_name("atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl.tmp-042", "atlatl").is_none());
/// assert!(parse_temp_file_name("atlatl-recall-01jh5x3q7y0000000000000000.jsonl.tmp-42", "atlatl").is_none());
/// ```
pub fn parse_temp_file_name(name: &str, prefix: &str) -> Option<OffloadFileName> {
    let (file, n) = name.rsplit_once(".tmp-")?;
    let canonical = n.parse::<u64>().is_ok_and(|v| v.to_string() == n);
    if !canonical {
        return None;
    }
    parse_offload_file_name(file, prefix)
}

/// What every offload resource URI starts with: the part of the `lro:` scheme LRO serves.
pub const URI_PREFIX: &str = "lro://offloads/";

/// Appended to a resource URI, names the records alone (the file without its header line).
pub const RECORDS_SUFFIX: &str = "/records";

/// The media type of an offload file. JSON Lines has no IANA registration; `application/jsonl`
/// is the type its own documentation (jsonlines.org) suggests and the one OpenAPI's registry
/// lists, and it names the file's extension. Not `application/json-seq` (RFC 7464 records
/// start with an RS byte) nor `application/x-ndjson` (an unregistered `x-` alias).
pub const MIME_TYPE: &str = "application/jsonl";

/// What a resource URI reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The file as written: the header line, then the records.
    File,
    /// The records alone, without the header line.
    Records,
}

/// A parsed offload resource URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadUri {
    /// The offload file's name (`atlatl-recall-{ulid}.jsonl`).
    pub file_name: String,
    /// Its parts.
    pub parsed: OffloadFileName,
    /// The whole file or its records.
    pub view: View,
}

/// Whether `uri` lies in the space LRO serves (`lro://offloads/...`), whether it then names
/// an offload file or not: such a URI is answered by LRO, never passed on to another server.
/// The scheme and the authority are compared without regard to ASCII case (RFC 3986, 3.1 and
/// 3.2.2: both are case-insensitive, `LRO://Offloads/` is the same space); the file name,
/// a path, keeps its case.
pub fn is_offload_uri(uri: &str) -> bool {
    strip_uri_prefix(uri).is_some()
}

/// What follows `lro://offloads/` in `uri`, matched as [`is_offload_uri`] does.
fn strip_uri_prefix(uri: &str) -> Option<&str> {
    let head = uri.get(..URI_PREFIX.len())?;
    head.eq_ignore_ascii_case(URI_PREFIX)
        .then(|| &uri[URI_PREFIX.len()..])
}

/// Parses an offload resource URI for files of `prefix`: `invalid_argument` for a URI
/// outside `lro://offloads/`, `path_denied` for anything there that is not an offload file
/// name (a `..`, a slash, an escape, another prefix, a query string).
pub fn parse_uri(uri: &str, prefix: &str) -> Result<OffloadUri> {
    let Some(rest) = strip_uri_prefix(uri) else {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            format!("{uri:?} is not an LRO resource URI ({URI_PREFIX}FILE)"),
        ));
    };
    let (file_name, view) = match rest.strip_suffix(RECORDS_SUFFIX) {
        Some(name) => (name, View::Records),
        None => (rest, View::File),
    };
    let parsed = parse_offload_file_name(file_name, prefix).ok_or_else(|| {
        LroError::new(
            ErrorCode::PathDenied,
            format!(
                "{uri:?} names no offload file (expected {URI_PREFIX}{prefix}-OPERATION-ULID.jsonl)"
            ),
        )
    })?;
    Ok(OffloadUri {
        file_name: file_name.to_owned(),
        parsed,
        view,
    })
}

/// The resource URI of the offload file named `file_name`.
pub fn uri_for(file_name: &str) -> String {
    format!("{URI_PREFIX}{file_name}")
}

/// The resource URI of the offload file at `file_path` (a path or an `s3://` object URI):
/// its file name under `lro://offloads/`, as the descriptor's `resource_uri` gives it.
pub fn uri_for_path(file_path: &str) -> String {
    uri_for(file_name_of(file_path))
}

/// The file name a path or object URI ends with.
fn file_name_of(file_path: &str) -> &str {
    file_path.rsplit(['/', '\\']).next().unwrap_or(file_path)
}

/// The `resource_link` content block of an offloaded result whose file is `file_path` (the
/// descriptor's): what a client without a shell attaches or reads with `resources/read`.
/// Kept small (no description: the descriptor beside it has the summary), since it counts
/// towards what the model receives. Defined beside the URI because the descriptor's budget
/// sets its bytes aside when `mcp.resource_link` is on.
pub fn resource_link(file_path: &str) -> Value {
    let name = file_name_of(file_path);
    json!({"type": "resource_link", "uri": uri_for(name), "name": name, "mimeType": MIME_TYPE})
}

/// The resource link of a file name of [`NOMINAL_PATH_BYTES`], as compact JSON: what the
/// descriptor's budget sets aside for the link (see `describe`).
pub(crate) fn nominal_link_text() -> String {
    resource_link(&"p".repeat(NOMINAL_PATH_BYTES)).to_string()
}
