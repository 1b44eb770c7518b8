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
