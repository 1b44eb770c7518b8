//! [`WasiHost`]: the core's `StdHost` with the two gaps of std over WASI filled in.
//!
//! - `std::env::temp_dir()` is not available on WASI, so the temp dir is `$TMPDIR`, else `/tmp`
//!   (the host must preopen it, or the caller sets `output_dir`).
//! - `std::fs::canonicalize` is unsupported on WASI (there is no `realpath`), so paths are
//!   resolved here: `.` and `..` lexically, symbolic links with `read_link`, as realpath does.
//!   The core relies on it to keep extraction inside `output_dir` and to name the real file.
//!   The directories above a preopen cannot be inspected (WASI answers `ENOTCAPABLE`): they
//!   are taken as they are named, since the host already resolved them when it preopened.

use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use lro_core::{DirEntry, EntryKind, Host, StdHost};

/// Symbolic links followed before giving up, like Linux's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// WASI's `ENOTCAPABLE`: the path lies outside every preopened directory.
const ENOTCAPABLE: i32 = 76;

/// The component's host.
#[derive(Debug, Clone, Copy, Default)]
pub struct WasiHost;

/// Resolves `path` against the real filesystem, as `realpath(3)` does.
fn realpath(path: &Path) -> io::Result<PathBuf> {
    let mut pending: Vec<PathBuf> = path
        .components()
        .rev()
        .map(|c| PathBuf::from(c.as_os_str()))
        .collect();
    // Relative paths start from the working directory, as with realpath(3) (WASI's is `/`
    // unless the host says otherwise).
    let mut resolved = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
    };
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match part.components().next() {
            None | Some(Component::RootDir | Component::CurDir | Component::Prefix(_)) => continue,
            Some(Component::ParentDir) => {
                resolved.pop();
                continue;
            }
            Some(Component::Normal(_)) => {}
        }
        let candidate = resolved.join(&part);
        let is_symlink = match std::fs::symlink_metadata(&candidate) {
            Ok(metadata) => metadata.file_type().is_symlink(),
            // Outside every preopen (e.g. `/tmp` above a preopened `/tmp/lro`): nothing here
            // can be opened through it, so it stands as named. A path that ends outside the
            // preopens then fails the core's inside-`output_dir` check, or its open.
            Err(err) if err.raw_os_error() == Some(ENOTCAPABLE) => false,
            Err(err) => return Err(err),
        };
        if !is_symlink {
            resolved = candidate;
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Err(io::Error::other("too many levels of symbolic links"));
        }
        let target = std::fs::read_link(&candidate)?;
        if target.is_absolute() {
            resolved = PathBuf::from("/");
        }
        pending.extend(
            target
                .components()
                .rev()
                .map(|c| PathBuf::from(c.as_os_str())),
        );
    }
    Ok(resolved)
}

impl Host for WasiHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        StdHost.write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        StdHost.create_dir_all(dir)
    }
    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + '_>> {
        StdHost.open(path)
    }
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        StdHost.list_dir(dir)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        StdHost.remove_file(path)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        realpath(path)
    }
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        StdHost.entry_kind(path)
    }
    fn now_millis(&self) -> u64 {
        StdHost.now_millis()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        StdHost.fill_random(buf)
    }
    fn temp_dir(&self) -> PathBuf {
        std::env::var_os("TMPDIR")
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
    }
}
