//! The fuzz targets' saved inputs replayed as a test: every crate that has targets (this one,
//! lro-jq, lro-core, lro-mcp, the CLI's proxy) hands its checks to [`replay`] in one unit
//! test, so every `cargo test` runs each seed of `fuzz/corpus/TARGET/` and each input a
//! fuzzer once crashed on (`fuzz/regressions/TARGET/`) through the check of TARGET.
//!
//! Compiled for this crate's tests, for fuzzing builds, and with the `fuzz-replay` feature for
//! the other crates' tests.

use std::path::Path;

/// A fuzz target's check: panics when an invariant fails on `data`.
pub type Check = fn(&[u8]);

/// Runs every saved input of each target (its name: the directory under `fuzz/corpus/` and
/// `fuzz/regressions/`) through the target's check.
///
/// # Panics
///
/// When a check panics on an input (the message names the target and the file), and when a
/// target has no input at all: the corpora are in the repository, so finding none means a
/// wrong name or path.
pub fn replay(targets: &[(&str, Check)]) {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    for &(name, check) in targets {
        let mut replayed = 0;
        for kind in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join(name)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let data = std::fs::read(&path).unwrap();
                let outcome = std::panic::catch_unwind(|| check(&data));
                assert!(outcome.is_ok(), "{name}: {} fails", path.display());
                replayed += 1;
            }
        }
        assert!(replayed > 0, "{name}: no input in {}", fuzz.display());
    }
}
