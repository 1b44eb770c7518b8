//! [`NativeHost`]: the host a native build picks from its configuration: local files, or an
//! object store when `output_dir` is an `s3://` URI.

use std::io;
use std::path::{Path, PathBuf};

use lro_core::host::is_uri;
use lro_core::{DirEntry, EntryKind, ErrorCode, Host, LroError, OffloadConfig, OpenFile, StdHost};

use crate::host::S3Host;
use crate::location::SCHEME;

/// Local files ([`StdHost`]) or one bucket of an object store ([`S3Host`]), as the
/// configuration's `output_dir` says. The CLI, the proxy and the Python and Node modules
/// build their offloaders over it.
#[derive(Debug)]
pub enum NativeHost {
    /// The file system.
    Local(StdHost),
    /// An S3-compatible object store.
    S3(Box<S3Host>),
}

impl NativeHost {
    /// The host `config.output_dir` selects: an `s3://bucket/prefix` URI gives an
    /// [`S3Host`] configured from the standard AWS environment and bounded by
    /// `config.store`; any other URI scheme is `invalid_config`; a path (or `""`) gives the
    /// file system.
    ///
    /// ```
    /// use lro_core::OffloadConfig;
    /// use lro_host_s3::NativeHost;
    ///
    /// let local = NativeHost::for_config(&OffloadConfig::default()).unwrap();
    /// assert!(matches!(local, NativeHost::Local(_)));
    /// let config = OffloadConfig { output_dir: "gs://bucket".into(), ..OffloadConfig::default() };
    /// assert_eq!(NativeHost::for_config(&config).unwrap_err().code().as_str(), "invalid_config");
    /// ```
    pub fn for_config(config: &OffloadConfig) -> Result<Self, LroError> {
        let dir = config.output_dir.as_str();
        if dir.starts_with(SCHEME) {
            Ok(Self::S3(Box::new(S3Host::from_env(dir, &config.store)?)))
        } else if is_uri(Path::new(dir)) {
            Err(LroError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "invalid value for prompt.offload.output_dir: {dir:?} (a directory, or an s3://bucket/prefix URI)"
                ),
            ))
        } else {
            Ok(Self::Local(StdHost::new()))
        }
    }

    fn inner(&self) -> &dyn Host {
        match self {
            Self::Local(host) => host,
            Self::S3(host) => host.as_ref(),
        }
    }
}

impl Host for NativeHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        self.inner().write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.inner().create_dir_all(dir)
    }
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        self.inner().open_file(dir, name)
    }
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        self.inner().list_dir(dir)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.inner().remove_file(path)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.inner().canonicalize(path)
    }
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        self.inner().entry_kind(path)
    }
    fn shared_dir(&self, dir: &Path) -> io::Result<Option<String>> {
        self.inner().shared_dir(dir)
    }
    fn modified_millis(&self, path: &Path) -> io::Result<Option<u64>> {
        self.inner().modified_millis(path)
    }
    fn now_millis(&self) -> u64 {
        self.inner().now_millis()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        self.inner().fill_random(buf);
    }
    fn temp_dir(&self) -> PathBuf {
        self.inner().temp_dir()
    }
}
