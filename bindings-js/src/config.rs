//! The `config` argument every call takes, and the configuration story of the JS builds.
//!
//! One story in every LRO surface: an object holding a configuration value is used as given
//! (the environment is not read); no configuration (an omitted `config`, `null`, or an
//! object holding only `onEvent` or `host`) is the defaults with the environment's
//! `ATLATL_PROMPT__OFFLOAD__*` variables on top, read at each call, as `lro offload` reads
//! them. The Node addon's environment is the process's; the wasm package's is `process.env`
//! where the JS host has one (Node, Deno, Bun) and none in a browser.

use lro_core::config::{ExtractLimits as CoreExtractLimits, StoreLimits as CoreStoreLimits};
use lro_core::mcp::McpConfig;
use lro_core::{DescriptorProfile, ErrorCode, GuidanceMode, LroError, OffloadConfig};
#[cfg(feature = "napi")]
use napi_derive::napi;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::argument::Argument;

/// LRO configuration: the specification's `[prompt.offload]` section, camelCase. Every key is
/// optional and defaults as in the specification; a bad value throws with code `invalid_config`
/// naming the key and the value. An object holding a configuration value is used as given;
/// an omitted `config` (or one holding only `onEvent` or `host`) is the defaults with the
/// `ATLATL_PROMPT__OFFLOAD__*` environment on top, read at each call, as `lro offload` reads
/// it. `withEnv(config)` layers the environment over an object.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct Config {
    /// Enable or disable LRO globally (default `true`).
    pub enabled: Option<bool>,
    /// Offload when the estimated tokens are strictly greater than this (default 1600).
    pub threshold_tokens: Option<u32>,
    /// What counts tokens: `"chars4"` (characters / 4, the default), or the exact `"o200k"`
    /// or `"cl100k"` BPE counts (the Node addon; the wasm package refuses them with
    /// `invalid_config`).
    #[cfg_attr(feature = "napi", napi(ts_type = "'chars4' | 'o200k' | 'cl100k'"))]
    pub estimator: Option<String>,
    /// Seconds before `cleanup` may delete a file (default 3600).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub ttl_seconds: Option<u64>,
    /// Directory for the JSONL files; `""` (the default) is `lro-<uid>` in the system
    /// temporary directory, private to the user. `s3://bucket/prefix` offloads to an
    /// S3-compatible store (the Node addon only).
    pub output_dir: Option<String>,
    /// Use an output directory other users can write (default `false`: refused, since they
    /// could plant or replace the files LRO reads back).
    pub allow_shared_dir: Option<bool>,
    /// File name prefix: `{prefix}-{operation}-{ulid}.jsonl` (default `"atlatl"`).
    pub file_prefix: Option<String>,
    /// Which guidance template descriptors carry: `"shell"` (jq recipes, the default) or
    /// `"native"` (directs the agent to the `lro_extract` tool).
    #[cfg_attr(feature = "napi", napi(ts_type = "'shell' | 'native'"))]
    pub guidance: Option<GuidanceMode>,
    /// How much of the descriptor an offloaded result returns (default `"full"`); a call's
    /// `descriptor` option overrides it.
    #[cfg_attr(feature = "napi", napi(ts_type = "DescriptorProfile"))]
    pub descriptor: Option<String>,
    /// With a call's `contextRemainingTokens`, the threshold becomes
    /// `min(thresholdTokens, adaptiveRatio x contextRemainingTokens)`; above 0, at most 1
    /// (default 0.1).
    pub adaptive_ratio: Option<f64>,
    /// The full and compact descriptors show the file's first N records, as many as fit
    /// their budget (a `note` says how many when fewer); at most 1000 (default 0: none).
    pub preview_records: Option<u32>,
    /// Limits on native extraction.
    pub extract: Option<ExtractLimits>,
    /// Bounds on requests to an object store (`outputDir: 's3://bucket/prefix'`).
    pub store: Option<StoreLimits>,
    /// The MCP helpers' options: the offloaded result's shape, the extract tool's name, the
    /// tools never offloaded.
    pub mcp: Option<McpOptions>,
    /// Per-tool rules by pattern (a glob on the tool's name: `*` any characters, `?` one):
    /// `{ 'fs_*': { mode: 'never' }, search: { threshold: 200, descriptor: 'pointer' } }`.
    /// The most specific pattern that matches a tool applies (the name itself, then the glob
    /// with the most literal characters); its unset keys take the configuration's.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "napi", napi(ts_type = "Record<string, ToolRule>"))]
    pub tools: Option<Map<String, Value>>,
    /// Called once per event (`OffloadCreated`, `OffloadWriteFailed`, `OffloadFileExpired`),
    /// on the JS thread, after the work is done and before the call returns or its Promise
    /// settles. An exception it throws propagates to the caller. (A function has no JSON
    /// form: each binding takes it from the object itself.)
    #[serde(skip_serializing)]
    #[cfg_attr(feature = "napi", napi(ts_type = "(event: OffloadEvent) => void"))]
    // Read as a `Value` and dropped, not skipped (`IgnoredAny`): skipping text has no depth
    // limit, and the text of a config nested deeper than serde_json's limit is refused, here
    // as anywhere in it (`config: recursion limit exceeded`).
    pub on_event: Option<Value>,
    /// Where the files go: an object implementing `LroHost`. For the WebAssembly build
    /// (`lro-wasm`), whose default is node:fs under Node and an in-memory store elsewhere;
    /// the native addon writes the system's files itself and refuses a host
    /// (`invalid_config`). (Taken from the object by the binding, like `onEvent`.)
    #[serde(skip_serializing)]
    #[cfg_attr(feature = "napi", napi(ts_type = "LroHost"))]
    pub host: Option<Value>,
}

