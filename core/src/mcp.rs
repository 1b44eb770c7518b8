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

pub use crate::config::McpConfig;
pub use crate::config::tool_name::{MAX_TOOL_NAME_CHARS, check_tool_name, is_valid_tool_name};

/// The extract tool's name when nothing names the server.
pub const DEFAULT_EXTRACT_TOOL: &str = "lro_extract";

#[cfg(test)]
mod tests {
    use crate::error::ErrorCode;

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
