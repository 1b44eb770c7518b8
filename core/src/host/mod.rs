//! The host: every file, clock and randomness access the core makes goes through [`Host`].
//!
//! The core never touches `std::fs`, the system clock or the OS random source itself, so the
//! same code runs natively ([`StdHost`]), in WebAssembly (a JS- or WASI-backed host), in
//! tests ([`MemoryHost`]), and over an object store (the `lro-host-s3` crate, whose paths are
//! URIs such as `s3://bucket/prefix/atlatl-recall-ULID.jsonl`; see [`is_uri`]).

mod memory;
#[cfg(feature = "std-host")]
mod std_checked;
#[cfg(feature = "std-host")]
mod std_host;

use std::io::{self, Read};
use std::path::{Path, PathBuf};

pub use memory::MemoryHost;
#[cfg(feature = "std-host")]
pub use std_host::StdHost;

/// What a directory entry is, seen without following symbolic links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed by cleanup or extraction).
    Symlink,
    /// Anything else (socket, device, ...).
    Other,
}

/// One entry of [`Host::list_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's file name (no directory part).
    pub name: String,
    /// Its kind, not following symbolic links.
    pub kind: EntryKind,
}

/// An offload file opened by [`Host::open_file`]: read it only through `reader`.
pub struct OpenFile<'a> {
    /// The file's bytes, streamed.
    pub reader: Box<dyn Read + 'a>,
    /// Its size in bytes, when the host learnt it opening the file (MCP resources list it).
    pub size: Option<u64>,
}

impl std::fmt::Debug for OpenFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenFile")
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// Why a host refused a file it opened (or a name it would not open): a symbolic link, a
/// FIFO, a device, a directory, a hard link, a file of another user. The core answers
/// `path_denied` for it ([`is_refused`]).
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The error a host gives for a file it will not serve (see [`Host::open_file`]).
pub fn refused(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, Refused(why.into()))
}

/// Whether `err` is a host's refusal ([`refused`]) rather than a failure to read.
pub fn is_refused(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|inner| inner.is::<Refused>())
}

/// The capabilities LRO needs from its environment.
///
/// Implementations must be safe to call from several threads when the host type is shared
/// (bindings wrap it as they need). Paths handed in are absolute: absolute local paths, or
/// URIs ([`is_uri`]) for a host that serves a scheme. The core joins file names to them and
/// compares their parents, so a URI host reads `s3://bucket/a/b` as the directory `a` of
/// `bucket` holding `b`, and answers for a path of another scheme as for a missing file.
pub trait Host {
    /// Writes the concatenation of `parts` to `path` atomically: readers see the whole file or nothing.
    /// New files are private to the user (mode 0600 where the platform has modes), and an
    /// existing file at `path` is never silently overwritten by a different offload.
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()>;

    /// Creates `dir` and any missing parents; directories it creates are 0700.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;

    /// Opens the offload file `name` (one file name, no `/`) directly inside `dir` for
    /// streaming reads, checked after opening: the only way the core reads an offload file.
    ///
    /// What a host with a filesystem must guarantee (`StdHost` on Unix does all of it):
    /// - the file is opened relative to a handle on `dir` (`openat`), so it is inside `dir`
    ///   by construction; a final symbolic link is never followed (`O_NOFOLLOW`);
    /// - opening never waits (`O_NONBLOCK`): a FIFO or device is refused, not waited on;
    /// - the opened handle (not the name, which may have been swapped meanwhile) must be a
    ///   regular file with exactly one link, owned by this user;
    /// - everything is then read through that handle.
    ///
    /// A file that fails a check is refused with [`refused`] (the core's `path_denied`); a
    /// missing one is `NotFound`. Hosts without links, FIFOs or users (memory, object stores,
    /// a JS callback) check what they can and document the rest.
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>>;

    /// Lists the entries of `dir` (any order).
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>>;

    /// Removes the file at `path` (never a directory).
    fn remove_file(&self, path: &Path) -> io::Result<()>;

    /// Resolves `path` to an absolute path with every symbolic link and `..` resolved.
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;

    /// The kind of `path`, not following a final symbolic link.
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind>;

