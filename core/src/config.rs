//! Configuration: the specification's `[prompt.offload]` section, plus extraction limits and
//! the bounds on requests to an object store.
//!
//! Sources, lowest precedence first: [`OffloadConfig::default`], a TOML file's
//! `[prompt.offload]` section ([`OffloadConfig::from_toml_str`]), then the
//! `ATLATL_PROMPT__OFFLOAD__*` environment ([`OffloadConfig::apply_env`]). Every bad value is
//! an [`ErrorCode::InvalidConfig`] error that names the key and the value.

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, LroError, Result};

/// The specification's default threshold: about 10 records of 155 tokens.
pub const DEFAULT_OFFLOAD_THRESHOLD_TOKENS: u32 = 1600;
/// Default file time-to-live: one hour.
pub const DEFAULT_TTL_SECONDS: u64 = 3600;
/// Default file name prefix (`atlatl-{operation}-{ulid}.jsonl`).
pub const DEFAULT_FILE_PREFIX: &str = "atlatl";
/// Prefix of the environment variables that configure LRO.
pub const ENV_PREFIX: &str = "ATLATL_PROMPT__OFFLOAD__";

/// Which guidance template descriptors carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GuidanceMode {
    /// The specification's shell template: `tail -n +2 FILE | jq ...`.
    #[default]
    Shell,
    /// The native template: the host offers the `lro_extract` tool.
    Native,
}

/// How much of the descriptor an offloaded result returns (`descriptor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DescriptorProfile {
    /// The specification's `OffloadResponse`: summary, path, line schema, ten recipes with
    /// their commands, guidance.
    #[default]
    Full,
    /// Summary, path, the recipes as one short line each and one paragraph of guidance: at
    /// most [`COMPACT_BUDGET_TOKENS`](crate::descriptor::COMPACT_BUDGET_TOKENS).
    Compact,
    /// `offloaded`, `file_path`, `count` and one line of guidance: at most
    /// [`POINTER_BUDGET_TOKENS`](crate::descriptor::POINTER_BUDGET_TOKENS).
    Pointer,
}

impl DescriptorProfile {
    /// The profile's name, as configured.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Compact => "compact",
            Self::Pointer => "pointer",
        }
    }
}

impl std::str::FromStr for DescriptorProfile {
    type Err = LroError;

    fn from_str(name: &str) -> Result<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(Self::Full),
            "compact" => Ok(Self::Compact),
            "pointer" => Ok(Self::Pointer),
            _ => Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!("unknown descriptor profile {name:?}: use full, compact or pointer"),
            )),
        }
    }
}

/// The default share of the context left that a result may take inline when the caller
/// says how much is left (`context_remaining_tokens`).
pub const DEFAULT_ADAPTIVE_RATIO: f64 = 0.10;

/// Bounds on one native extraction (`lro_extract`), so an agent's filter cannot exhaust the
/// host. A result cut by a limit says so; it is never cut silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractLimits {
    /// Most bytes read from the file (default 1 GiB).
    pub max_read_bytes: u64,
    /// Most output values returned (default 10,000).
    pub max_output_records: u64,
    /// Most output bytes, as compact JSON (default 1 MiB).
    pub max_output_bytes: u64,
    /// Most wall time, in milliseconds (default 10,000).
    pub timeout_ms: u64,
    /// Most memory the values a jq filter builds may take, estimated (default 512 MiB);
    /// past it the extraction fails with `resource_limit`.
    pub max_memory_bytes: u64,
    /// Most tokens (estimated as offloading estimates them) of one answer of the extract
    /// tool through MCP (default 4,000): a longer answer is cut at a record boundary, or
    /// inside one huge value at a character boundary, and names the next call. The core's
    /// `extract` API is bounded by the limits above only.
    pub answer_max_tokens: u64,
    /// Most bytes of one answer of the extract tool through MCP (default 16,384); see
    /// `answer_max_tokens`.
    pub answer_max_bytes: u64,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        Self {
            max_read_bytes: 1 << 30,
            max_output_records: 10_000,
            max_output_bytes: 1 << 20,
            timeout_ms: 10_000,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            answer_max_tokens: DEFAULT_ANSWER_MAX_TOKENS,
            answer_max_bytes: DEFAULT_ANSWER_MAX_BYTES,
        }
    }
}

