//! What the proxy remembers about one server between runs: its authorization server, the
//! client registered there and the tokens, in a user-private file (0600 in a 0700
//! directory), one per server URL, so that an agent restarted tomorrow does not ask its
//! user to log in again.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::client::Client;
use super::discovery::AuthServer;

/// Everything remembered for one server.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Saved {
    /// The MCP server's URL (two URLs never share a file, but a file says whose it is).
    pub server: String,
    pub auth_server: Option<AuthServer>,
    /// The RFC 8707 resource the tokens are for.
    pub resource: Option<String>,
    pub client: Option<Client>,
    pub tokens: Option<Tokens>,
}

/// An access token and what came with it.
#[derive(Clone, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// Seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The scopes asked for (or granted, when the server said).
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for Tokens {
    // Tokens never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// The file of one server, or none (no state directory: tokens live as long as the proxy).
pub struct Store {
    path: Option<PathBuf>,
}

impl Store {
    /// The file for `server` in `dir` (default: `$XDG_STATE_HOME/lro/oauth`, else
    /// `~/.local/state/lro/oauth`).
    pub fn new(dir: Option<&Path>, server: &str) -> Self {
        let dir = dir.map(Path::to_path_buf).or_else(default_dir);
        let digest = ring::digest::digest(&ring::digest::SHA256, server.as_bytes());
        let name: String = digest.as_ref()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Self {
            path: dir.map(|dir| dir.join(format!("{name}.json"))),
        }
    }

    /// What was saved for `server`; nothing when the file is missing, unreadable, another
    /// server's, or readable by others (it is then not trusted).
    pub fn load(&self, server: &str) -> Saved {
        let fresh = Saved {
            server: server.to_owned(),
            ..Saved::default()
        };
        let Some(path) = &self.path else {
            return fresh;
        };
        let Ok(text) = fs::read(path) else {
            return fresh;
        };
        if !private(path) {
            note!(
                "lro proxy: ignoring {} (others can read it; it should be 0600)",
                path.display()
            );
            return fresh;
        }
        match serde_json::from_slice::<Saved>(&text) {
            Ok(saved) if saved.server == server => saved,
            _ => fresh,
        }
    }

    /// Saves `saved`: written to a new 0600 file beside the old one, then renamed over it,
    /// so that a crash leaves the old file or the new one, never half of either.
    pub fn save(&self, saved: &Saved) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir)?;
        let temporary = dir.join(format!(
            ".{}.tmp-{}",
            path.file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("tokens"),
            std::process::id()
        ));
        // A new file, never one found there (a stale one of a crashed run is removed first;
        // a link planted in its place makes the write fail instead of following it).
        let _ = fs::remove_file(&temporary);
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options.open(&temporary).and_then(|mut file| {
            owned_alike(dir, &file)?;
            file.write_all(&serde_json::to_vec_pretty(saved).unwrap_or_default())?;
            file.sync_all()
        });
        match written.and_then(|()| fs::rename(&temporary, path)) {
            Ok(()) => Ok(()),
            Err(err) => {
                let _ = fs::remove_file(&temporary);
                Err(err)
            }
        }
    }

    /// Where the file is (for messages).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

fn default_dir() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|d| Path::new(d).is_absolute())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".local/state")))?;
    Some(state.join("lro").join("oauth"))
}

/// Creates `dir` (and its parents) and makes it 0700 when it is ours.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let meta = fs::symlink_metadata(dir)?;
        if !meta.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a directory",
                dir.display()
            )));
        }
        if meta.permissions().mode() & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
        }
        Ok(())
    }
    #[cfg(not(unix))]
    fs::create_dir_all(dir)
}

/// Refuses a directory that belongs to another user than the file just made in it (ours):
/// whoever owns it could swap our file for theirs.
fn owned_alike(dir: &Path, file: &fs::File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if fs::metadata(dir)?.uid() != file.metadata()?.uid() {
            return Err(std::io::Error::other(format!(
                "{} belongs to another user",
                dir.display()
            )));
        }
    }
    let _ = (dir, file);
    Ok(())
}

/// Whether only its owner can read `path`.
fn private(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 == 0)
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_privately_and_loads_only_its_own_server() {
        let dir = tempfile::tempdir().unwrap();
        let store_dir = dir.path().join("state/lro/oauth");
        let store = Store::new(Some(&store_dir), "https://mcp.example/mcp");
        let mut saved = store.load("https://mcp.example/mcp");
        assert!(saved.tokens.is_none());
        saved.tokens = Some(Tokens {
            access_token: "secret-token".into(),
            refresh_token: None,
            expires_at: Some(1),
            scopes: vec!["a".into()],
        });
        store.save(&saved).unwrap();
        assert!(!format!("{saved:?}").contains("secret-token"));
        let loaded = store.load("https://mcp.example/mcp");
        assert_eq!(loaded.tokens.unwrap().access_token, "secret-token");
        // Another server never reads this one's file.
        assert!(store.load("https://other.example/mcp").tokens.is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let file = store.path().unwrap();
            assert_eq!(
                fs::metadata(file).unwrap().permissions().mode() & 0o777,
                0o600
            );
            assert_eq!(
                fs::metadata(&store_dir).unwrap().permissions().mode() & 0o777,
                0o700
            );
            // A file others can read is not trusted.
            fs::set_permissions(file, fs::Permissions::from_mode(0o644)).unwrap();
            assert!(store.load("https://mcp.example/mcp").tokens.is_none());
        }
        assert_eq!(
            fs::read_dir(&store_dir).unwrap().count(),
            1,
            "no temporary file left"
        );
    }
}
