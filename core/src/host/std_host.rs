//! [`StdHost`]: the host for native builds (std::fs, the system clock, OS randomness).

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{DirEntry, EntryKind, Host};

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

impl Host for StdHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        // A sibling temp name that no offload file pattern matches, created exclusively so
        // two writers can never share it; the rename makes the file appear whole.
        let mut suffix = [0u8; 8];
        self.fill_random(&mut suffix);
        let tmp = path.with_extension(format!("jsonl.tmp-{}", u64::from_le_bytes(suffix)));
        let result = create_private(&tmp)
            .and_then(|mut file| parts.iter().try_for_each(|part| file.write_all(part)));
        if let Err(err) = result {
            let _ = fs::remove_file(&tmp);
            return Err(err);
        }
        if path.exists() {
            let _ = fs::remove_file(&tmp);
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "offload file already exists",
            ));
        }
        fs::rename(&tmp, path).inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
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

    fn open(&self, path: &Path) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(fs::File::open(path)?))
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
        std::env::temp_dir()
    }
}
