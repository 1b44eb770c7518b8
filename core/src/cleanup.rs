//! Custodial cleanup: delete offload files whose `created_at + ttl` has passed.
//!
//! Only regular files in `output_dir` whose names are offload file names of the configured
//! prefix, exactly as LRO writes them (the ULID upper case), are candidates; `created_at` is
//! read from the ULID in the name. A name dated more than a minute ahead of the clock is
//! judged by the file's modification time instead (a replica whose clock runs ahead wrote it,
//! and its TTL runs from when the file system saw it), and counts as expired when the host
//! knows no such time or that too lies ahead ([`crate::files::file_time`]). The temporary file of a write that
//! never finished (`{offload file name}.tmp-{n}`, left by a process killed mid-write) is
//! removed once its ULID is an hour old. Symbolic links, directories and every other file are
//! left alone, and nothing outside `output_dir` is ever looked at. Several processes may clean one directory at once (replicas sharing a
//! volume): a file another cleanup removed first is neither an error nor reported twice.
//!
//! Another prefix's files are never touched. Prefixes and operations may both hold `-`, so a
//! name of this prefix may also be one of another (`team-a-data-{ulid}.jsonl` is prefix
//! `team`'s operation `a-data` or prefix `team-a`'s operation `data`,
//! [`crate::files::is_ambiguous`]): such a file is this prefix's only when its header, read
//! through the host's checked open (the first line, bounded), names the operation its name
//! holds after this prefix. One that cannot be read, or whose first line is no LRO header,
//! is neither removed nor counted as kept. The temporary file of an unfinished write may
//! have no complete header yet: one whose header names another operation is left alone, one
//! without a header is removed once stale (whichever prefix's write died, it holds nothing
//! anyone can read, and every prefix's cleanup decides the same).

use serde::{Deserialize, Serialize};

use crate::error::{LroError, Result};
use crate::events::OffloadEvent;
use crate::files::{
    OffloadFileName, Owner, STALE_TEMP_MS, first_line, is_ambiguous, is_expired_at, owner_of,
    parse_offload_file_name, parse_temp_file_name,
};
use crate::host::{EntryKind, Host};
use crate::offloader::Offloader;
use crate::time::iso8601;

/// One file cleanup removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovedFile {
    /// Absolute path of the removed file.
    pub file_path: String,
    /// When it was created, ISO 8601.
    pub created_at: String,
    /// Its age when removed, in seconds.
    pub age_seconds: u64,
}

/// What a cleanup pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CleanupReport {
    /// Files removed, oldest first.
    pub removed: Vec<RemovedFile>,
    /// Offload files still within their time-to-live.
    pub kept: usize,
    /// Files that could not be removed, with the reason.
    pub errors: Vec<String>,
}

/// [`Offloader::cleanup`]: deletes expired offload files in the output directory. A
/// missing directory is an empty report, not an error.
pub(crate) fn run<H: Host>(lro: &Offloader<H>) -> Result<CleanupReport> {
    let dir = lro.output_dir();
    lro.check_output_dir(&dir)?;
    let entries = match lro.host.list_dir(&dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(CleanupReport::default());
        }
        Err(err) => {
            return Err(LroError::from_io(
                &err,
                &format!("cannot list {}", dir.display()),
            ));
        }
    };
    let now = lro.host.now_millis();
    let mut expired = Vec::new();
    let mut report = CleanupReport::default();
    let mut temps = Vec::new();
    for entry in entries {
        if entry.kind != EntryKind::File {
            continue;
        }
        let prefix = &lro.config.file_prefix;
        if let Some(parsed) = parse_offload_file_name(&entry.name, prefix) {
            if is_ambiguous(prefix, &parsed)
                && owner(lro, &dir, &entry.name, &parsed) != Some(Owner::Prefix)
            {
                continue;
            }
            let created = lro.created_at(&dir, &entry.name, parsed.ulid, now);
            if is_expired_at(created, lro.config.ttl_seconds, now) {
                expired.push((created.unwrap_or(now), entry.name));
            } else {
                report.kept += 1;
            }
        } else if let Some(parsed) = parse_temp_file_name(&entry.name, prefix) {
            // Not reported as kept: it is no offload file, only the remains of one.
            let created = lro.created_at(&dir, &entry.name, parsed.ulid, now);
            let ours = || {
                !is_ambiguous(prefix, &parsed)
                    || matches!(
                        owner(lro, &dir, &entry.name, &parsed),
                        Some(Owner::Prefix | Owner::Unknown)
                    )
            };
            if is_expired_at(created, STALE_TEMP_MS / 1000, now) && ours() {
                temps.push((created.unwrap_or(now), entry.name));
            }
        }
    }
    expired.sort();
    temps.sort();
    remove_temps(lro, &dir, temps, &mut report);
    for (created, name) in expired {
        let path = dir.join(&name);
        // Re-check right before deleting: the entry must still be a regular file.
        if lro.host.entry_kind(&path).ok() != Some(EntryKind::File) {
            continue;
        }
        match lro.host.remove_file(&path) {
            Ok(()) => {
                let removed = RemovedFile {
                    file_path: path.to_string_lossy().into_owned(),
                    created_at: iso8601(created),
                    age_seconds: now.saturating_sub(created) / 1000,
                };
                lro.emit(OffloadEvent::OffloadFileExpired {
                    file_path: removed.file_path.clone(),
                    created_at: removed.created_at.clone(),
                    age_seconds: removed.age_seconds,
                });
                report.removed.push(removed);
            }
            // Another cleanup (a replica sharing the directory) removed it first.
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => report.errors.push(format!("{}: {err}", path.display())),
        }
    }
    Ok(report)
}

/// Whose the file `name` of `dir` (named `parsed` as this prefix's) is, by its header read
/// through the host's checked open; `None` when it cannot be opened or read (a link, a FIFO,
/// another user's file, gone meanwhile).
fn owner<H: Host>(
    lro: &Offloader<H>,
    dir: &std::path::Path,
    name: &str,
    parsed: &OffloadFileName,
) -> Option<Owner> {
    let opened = lro.host.open_file(dir, name).ok()?;
    let line = first_line(&mut std::io::BufReader::new(opened.reader)).ok()?;
    Some(owner_of(parsed, &line))
}

/// Removes the temporary files of writes that never finished. They are no offload
/// files, so no event and no entry in `removed`; a failure is reported like any other.
fn remove_temps<H: Host>(
    lro: &Offloader<H>,
    dir: &std::path::Path,
    temps: Vec<(u64, String)>,
    report: &mut CleanupReport,
) {
    for (_, name) in temps {
        let path = dir.join(&name);
        if lro.host.entry_kind(&path).ok() != Some(EntryKind::File) {
            continue;
        }
        match lro.host.remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => report.errors.push(format!("{}: {err}", path.display())),
        }
    }
}
