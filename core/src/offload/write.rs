//! Writing the offload file: its name (prefix, operation, ULID), the checked output
//! directory (made and resolved once, then reused), the header line and the records; then
//! the descriptor, or the inline fallback when the write failed.

use std::path::{Path, PathBuf};

use crate::descriptor::{self, MIF_SCHEMA_VERSION, OffloadHeader, RAW_SCHEMA_VERSION};
use crate::events::OffloadEvent;
use crate::host::Host;
use crate::jsonl;
use crate::offload::descriptor::describe;
use crate::offload::fallback::truncated;
use crate::offload::outcome::Outcome;
use crate::offload::prepared::Prepared;
use crate::offload::request::OffloadRequest;
use crate::offloader::Offloader;
use crate::payload::RecordKind;
use crate::time::iso8601;

/// Writes the file and builds the descriptor; on a write failure, the truncated fallback.
pub(crate) fn materialize<H: Host>(
    lro: &Offloader<H>,
    prepared: Prepared<'_>,
    request: &OffloadRequest,
) -> Outcome {
    let (tokens, count) = (prepared.tokens, prepared.count());
    let now = lro.host.now_millis();
    let ulid = lro
        .ulids
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .next(&lro.host);
    let dir = lro.output_dir();
    let file_name = format!(
        "{}-{}-{}.jsonl",
        lro.config.file_prefix, request.operation, ulid
    );
    let header = OffloadHeader {
        header_type: descriptor::HEADER_TYPE.to_owned(),
        operation: request.operation.clone(),
        query: request.query.clone(),
        count,
        schema_version: match prepared.kind {
            RecordKind::Mif(_) => MIF_SCHEMA_VERSION,
            RecordKind::Raw => RAW_SCHEMA_VERSION,
        }
        .to_owned(),
        timestamp: iso8601(now),
        estimated_tokens: tokens,
        estimate: prepared.estimate.clone(),
        detail: prepared.kind.detail_name().to_owned(),
        format: prepared.format,
        sections: prepared.sections.clone(),
        envelope: (!prepared.envelope.is_empty()).then(|| prepared.envelope.clone()),
        duplicate_keys: prepared.duplicate_keys,
    };
    let header_bytes = jsonl::header_line(&header);
    let written = write_file(
        lro,
        &dir,
        &file_name,
        &[&header_bytes, &prepared.body.bytes],
    );
    match written {
        Ok(path) => {
            let file_path = path_string(&path);
            lro.emit(OffloadEvent::OffloadCreated {
                file_path: file_path.clone(),
                operation: request.operation.clone(),
                count,
                estimated_tokens: tokens,
                bytes: header_bytes.len() + prepared.body.bytes.len(),
                created_at: header.timestamp.clone(),
            });
            Outcome::Offloaded(Box::new(describe(lro, &prepared, request, file_path)))
        }
        Err(err) => {
            let file_path = path_string(&dir.join(&file_name));
            let fallback = truncated(lro, &prepared, request, &err.to_string());
            lro.emit(OffloadEvent::OffloadWriteFailed {
                file_path,
                operation: request.operation.clone(),
                error: err.to_string(),
                count,
                returned: fallback.count,
            });
            Outcome::Inline(fallback)
        }
    }
}

/// Writes `parts` as the file `name` in `dir`, made if missing; returns the file's path
/// with symlinks in `dir` resolved, so the descriptor names the real file.
///
/// The directory is checked before every write, not only when first used: a long-running
/// proxy outlives any one look at it, and the check (a `stat` of the directory and of each
/// ancestor) costs microseconds against the file written. A directory that fails it
/// fails the write, so the offload falls back inline, saying why. The directory is made
/// and resolved once and then reused; should it disappear, it is made and resolved again.
fn write_file<H: Host>(
    lro: &Offloader<H>,
    dir: &Path,
    name: &str,
    parts: &[&[u8]],
) -> std::io::Result<PathBuf> {
    let lock = || {
        lro.resolved_dir
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let check = || {
        lro.check_output_dir(dir).map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.message().to_owned())
        })
    };
    let known = lock()
        .as_ref()
        .filter(|(configured, _)| configured == dir)
        .map(|(_, resolved)| resolved.join(name));
    if let Some(path) = known {
        check()?;
        match lro.host.write_atomic(&path, parts) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            written => return written.map(|()| path),
        }
    }
    lro.host.create_dir_all(dir)?;
    check()?;
    let resolved = lro
        .host
        .canonicalize(dir)
        .unwrap_or_else(|_| dir.to_path_buf());
    let path = resolved.join(name);
    lro.host.write_atomic(&path, parts)?;
    *lock() = Some((dir.to_path_buf(), resolved));
    Ok(path)
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