impl Argument for Config {
    const NAME: &'static str = "config";

    fn code_at(_: &str) -> ErrorCode {
        ErrorCode::InvalidConfig
    }
}

/// Bounds on one native extraction, so an agent's filter cannot exhaust the host.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct ExtractLimits {
    /// Most bytes read from the file (default 1 GiB).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub max_read_bytes: Option<u64>,
    /// Most output values returned (default 10,000).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub max_output_records: Option<u64>,
    /// Most output bytes, as compact JSON (default 1 MiB).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub max_output_bytes: Option<u64>,
    /// Most wall time, in milliseconds (default 10,000).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub timeout_ms: Option<u64>,
    /// Most memory a jq filter's values may take, estimated (default 512 MiB); past it, or
    /// past 1024 levels of nesting, the extraction fails with `resource_limit`.
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub max_memory_bytes: Option<u64>,
    /// Most tokens of one answer of the extract tool through MCP, estimated (default 4,000):
    /// a longer answer is cut at a record, or inside one huge value at a character, and names
    /// the next call. `extract` itself is bounded by the limits above only.
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub answer_max_tokens: Option<u64>,
    /// Most bytes of one answer of the extract tool through MCP (default 16,384).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub answer_max_bytes: Option<u64>,
    /// Most bytes result handles put into one tool call, and of one saved `lro_extract`
    /// output (default 8 MiB); more is refused, never cut.
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub handle_max_bytes: Option<u64>,
}

/// Bounds on requests to an object store: a store that is down or slow delays a call by a
/// bounded time before the write-failure fallback.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct StoreLimits {
    /// Longest wait on the store in milliseconds: to connect, for the answer to start, for
    /// each read or write (default 5,000).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub timeout_ms: Option<u64>,
    /// Retries of a request that failed with a connection error, a timeout or a 5xx/429
    /// answer (default 2, at most 10).
    pub retries: Option<u32>,
}

/// The MCP helpers' options (`[prompt.offload.mcp]`).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct McpOptions {
    /// Add a `resource_link` block to the offload file after the descriptor (default
    /// `false`: the descriptor's `resource_uri` names the file).
    pub resource_link: Option<bool>,
    /// Give an offloaded result `structuredContent`, the descriptor (default `false`: the
    /// descriptor is the result's text).
    pub structured_content: Option<bool>,
    /// The extract tool's name (default `lro_extract_<server name>`); a letter or `_`, then
    /// up to 63 letters, digits or `_`.
    pub extract_tool_name: Option<String>,
    /// How much the extract tool's definition says: `"short"` (default, at most 400 tokens;
    /// `describe: true` and the errors give the details) or `"long"` (every argument described).
    pub extract_tool_definition: Option<String>,
    /// Tools whose results are never offloaded (they keep their `outputSchema`).
    pub never_offload: Option<Vec<String>>,
}

impl Config {
    /// Whether the object holds a configuration value (a key other than `onEvent` and
    /// `host` that is not `null`), which makes it the whole configuration of a call.
    pub fn holds_configuration(&self) -> bool {
        let Self {
            enabled,
            threshold_tokens,
            estimator,
            ttl_seconds,
            output_dir,
            allow_shared_dir,
            file_prefix,
            guidance,
            descriptor,
            adaptive_ratio,
            preview_records,
            extract,
            store,
            mcp,
            tools,
            on_event: _,
            host: _,
        } = self;
        enabled.is_some()
            || threshold_tokens.is_some()
            || estimator.is_some()
            || ttl_seconds.is_some()
            || output_dir.is_some()
            || allow_shared_dir.is_some()
            || file_prefix.is_some()
            || guidance.is_some()
            || descriptor.is_some()
            || adaptive_ratio.is_some()
            || preview_records.is_some()
            || extract.is_some()
            || store.is_some()
            || mcp.is_some()
            || tools.is_some()
    }

