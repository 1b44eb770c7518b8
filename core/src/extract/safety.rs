//! Which files extraction may read: offload files directly inside the output directory.
//!
//! An MCP resource URI (`lro://offloads/{file name}`, see [`crate::files`]) is taken
//! as that file name inside the output directory, then checked like any path. The checks, in
//! order (paper Appendix E):
//! 1. a path with a `..` component is refused outright, whatever it resolves to;
//! 2. a relative path is taken relative to the output directory (an absolute path or a URI
//!    such as `s3://bucket/prefix/...` is taken as it is);
//! 3. the file name must match the offload pattern `{prefix}-{operation}-{ulid}.jsonl`;
//! 4. the path must lie inside the output directory as written or as resolved (so a
//!    descriptor path through a symlinked temp dir still works), else it is refused without
//!    looking at the file: a missing file elsewhere is `path_denied`, not `not_found`;
//! 5. the file is then opened by its name relative to the (resolved) output directory with
//!    [`Host::open_file`], which follows no symbolic link, never waits on a FIFO and checks
//!    the opened handle (a regular file, one link, owned by this user); everything is read
//!    through that handle. A name swapped between these steps yields the checked file or a
//!    refusal, never another file.
//!
//! A symbolic link inside the directory is refused even when it points to an offload file
//! there: following it would be a second lookup by name, the race this design removes.
//!
//! A name that could also be another prefix's ([`crate::files::is_ambiguous`]:
//! `team-a-data-{ulid}.jsonl` read with prefix `team`) is this prefix's file only when its
//! header names the operation the name holds after the prefix ([`crate::files::owner_of`],
//! read through the opened handle); otherwise it is `path_denied`, as a name of another
//! prefix is.

use std::path::{Component, Path, PathBuf};

use crate::error::{ErrorCode, LroError, Result};
use crate::files::{
    OffloadFileName, Owner, first_line, is_ambiguous, owner_of, parse_offload_file_name,
};
use crate::host::{Host, OpenFile, is_uri};

fn denied(file_path: &str, why: &str) -> LroError {
    LroError::new(
        ErrorCode::PathDenied,
        format!("{file_path:?} cannot be read: {why}"),
    )
}

/// The file name of `path` when it is an offload file name of `prefix`, and its parts.
fn offload_name<'p>(path: &'p Path, prefix: &str) -> Option<(&'p str, OffloadFileName)> {
    let name = path.file_name()?.to_str()?;
    Some((name, parse_offload_file_name(name, prefix)?))
}

/// An offload file named directly inside the output directory, not opened yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadFile {
    /// The output directory, resolved.
    pub dir: PathBuf,
    /// The file's name in it (an offload file name).
    pub name: String,
    /// Its parts, when the name could also be another prefix's: its header must confirm
    /// them when it is opened.
    confirm: Option<OffloadFileName>,
}

impl OffloadFile {
    /// Its path, as descriptors and jq commands name it.
    pub fn path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }

    /// Opens it with the host's checked open; `shown` names it in errors. A name that could
    /// be another prefix's is `path_denied` unless the file's header confirms it.
    pub fn open<'h, H: Host + ?Sized>(&self, host: &'h H, shown: &str) -> Result<OpenFile<'h>> {
        let cannot = |e: &std::io::Error| LroError::from_io(e, &format!("cannot open {shown}"));
        let opened = host
            .open_file(&self.dir, &self.name)
            .map_err(|e| cannot(&e))?;
        let Some(parsed) = &self.confirm else {
            return Ok(opened);
        };
        let mut rest = std::io::BufReader::new(opened.reader);
        let line = first_line(&mut rest).map_err(|e| cannot(&e))?;
        if owner_of(parsed, &line) != Owner::Prefix {
            return Err(denied(
                shown,
                &format!(
                    "not an offload file of this prefix (its header does not name the \
                     operation {:?})",
                    parsed.operation
                ),
            ));
        }
        Ok(OpenFile {
            reader: Box::new(std::io::Read::chain(std::io::Cursor::new(line), rest)),
            size: opened.size,
        })
    }
}

/// Resolves `file_path` (a path, or an offload resource URI) to an offload file directly
/// inside `output_dir` (checks 1 to 4), or fails with `path_denied` / `invalid_argument`
/// (empty path). Nothing is opened: [`OffloadFile::open`] does that, checked.
pub fn resolve_offload_file<H: Host + ?Sized>(
    host: &H,
    output_dir: &Path,
    prefix: &str,
    file_path: &str,
) -> Result<OffloadFile> {
    if crate::files::is_offload_uri(file_path) {
        let uri = crate::files::parse_uri(file_path, prefix)?;
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
    let Some((name, parsed)) = offload_name(&given, prefix) else {
        return Err(denied(
            file_path,
            &format!("not an offload file (expected {prefix}-OPERATION-ULID.jsonl)"),
        ));
    };
    let dir = host.canonicalize(output_dir).map_err(|e| {
        LroError::from_io(&e, &format!("output directory {}", output_dir.display()))
    })?;
    let inside = given
        .parent()
        .is_some_and(|parent| parent == output_dir || parent == dir);
    if !inside {
        return Err(denied(
            file_path,
            &format!("not inside the output directory {}", dir.display()),
        ));
    }
    Ok(OffloadFile {
        dir,
        name: name.to_owned(),
        confirm: is_ambiguous(prefix, &parsed).then_some(parsed),
    })
}
