//! [`WasiHost`]: the core's `StdHost` with the two gaps of std over WASI filled in.
//!
//! - `std::env::temp_dir()` is not available on WASI, so the temp dir is `$TMPDIR`, else `/tmp`
//!   (the host must preopen it, or the caller sets `output_dir`).
//! - `std::fs::canonicalize` is unsupported on WASI (there is no `realpath`), so paths are
//!   resolved here: `.` and `..` lexically, symbolic links with `read_link`, as realpath does.
//!   The core relies on it to keep extraction inside `output_dir` and to name the real file.
//!   The directories above a preopen cannot be inspected (WASI answers `ENOTCAPABLE`): they
//!   are taken as they are named, since the host already resolved them when it preopened.
//!
//! And one thing std does slowly over WASI: writing the offload file. The wasip1 adapter cuts
//! every write into calls of at most 4 KB to the host (`blocking-write-and-flush`), and a host
//! such as wasmtime runs each on a thread pool: 31 round trips for 200 memories, most of the
//! component's overhead over native. [`WasiHost::write_atomic`] writes each part with one WASI
//! 0.2 `descriptor.write` instead, through the preopened directory that holds the file, and
//! otherwise does what the core's `StdHost` does (an exclusive temp name, then published
//! under its name without ever replacing a file).

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use lro_core::{DirEntry, EntryKind, Host, OpenFile, StdHost};
use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::{DescriptorFlags, DescriptorType, ErrorCode, OpenFlags, PathFlags};

/// Symbolic links followed before giving up, like Linux's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// The most bytes [`create_and_write`] copies to write a file's parts with one call to the
/// host: beyond, the copy costs more than the round trip it saves.
const JOIN_AT_MOST: usize = 1 << 20;

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

/// Opens the offload file `name` in `dir` through the preopened directory that holds it,
/// as `StdHost` does on Unix with `openat`: `open-at` without `symlink-follow` (a final link
/// is refused: WASI answers `loop`), read-only, then the descriptor's own `stat` must be a
/// regular file with one link. WASI has no users, so there is no owner to check, and no
/// `O_NONBLOCK`; a FIFO cannot be opened through a WASI filesystem descriptor at all (the
/// host's open is of a file, and WASI has no FIFO type). `None` when no preopen holds `dir`.
fn open_checked(dir: &Path, name: &str) -> Option<io::Result<OpenFile<'static>>> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Some(Err(lro_core::host::refused(format!(
            "{name:?} is not a file name"
        ))));
    }
    let path = dir.join(name);
    let (preopen, relative) = preopen_of(&path)?;
    let open = || -> Result<io::Result<OpenFile<'static>>, ErrorCode> {
        let file = match preopen.open_at(
            PathFlags::empty(),
            &relative,
            OpenFlags::empty(),
            DescriptorFlags::READ,
        ) {
            Ok(file) => file,
            Err(ErrorCode::Loop) => {
                return Ok(Err(lro_core::host::refused(
                    "a symbolic link, which is never followed",
                )));
            }
            Err(err) => return Err(err),
        };
        let stat = file.stat()?;
        if stat.type_ != DescriptorType::RegularFile {
            return Ok(Err(lro_core::host::refused("not a regular file")));
        }
        if stat.link_count != 1 {
            return Ok(Err(lro_core::host::refused(format!(
                "{} hard links, where an offload file has exactly one",
                stat.link_count
            ))));
        }
        let stream = file.read_via_stream(0)?;
        Ok(Ok(OpenFile {
            size: Some(stat.size),
            reader: Box::new(StreamReader {
                stream,
                _file: file,
            }),
        }))
    };
    Some(open().unwrap_or_else(|code| Err(io_error(code))))
}

/// Reads a WASI 0.2 input stream (and keeps its descriptor open while it does).
struct StreamReader {
    stream: wasip2::io::streams::InputStream,
    _file: wasip2::filesystem::types::Descriptor,
}

impl Read for StreamReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use wasip2::io::streams::StreamError;
        match self.stream.blocking_read(buf.len() as u64) {
            Ok(bytes) => {
                buf[..bytes.len()].copy_from_slice(&bytes);
                Ok(bytes.len())
            }
            Err(StreamError::Closed) => Ok(0),
            Err(StreamError::LastOperationFailed(err)) => {
                Err(io::Error::other(err.to_debug_string()))
            }
        }
    }
}

/// The deepest preopened directory that holds `path`, and `path` relative to it (a host may
/// preopen `/` and `/data/lro`).
fn preopen_of(path: &Path) -> Option<(wasip2::filesystem::types::Descriptor, String)> {
    get_directories()
        .into_iter()
        .filter_map(|(dir, root)| {
            let relative = path.strip_prefix(&root).ok()?.to_str()?.to_owned();
            let depth = Path::new(&root).components().count();
            (!relative.is_empty()).then_some((depth, dir, relative))
        })
        .max_by_key(|(depth, _, _)| *depth)
        .map(|(_, dir, relative)| (dir, relative))
}

/// A WASI 0.2 error as the `io::Error` std would give for it.
fn io_error(code: ErrorCode) -> io::Error {
    let kind = match code {
        ErrorCode::Exist => io::ErrorKind::AlreadyExists,
        ErrorCode::NoEntry => io::ErrorKind::NotFound,
        ErrorCode::Access | ErrorCode::NotPermitted => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, code.message())
}

/// Creates `path`, which must not exist, and writes `parts` into it with one `descriptor.write`
/// each (looping only on short writes). `None` when no preopened directory holds `path`: the
/// caller then goes through std, which fails as it would for any path outside the preopens.
fn create_and_write(path: &Path, parts: &[&[u8]]) -> Option<io::Result<()>> {
    let (dir, relative) = preopen_of(path)?;
    let write = || -> Result<(), ErrorCode> {
        let file = dir.open_at(
            PathFlags::empty(),
            &relative,
            OpenFlags::CREATE | OpenFlags::EXCLUSIVE,
            DescriptorFlags::WRITE,
        )?;
        // Small parts joined: one round trip for a header and a modest body, for the price of
        // a copy; a large body is written as it is, without doubling its memory.
        let joined: Vec<u8>;
        let single: [&[u8]; 1];
        let parts: &[&[u8]] =
            if parts.len() > 1 && parts.iter().map(|p| p.len()).sum::<usize>() <= JOIN_AT_MOST {
                joined = parts.concat();
                single = [&joined];
                &single
            } else {
                parts
            };
        let mut offset = 0;
        for part in parts {
            let mut rest = *part;
            while !rest.is_empty() {
                let written = file.write(rest, offset)?;
                if written == 0 {
                    return Err(ErrorCode::Io);
                }
                // A host never reports more than it was given; if one did, stop at the end.
                rest = &rest[usize::try_from(written).map_or(rest.len(), |n| n.min(rest.len()))..];
                offset += written;
            }
        }
        Ok(())
    };
    Some(write().map_err(io_error))
}

impl Host for WasiHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        // `StdHost::write_atomic` with the temp file written through WASI 0.2 (see above),
        // then published as `StdHost` does (a hard link: WASI's `link-at`, never replacing).
        let tmp = StdHost.temp_name(path);
        let Some(written) = create_and_write(&tmp, parts) else {
            return StdHost.write_atomic(path, parts);
        };
        if let Err(err) = written {
            let _ = fs::remove_file(&tmp);
            return Err(err);
        }
        StdHost::publish(&tmp, path)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        StdHost.create_dir_all(dir)
    }
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        open_checked(dir, name).unwrap_or_else(|| StdHost.open_file(dir, name))
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
