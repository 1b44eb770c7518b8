//! Offload file names: `{prefix}-{operation}-{ulid}.jsonl`.

use ulid::Ulid;

/// The parts of an offload file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadFileName {
    /// The operation that produced the file.
    pub operation: String,
    /// Its ULID; the timestamp part is the file's `created_at`.
    pub ulid: Ulid,
}

/// How far ahead of the clock a file's ULID time may lie (clock skew between replicas that
/// share a directory) before the file counts as expired: a name with a future time was not
/// written by this clock's LRO, and must neither sort first among resources nor outlive
/// every cleanup.
pub const FUTURE_SKEW_MS: u64 = 60_000;

/// How old (by its ULID time) a temporary file of an unfinished write must be before cleanup
/// removes it: a write that was killed (`kill -9`, a crash) leaves one behind, and no write
/// takes an hour.
pub const STALE_TEMP_MS: u64 = 3_600_000;

/// Whether a file created at `created_ms` has expired at `now_ms` with `ttl_seconds`: its
/// time to live has passed, or its time lies more than [`FUTURE_SKEW_MS`] in the future.
pub fn is_expired(created_ms: u64, ttl_seconds: u64, now_ms: u64) -> bool {
    created_ms.saturating_add(ttl_seconds.saturating_mul(1000)) <= now_ms
        || created_ms > now_ms.saturating_add(FUTURE_SKEW_MS)
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
