//! [`NativeHost`]: the host a native build picks from its configuration: local files, or an
//! object store when `output_dir` is an `s3://` URI.

use std::path::Path;

use lro_core::host::{ForwardingHost, is_uri};
use lro_core::{ErrorCode, Host, LroError, OffloadConfig, StdHost};

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

    fn inner(&self) -> &(dyn Host + 'static) {
        match self {
            Self::Local(host) => host,
            Self::S3(host) => host.as_ref(),
        }
    }
}

impl ForwardingHost for NativeHost {
    type Target = dyn Host;
    fn target(&self) -> &(dyn Host + 'static) {
        self.inner()
    }
}
