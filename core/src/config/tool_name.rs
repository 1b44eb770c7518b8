//! The check of an extract tool's name (`mcp.extract_tool_name`), which every source of
//! configuration applies.

use crate::error::{ErrorCode, LroError, Result};

/// Longest tool name: what the strictest converters take (OpenAI's function names, 64).
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// Whether `name` may name the extract tool: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`, which every
/// tool converter accepts and which is also a Python identifier (smolagents' CodeAgent calls
/// tools as Python functions).
pub fn is_valid_tool_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.len() <= MAX_TOOL_NAME_CHARS
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `name` when it is a valid extract tool name ([`is_valid_tool_name`]), else an
/// `invalid_config` error naming it.
pub fn check_tool_name(name: &str) -> Result<&str> {
    if is_valid_tool_name(name) {
        Ok(name)
    } else {
        Err(LroError::new(
            ErrorCode::InvalidConfig,
            format!(
                "invalid value for prompt.offload.mcp.extract_tool_name: {name:?} (expected a \
                 letter or _, then up to 63 letters, digits or _)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_identifiers_of_64_characters_at_most() {
        for good in ["lro_extract", "_x", "A1_b", &"a".repeat(64)] {
            assert!(is_valid_tool_name(good), "{good}");
        }
        for bad in [
            "",
            "1abc",
            "lro-extract",
            "lro extract",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_tool_name(bad), "{bad}");
            let err = check_tool_name(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig);
        }
    }
}