    /// Why users other than this one (and root) can change the entries of `dir`, `None`
    /// when they cannot: it is owned by another user, or group/other-writable without being
    /// a sticky directory of this user; or one of its ancestors is owned by another user
    /// (not root), or group/other-writable without the sticky bit (they could rename `dir`
    /// away and put theirs in its place). Only a host with users has an answer; the default
    /// (memory, object stores, JS) is `None`. The core refuses such an output directory
    /// unless `allow_shared_dir` is set.
    fn shared_dir(&self, dir: &Path) -> io::Result<Option<String>> {
        let _ = dir;
        Ok(None)
    }

    /// The modification time of the file at `path` (not following a final symbolic link),
    /// milliseconds since the Unix epoch; `None` when the host keeps none (the default:
    /// memory, object stores, JS). Asked only for a file whose name is dated ahead of the
    /// clock ([`crate::files::file_time`]): with `None` such a file counts as expired.
    fn modified_millis(&self, path: &Path) -> io::Result<Option<u64>> {
        let _ = path;
        Ok(None)
    }

    /// Milliseconds since the Unix epoch.
    fn now_millis(&self) -> u64;

    /// Fills `buf` with unpredictable bytes (ULIDs).
    fn fill_random(&self, buf: &mut [u8]);

    /// The directory used when `output_dir` is empty: private to the user where the
    /// platform has users (`StdHost`: `<temp dir>/lro-<uid>`).
    fn temp_dir(&self) -> PathBuf;
}

/// Whether `path` is a URI (`scheme://...`, the scheme a letter then letters, digits, `+`,
/// `-` or `.`): an object in a store, absolute by definition. A local file is never named
/// so by LRO (a relative path starting with `s3:` would be a directory named `s3:`, which
/// extraction refuses either way: it is not directly inside the output directory).
///
/// ```
/// use std::path::Path;
/// use lro_core::host::is_uri;
/// assert!(is_uri(Path::new("s3://bucket/prefix/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl")));
/// assert!(!is_uri(Path::new("/tmp/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl")));
/// assert!(!is_uri(Path::new("3s://x")));
/// ```
pub fn is_uri(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    let Some((scheme, _)) = text.split_once("://") else {
        return false;
    };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
}

/// A host that hands every call to another: implement this and [`Host`] comes with it,
/// every method forwarded (the optional ones too, so the target's own `shared_dir` and
/// `modified_millis` answer, not the defaults). References, boxes and hosts that choose a
/// backend at run time are hosts this way.
///
/// ```
/// use lro_core::host::ForwardingHost;
/// use lro_core::{Host, MemoryHost};
///
/// /// The files of one tenant, kept in memory.
/// struct Tenant {
///     files: MemoryHost,
/// }
///
/// impl ForwardingHost for Tenant {
///     type Target = MemoryHost;
///     fn target(&self) -> &MemoryHost {
///         &self.files
///     }
/// }
///
/// let tenant = Tenant { files: MemoryHost::new() };
/// assert_eq!(tenant.temp_dir(), tenant.files.temp_dir());
/// ```
pub trait ForwardingHost {
    /// The host the calls go to.
    type Target: Host + ?Sized;
    /// The host the calls go to.
    fn target(&self) -> &Self::Target;
}

impl<T: ForwardingHost> Host for T {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        self.target().write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.target().create_dir_all(dir)
    }
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        self.target().open_file(dir, name)
    }
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.target().list_dir(dir)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.target().remove_file(path)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.target().canonicalize(path)
    }
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        self.target().entry_kind(path)
    }
    fn shared_dir(&self, dir: &Path) -> io::Result<Option<String>> {
        self.target().shared_dir(dir)
    }
    fn modified_millis(&self, path: &Path) -> io::Result<Option<u64>> {
        self.target().modified_millis(path)
    }
    fn now_millis(&self) -> u64 {
        self.target().now_millis()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        self.target().fill_random(buf);
    }
    fn temp_dir(&self) -> PathBuf {
        self.target().temp_dir()
    }
}

impl<H: Host + ?Sized> ForwardingHost for &H {
    type Target = H;
    fn target(&self) -> &H {
        self
    }
}

impl<H: Host + ?Sized> ForwardingHost for Box<H> {
    type Target = H;
    fn target(&self) -> &H {
        self
    }
}