/// The default of [`ExtractLimits::answer_max_tokens`]: a tenth of the smaller context
/// windows, about 16 KB of text.
pub const DEFAULT_ANSWER_MAX_TOKENS: u64 = 4_000;

/// The default of [`ExtractLimits::answer_max_bytes`].
pub const DEFAULT_ANSWER_MAX_BYTES: u64 = 16_384;

/// The default of [`ExtractLimits::max_memory_bytes`]: far above what a filter over a
/// result needs, far below what takes a host down.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 512 << 20;

/// Bounds on the requests to an object store (`output_dir = "s3://bucket/prefix"`), so a store
/// that is down or slow costs a tool call a bounded delay before the write-failure fallback.
/// Hosts without a network ignore them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StoreLimits {
    /// Longest wait on the store, in milliseconds: to connect, for the answer to start, and
    /// for each read or write after that (default 5,000).
    pub timeout_ms: u64,
    /// Retries of a request that failed with a connection error, a timeout or a 5xx/429
    /// answer, after short backoffs (default 2, at most 10).
    pub retries: u32,
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self {
            timeout_ms: 5_000,
            retries: 2,
        }
    }
}

/// Most retries a configuration may ask for: every retry can wait `timeout_ms` again.
pub const MAX_STORE_RETRIES: u64 = 10;

/// Largest value of a 64-bit setting (seconds, bytes, milliseconds): what fits a signed
/// 64-bit integer, so every host's arithmetic on it stays in range.
pub const MAX_SETTING: u64 = u64::MAX >> 1;

/// LRO configuration (`[prompt.offload]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OffloadConfig {
    /// Enable or disable LRO globally.
    pub enabled: bool,
    /// Offload when the estimated tokens are strictly greater than this.
    pub threshold_tokens: u32,
    /// Seconds before cleanup may delete a file.
    pub ttl_seconds: u64,
    /// Directory for JSONL files; empty means the host's default, private to the user
    /// (`StdHost`: `<temp dir>/lro-<uid>`, made 0700).
    pub output_dir: String,
    /// Use an output directory other users can write (owned by another user, or group- or
    /// other-writable without being a sticky directory of this user) or swap (a parent
    /// directory another user's, or group- or other-writable and not sticky), which is
    /// refused otherwise: there, another user could plant or replace the files LRO reads
    /// back, or rename the directory away and have LRO write into theirs.
    pub allow_shared_dir: bool,
    /// File name prefix: `{prefix}-{operation}-{ulid}.jsonl`.
    pub file_prefix: String,
    /// Which guidance template descriptors carry.
    pub guidance: GuidanceMode,
    /// How much of the descriptor an offloaded result returns (a call may ask for another).
    pub descriptor: DescriptorProfile,
    /// With a call's `context_remaining_tokens`, the threshold becomes
    /// `min(threshold_tokens, adaptive_ratio x context_remaining_tokens)`; from 0 to 1.
    pub adaptive_ratio: f64,
    /// Limits on native extraction.
    pub extract: ExtractLimits,
    /// Bounds on requests to an object store.
    pub store: StoreLimits,
    /// The MCP surfaces' options: result shape, extract tool name, tools never offloaded.
    pub mcp: crate::mcp::McpConfig,
}

