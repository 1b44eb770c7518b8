//! # lro-js: the JavaScript API of LRO, described once
//!
//! LRO has two JavaScript builds: the Node addon (`bindings-node`, napi-rs) and the
//! wasm-bindgen package (`bindings-wasm/js`) for browsers, workers and Node without native
//! addons. Both export the same functions with the same option objects, results and error
//! codes; this crate is that API on plain Rust types, so neither binding describes it again:
//!
//! - the option objects ([`OffloadOptions`], [`ToolContext`], [`ExtractOptions`],
//!   [`Config`]) are serde mirrors of their JS shape (camelCase keys, unknown keys refused),
//!   read from the argument's `JSON.stringify` text by [`from_json`], and converted into the
//!   core's types with `TryFrom`, so a mistake gets the same code in every build;
//! - with the `napi` feature the same structs declare the TypeScript interfaces of the Node
//!   addon's generated `index.d.ts`, which the wasm package ships as its own;
//! - [`Config`] also carries the configuration story every JS build tells ([`resolve`],
//!   [`layer`]), [`to_value`] turns a result into JSON without ever losing it to `null`, and
//!   [`extract_tool`], [`resource_scheme`] and [`resource_error_code`] are what both builds
//!   tell an MCP server, and [`resolve_tool_call`] is how both resolve result handles.
//!
//! ```
//! use lro_js::{ExtractOptions, OffloadOptions, from_json};
//!
//! let options = from_json::<OffloadOptions>(Some(r#"{"operation":"search","nextCursor":"c2"}"#))?;
//! let request = options.into_request("recall")?;
//! assert_eq!((request.operation.as_str(), request.next_cursor.as_deref()), ("search", Some("c2")));
//!
//! // A structured query's filter keeps its keys: they are the records' field names.
//! let query = from_json::<ExtractOptions>(Some(r#"{"where":{"entityType":"person"},"groupBy":"tags"}"#))?;
//! assert_eq!(query.group_by.as_deref(), Some("tags"));
//!
//! // Mistakes name the key, with the core's code.
//! let err = from_json::<OffloadOptions>(Some(r#"{"detail":7}"#)).unwrap_err();
//! assert_eq!((err.code().as_str(), err.message()), ("invalid_detail", "options.detail: invalid type: integer `7`, expected a string"));
//! # Ok::<(), lro_core::LroError>(())
//! ```
#![forbid(unsafe_code)]

mod argument;
mod config;
mod mcp;
mod options;

pub use argument::{Argument, from_json, to_value};
pub use config::{Config, ExtractLimits, StoreLimits, config_keys, layer, resolve, variables};
pub use mcp::{extract_tool, resolve_tool_call, resource_error_code, resource_scheme};
pub use options::{ExtractOptions, LineRange, OffloadOptions, SearchSpec, ToolContext};
