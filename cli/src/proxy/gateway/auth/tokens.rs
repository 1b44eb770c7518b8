//! `--auth-tokens FILE`: static bearer tokens, one a line as `TOKEN PRINCIPAL` (`#` begins a
//! comment line). The file holds secrets: it is refused when its group or others have any
//! access to it, as ssh refuses a private key. Only each token's SHA-256 is kept, and a
//! presented token is compared with every one of them in constant time, so neither the
//! time an answer takes nor the order of the file tells an attacker how close a guess came.

use std::path::Path;

use lro_core::{ErrorCode, LroError};
use ring::digest::{SHA256, digest};

/// The tokens of a token file.
pub struct Tokens {
    /// Each token's SHA-256, and its principal.
    entries: Vec<([u8; 32], String)>,
}

impl Tokens {
    /// Reads `path`; an error names the file and the line, never a token.
    pub fn load(path: &Path) -> Result<Self, LroError> {
        let shown = path.display();
        let bad = |what: String| {
            LroError::new(
                ErrorCode::InvalidArgument,
                format!("--auth-tokens {shown}: {what}"),
            )
        };
        check_private(path).map_err(bad)?;
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
        let mut entries: Vec<([u8; 32], String)> = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let number = number + 1;
            let Some((token, principal)) = line.split_once(char::is_whitespace) else {
                return Err(bad(format!("line {number}: expected TOKEN PRINCIPAL")));
            };
            let principal = principal.trim();
            if !is_b64token(token) || principal.is_empty() {
                return Err(bad(format!(
                    "line {number}: expected TOKEN PRINCIPAL, the token made of letters, digits \
                     and -._~+/ (then = signs), as a bearer token is"
                )));
            }
            let hash = sha256(token);
            if entries.iter().any(|(known, _)| *known == hash) {
                return Err(bad(format!("line {number}: a token given twice")));
            }
            entries.push((hash, principal.to_owned()));
        }
        if entries.is_empty() {
            return Err(bad("no token in it".to_owned()));
        }
        Ok(Self { entries })
    }

    /// The principal `token` belongs to. Every entry is compared, whatever matched.
    pub fn principal(&self, token: &str) -> Option<&str> {
        let presented = sha256(token);
        let mut found = None;
        for (hash, principal) in &self.entries {
            if same(hash, &presented) {
                found = Some(principal.as_str());
            }
        }
        found
    }
}

fn sha256(text: &str) -> [u8; 32] {
    let mut hash = [0u8; 32];
    hash.copy_from_slice(digest(&SHA256, text.as_bytes()).as_ref());
    hash
}

/// Whether two digests are equal, looking at every byte whatever differs first.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// RFC 6750's `b64token`: what a bearer token may be.
pub fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// The file is its owner's alone (no permission bit for group or others).
#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "it holds secrets but its mode is {mode:03o}: group and others may not have access \
             (chmod 600 it)"
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str, mode: u32) -> tempfile::NamedTempFile {
        use std::os::unix::fs::PermissionsExt;
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        file
    }

    #[test]
    fn tokens_name_their_principals() {
        let file = file("# team\n\nalpha-1 alice\n  beta.2/x== bob smith \n", 0o600);
        let tokens = Tokens::load(file.path()).unwrap();
        assert_eq!(tokens.principal("alpha-1"), Some("alice"));
        assert_eq!(tokens.principal("beta.2/x=="), Some("bob smith"));
        for unknown in ["alpha-", "alpha-12", "", "alice"] {
            assert_eq!(tokens.principal(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn a_file_others_can_read_or_a_bad_line_is_refused() {
        for mode in [0o644, 0o640, 0o604, 0o620] {
            let refused = Tokens::load(file("t alice\n", mode).path()).err().unwrap();
            assert!(
                refused.message().contains("chmod 600"),
                "{mode:o}: {refused:?}"
            );
        }
        for (text, said) in [
            ("secret\n", "line 1"),
            ("ok alice\nbad:token bob\n", "line 2"),
            ("same alice\nsame bob\n", "given twice"),
            ("# nothing\n", "no token"),
        ] {
            let refused = Tokens::load(file(text, 0o600).path()).err().unwrap();
            assert!(refused.message().contains(said), "{text:?}: {refused:?}");
            assert!(!refused.message().contains("secret"), "{refused:?}");
        }
    }
}
