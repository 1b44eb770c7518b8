//! What every MCP surface (the `lro proxy`, the Python and Node helpers) shares beyond the
//! interceptor: the shape of an offloaded result, the extract tool's name, and the tools
//! that are never offloaded (`[prompt.offload.mcp]`).
//!
//! The extract tool's name is unique per server by default, because an agent that talks to
//! two LRO-fronted servers sees both tools in one namespace, and frameworks refuse (OpenAI
//! Agents, pydantic-ai) or rename (Mastra) tools that share a name:
//!
//! ```
//! use lro_core::mcp::{extract_tool_for_server, McpConfig};
//!
//! assert_eq!(extract_tool_for_server(Some("memory-server")), "lro_extract_memory_server");
//! assert_eq!(extract_tool_for_server(Some("mcp-servers/everything")), "lro_extract_mcp_servers_everything");
//! assert_eq!(extract_tool_for_server(None), "lro_extract");
//! // A configured name wins over the server's.
//! let config = McpConfig { extract_tool_name: Some("mem_extract".into()), ..McpConfig::default() };
//! assert_eq!(config.extract_tool(Some("memory-server")), "mem_extract");
//! ```

pub use crate::config::mcp::{MAX_TOOL_NAME_CHARS, McpConfig, check_tool_name, is_valid_tool_name};

/// The extract tool's name when nothing names the server.
pub const DEFAULT_EXTRACT_TOOL: &str = "lro_extract";

impl McpConfig {
    /// The extract tool's name for a server named `server_name`: the configured one, else
    /// [`extract_tool_for_server`].
    pub fn extract_tool(&self, server_name: Option<&str>) -> String {
        self.extract_tool_name
            .clone()
            .unwrap_or_else(|| extract_tool_for_server(server_name))
    }
}

