//! Which files extraction may read: offload files directly inside the output directory.
//!
//! An MCP resource URI (`lro://offloads/{file name}`, see [`crate::resources`]) is taken
//! as that file name inside the output directory, then checked like any path. The checks, in
//! order (paper Appendix E):
//! 1. a path with a `..` component is refused outright, whatever it resolves to;
//! 2. a relative path is taken relative to the output directory (an absolute path or a URI
//!    such as `s3://bucket/prefix/...` is taken as it is);
//! 3. the file name must match the offload pattern `{prefix}-{operation}-{ulid}.jsonl`;
//! 4. the path must lie inside the output directory as written or as resolved (so a
//!    descriptor path through a symlinked temp dir still works), else it is refused without
//!    looking at the file: a missing file elsewhere is `path_denied`, not `not_found`;
//! 5. the file is resolved with every symbolic link followed: the result must be a regular
//!    file, directly inside the resolved output directory, with an offload file name.
//!
//! A symbolic link inside the directory that points to an offload file inside it is allowed;
//! one pointing anywhere else is refused. The check and the open are two host calls, so a
//! file swapped in between could escape; only someone who can write the (0700) output
//! directory can do that.

use std::path::{Component, Path, PathBuf};

use crate::error::{ErrorCode, LroError, Result};
use crate::files::parse_offload_file_name;
use crate::host::{EntryKind, Host, is_uri};

fn denied(file_path: &str, why: &str) -> LroError {
    LroError::new(
        ErrorCode::PathDenied,
        format!("{file_path:?} cannot be read: {why}"),
    )
}

fn is_offload_name(path: &Path, prefix: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| parse_offload_file_name(n, prefix).is_some())
}

/// Resolves `file_path` (a path, or an offload resource URI) to the canonical path of an
/// offload file inside `output_dir`, or fails with `path_denied` / `not_found` /
/// `invalid_argument` (empty path).
pub fn resolve_offload_file<H: Host + ?Sized>(
    host: &H,
    output_dir: &Path,
    prefix: &str,
    file_path: &str,
) -> Result<PathBuf> {
    if crate::resources::is_offload_uri(file_path) {
        let uri = crate::resources::parse_uri(file_path, prefix)?;
        let named = output_dir.join(&uri.file_name);
        return resolve_offload_file(host, output_dir, prefix, &named.to_string_lossy());
    }
    if file_path.is_empty() {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            "file_path is empty",
        ));
    }
    if file_path.contains('\0') {
        return Err(denied(file_path, "the path contains a NUL character"));
    }
    let given = Path::new(file_path);
    if given
        .components()
        .any(|c| matches!(c, Component::ParentDir))
    {
        return Err(denied(file_path, "paths with '..' are not accepted"));
    }
    let given = if given.is_absolute() || is_uri(given) {
        given.to_path_buf()
    } else {
        output_dir.join(given)
    };
    if !is_offload_name(&given, prefix) {
        return Err(denied(
            file_path,
            &format!("not an offload file (expected {prefix}-OPERATION-ULID.jsonl)"),
        ));
    }
    let dir = host.canonicalize(output_dir).map_err(|e| {
        LroError::from_io(&e, &format!("output directory {}", output_dir.display()))
    })?;
    let inside = |p: &Path| {
        p.parent()
            .is_some_and(|parent| parent == output_dir || parent == dir)
    };
    if !inside(&given) {
        return Err(denied(
            file_path,
            &format!("not inside the output directory {}", dir.display()),
        ));
    }
    let real = host
        .canonicalize(&given)
        .map_err(|e| LroError::from_io(&e, &format!("cannot open {file_path}")))?;
    if real.parent() != Some(dir.as_path()) {
        return Err(denied(
            file_path,
            "it resolves (through a symbolic link) outside the output directory",
        ));
    }
    if !is_offload_name(&real, prefix) {
        return Err(denied(
            file_path,
            "it resolves (through a symbolic link) to a file that is not an offload file",
        ));
    }
    match host
        .entry_kind(&real)
        .map_err(|e| LroError::from_io(&e, &format!("cannot open {file_path}")))?
    {
        EntryKind::File => Ok(real),
        _ => Err(denied(file_path, "not a regular file")),
    }
}
