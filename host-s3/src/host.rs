//! [`S3Host`]: the core's `Host` over one bucket of an S3-compatible store.

use std::io;
use std::path::{Path, PathBuf};

use lro_core::{DirEntry, EntryKind, Host, LroError, OpenFile, StdHost, StoreLimits};

use crate::client::{Client, Op};
use crate::location::{S3Uri, key_of, path_of};
use crate::reader::ObjectReader;
use crate::settings::S3Settings;

/// Keys per listing page: S3's maximum.
const DEFAULT_PAGE_SIZE: usize = 1000;

/// Offload files as objects of one bucket: `output_dir = "s3://bucket/prefix"`.
///
/// | core call | request |
/// |---|---|
/// | `write_atomic` | one `PUT` with `If-None-Match: *`: the object appears whole or not at all, and never replaces another |
/// | `open_file` | `GET`, streamed as read; a broken connection resumes with a ranged `GET` pinned to the ETag |
/// | `entry_kind` | `HEAD` (an object is a `File`; there are no links) |
/// | `list_dir` | `ListObjectsV2` under `prefix/`, grouped by `/`, page by page |
/// | `remove_file` | `DELETE` |
/// | `create_dir_all`, `canonicalize` | nothing: prefixes are not objects, and paths are normalised lexically |
///
/// Clock and randomness are the system's ([`StdHost`]). Every request is bounded by the
/// configuration's [`StoreLimits`]: no wait longer than `timeout_ms`, at most `retries`
/// retries of a connection error, timeout or 5xx/429 answer. Paths of another bucket or
/// scheme are answered as missing files.
pub struct S3Host {
    root: S3Uri,
    client: Client,
    page_size: usize,
}

impl std::fmt::Debug for S3Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Host")
            .field("root", &self.root.to_string())
            .finish_non_exhaustive()
    }
}

impl S3Host {
    /// A host for the output directory `root` (`s3://bucket/prefix`) reached with `settings`.
    /// No request is made until the first file operation.
    pub fn new(root: S3Uri, settings: &S3Settings) -> Result<Self, LroError> {
        let client = Client::new(settings, root.bucket())
            .map_err(|e| LroError::new(lro_core::ErrorCode::InvalidConfig, e.to_string()))?;
        Ok(Self {
            root,
            client,
            page_size: DEFAULT_PAGE_SIZE,
        })
    }

    /// A host for `output_dir` configured from the standard AWS environment (see
    /// [`S3Settings::from_vars`]); an invalid URI or environment is `invalid_config`.
    pub fn from_env(output_dir: &str, limits: &StoreLimits) -> Result<Self, LroError> {
        let root = S3Uri::parse(output_dir).map_err(|e| {
            LroError::new(
                lro_core::ErrorCode::InvalidConfig,
                format!("invalid value for prompt.offload.output_dir: {e}"),
            )
        })?;
        Self::new(root, &S3Settings::from_env(limits)?)
    }

    /// Keys per listing page (1,000 by default, S3's maximum); smaller pages for stores
    /// with lower limits, and for tests of pagination.
    #[must_use]
    pub fn with_page_size(mut self, keys: usize) -> Self {
        self.page_size = keys.clamp(1, DEFAULT_PAGE_SIZE);
        self
    }

    /// The output directory this host serves.
    pub fn root(&self) -> &S3Uri {
        &self.root
    }

    /// The key of `path`, or a `NotFound` error for a path outside this bucket.
    fn key(&self, path: &Path) -> io::Result<String> {
        key_of(path, self.client.bucket_name()).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{} is not in the bucket s3://{}",
                    path.display(),
                    self.client.bucket_name()
                ),
            )
        })
    }

    /// The key of a file: not the bucket itself.
    fn file_key(&self, path: &Path) -> io::Result<String> {
        let key = self.key(path)?;
        if key.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is a bucket, not an object", path.display()),
            ));
        }
        Ok(key)
    }
}

impl Host for S3Host {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        let key = self.file_key(path)?;
        self.client.send(&Op::Put { key: &key, parts }).map(drop)
    }

    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        // Prefixes are not objects; a missing bucket is reported by the write itself.
        self.key(dir).map(drop)
    }

    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        // Objects have no links, FIFOs or owners: the name is all there is to check (one
        // file name, so the key is directly under the prefix).
        if name.is_empty() || name == "." || name == ".." || name.contains('/') {
            return Err(lro_core::host::refused(format!(
                "{name:?} is not a file name"
            )));
        }
        let key = self.file_key(&dir.join(name))?;
        let reader = ObjectReader::open(&self.client, &key)?;
        Ok(OpenFile {
            size: reader.size(),
            reader: Box::new(reader),
        })
    }

    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        let key = self.key(dir)?;
        let prefix = if key.is_empty() {
            key
        } else {
            format!("{key}/")
        };
        let mut entries = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self
                .client
                .list_page(&prefix, token.as_deref(), self.page_size)?;
            for object in page.contents {
                if let Some(name) = object.key.strip_prefix(&prefix).filter(|n| !n.is_empty()) {
                    entries.push(DirEntry {
                        name: name.to_owned(),
                        kind: EntryKind::File,
                    });
                }
            }
            for common in page.common_prefixes {
                let name = common.prefix.strip_prefix(&prefix).unwrap_or_default();
                let name = name.trim_end_matches('/');
                if !name.is_empty() {
                    entries.push(DirEntry {
                        name: name.to_owned(),
                        kind: EntryKind::Dir,
                    });
                }
            }
            match page.next_continuation_token {
                Some(next) => token = Some(next),
                None => return Ok(entries),
            }
        }
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        let key = self.file_key(path)?;
        self.client.send(&Op::Delete { key: &key }).map(drop)
    }

    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        Ok(path_of(self.client.bucket_name(), &self.key(path)?))
    }

    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        let key = self.key(path)?;
        if key.is_empty() {
            return Ok(EntryKind::Dir);
        }
        self.client
            .send(&Op::Head { key: &key })
            .map(|_| EntryKind::File)
    }

    fn now_millis(&self) -> u64 {
        StdHost.now_millis()
    }

    fn fill_random(&self, buf: &mut [u8]) {
        StdHost.fill_random(buf);
    }

    fn temp_dir(&self) -> PathBuf {
        self.root.to_path()
    }
}