/// `lro_extract_<server>`: the server's name lowercased, every run of characters outside
/// `[a-z0-9]` one `_`, trimmed of `_`, the whole at most [`MAX_TOOL_NAME_CHARS`];
/// [`DEFAULT_EXTRACT_TOOL`] when there is no server name (or nothing of it is left).
pub fn extract_tool_for_server(server_name: Option<&str>) -> String {
    let mut suffix = String::new();
    for c in server_name.unwrap_or_default().chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            suffix.push(c);
        } else if !suffix.is_empty() && !suffix.ends_with('_') {
            suffix.push('_');
        }
    }
    let mut name = format!("{DEFAULT_EXTRACT_TOOL}_{suffix}");
    name.truncate(MAX_TOOL_NAME_CHARS);
    let name = name.trim_end_matches('_');
    if name.len() <= DEFAULT_EXTRACT_TOOL.len() {
        return DEFAULT_EXTRACT_TOOL.to_owned();
    }
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn server_names_become_tool_names() {
        for (server, tool) in [
            (Some("memory-server"), "lro_extract_memory_server"),
            (Some("Everything Server!"), "lro_extract_everything_server"),
            (Some("--a..b--"), "lro_extract_a_b"),
            (Some("été"), "lro_extract_t"),
            (Some("日本"), "lro_extract"),
            (Some(""), "lro_extract"),
            (None, "lro_extract"),
        ] {
            assert_eq!(extract_tool_for_server(server), tool, "{server:?}");
        }
        let long = extract_tool_for_server(Some(&"abc-".repeat(40)));
        assert_eq!(
            long.len(),
            63,
            "cut at 64, then its trailing _ trimmed: {long}"
        );
        assert_eq!(extract_tool_for_server(Some(&"x".repeat(99))).len(), 64);
        assert!(is_valid_tool_name(&long));
    }

    fn rows() -> serde_json::Value {
        let rows: Vec<_> = (0..300)
            .map(|i| serde_json::json!({"id": i, "kind": "k", "label": format!("row number {i}")}))
            .collect();
        serde_json::json!({"content": [{"type": "text", "text": serde_json::Value::from(rows).to_string()}]})
    }

    fn offloader(toml: &str) -> crate::Offloader<crate::MemoryHost> {
        let config = crate::OffloadConfig::from_toml_str(toml).unwrap();
        crate::Offloader::new(config, crate::MemoryHost::new()).unwrap()
    }

    #[test]
    fn the_mcp_section_from_toml_env_and_json() {
        let config = crate::OffloadConfig::from_toml_str(
            "[prompt.offload.mcp]\nresource_link = true\nstructured_content = true\n\
             extract_tool_name = \"mem_extract\"\nnever_offload = [\"get_weather\", \"echo\"]\n",
        )
        .unwrap();
        assert!(config.mcp.resource_link && config.mcp.structured_content);
        assert_eq!(config.mcp.extract_tool(Some("memory")), "mem_extract");
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

    #[test]
    fn a_never_offloaded_tool_passes_untouched() {
        let lro = offloader("[prompt.offload.mcp]\nnever_offload = [\"get_rows\"]\n");
        let context = |name: &str| crate::ToolCallContext {
            tool_name: name.into(),
            ..Default::default()
        };
        let kept = lro
            .intercept_tool_result(&rows(), &context("get_rows"))
            .unwrap();
        assert_eq!(
            (kept.action, kept.result),
            (crate::InterceptAction::Bypassed, rows())
        );
        let text = rows()["content"][0]["text"].as_str().unwrap().to_owned();
        let text_result =
            serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string();
        assert!(matches!(
            lro.intercept_tool_result_text(&text_result, &context("get_rows"))
                .unwrap(),
            crate::InterceptedText::Unchanged(crate::InterceptAction::Bypassed)
        ));
        let other = lro
            .intercept_tool_result(&rows(), &context("list_rows"))
            .unwrap();
        assert_eq!(other.action, crate::InterceptAction::Offloaded);
    }

    #[test]
    fn descriptors_name_the_extract_tool_as_listed() {
        for (profile, toml_name, context_name, expected) in [
            (
                "full",
                None,
                Some("lro_extract_memory"),
                "lro_extract_memory",
            ),
            (
                "compact",
                None,
                Some("lro_extract_memory"),
                "lro_extract_memory",
            ),
            (
                "pointer",
                None,
                Some("lro_extract_memory"),
                "lro_extract_memory",
            ),
            ("full", Some("mem_x"), None, "mem_x"),
            ("full", None, None, "lro_extract"),
        ] {
            let mut toml =
                format!("[prompt.offload]\nguidance = \"native\"\ndescriptor = \"{profile}\"\n");
            if let Some(name) = toml_name {
                toml.push_str(&format!(
                    "[prompt.offload.mcp]\nextract_tool_name = \"{name}\"\n"
                ));
            }
            let lro = offloader(&toml);
            let context = crate::ToolCallContext {
                tool_name: "read_graph".into(),
                extract_tool: context_name.map(str::to_owned),
                ..Default::default()
            };
            let out = lro.intercept_tool_result(&rows(), &context).unwrap();
            let text = out.result["content"][0]["text"].as_str().unwrap();
            let descriptor: serde_json::Value = serde_json::from_str(text).unwrap();
            let guidance = descriptor["guidance"].as_str().unwrap();
            assert!(
                guidance.contains(&format!("{expected}(file_path")),
                "{profile}: {guidance}"
            );
            assert!(
                !guidance.contains("lro_extract(") || expected == "lro_extract",
                "{guidance}"
            );
            if profile != "pointer" {
                assert_eq!(descriptor["extract_tool"], expected, "{profile}");
                assert!(guidance.contains("prefix"), "{guidance}");
            }
            let uri = descriptor["resource_uri"].as_str().unwrap();
            assert!(
                uri.starts_with("lro://offloads/atlatl-read_graph-"),
                "{uri}"
            );
        }
        // The shell guidance names no tool.
        let lro = offloader("");
        let out = lro
            .intercept_tool_result(&rows(), &crate::ToolCallContext::default())
            .unwrap();
        let descriptor: serde_json::Value =
            serde_json::from_str(out.result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert!(descriptor.get("extract_tool").is_none());
        assert!(descriptor["resource_uri"].is_string());
    }
}
