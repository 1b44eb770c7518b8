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

use serde::{Deserialize, Serialize};

use crate::error::{LroError, Result};
use crate::events::OffloadEvent;
use crate::files::{
    FUTURE_SKEW_MS, STALE_TEMP_MS, file_time, is_expired_at, parse_offload_file_name,
    parse_temp_file_name,
};
use crate::host::{EntryKind, Host};
use crate::offload::Offloader;
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

impl<H: Host> Offloader<H> {
    /// Deletes expired offload files in the output directory. A missing directory is an
    /// empty report, not an error.
    pub fn cleanup(&self) -> Result<CleanupReport> {
        let dir = self.output_dir();
        self.check_output_dir(&dir)?;
        let entries = match self.host.list_dir(&dir) {
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
        let now = self.host.now_millis();
        let mut expired = Vec::new();
        let mut report = CleanupReport::default();
        let mut temps = Vec::new();
        for entry in entries {
            if entry.kind != EntryKind::File {
                continue;
            }
            let prefix = &self.config.file_prefix;
            if let Some(parsed) = parse_offload_file_name(&entry.name, prefix) {
                let created = self.created_at(&dir, &entry.name, parsed.ulid, now);
                if is_expired_at(created, self.config.ttl_seconds, now) {
                    expired.push((created.unwrap_or(now), entry.name));
                } else {
                    report.kept += 1;
                }
            } else if let Some(parsed) = parse_temp_file_name(&entry.name, prefix) {
                // Not reported as kept: it is no offload file, only the remains of one.
                let created = self.created_at(&dir, &entry.name, parsed.ulid, now);
                if is_expired_at(created, STALE_TEMP_MS / 1000, now) {
                    temps.push((created.unwrap_or(now), entry.name));
                }
            }
        }
        expired.sort();
        temps.sort();
        self.remove_temps(&dir, temps, &mut report);
        for (created, name) in expired {
            let path = dir.join(&name);
            // Re-check right before deleting: the entry must still be a regular file.
            if self.host.entry_kind(&path).ok() != Some(EntryKind::File) {
                continue;
            }
            match self.host.remove_file(&path) {
                Ok(()) => {
                    let removed = RemovedFile {
                        file_path: path.to_string_lossy().into_owned(),
                        created_at: iso8601(created),
                        age_seconds: now.saturating_sub(created) / 1000,
                    };
                    self.emit(OffloadEvent::OffloadFileExpired {
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

    /// The [`file_time`] of the file `name` in `dir` named with `ulid`: its modification
    /// time is asked of the host only when the name is dated ahead of the clock (one `stat`
    /// for such a file, none for the others).
    pub fn created_at(
        &self,
        dir: &std::path::Path,
        name: &str,
        ulid: ulid::Ulid,
        now: u64,
    ) -> Option<u64> {
        let named = ulid.timestamp_ms();
        let modified = if named > now.saturating_add(FUTURE_SKEW_MS) {
            self.host.modified_millis(&dir.join(name)).ok().flatten()
        } else {
            None
        };
        file_time(named, modified, now)
    }

    /// Removes the temporary files of writes that never finished. They are no offload
    /// files, so no event and no entry in `removed`; a failure is reported like any other.
    fn remove_temps(
        &self,
        dir: &std::path::Path,
        temps: Vec<(u64, String)>,
        report: &mut CleanupReport,
    ) {
        for (_, name) in temps {
            let path = dir.join(&name);
            if self.host.entry_kind(&path).ok() != Some(EntryKind::File) {
                continue;
            }
            match self.host.remove_file(&path) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => report.errors.push(format!("{}: {err}", path.display())),
            }
        }
    }
}
