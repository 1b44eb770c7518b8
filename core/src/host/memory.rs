//! [`MemoryHost`]: an in-memory host for tests, examples and hosts without a filesystem.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{DirEntry, EntryKind, Host, OpenFile};

/// A deterministic host: files live in a map, the clock is set by hand and randomness is a
/// seeded generator. Writes can be made to fail to exercise the fallback path.
#[derive(Debug)]
pub struct MemoryHost {
    files: Mutex<Files>,
    now_millis: AtomicU64,
    rng_state: AtomicU64,
    fail_writes: AtomicBool,
    temp_dir: PathBuf,
}

impl Default for MemoryHost {
    fn default() -> Self {
        Self::new()
    }
}

/// Resolves `.` and `..` lexically (there are no symbolic links in memory).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The files by path, in path order: a sorted list, not a `BTreeMap`, whose code for this
/// one key type was about 6 KB of the wasm-bindgen module (the browser's built-in host is
/// this store). A host holds a handful of files, so an insertion's shift costs nothing.
#[derive(Debug, Default)]
struct Files(Vec<(PathBuf, Vec<u8>)>);

impl Files {
    /// Where `path` is, or where it would go.
    fn find(&self, path: &Path) -> Result<usize, usize> {
        self.0.binary_search_by(|(p, _)| p.as_path().cmp(path))
    }

    fn get(&self, path: &Path) -> Option<&Vec<u8>> {
        self.find(path).ok().map(|at| &self.0[at].1)
    }

    fn contains_key(&self, path: &Path) -> bool {
        self.find(path).is_ok()
    }

    /// Puts `bytes` at `path`, replacing a file there.
    fn insert(&mut self, path: PathBuf, bytes: Vec<u8>) {
        match self.find(&path) {
            Ok(at) => self.0[at].1 = bytes,
            Err(at) => self.0.insert(at, (path, bytes)),
        }
    }

    fn remove(&mut self, path: &Path) -> Option<Vec<u8>> {
        self.find(path).ok().map(|at| self.0.remove(at).1)
    }

    /// The paths, sorted.
    fn keys(&self) -> impl Iterator<Item = &PathBuf> {
        self.0.iter().map(|(path, _)| path)
    }
}

impl MemoryHost {
    /// An empty host whose clock reads 2026-01-01T00:00:00Z and whose temp dir is `/tmp`.
    pub fn new() -> Self {
        Self {
            files: Mutex::new(Files::default()),
            now_millis: AtomicU64::new(1_767_225_600_000),
            rng_state: AtomicU64::new(0x9E37_79B9_7F4A_7C15),
            fail_writes: AtomicBool::new(false),
            temp_dir: PathBuf::from("/tmp"),
        }
    }

    /// Sets the clock.
    pub fn set_now_millis(&self, millis: u64) {
        self.now_millis.store(millis, Ordering::SeqCst);
    }

    /// Makes every following write fail with "permission denied" (or succeed again).
    pub fn set_fail_writes(&self, fail: bool) {
        self.fail_writes.store(fail, Ordering::SeqCst);
    }

    /// The bytes of a file, if present.
    pub fn file(&self, path: impl AsRef<Path>) -> Option<Vec<u8>> {
        self.lock().get(&normalize(path.as_ref())).cloned()
    }

    /// Puts a file in place directly (test setup).
    pub fn insert_file(&self, path: impl AsRef<Path>, bytes: impl Into<Vec<u8>>) {
        self.lock().insert(normalize(path.as_ref()), bytes.into());
    }

    /// The paths of all files, sorted.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Files> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Host for MemoryHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        if self.fail_writes.load(Ordering::SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "permission denied (simulated)",
            ));
        }
        let mut files = self.lock();
        let key = normalize(path);
        if files.contains_key(&key) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "offload file already exists",
            ));
        }
        files.insert(key, parts.concat());
        Ok(())
    }

    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        // No links, FIFOs or users here: a plain file name inside `dir` is all there is to check.
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            return Err(super::refused(format!("{name:?} is not a file name")));
        }
        let bytes = self
            .file(dir.join(name))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))?;
        Ok(OpenFile {
            size: Some(bytes.len() as u64),
            reader: Box::new(io::Cursor::new(bytes)),
        })
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let dir = normalize(dir);
        Ok(self
            .lock()
            .keys()
            .filter(|p| p.parent() == Some(dir.as_path()))
            .filter_map(|p| p.file_name()?.to_str())
            .map(|name| DirEntry {
                name: name.to_owned(),
                kind: EntryKind::File,
            })
            .collect())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.lock()
            .remove(&normalize(path))
            .map(drop)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file"))
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        let path = normalize(path);
        let files = self.lock();
        let is_dir = || files.keys().any(|p| p.starts_with(&path));
        if files.contains_key(&path) || is_dir() {
            Ok(path)
        } else {
            Err(io::Error::new(io::ErrorKind::NotFound, "no such file"))
        }
    }

    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        let path = normalize(path);
        let files = self.lock();
        if files.contains_key(&path) {
            Ok(EntryKind::File)
        } else if files.keys().any(|p| p.starts_with(&path)) {
            Ok(EntryKind::Dir)
        } else {
            Err(io::Error::new(io::ErrorKind::NotFound, "no such file"))
        }
    }

    fn now_millis(&self) -> u64 {
        self.now_millis.load(Ordering::SeqCst)
    }

    fn fill_random(&self, buf: &mut [u8]) {
        // splitmix64: deterministic, so tests and vectors are reproducible.
        for chunk in buf.chunks_mut(8) {
            let mut z = self
                .rng_state
                .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::SeqCst)
                .wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
    }

    fn temp_dir(&self) -> PathBuf {
        self.temp_dir.clone()
    }
}
