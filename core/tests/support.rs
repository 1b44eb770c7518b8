//! What the core's integration tests share: an offload file to extract from, the request of a
//! jq query, and the name libtest gives a test (for the tests that run their binary again).

use std::path::Path;

use lro_core::{ExtractLimits, ExtractRequest, OffloadConfig, OffloadRequest, Offloader, StdHost};
use serde_json::Value;

/// An offloader writing into `dir` (threshold 10 tokens, extraction bounded by `limits`) and
/// the file it offloaded `data` to, as a `recall`.
pub fn offloaded(dir: &Path, limits: ExtractLimits, data: &Value) -> (Offloader<StdHost>, String) {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        threshold_tokens: 10,
        extract: limits,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let file = lro
        .offload(data, &OffloadRequest::new("recall"))
        .unwrap()
        .offloaded()
        .unwrap()
        .file_path
        .clone();
    (lro, file)
}

/// The request that runs the jq filter `filter`.
pub fn query(filter: &str) -> ExtractRequest {
    ExtractRequest {
        query: Some(filter.to_owned()),
        ..ExtractRequest::default()
    }
}

/// The name libtest gives test `function` of module `module` (its `module_path!()`): the
/// module's path without this binary's crate name, as `--exact` wants it.
pub fn test_name(module: &str, function: &str) -> String {
    let (_crate, path) = module.split_once("::").expect("a module of this binary");
    format!("{path}::{function}")
}
