//! The fuzz target `intercept_text` (`fuzz/fuzz_targets/intercept_text.rs`): the interceptor
//! on text against the interceptor on `Value`s. For any result a `Value` reads, the same
//! decision, the same rewritten result and the same files, however its parts are read (every
//! part read from its text, and small ones parsed).
//!
//! Compiled for tests and for fuzzing builds only (cargo-fuzz sets `--cfg fuzzing`); the
//! tests below replay the target's seed corpus and saved regressions in every `cargo test`.

use std::path::PathBuf;

use serde_json::{Value, json};

use lro_core::config::OffloadConfig;
use lro_core::host::MemoryHost;
use lro_core::offload::Offloader;

use crate::intercept::{InterceptAction, ToolCallContext, intercept_read};
use crate::intercept_text::{InterceptedText, intercept_text_parts, structured_duplicates};

/// `data` as a tool's text block, as the result itself, as structured content beside a text
/// block, and (for an array) one text block per element: the text path agrees with the
/// `Value` path on each; on a text no `Value` reads, it does not panic.
pub fn check_intercept_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let block = |text: &str| json!({"type": "text", "text": text});
    agree(&json!({"content": [block(text)]}).to_string());
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        let _ = intercept_text_parts(&offloader(), text, &context(), 0);
        return;
    };
    agree(text);
    agree(&format!(
        r#"{{"content": [{{"type": "text", "text": "x"}}], "structuredContent": {text}}}"#
    ));
    if let Value::Array(items) = &value {
        let blocks: Vec<Value> = items.iter().map(|item| block(&item.to_string())).collect();
        agree(&json!({"content": blocks}).to_string());
    }
}

fn offloader() -> Offloader<MemoryHost> {
    let config = OffloadConfig {
        threshold_tokens: 20,
        ..OffloadConfig::default()
    };
    Offloader::new(config, MemoryHost::new()).expect("a valid configuration")
}

fn context() -> ToolCallContext {
    ToolCallContext {
        tool_name: "search".to_owned(),
        arguments: Some(json!({"query": "q"})),
        ..ToolCallContext::default()
    }
}

fn files(lro: &Offloader<MemoryHost>) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let host = lro.host();
    host.paths()
        .into_iter()
        .map(|p| (p.clone(), host.file(&p)))
        .collect()
}

fn agree(result: &str) {
    let Ok(value) = serde_json::from_str::<Value>(result) else {
        return;
    };
    for min_text in [0, 64] {
        let (by_value, by_text) = (offloader(), offloader());
        // A `Value` merged the keys its text named twice: the text path reports them, and
        // counts them alike however it read the parts.
        let structured = value.get("structuredContent").is_some_and(|s| !s.is_null());
        let repeated = if structured {
            structured_duplicates(result)
        } else {
            0
        };
        let expected = intercept_read(&by_value, &value, &context(), repeated);
        let got = intercept_text_parts(&by_text, result, &context(), min_text);
        match (expected, got) {
            (Ok(expected), Ok(InterceptedText::Rewritten(got))) => {
                assert_eq!(*got, expected, "rewritten: {result}");
            }
            (Ok(expected), Ok(InterceptedText::Unchanged(action))) => {
                assert!(
                    !matches!(
                        action,
                        InterceptAction::Offloaded | InterceptAction::Truncated
                    ),
                    "{result}"
                );
                assert_eq!(expected.action, action, "{result}");
                assert_eq!(expected.result, value, "{result}");
            }
            (Err(expected), Err(got)) => assert_eq!(expected.code(), got.code(), "{result}"),
            (expected, got) => panic!("{result}: by value {expected:?}, by text {got:?}"),
        }
        assert_eq!(files(&by_value), files(&by_text), "files of {result}");
    }
}

#[cfg(test)]
mod tests {
    /// Every seed of the target's corpus and every input a fuzzer once crashed on
    /// (`fuzz/regressions/intercept_text/`) passes the check.
    #[test]
    fn corpus_and_regressions_pass_the_check() {
        lro_json::fuzz_replay::replay(&[("intercept_text", super::check_intercept_text)]);
    }
}