impl Default for OffloadConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            threshold_tokens: DEFAULT_OFFLOAD_THRESHOLD_TOKENS,
            ttl_seconds: DEFAULT_TTL_SECONDS,
            output_dir: String::new(),
            allow_shared_dir: false,
            file_prefix: DEFAULT_FILE_PREFIX.to_owned(),
            guidance: GuidanceMode::Shell,
            descriptor: DescriptorProfile::Full,
            adaptive_ratio: DEFAULT_ADAPTIVE_RATIO,
            extract: ExtractLimits::default(),
            store: StoreLimits::default(),
            mcp: crate::mcp::McpConfig::default(),
        }
    }
}

/// A raw configuration value, from TOML (typed) or the environment (text).
enum RawValue<'a> {
    Toml(&'a toml::Value),
    Json(&'a serde_json::Value),
    Text(&'a str),
}

impl RawValue<'_> {
    fn display(&self) -> String {
        match self {
            Self::Toml(v) => v.to_string(),
            Self::Json(v) => v.to_string(),
            Self::Text(s) => format!("{s:?}"),
        }
    }
}

fn invalid(key: &str, value: &RawValue<'_>, expected: &str) -> LroError {
    LroError::new(
        ErrorCode::InvalidConfig,
        format!(
            "invalid value for prompt.offload.{key}: {} (expected {expected})",
            value.display()
        ),
    )
}

fn as_bool(key: &str, value: &RawValue<'_>) -> Result<bool> {
    match value {
        RawValue::Toml(toml::Value::Boolean(b)) | RawValue::Json(serde_json::Value::Bool(b)) => {
            Ok(*b)
        }
        RawValue::Text(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(invalid(key, value, "true or false")),
        },
        RawValue::Toml(_) | RawValue::Json(_) => Err(invalid(key, value, "true or false")),
    }
}

fn as_u64(key: &str, value: &RawValue<'_>, max: u64) -> Result<u64> {
    let parsed = match value {
        RawValue::Toml(toml::Value::Integer(i)) => u64::try_from(*i).ok(),
        RawValue::Json(v) => v.as_u64(),
        RawValue::Text(s) => s.trim().parse::<u64>().ok(),
        RawValue::Toml(_) => None,
    };
    parsed
        .filter(|n| *n <= max)
        .ok_or_else(|| invalid(key, value, &format!("an integer from 0 to {max}")))
}

fn as_ratio(key: &str, value: &RawValue<'_>) -> Result<f64> {
    let parsed = match value {
        RawValue::Toml(toml::Value::Float(f)) => Some(*f),
        RawValue::Toml(toml::Value::Integer(i)) => Some(*i as f64),
        RawValue::Json(v) => v.as_f64(),
        RawValue::Text(s) => s.trim().parse::<f64>().ok(),
        RawValue::Toml(_) => None,
    };
    parsed
        .filter(|r| r.is_finite() && *r > 0.0 && *r <= 1.0)
        .ok_or_else(|| invalid(key, value, "a number above 0 and at most 1"))
}

fn as_string<'a>(key: &str, value: &'a RawValue<'a>) -> Result<&'a str> {
    match value {
        RawValue::Toml(toml::Value::String(s)) => Ok(s),
        RawValue::Json(serde_json::Value::String(s)) => Ok(s),
        RawValue::Text(s) => Ok(s),
        RawValue::Toml(_) | RawValue::Json(_) => Err(invalid(key, value, "a string")),
    }
}

/// A list of names: a TOML or JSON array of strings, or comma-separated text (the
/// environment's form, also taken from TOML and JSON).
fn as_names(key: &str, value: &RawValue<'_>) -> Result<Vec<String>> {
    let split = |text: &str| -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let expected = "a list of tool names";
    match value {
        RawValue::Text(s) => Ok(split(s)),
        RawValue::Toml(toml::Value::String(s)) => Ok(split(s)),
        RawValue::Json(serde_json::Value::String(s)) => Ok(split(s)),
        RawValue::Toml(toml::Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| invalid(key, value, expected)),
        RawValue::Json(serde_json::Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| invalid(key, value, expected)),
        RawValue::Toml(_) | RawValue::Json(_) => Err(invalid(key, value, expected)),
    }
}

/// The sections under `[prompt.offload]` whose keys are set as `section.key`.
const SECTIONS: [&str; 3] = ["extract", "store", "mcp"];

/// A file prefix goes into file names and the cleanup pattern: keep it to a safe alphabet.
pub(crate) fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
        && !name.starts_with('.')
}

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
        let doc: toml::Table = text
            .parse()
            .map_err(|e| LroError::new(ErrorCode::InvalidConfig, format!("invalid TOML: {e}")))?;
        let warnings = crate::config_file::section_warnings(&doc);
        self.apply_toml_doc(&doc)?;
        Ok(warnings)
    }

    fn apply_toml_doc(&mut self, doc: &toml::Table) -> Result<()> {
        let section = doc.get("prompt").and_then(|p| p.get("offload"));
        let Some(section) = section else {
            return Ok(());
        };
        let toml::Value::Table(table) = section else {
            return Err(LroError::new(
                ErrorCode::InvalidConfig,
                "prompt.offload must be a table",
            ));
        };
        for (key, value) in table {
            if SECTIONS.contains(&key.as_str()) {
                let toml::Value::Table(limits) = value else {
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
            self.set(&key, &RawValue::Text(value.as_ref()))
                .map_err(|e| LroError::new(e.code(), format!("{name}: {}", e.message())))?;
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
                (section, serde_json::Value::Object(limits)) if SECTIONS.contains(&section) => {
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

    fn set(&mut self, key: &str, value: &RawValue<'_>) -> Result<()> {
        match key {
            "enabled" => self.enabled = as_bool(key, value)?,
            "threshold_tokens" => {
                self.threshold_tokens = as_u64(key, value, u64::from(u32::MAX))? as u32
            }
            "ttl_seconds" => self.ttl_seconds = as_u64(key, value, MAX_SETTING)?,
            "output_dir" => self.output_dir = as_string(key, value)?.to_owned(),
            "allow_shared_dir" => self.allow_shared_dir = as_bool(key, value)?,
            "file_prefix" => {
                let prefix = as_string(key, value)?;
                if !is_safe_name(prefix) {
                    return Err(invalid(
                        key,
                        value,
                        "1-64 characters from A-Z a-z 0-9 _ - .",
                    ));
                }
                self.file_prefix = prefix.to_owned();
            }
            "guidance" => {
                self.guidance = match as_string(key, value)? {
                    "shell" => GuidanceMode::Shell,
                    "native" => GuidanceMode::Native,
                    _ => return Err(invalid(key, value, "\"shell\" or \"native\"")),
                }
            }
            "descriptor" => {
                self.descriptor = as_string(key, value)?
                    .parse()
                    .map_err(|_| invalid(key, value, "\"full\", \"compact\" or \"pointer\""))?;
            }
            "adaptive_ratio" => self.adaptive_ratio = as_ratio(key, value)?,
            "extract.max_read_bytes" => {
                self.extract.max_read_bytes = as_u64(key, value, MAX_SETTING)?
            }
            "extract.max_output_records" => {
                self.extract.max_output_records = as_u64(key, value, MAX_SETTING)?
            }
            "extract.max_output_bytes" => {
                self.extract.max_output_bytes = as_u64(key, value, MAX_SETTING)?
            }
            "extract.timeout_ms" => self.extract.timeout_ms = as_u64(key, value, MAX_SETTING)?,
            "extract.max_memory_bytes" => {
                self.extract.max_memory_bytes = as_u64(key, value, MAX_SETTING)?
            }
            "extract.answer_max_tokens" => {
                self.extract.answer_max_tokens = as_u64(key, value, MAX_SETTING)?
            }
            "extract.answer_max_bytes" => {
                self.extract.answer_max_bytes = as_u64(key, value, MAX_SETTING)?
            }
            "store.timeout_ms" => {
                // Zero would time every request out before it starts.
                let ms = as_u64(key, value, MAX_SETTING)?;
                if ms == 0 {
                    return Err(invalid(key, value, "an integer from 1"));
                }
                self.store.timeout_ms = ms;
            }
            "store.retries" => self.store.retries = as_u64(key, value, MAX_STORE_RETRIES)? as u32,
            "mcp.resource_link" => self.mcp.resource_link = as_bool(key, value)?,
            "mcp.structured_content" => self.mcp.structured_content = as_bool(key, value)?,
            "mcp.extract_tool_name" => {
                let name = as_string(key, value)?;
                self.mcp.extract_tool_name = Some(crate::mcp::check_tool_name(name)?.to_owned());
            }
            "mcp.never_offload" => self.mcp.never_offload = as_names(key, value)?,
            _ => {
                let hint = crate::config_file::nearest_key(key)
                    .map(|known| format!("; did you mean prompt.offload.{known}?"))
                    .unwrap_or_default();
                return Err(LroError::new(
                    ErrorCode::InvalidConfig,
                    format!(
                        "unknown configuration key prompt.offload.{key} (value {}){hint}",
                        value.display()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks the invariants a configuration built field by field (from a binding's options)
    /// may have broken: the bounds the setters of TOML, JSON and environment values enforce
    /// (a safe file prefix, a ratio in (0, 1], times up to [`MAX_SETTING`], a store timeout
    /// from 1 ms, at most [`MAX_STORE_RETRIES`]), with the same messages. (The setters also
    /// bound the byte and record limits by [`MAX_SETTING`]; in code, `u64::MAX` is no limit.)
    pub fn validate(&self) -> Result<()> {
        let number = |key: &str, n: u64, expected: &str| {
            invalid(key, &RawValue::Json(&serde_json::Value::from(n)), expected)
        };
        let largest = format!("an integer from 0 to {MAX_SETTING}");
        // Times feed clock arithmetic; the byte and record limits may be `u64::MAX`, which is
        // no limit (what `lro extract` sets for an uncapped answer).
        for (key, n) in [
            ("ttl_seconds", self.ttl_seconds),
            ("extract.timeout_ms", self.extract.timeout_ms),
            ("store.timeout_ms", self.store.timeout_ms),
        ] {
            if n > MAX_SETTING {
                return Err(number(key, n, &largest));
            }
        }
        if self.store.timeout_ms == 0 {
            return Err(number("store.timeout_ms", 0, "an integer from 1"));
        }
        let retries = u64::from(self.store.retries);
        if retries > MAX_STORE_RETRIES {
            return Err(number(
                "store.retries",
                retries,
                &format!("an integer from 0 to {MAX_STORE_RETRIES}"),
            ));
        }
        if !is_safe_name(&self.file_prefix) {
            return Err(invalid(
                "file_prefix",
                &RawValue::Text(&self.file_prefix),
                "1-64 characters from A-Z a-z 0-9 _ - .",
            ));
        }
        if let Some(name) = &self.mcp.extract_tool_name {
            crate::mcp::check_tool_name(name)?;
        }
        let ratio = self.adaptive_ratio;
        if !(ratio.is_finite() && ratio > 0.0 && ratio <= 1.0) {
            let shown = serde_json::Value::from(ratio);
            return Err(invalid(
                "adaptive_ratio",
                &RawValue::Json(&shown),
                "a number above 0 and at most 1",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_specification() {
        let c = OffloadConfig::default();
        assert!(c.enabled);
        assert_eq!(c.threshold_tokens, 1600);
        assert_eq!(c.ttl_seconds, 3600);
        assert_eq!(c.output_dir, "");
        assert_eq!(c.file_prefix, "atlatl");
    }

    #[test]
    fn toml_section_then_env_wins() {
        let mut c = OffloadConfig::from_toml_str(
            "[server]\nport = 1\n[prompt.offload]\nenabled = false\nthreshold_tokens = 10\noutput_dir = \"/x\"\n[prompt.offload.extract]\ntimeout_ms = 5\n",
        )
        .unwrap();
        assert!(!c.enabled);
        assert_eq!(c.threshold_tokens, 10);
        assert_eq!(c.extract.timeout_ms, 5);
        c.apply_env([
            ("ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", "20"),
            ("PATH", "/bin"),
        ])
        .unwrap();
        assert_eq!(c.threshold_tokens, 20);
        c.apply_env([("ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_OUTPUT_BYTES", "7")])
            .unwrap();
        assert_eq!(c.extract.max_output_bytes, 7);
        c.apply_env([("ATLATL_PROMPT__OFFLOAD__STORE__RETRIES", "4")])
            .unwrap();
        assert_eq!(c.store.retries, 4);
    }

    #[test]
    fn store_limits_from_every_source_and_bounded() {
        let c =
            OffloadConfig::from_toml_str("[prompt.offload.store]\ntimeout_ms = 250\nretries = 1\n")
                .unwrap();
        assert_eq!(
            c.store,
            StoreLimits {
                timeout_ms: 250,
                retries: 1
            }
        );
        let c = OffloadConfig::from_json(
            &serde_json::json!({"store": {"timeout_ms": 40, "retries": null}}),
        )
        .unwrap();
        assert_eq!(
            c.store,
            StoreLimits {
                timeout_ms: 40,
                retries: 2
            }
        );
        for bad in [
            "[prompt.offload.store]\nretries = 11",
            "[prompt.offload.store]\ntimeout_ms = 0",
            "[prompt.offload.store]\nwait = 1",
            "[prompt.offload]\nstore = 3",
        ] {
            let err = OffloadConfig::from_toml_str(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{bad}");
            assert!(err.message().contains("store"), "{err}");
        }
    }

    #[test]
    fn descriptor_profile_and_adaptive_ratio_from_every_source() {
        let mut c = OffloadConfig::from_toml_str(
            "[prompt.offload]\ndescriptor = \"compact\"\nadaptive_ratio = 0.25\n",
        )
        .unwrap();
        assert_eq!(c.descriptor, DescriptorProfile::Compact);
        assert!((c.adaptive_ratio - 0.25).abs() < f64::EPSILON);
        c.apply_env([
            ("ATLATL_PROMPT__OFFLOAD__DESCRIPTOR", "Pointer"),
            ("ATLATL_PROMPT__OFFLOAD__ADAPTIVE_RATIO", "1"),
        ])
        .unwrap();
        assert_eq!(c.descriptor, DescriptorProfile::Pointer);
        assert!((c.adaptive_ratio - 1.0).abs() < f64::EPSILON);
        let c = OffloadConfig::from_json(&serde_json::json!({"adaptive_ratio": 0.5})).unwrap();
        assert!((c.adaptive_ratio - 0.5).abs() < f64::EPSILON);
        for bad in [
            "[prompt.offload]\ndescriptor = \"tiny\"",
            "[prompt.offload]\nadaptive_ratio = 0",
            "[prompt.offload]\nadaptive_ratio = 1.5",
            "[prompt.offload]\nadaptive_ratio = \"half\"",
        ] {
            let err = OffloadConfig::from_toml_str(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{bad}");
        }
        let built = OffloadConfig {
            adaptive_ratio: f64::NAN,
            ..OffloadConfig::default()
        };
        assert_eq!(
            built.validate().unwrap_err().code(),
            ErrorCode::InvalidConfig
        );
    }

    #[test]
    fn validate_enforces_what_the_setters_enforce() {
        // A configuration built in code (a binding's typed options) is held to the bounds
        // a TOML file or the environment could not cross, with the setters' messages.
        let mut store = OffloadConfig::default();
        store.store.timeout_ms = 0;
        let mut retries = OffloadConfig::default();
        retries.store.retries = 11;
        let ttl = OffloadConfig {
            ttl_seconds: u64::MAX,
            ..OffloadConfig::default()
        };
        let prefix = OffloadConfig {
            file_prefix: "../up".to_owned(),
            ..OffloadConfig::default()
        };
        for (built, key) in [
            (store, "store.timeout_ms"),
            (retries, "store.retries"),
            (ttl, "ttl_seconds"),
            (prefix, "file_prefix"),
        ] {
            let err = built.validate().unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig);
            let from_json = OffloadConfig::from_json(&json_of(key, &built)).unwrap_err();
            assert_eq!(err.message(), from_json.message(), "{key}");
        }
        assert!(OffloadConfig::default().validate().is_ok());
    }

    /// The JSON object that sets `key` (dotted for a section's) to its value in `config`.
    fn json_of(key: &str, config: &OffloadConfig) -> serde_json::Value {
        use serde_json::json;
        match key {
            "store.timeout_ms" => json!({"store": {"timeout_ms": config.store.timeout_ms}}),
            "store.retries" => json!({"store": {"retries": config.store.retries}}),
            "ttl_seconds" => json!({"ttl_seconds": config.ttl_seconds}),
            _ => json!({"file_prefix": config.file_prefix}),
        }
    }

    #[test]
    fn bad_values_name_key_and_value() {
        let err = OffloadConfig::from_toml_str("[prompt.offload]\nthreshold_tokens = \"many\"")
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidConfig);
        assert!(
            err.message().contains("threshold_tokens") && err.message().contains("many"),
            "{err}"
        );
        let err = OffloadConfig::default()
            .apply_env([("ATLATL_PROMPT__OFFLOAD__ENABLED", "maybe")])
            .unwrap_err();
        assert!(
            err.message().contains("enabled") && err.message().contains("maybe"),
            "{err}"
        );
        assert!(
            err.message()
                .starts_with("ATLATL_PROMPT__OFFLOAD__ENABLED: "),
            "the variable is named: {err}"
        );
        let err = OffloadConfig::from_toml_str("[prompt.offload]\nthreshold = 3").unwrap_err();
        assert!(err.message().contains("unknown configuration key"), "{err}");
        let err =
            OffloadConfig::from_toml_str("[prompt.offload]\nfile_prefix = \"../x\"").unwrap_err();
        assert!(err.message().contains("file_prefix"), "{err}");
        assert!(OffloadConfig::from_toml_str("[prompt.offload]\nthreshold_tokens = -1").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn process_environment_reads_only_the_prefix_and_names_bad_bytes() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt;
        let var = |name: &[u8], value: &[u8]| {
            (
                OsString::from_vec(name.to_vec()),
                OsString::from_vec(value.to_vec()),
            )
        };
        let mut c = OffloadConfig::default();
        c.apply_env_os([
            var(b"UNRELATED", b"\xff\xfe"),
            var(b"\xffODD", b"x"),
            var(b"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", b"77"),
        ])
        .unwrap();
        assert_eq!(c.threshold_tokens, 77);
        let err = c
            .apply_env_os([var(b"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR", b"/tmp/\xff")])
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidConfig);
        assert!(
            err.message()
                .contains("ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: the variable's value is not UTF-8"),
            "{err}"
        );
        let err = c
            .apply_env_os([var(b"ATLATL_PROMPT__OFFLOAD__\xff", b"1")])
            .unwrap_err();
        assert!(err.message().contains("name is not UTF-8"), "{err}");
        let err = c
            .apply_env_os([var(b"ATLATL_PROMPT__OFFLOAD__TTL_SECONDS", b"-5")])
            .unwrap_err();
        assert!(
            err.message().starts_with(
                "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS: invalid value for prompt.offload.ttl_seconds"
            ),
            "{err}"
        );
    }
}
