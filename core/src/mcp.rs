//! The MCP surfaces' configuration (`[prompt.offload.mcp]`): the shape of an offloaded
//! result, the extract tool's configured name and its validation, and the tools that are
//! never offloaded. What the surfaces do with it (intercepting results, serving resources,
//! naming and answering the extract tool) is the `lro-mcp` crate's.
//!
//! ```
//! use lro_core::mcp::{McpConfig, is_valid_tool_name};
//!
//! let config = McpConfig { never_offload: vec!["get_weather".into()], ..McpConfig::default() };
//! assert!(config.never_offloads("get_weather") && !config.never_offloads("read_graph"));
//! assert!(is_valid_tool_name("mem_extract") && !is_valid_tool_name("mem-extract"));
//! ```

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, LroError, Result};

/// The extract tool's name when nothing names the server.
pub const DEFAULT_EXTRACT_TOOL: &str = "lro_extract";

/// Longest tool name: what the strictest converters take (OpenAI's function names, 64).
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// The MCP surfaces' options (`[prompt.offload.mcp]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Add a `resource_link` block to the offload file after the descriptor (default off:
    /// LangChain's Chat Completions adapter aborts the run on a link it cannot send, and
    /// other frameworks pass it to the model as a long JSON object; the descriptor carries
    /// the URI as `resource_uri` either way).
    pub resource_link: bool,
    /// Give an offloaded result `structuredContent` (the descriptor) besides its text
    /// (default off: LlamaIndex shows both, so the model reads the descriptor twice).
    pub structured_content: bool,
    /// The extract tool's name, overriding the one derived from the server's name.
    pub extract_tool_name: Option<String>,
    /// Tools whose results are never offloaded: they keep their `outputSchema` in
    /// `tools/list` and their results pass untouched.
    pub never_offload: Vec<String>,
}

impl McpConfig {
    /// Whether results of the tool `tool_name` are never offloaded.
    pub fn never_offloads(&self, tool_name: &str) -> bool {
        self.never_offload.iter().any(|name| name == tool_name)
    }
}

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

    #[test]
    fn the_mcp_section_from_toml_env_and_json() {
        let config = crate::OffloadConfig::from_toml_str(
            "[prompt.offload.mcp]\nresource_link = true\nstructured_content = true\n\
             extract_tool_name = \"mem_extract\"\nnever_offload = [\"get_weather\", \"echo\"]\n",
        )
        .unwrap();
        assert!(config.mcp.resource_link && config.mcp.structured_content);
        assert_eq!(config.mcp.extract_tool_name.as_deref(), Some("mem_extract"));
        assert!(config.mcp.never_offloads("echo") && !config.mcp.never_offloads("read_graph"));
        let mut config = crate::OffloadConfig::default();
        config
            .apply_env([
                ("ATLATL_PROMPT__OFFLOAD__MCP__NEVER_OFFLOAD", "a, b,,"),
                ("ATLATL_PROMPT__OFFLOAD__MCP__RESOURCE_LINK", "yes"),
            ])
            .unwrap();
        assert_eq!(config.mcp.never_offload, ["a", "b"]);
        assert!(config.mcp.resource_link);
        let config = crate::OffloadConfig::from_json(
            &serde_json::json!({"mcp": {"never_offload": ["x"], "extract_tool_name": null}}),
        )
        .unwrap();
        assert_eq!(
            (
                config.mcp.never_offload.as_slice(),
                config.mcp.extract_tool_name
            ),
            (&["x".to_owned()][..], None)
        );
        for bad in [
            "[prompt.offload.mcp]\nextract_tool_name = \"lro-extract\"\n",
            "[prompt.offload.mcp]\nnever_offload = [1]\n",
            "[prompt.offload.mcp]\nresource_link = \"sometimes\"\n",
            "[prompt.offload.mcp]\nresource_links = true\n",
        ] {
            let err = crate::OffloadConfig::from_toml_str(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{bad}");
            assert!(err.message().contains("prompt.offload.mcp."), "{err}");
        }
        let mut config = crate::OffloadConfig::default();
        config.mcp.extract_tool_name = Some("9".into());
        assert_eq!(
            config.validate().unwrap_err().code(),
            ErrorCode::InvalidConfig
        );
    }
}
