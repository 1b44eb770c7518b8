//! Whether the output directory may be used: private to the user, unless the configuration
//! says `allow_shared_dir = true`.
//!
//! Offload files are read back (extraction, MCP resources) and deleted (cleanup) by name, so
//! whoever else can add or replace entries in the directory could have LRO serve their bytes
//! as a result. The checked open ([`crate::host::Host::open_file`]) already refuses a file
//! that is not this user's; this refuses the directory itself, with one clear error, before
//! anything is written, read or removed there. The default directory (an empty `output_dir`)
//! must moreover not be a symbolic link: it sits in the shared temp dir, where another user
//! could have made `lro-<uid>` a link to a directory of theirs before this user's first run.

use std::path::Path;

use crate::error::{ErrorCode, LroError, Result};
use crate::host::{EntryKind, Host};
use crate::offload::Offloader;

impl<H: Host> Offloader<H> {
    /// Checks `dir` (this offloader's output directory) before it is used; a missing
    /// directory passes (the caller makes it, or finds nothing in it). Errors are
    /// `invalid_config`: the configuration names a directory it must not use.
    pub fn check_output_dir(&self, dir: &Path) -> Result<()> {
        if self.config.allow_shared_dir {
            return Ok(());
        }
        let opt_in = "set allow_shared_dir = true (ATLATL_PROMPT__OFFLOAD__ALLOW_SHARED_DIR=true, \
                      lro --allow-shared-dir) to use it anyway";
        if self.config.output_dir.is_empty()
            && self.host.entry_kind(dir).ok() == Some(EntryKind::Symlink)
        {
            return Err(LroError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "the default output directory {} is a symbolic link, which LRO never \
                     follows there (someone else may have made it); remove it, set \
                     output_dir, or {opt_in}",
                    dir.display()
                ),
            ));
        }
        match self.host.shared_dir(dir) {
            Ok(None) => Ok(()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(LroError::from_io(
                &err,
                &format!("output directory {}", dir.display()),
            )),
            Ok(Some(why)) => Err(LroError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "output directory {} is not private to this user: {why}; choose another \
                     output_dir, or {opt_in}",
                    dir.display()
                ),
            )),
        }
    }
}
