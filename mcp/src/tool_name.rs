//! The extract tool's name as a surface lists it. It is unique per server by default,
//! because an agent that talks to two LRO-fronted servers sees both tools in one namespace,
//! and frameworks refuse (OpenAI Agents, pydantic-ai) or rename (Mastra) tools that share a
//! name:
//!
//! ```
//! use lro_core::mcp::McpConfig;
//! use lro_mcp::{extract_tool_for_server, extract_tool_name};
//!
//! assert_eq!(extract_tool_for_server(Some("memory-server")), "lro_extract_memory_server");
//! assert_eq!(extract_tool_for_server(Some("mcp-servers/everything")), "lro_extract_mcp_servers_everything");
//! assert_eq!(extract_tool_for_server(None), "lro_extract");
//! // A configured name wins over the server's.
//! let config = McpConfig { extract_tool_name: Some("mem_extract".into()), ..McpConfig::default() };
//! assert_eq!(extract_tool_name(&config, Some("memory-server")), "mem_extract");
//! ```

use lro_core::mcp::{DEFAULT_EXTRACT_TOOL, MAX_TOOL_NAME_CHARS, McpConfig};

/// The extract tool's name for a server named `server_name` under `config`: the configured
/// `extract_tool_name`, else [`extract_tool_for_server`].
pub fn extract_tool_name(config: &McpConfig, server_name: Option<&str>) -> String {
    config
        .extract_tool_name
        .clone()
        .unwrap_or_else(|| extract_tool_for_server(server_name))
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
    use lro_core::mcp::is_valid_tool_name;

    use super::*;

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

    #[test]
    fn a_configured_name_wins() {
        let config = McpConfig {
            extract_tool_name: Some("mem_extract".into()),
            ..McpConfig::default()
        };
        assert_eq!(extract_tool_name(&config, Some("memory")), "mem_extract");
        let config = McpConfig::default();
        assert_eq!(
            extract_tool_name(&config, Some("memory")),
            "lro_extract_memory"
        );
    }
}
