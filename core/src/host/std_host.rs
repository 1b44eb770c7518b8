//! [`StdHost`]: the host for native builds (std::fs, the system clock, OS randomness).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{DirEntry, EntryKind, Host, OpenFile, std_checked};

/// The native host: real files, the system clock and the OS random source.
#[derive(Debug, Clone, Copy, Default)]
pub struct StdHost;

impl StdHost {
    /// A new std host.
    pub const fn new() -> Self {
        Self
    }
}

fn kind_of(file_type: fs::FileType) -> EntryKind {
    if file_type.is_symlink() {
        EntryKind::Symlink
    } else if file_type.is_file() {
        EntryKind::File
    } else if file_type.is_dir() {
        EntryKind::Dir
    } else {
        EntryKind::Other
    }
}

fn create_private(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

impl StdHost {
    /// The sibling temp name `path` is written under before it is published: no offload
    /// file pattern matches it, and the random part keeps two writers apart.
    pub fn temp_name(&self, path: &Path) -> PathBuf {
        let mut suffix = [0u8; 8];
        self.fill_random(&mut suffix);
        path.with_extension(format!("jsonl.tmp-{}", u64::from_le_bytes(suffix)))
    }

    /// Gives the complete file at `tmp` the name `path`, never replacing a file of that name,
    /// and removes `tmp` whatever happens (hosts built on `StdHost` use it too).
    ///
    /// A hard link is the no-replace primitive every POSIX filesystem has, NFS included
    /// (`link(2)` fails with `EEXIST`; `rename(2)` would replace silently, and
    /// `renameat2(RENAME_NOREPLACE)` is Linux-only and refused by NFS): the file appears
    /// whole under its name or not at all, and two writers can never overwrite each other.
    /// Only where the filesystem has no hard links (FAT, some FUSE mounts) is the file
    /// renamed after checking that the name is free, a check a concurrent writer of the very
    /// same name could race (names carry 80 random bits: it does not happen in practice).
    pub fn publish(tmp: &Path, path: &Path) -> io::Result<()> {
        let published = match fs::hard_link(tmp, path) {
            Err(err) if std_checked::links_unsupported(&err) => {
                if fs::symlink_metadata(path).is_ok() {
                    Err(std_checked::already_exists())
                } else {
                    return fs::rename(tmp, path).inspect_err(|_| {
                        let _ = fs::remove_file(tmp);
                    });
                }
            }
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {
                Err(std_checked::already_exists())
            }
            linked => linked,
        };
        // Once linked, the temp name is only a second name of the published file.
        let _ = fs::remove_file(tmp);
        published
    }
}

impl Host for StdHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        // Written under a temp name created exclusively (two writers never share it), then
        // published whole under its name, which is never taken from another file.
        let tmp = self.temp_name(path);
        // On Unix all of it through one handle on the directory (see `write_in_dir`).
        #[cfg(unix)]
        if let (Some(dir), Some(name), Some(tmp)) = (
            path.parent().filter(|d| !d.as_os_str().is_empty()),
            path.file_name().and_then(|n| n.to_str()),
            tmp.file_name().and_then(|n| n.to_str()),
        ) {
            return std_checked::write_in_dir(dir, name, tmp, parts);
        }
        let result = create_private(&tmp)
            .and_then(|mut file| parts.iter().try_for_each(|part| file.write_all(part)));
        if let Err(err) = result {
            let _ = fs::remove_file(&tmp);
            return Err(err);
        }
        Self::publish(&tmp, path)
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(dir)
    }

    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        std_checked::open_file(dir, name)
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            entries.push(DirEntry {
                name,
                kind: kind_of(entry.file_type()?),
            });
        }
        Ok(entries)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        fs::canonicalize(path)
    }

    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        Ok(kind_of(fs::symlink_metadata(path)?.file_type()))
    }

    fn shared_dir(&self, dir: &Path) -> io::Result<Option<String>> {
        std_checked::shared_dir(dir)
    }

    fn modified_millis(&self, path: &Path) -> io::Result<Option<u64>> {
        let modified = fs::symlink_metadata(path)?.modified()?;
        // Before 1970 (a clock reset): as old as can be.
        Ok(Some(
            modified
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
        ))
    }

    fn now_millis(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }

    fn fill_random(&self, buf: &mut [u8]) {
        // The OS source failing is not recoverable in any useful way; fall back to the
        // clock so file names stay unique within this process (the ULID is monotonic).
        if getrandom::fill(buf).is_err() {
            let seed = self.now_millis().to_le_bytes();
            for (i, b) in buf.iter_mut().enumerate() {
                *b = seed[i % 8] ^ (i as u8).wrapping_mul(151);
            }
        }
    }

    fn temp_dir(&self) -> PathBuf {
        std_checked::default_dir()
    }
}
