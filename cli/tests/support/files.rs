//! Offload file names made up by the tests (a ULID of a chosen time) and the files the
//! hostile suites plant: FIFOs, and modification times far in the past or future.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The Unix time now, in milliseconds.
pub fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A ULID of `millis` and a random part of `random` (its last character), as LRO spells it
/// (Crockford's base 32, upper case).
pub fn ulid_at(millis: u64, random: u8) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut time = String::new();
    for i in (0..10).rev() {
        time.push(ALPHABET[((millis >> (5 * i)) & 31) as usize] as char);
    }
    format!(
        "{time}{}{}",
        "0".repeat(15),
        ALPHABET[usize::from(random % 32)] as char
    )
}

/// Sets the modification time of `path` to `millis`.
pub fn set_mtime(path: &Path, millis: u64) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(UNIX_EPOCH + Duration::from_millis(millis))
        .unwrap();
}

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}