    /// Sets the object's values over `config`, then checks the result as the core checks
    /// every configuration (`invalid_config` naming the key and the value).
    pub fn apply_to(self, config: &mut OffloadConfig) -> Result<(), LroError> {
        set(&mut config.enabled, self.enabled);
        set(&mut config.threshold_tokens, self.threshold_tokens);
        set(&mut config.ttl_seconds, self.ttl_seconds);
        set(&mut config.output_dir, self.output_dir);
        set(&mut config.allow_shared_dir, self.allow_shared_dir);
        set(&mut config.file_prefix, self.file_prefix);
        set(&mut config.guidance, self.guidance);
        set(&mut config.adaptive_ratio, self.adaptive_ratio);
        set(
            &mut config.preview_records,
            self.preview_records.map(u64::from),
        );
        if let Some(name) = self.estimator {
            config.estimator = name.parse().map_err(|e: LroError| {
                LroError::new(
                    ErrorCode::InvalidConfig,
                    format!("config.estimator: {}", e.message()),
                )
            })?;
        }
        if let Some(name) = self.descriptor {
            config.descriptor = name.parse::<DescriptorProfile>().map_err(|e| {
                LroError::new(
                    ErrorCode::InvalidConfig,
                    format!("config.descriptor: {}", e.message()),
                )
            })?;
        }
        if let Some(limits) = self.extract {
            let e = &mut config.extract;
            set(&mut e.max_read_bytes, limits.max_read_bytes);
            set(&mut e.max_output_records, limits.max_output_records);
            set(&mut e.max_output_bytes, limits.max_output_bytes);
            set(&mut e.timeout_ms, limits.timeout_ms);
            set(&mut e.max_memory_bytes, limits.max_memory_bytes);
            set(&mut e.answer_max_tokens, limits.answer_max_tokens);
            set(&mut e.answer_max_bytes, limits.answer_max_bytes);
            set(&mut e.handle_max_bytes, limits.handle_max_bytes);
        }
        if let Some(limits) = self.store {
            set(&mut config.store.timeout_ms, limits.timeout_ms);
            set(&mut config.store.retries, limits.retries);
        }
        if let Some(mcp) = self.mcp {
            let m = &mut config.mcp;
            set(&mut m.resource_link, mcp.resource_link);
            set(&mut m.structured_content, mcp.structured_content);
            if mcp.extract_tool_name.is_some() {
                m.extract_tool_name = mcp.extract_tool_name;
            }
            set(&mut m.never_offload, mcp.never_offload);
            if let Some(form) = mcp.extract_tool_definition {
                config.set_str("mcp.extract_tool_definition", &form)?;
            }
        }
        if let Some(tools) = self.tools {
            // The core reads the rules (and names their mistakes) as from any source.
            let mut object = Map::new();
            object.insert("tools".to_owned(), Value::Object(tools));
            config.apply_json(&Value::Object(object))?;
        }
        config.validate()
    }
}

/// `value` into `field`, when given.
fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *field = value;
    }
}

/// The JS view of a configuration: every key, camelCase (what `configFromToml`,
/// `configFromEnv` and `withEnv` return; a valid `config` argument as it is).
impl From<&OffloadConfig> for Config {
    fn from(config: &OffloadConfig) -> Self {
        let CoreExtractLimits {
            max_read_bytes,
            max_output_records,
            max_output_bytes,
            timeout_ms,
            max_memory_bytes,
            answer_max_tokens,
            answer_max_bytes,
            handle_max_bytes,
        } = config.extract;
        let CoreStoreLimits {
            timeout_ms: store_timeout_ms,
            retries,
        } = config.store;
        Self {
            enabled: Some(config.enabled),
            threshold_tokens: Some(config.threshold_tokens),
            estimator: Some(config.estimator.name().to_owned()),
            ttl_seconds: Some(config.ttl_seconds),
            output_dir: Some(config.output_dir.clone()),
            allow_shared_dir: Some(config.allow_shared_dir),
            file_prefix: Some(config.file_prefix.clone()),
            guidance: Some(config.guidance),
            descriptor: Some(config.descriptor.name().to_owned()),
            adaptive_ratio: Some(config.adaptive_ratio),
            preview_records: Some(u32::try_from(config.preview_records).unwrap_or(u32::MAX)),
            extract: Some(ExtractLimits {
                max_read_bytes: Some(max_read_bytes),
                max_output_records: Some(max_output_records),
                max_output_bytes: Some(max_output_bytes),
                timeout_ms: Some(timeout_ms),
                max_memory_bytes: Some(max_memory_bytes),
                answer_max_tokens: Some(answer_max_tokens),
                answer_max_bytes: Some(answer_max_bytes),
                handle_max_bytes: Some(handle_max_bytes),
            }),
            store: Some(StoreLimits {
                timeout_ms: Some(store_timeout_ms),
                retries: Some(retries),
            }),
            mcp: Some(McpOptions::from(&config.mcp)),
            // As the core's JSON has them: absent when there are none.
            tools: (!config.tools.is_empty()).then(|| match serde_json::to_value(&config.tools) {
                Ok(Value::Object(rules)) => rules,
                _ => Map::new(),
            }),
            on_event: None,
            host: None,
        }
    }
}

