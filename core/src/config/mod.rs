//! Configuration: the specification's `[prompt.offload]` section, plus extraction limits, the
//! bounds on requests to an object store and the MCP surfaces' options.
//!
//! Sources, lowest precedence first: [`OffloadConfig::default`], a TOML file's
//! `[prompt.offload]` section ([`OffloadConfig::from_toml_str`]), then the
//! `ATLATL_PROMPT__OFFLOAD__*` environment ([`OffloadConfig::apply_env`]); the bindings build
//! one from their option objects ([`OffloadConfig::from_json`]) and the command line sets keys
//! one by one ([`OffloadConfig::set_str`]). Every key is described once, in [`KEYS`], beside
//! the field it sets: its dotted name, type, bounds, default, environment variable and TOML
//! table, and the one setter every source goes through. Every bad value is an
//! [`ErrorCode::InvalidConfig`](crate::ErrorCode::InvalidConfig) error that names the key and
//! the value.
//!
//! ```
//! use lro_core::OffloadConfig;
//!
//! let mut config = OffloadConfig::from_toml_str(
//!     "[prompt.offload]\nthreshold_tokens = 800\n[prompt.offload.extract]\ntimeout_ms = 500\n",
//! )?;
//! config.apply_env([("ATLATL_PROMPT__OFFLOAD__STORE__RETRIES", "4")])?;
//! config.set_str("guidance", "native")?;
//! assert_eq!((config.threshold_tokens, config.extract.timeout_ms, config.store.retries), (800, 500, 4));
//! let err = config.set_str("store.retries", "11").unwrap_err();
//! assert_eq!(err.code().as_str(), "invalid_config");
//! assert!(err.message().contains("prompt.offload.store.retries"));
//! # Ok::<(), lro_core::LroError>(())
//! ```

pub mod keys;
mod reference;
mod settings;
mod sources;
mod toml_doc;
pub mod tool_glob;
pub(crate) mod tool_name;
mod tool_rules;
mod value;

pub use keys::{ENV_PREFIX, Key, Kind};
pub use reference::{keys_json, markdown_table, tool_keys_markdown_table};
pub use settings::*;
pub use tool_rules::TOOL_KEYS;
pub(crate) use value::is_safe_name;

#[cfg(test)]
mod tests;
