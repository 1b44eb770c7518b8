//! The invariants the fuzz targets check (`fuzz/`, `make fuzz`), one function per target.
//!
//! Every hand-written reader and writer of the core is held against a reference that decides
//! (serde_json, the `Value` path, jaq-json) or against its own inverse (a table or a Python
//! literal written back must read the same). A check takes any bytes and panics when an
//! invariant fails, which libFuzzer reports as a crash; the input is then saved under
//! `fuzz/regressions/TARGET/` and [`tests`] replays it, with the seed corpora, in every
//! `cargo test` run.
//!
//! Compiled for tests and for fuzzing builds only (cargo-fuzz sets `--cfg fuzzing`), so the
//! crate's internals can be reached without making them public API.
//!
//! Adding a target for a new reader: a `pub fn check_...(data: &[u8])` here, a line in
//! [`TARGETS`], and a five-line file in `fuzz/fuzz_targets/` with its `[[bin]]` entry.

mod shape;

#[cfg(feature = "extract")]
pub use crate::extract::fuzz_checks::{
    check_extract_batches, check_extract_bounded, check_extract_records,
};
pub use shape::{check_shape_literal, check_shape_table, check_shape_text};

/// A fuzz target's check: panics when an invariant fails on `data`.
pub type Check = fn(&[u8]);

/// Every target: its name (the file in `fuzz/fuzz_targets/` and the corpus directory) and
/// its check. The CLI's targets (`proxy_*`) are checked by the CLI's own tests,
/// `intercept_text` by lro-mcp's, the JSON text targets (`json_*`) by lro-json's, the record
/// parser's (`extract_parse`) by lro-jq's.
pub const TARGETS: &[(&str, Check)] = &[
    #[cfg(feature = "extract")]
    ("extract_records", check_extract_records),
    #[cfg(feature = "extract")]
    ("extract_batches", check_extract_batches),
    #[cfg(feature = "extract")]
    ("extract_bounded", check_extract_bounded),
    ("shape_literal", check_shape_literal),
    ("shape_table", check_shape_table),
    ("shape_text", check_shape_text),
];

#[cfg(test)]
mod tests {
    /// Every seed of the repository's corpora and every input a fuzzer once crashed on
    /// (`fuzz/regressions/TARGET/`) passes its check.
    #[test]
    fn corpora_and_regressions_pass_their_checks() {
        lro_json::fuzz_replay::replay(super::TARGETS);
    }
}