impl From<&McpConfig> for McpOptions {
    fn from(mcp: &McpConfig) -> Self {
        Self {
            resource_link: Some(mcp.resource_link),
            structured_content: Some(mcp.structured_content),
            extract_tool_name: mcp.extract_tool_name.clone(),
            extract_tool_definition: Some(mcp.extract_tool_definition.name().to_owned()),
            never_offload: Some(mcp.never_offload.clone()),
        }
    }
}

/// Every configuration key, as the core's table lists it (`name`, `camel_case`, `env`, `type`,
/// `bounds`, `default`, `doc`, `sample`, `bad`, ...): `configKeys()` in both builds.
pub fn config_keys() -> Value {
    lro_core::config::keys_json()
}

/// Environment variables from a JS object of them (`process.env`, or the `vars` of
/// `configFromEnv` and `withEnv`): a value that is not text reads as its JSON text; `null`
/// (and `undefined`, which JSON drops) is unset.
pub fn variables(object: Map<String, Value>) -> Vec<(String, String)> {
    object
        .into_iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| match value {
            Value::String(text) => (name, text),
            other => (name, other.to_string()),
        })
        .collect()
}

/// The configuration of a call: the object's values over the defaults when it holds any
/// ([`Config::holds_configuration`]), else the defaults with `environment` applied (the
/// binding's `ATLATL_PROMPT__OFFLOAD__*` variables, read only then).
pub fn resolve(
    config: Config,
    environment: impl FnOnce(&mut OffloadConfig) -> Result<(), LroError>,
) -> Result<OffloadConfig, LroError> {
    let mut resolved = OffloadConfig::default();
    if config.holds_configuration() {
        config.apply_to(&mut resolved)?;
    } else {
        environment(&mut resolved)?;
    }
    Ok(resolved)
}

