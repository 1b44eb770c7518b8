//! # lro-mcp: Large Result Offloading for MCP
//!
//! Everything an MCP surface (the `lro proxy`, the Python, Node and WebAssembly helpers) does
//! with an [`Offloader`](lro_core::Offloader) of `lro-core`: it rewrites a large
//! `tools/call` result into the descriptor of the file it was offloaded to, serves offload
//! files as MCP resources, and names and answers the extract tool that queries them. The
//! core knows files, records and descriptors; this crate knows `CallToolResult`s, resources
//! and JSON-RPC error codes. Every function takes the offloader as its first argument.
//!
//! ```
//! use lro_core::{MemoryHost, OffloadConfig, Offloader};
//! use lro_mcp::{InterceptAction, ToolCallContext, extract_tool::call_result, intercept_tool_result};
//! use serde_json::json;
//! use std::sync::atomic::AtomicBool;
//!
//! let lro = Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap();
//! let rows: Vec<_> = (0..300).map(|i| json!({"id": i, "label": format!("row number {i}")})).collect();
//! let result = json!({"content": [{"type": "text", "text": json!(rows).to_string()}]});
//! let context = ToolCallContext { tool_name: "list_rows".into(), ..ToolCallContext::default() };
//!
//! // A large result becomes one text block: the descriptor, as compact JSON.
//! let intercepted = intercept_tool_result(&lro, &result, &context).unwrap();
//! assert_eq!(intercepted.action, InterceptAction::Offloaded);
//! let descriptor: serde_json::Value =
//!     serde_json::from_str(intercepted.result["content"][0]["text"].as_str().unwrap()).unwrap();
//! assert_eq!(descriptor["summary"]["count"], 300);
//!
//! // The agent then calls the extract tool on the file the descriptor names.
//! let file_path = descriptor["file_path"].as_str().unwrap();
//! let call = json!({"file_path": file_path, "where": "{\"id\": {\"$gte\": 298}}"});
//! let answer = call_result(&lro, Some(&call), &AtomicBool::new(false));
//! assert_eq!(answer["isError"], false);
//! assert_eq!(answer["content"][0]["text"].as_str().unwrap().lines().count(), 2);
//! ```
//!
//! - [`intercept`]: decide on a `tools/call` result and rewrite it ([`intercept_tool_result`]).
//! - [`intercept_text`]: the same on the result's JSON text, without building its `Value`
//!   ([`intercept_tool_result_text`]).
//! - [`resources`]: offload files as MCP resources (`lro://offloads/...`): listing in pages,
//!   reading, templates, the JSON-RPC error code of each failure.
//! - [`extract_tool`]: the extract tool's description, input schema and answers.
//! - [`tool_name`]: the extract tool's name per server.
//! - [`handles`]: result handles (`{"$lro": URI, ...}` in a tool call's arguments) replaced
//!   by the data they name ([`handles::resolve`]).
#![forbid(unsafe_code)]

pub mod extract_tool;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzz_checks;
pub mod handles;
pub mod intercept;
pub mod intercept_text;
pub mod resources;
pub mod tool_name;

pub use intercept::{
    InterceptAction, Intercepted, ToolCallContext, bypasses, intercept_tool_result,
    operation_for_tool, rule_for,
};
pub use intercept_text::{InterceptedText, intercept_tool_result_text};
pub use resources::{
    ReadResourceResult, Resource, ResourceContents, ResourcePage, list_resources,
    list_resources_page, read_resource,
};
pub use tool_name::{extract_tool_for_server, extract_tool_name};
