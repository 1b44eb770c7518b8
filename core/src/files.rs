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

/// Parses `name` as an offload file of `prefix`; `None` for anything else (including the
/// temporary names used while writing).
///
/// ```
/// use lro_core::files::parse_offload_file_name;
/// let f = parse_offload_file_name("atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl", "atlatl").unwrap();
/// assert_eq!(f.operation, "recall");
/// assert!(parse_offload_file_name("atlatl-recall-x.jsonl", "atlatl").is_none());
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
    Some(OffloadFileName {
        operation: operation.to_owned(),
        ulid: Ulid::from_string(ulid).ok()?,
    })
}