/// `withEnv` and `configFromEnv`: the object's values over the defaults (never the
/// environment: the caller layers the variables it was given), then `environment` on top.
pub fn layer(
    base: Config,
    environment: impl FnOnce(&mut OffloadConfig) -> Result<(), LroError>,
) -> Result<OffloadConfig, LroError> {
    let mut layered = OffloadConfig::default();
    base.apply_to(&mut layered)?;
    environment(&mut layered)?;
    Ok(layered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::from_json;

    fn config(text: &str) -> Result<OffloadConfig, LroError> {
        resolve(from_json::<Config>(Some(text))?, |_| {
            panic!("the environment is read only without configuration")
        })
    }

    #[test]
    fn an_object_with_values_is_the_configuration() {
        let c = config(r#"{"thresholdTokens":800,"extract":{"timeoutMs":5},"guidance":"native","descriptor":"Compact","onEvent":null}"#).unwrap();
        assert_eq!((c.threshold_tokens, c.extract.timeout_ms), (800, 5));
        assert_eq!(
            (c.guidance, c.descriptor),
            (GuidanceMode::Native, DescriptorProfile::Compact)
        );
        assert_eq!(c.ttl_seconds, OffloadConfig::default().ttl_seconds);
    }

    #[test]
    fn without_values_the_environment_is_read() {
        for text in [
            None,
            Some("{}"),
            Some(r#"{"onEvent":{},"host":{},"outputDir":null}"#),
        ] {
            let given = from_json::<Config>(text).unwrap();
            let resolved = resolve(given, |c| {
                c.apply_env([("ATLATL_PROMPT__OFFLOAD__TTL_SECONDS", "60")])
            });
            assert_eq!(resolved.unwrap().ttl_seconds, 60);
        }
    }

    #[test]
    fn bad_values_are_invalid_config_naming_the_key() {
        for (text, says) in [
            (
                r#"{"thresholdTokens":"lots"}"#,
                "config.thresholdTokens: invalid type: string \"lots\"",
            ),
            (
                r#"{"thresholdTokens":-1}"#,
                "config.thresholdTokens: invalid value: integer `-1`",
            ),
            (r#"{"bogus":true}"#, "config: unknown field `bogus`"),
            (
                r#"{"extract":{"timeoutMS":5}}"#,
                "config.extract: unknown field `timeoutMS`",
            ),
            (
                r#"{"extract":{"timeoutMs":"soon"}}"#,
                "config.extract.timeoutMs: invalid type: string",
            ),
            (
                r#"{"filePrefix":"../x"}"#,
                "invalid value for prompt.offload.file_prefix",
            ),
            (
                r#"{"adaptiveRatio":2}"#,
                "invalid value for prompt.offload.adaptive_ratio",
            ),
            (
                r#"{"store":{"timeoutMs":0}}"#,
                "invalid value for prompt.offload.store.timeout_ms",
            ),
            (
                r#"{"store":{"retries":11}}"#,
                "invalid value for prompt.offload.store.retries",
            ),
            (
                r#"{"descriptor":"tiny"}"#,
                "config.descriptor: unknown descriptor profile",
            ),
            (
                r#"{"guidance":"loud"}"#,
                "config.guidance: unknown variant `loud`",
            ),
            ("42", "config: invalid type: integer `42`"),
        ] {
            let err = config(text).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{text}");
            assert!(err.message().starts_with(says), "{text}: {}", err.message());
        }
    }

    #[test]
    fn the_option_object_has_every_key_of_the_table_and_no_other() {
        let view = serde_json::to_value(Config::from(&OffloadConfig::default())).unwrap();
        let mut paths = Vec::new();
        for (name, value) in view.as_object().unwrap() {
            match value.as_object() {
                Some(section) => paths.extend(section.keys().map(|leaf| format!("{name}.{leaf}"))),
                None => paths.push(name.clone()),
            }
        }
        let mut table: Vec<String> = lro_core::config::KEYS
            .iter()
            .map(lro_core::config::Key::camel_case)
            .collect();
        paths.sort();
        table.sort();
        assert_eq!(paths, table);
        for key in lro_core::config::KEYS {
            let sample: Value = serde_json::from_str(key.sample).unwrap();
            let (first, rest) = key.camel_case().split_once('.').map_or_else(
                || (key.camel_case(), None),
                |(a, b)| (a.to_owned(), Some(b.to_owned())),
            );
            let text = match rest {
                Some(leaf) => serde_json::json!({ first: { leaf: sample } }),
                None => serde_json::json!({ first: sample }),
            };
            let configured = config(&text.to_string()).unwrap();
            assert_eq!(key.value(&configured), sample, "{}", key.name);
        }
    }

    #[test]
    fn tool_rules_are_read_by_the_core_and_shown_as_given() {
        let text = r#"{"tools":{"fs_*":{"mode":"never"},"get_weather":{"threshold":5}}}"#;
        let c = config(text).unwrap();
        assert_eq!(
            c.tool_rule("fs_read").map(|(pattern, _)| pattern),
            Some("fs_*")
        );
        let view = serde_json::to_value(Config::from(&c)).unwrap();
        let given: Value = serde_json::from_str(text).unwrap();
        assert_eq!(view["tools"], given["tools"]);
        assert_eq!(config(&view.to_string()).unwrap(), c);
        for (bad, says) in [
            (r#"{"tools":{"a b":{}}}"#, "invalid tool pattern \"a b\""),
            (
                r#"{"tools":{"x":{"mood":1}}}"#,
                "unknown key prompt.offload.tools.\"x\".mood",
            ),
        ] {
            let err = config(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{bad}");
            assert!(err.message().starts_with(says), "{bad}: {err}");
        }
    }

    #[test]
    fn the_js_view_reads_back_as_the_same_configuration() {
        let mut core = OffloadConfig::from_toml_str("[prompt.offload]\nthreshold_tokens = 900\ndescriptor = \"pointer\"\n[prompt.offload.store]\nretries = 4\n").unwrap();
        core.guidance = GuidanceMode::Native;
        let view = serde_json::to_string(&Config::from(&core)).unwrap();
        assert!(
            view.contains(r#""thresholdTokens":900"#) && !view.contains("onEvent"),
            "{view}"
        );
        assert_eq!(config(&view).unwrap(), core);
    }
}
