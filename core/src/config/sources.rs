//! The sources of a configuration, each read over the one before: a TOML document's
//! `[prompt.offload]` section, a JSON object (what the bindings' option objects become), the
//! `ATLATL_PROMPT__OFFLOAD__*` environment, one key as text (a command-line flag); and the
//! check of a configuration built in code. Every key is set and checked through
//! [the table of keys](super::KEYS).

use super::keys::ENV_PREFIX;
use super::settings::{KEYS, OffloadConfig, is_section, key};
use super::toml_doc::{self, TomlValue};
use super::value::{RawValue, unknown};
use crate::error::{ErrorCode, LroError, Result};

/// The key of the per-tool rules (`[prompt.offload.tools."PATTERN"]`), which are no row of
/// [`KEYS`] but a table of [`TOOL_KEYS`](super::TOOL_KEYS) by pattern.
const TOOLS: &str = "tools";

impl OffloadConfig {
    /// Reads the `[prompt.offload]` section of a TOML document over the defaults. A document
    /// without the section gives the defaults; other sections are ignored.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let mut config = Self::default();
        config.apply_toml_str(text)?;
        Ok(config)
    }

    /// Applies the `[prompt.offload]` section of a TOML document over this configuration.
    /// Sections that look like it but are not (`[Prompt.Offload]`) are ignored: loaders of
    /// a user's file use [`OffloadConfig::apply_toml_checked`], which names them.
    pub fn apply_toml_str(&mut self, text: &str) -> Result<()> {
        self.apply_toml_checked(text).map(drop)
    }

    /// [`OffloadConfig::apply_toml_str`], returning warnings for the sections that look like
    /// `[prompt.offload]` but are not it ([`crate::config_file::section_warnings`]), for the
    /// caller to show (the CLI and proxy on stderr, Python `warnings.warn`, Node
    /// `process.emitWarning`).
    pub fn apply_toml_checked(&mut self, text: &str) -> Result<Vec<String>> {
        let doc = toml_doc::parse(text)?;
        let warnings = crate::config_file::section_warnings(doc.get_ref());
        let section = doc
            .get_ref()
            .get("prompt")
            .and_then(|prompt| TomlValue::new(prompt, text).key("offload"));
        if let Some(section) = section {
            self.apply_toml_section(section)?;
        }
        Ok(warnings)
    }

    fn apply_toml_section(&mut self, section: TomlValue<'_>) -> Result<()> {
        let Some(entries) = section.entries() else {
            return Err(LroError::new(
                ErrorCode::InvalidConfig,
                "prompt.offload must be a table",
            ));
        };
        for (key, value) in entries {
            if key == TOOLS {
                self.apply_tools_toml(value)?;
            } else if is_section(key) {
                let Some(limits) = value.entries() else {
                    return Err(LroError::new(
                        ErrorCode::InvalidConfig,
                        format!("prompt.offload.{key} must be a table"),
                    ));
                };
                for (sub, v) in limits {
                    self.set(&format!("{key}.{sub}"), &RawValue::Toml(v))?;
                }
            } else {
                self.set(key, &RawValue::Toml(value))?;
            }
        }
        Ok(())
    }

    /// Applies `ATLATL_PROMPT__OFFLOAD__*` variables from `vars` (a map of variables, as a
    /// wasm host passes them; for this process's environment use [`OffloadConfig::apply_env_os`]).
    /// Variables without the prefix are ignored; an unknown key under it is an error, so a
    /// typo does not go unnoticed. `__EXTRACT__MAX_OUTPUT_BYTES` sets `extract.max_output_bytes`.
    /// Errors name the variable first: `ATLATL_PROMPT__OFFLOAD__TTL_SECONDS: invalid value ...`.
    /// `ATLATL_PROMPT__OFFLOAD__TOOLS__<LABEL>` (any label) holds per-tool rules as text,
    /// `PATTERN:KEY=VALUE[,KEY=VALUE...]` ([`OffloadConfig::apply_tool_rules_str`]).
    pub fn apply_env<K: AsRef<str>, V: AsRef<str>>(
        &mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Result<()> {
        for (name, value) in vars {
            let name = name.as_ref();
            let Some(suffix) = name.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            let key = suffix.to_ascii_lowercase().replace("__", ".");
            // `TOOLS__<LABEL>` holds rules as text: a variable's name cannot carry a glob.
            let applied = if key == TOOLS || key.starts_with("tools.") {
                self.apply_tool_rules_str(value.as_ref())
            } else {
                self.set(&key, &RawValue::Text(value.as_ref()))
            };
            applied.map_err(|e| LroError::new(e.code(), format!("{name}: {}", e.message())))?;
        }
        Ok(())
    }

    /// [`OffloadConfig::apply_env`] over a process environment as the OS gives it: pass
    /// `std::env::vars_os()` (what every native surface does, so the CLI, the proxy and the
    /// bindings read the same variables). Only names under the prefix are read, so another
    /// variable holding bytes that are not UTF-8 is no obstacle (where `std::env::vars()`
    /// would panic); such a name or value under the prefix is an `invalid_config` error
    /// that names the variable.
    pub fn apply_env_os(
        &mut self,
        vars: impl IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    ) -> Result<()> {
        let not_utf8 = |what: &str, name: &std::ffi::OsStr| {
            LroError::new(
                ErrorCode::InvalidConfig,
                format!(
                    "{}: the variable's {what} is not UTF-8",
                    name.to_string_lossy()
                ),
            )
        };
        for (name, value) in vars {
            let Some(text_name) = name.to_str() else {
                if name.as_encoded_bytes().starts_with(ENV_PREFIX.as_bytes()) {
                    return Err(not_utf8("name", &name));
                }
                continue;
            };
            if !text_name.starts_with(ENV_PREFIX) {
                continue;
            }
            let text_value = value.to_str().ok_or_else(|| not_utf8("value", &name))?;
            self.apply_env([(text_name, text_value)])?;
        }
        Ok(())
    }

    /// Builds a configuration from a JSON object of `[prompt.offload]` keys over the
    /// defaults (`{"threshold_tokens": 800, "extract": {"timeout_ms": 500}}`): what the
    /// bindings' option objects become. `null` values keep the default.
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let mut config = Self::default();
        config.apply_json(value)?;
        Ok(config)
    }

    /// Applies a JSON object of keys over this configuration (see [`OffloadConfig::from_json`]).
    pub fn apply_json(&mut self, value: &serde_json::Value) -> Result<()> {
        let serde_json::Value::Object(map) = value else {
            return Err(LroError::new(
                ErrorCode::InvalidConfig,
                format!("configuration must be an object, got {value}"),
            ));
        };
        for (key, v) in map {
            match (key.as_str(), v) {
                (_, serde_json::Value::Null) => {}
                (TOOLS, rules) => self.apply_tools_json(rules)?,
                (section, serde_json::Value::Object(limits)) if is_section(section) => {
                    for (sub, lv) in limits.iter().filter(|(_, lv)| !lv.is_null()) {
                        self.set(&format!("{section}.{sub}"), &RawValue::Json(lv))?;
                    }
                }
                _ => self.set(key, &RawValue::Json(v))?,
            }
        }
        Ok(())
    }

    /// Sets one key from its textual form, as the environment and command lines give it
    /// (`threshold_tokens`, `extract.timeout_ms`, ...).
    pub fn set_str(&mut self, key: &str, value: &str) -> Result<()> {
        self.set(key, &RawValue::Text(value))
    }

    fn set(&mut self, name: &str, value: &RawValue<'_>) -> Result<()> {
        match key(name) {
            Some(known) => known.set(self, value),
            None if is_section(name) => Err(super::value::section_as_key(name, value)),
            None => Err(unknown(name, value, crate::config_file::nearest_key(name))),
        }
    }

    /// Checks the invariants a configuration built field by field (from a binding's options)
    /// may have broken: the bounds the setters of TOML, JSON and environment values enforce
    /// (a safe file prefix, a ratio in (0, 1], times up to [`MAX_SETTING`](super::MAX_SETTING),
    /// a store timeout from 1 ms, at most [`MAX_STORE_RETRIES`](super::MAX_STORE_RETRIES)),
    /// with the same messages, key by key in the order of [`KEYS`](super::KEYS). (The setters
    /// also bound the byte and record limits by `MAX_SETTING`; in code, `u64::MAX` is no limit.)
    pub fn validate(&self) -> Result<()> {
        KEYS.iter().try_for_each(|key| key.check(self))?;
        self.validate_tools()
    }
}
