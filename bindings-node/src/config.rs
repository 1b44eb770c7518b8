//! The `config` argument every function takes: an object over the defaults (camelCase keys
//! of the core's `[prompt.offload]` section) and an optional event callback.
//!
//! One configuration story in every LRO surface: an object holding configuration is used as
//! given (the environment is not read); no configuration (an omitted `config`, `null`, or an
//! object without a configuration value, such as `{ onEvent }`) is the defaults with this
//! process's `ATLATL_PROMPT__OFFLOAD__*` variables on top, read at each call, as `lro offload`
//! reads them.

use lro_core::{ErrorCode, LroError, OffloadConfig};
use napi::bindgen_prelude::JsObjectValue;
use napi::bindgen_prelude::{FromNapiValue, FunctionRef, Object, Unknown};
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::js::{self, EventCallback};
use crate::options::Camel;

/// LRO configuration: the specification's `[prompt.offload]` section, camelCase. Every key is
/// optional and defaults as in the specification; a bad value throws with code `invalid_config`
/// naming the key and the value. An object holding a configuration value is used as given;
/// an omitted `config` (or one holding only `onEvent`) is the defaults with the
/// `ATLATL_PROMPT__OFFLOAD__*` environment on top, read at each call, as `lro offload` reads
/// it. `withEnv(config)` layers the environment over an object.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
pub struct Config {
    /// Enable or disable LRO globally (default `true`).
    pub enabled: Option<bool>,
    /// Offload when the estimated tokens are strictly greater than this (default 1600).
    pub threshold_tokens: Option<u32>,
    /// Seconds before `cleanup` may delete a file (default 3600).
    pub ttl_seconds: Option<i64>,
    /// Directory for the JSONL files; `""` (the default) is the system temporary directory.
    pub output_dir: Option<String>,
    /// File name prefix: `{prefix}-{operation}-{ulid}.jsonl` (default `"atlatl"`).
    pub file_prefix: Option<String>,
    /// Which guidance template descriptors carry: `"shell"` (jq recipes, the default) or
    /// `"native"` (directs the agent to the `lro_extract` tool).
    #[napi(ts_type = "'shell' | 'native'")]
    pub guidance: Option<String>,
    /// How much of the descriptor an offloaded result returns (default `"full"`); a call's
    /// `descriptor` option overrides it.
    #[napi(ts_type = "DescriptorProfile")]
    pub descriptor: Option<String>,
    /// With a call's `contextRemainingTokens`, the threshold becomes
    /// `min(thresholdTokens, adaptiveRatio x contextRemainingTokens)`; above 0, at most 1
    /// (default 0.1).
    pub adaptive_ratio: Option<f64>,
    /// Limits on native extraction.
    pub extract: Option<ExtractLimits>,
    /// Bounds on requests to an object store (`outputDir: 's3://bucket/prefix'`).
    pub store: Option<StoreLimits>,
    /// Called once per event (`OffloadCreated`, `OffloadWriteFailed`, `OffloadFileExpired`),
    /// on the JS thread, after the work is done and before the call returns or its Promise
    /// settles. An exception it throws propagates to the caller.
    #[napi(ts_type = "(event: OffloadEvent) => void")]
    pub on_event: Option<Value>,
}

/// Bounds on one native extraction, so an agent's filter cannot exhaust the host.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
pub struct ExtractLimits {
    /// Most bytes read from the file (default 1 GiB).
    pub max_read_bytes: Option<i64>,
    /// Most output values returned (default 10,000).
    pub max_output_records: Option<i64>,
    /// Most output bytes, as compact JSON (default 1 MiB).
    pub max_output_bytes: Option<i64>,
    /// Most wall time, in milliseconds (default 10,000).
    pub timeout_ms: Option<i64>,
}

/// Bounds on requests to an object store: a store that is down or slow delays a call by a
/// bounded time before the write-failure fallback.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
pub struct StoreLimits {
    /// Longest wait on the store in milliseconds: to connect, for the answer to start, for
    /// each read or write (default 5,000).
    pub timeout_ms: Option<i64>,
    /// Retries of a request that failed with a connection error, a timeout or a 5xx/429
    /// answer (default 2, at most 10).
    pub retries: Option<u32>,
}

/// A resolved `config` argument: the core's configuration and the event callback.
pub struct Resolved {
    pub config: OffloadConfig,
    pub on_event: Option<EventCallback>,
}

/// Reads a configuration object (its callback already removed) over the defaults, through
/// the core's JSON entry point, so every binding validates keys and values the same way.
pub fn from_map(fields: Map<String, Value>) -> Result<OffloadConfig, LroError> {
    let config = OffloadConfig::from_json(&Value::Object(Camel(fields).into_snake()))?;
    config.validate()?;
    Ok(config)
}

/// The JS view of a core configuration (what `configFromToml` and friends return).
pub fn to_js_value(config: &OffloadConfig) -> Value {
    let e = &config.extract;
    serde_json::json!({
        "enabled": config.enabled,
        "thresholdTokens": config.threshold_tokens,
        "ttlSeconds": config.ttl_seconds,
        "outputDir": config.output_dir,
        "filePrefix": config.file_prefix,
        "guidance": serde_json::to_value(config.guidance).unwrap_or(Value::Null),
        "descriptor": config.descriptor.name(),
        "adaptiveRatio": config.adaptive_ratio,
        "extract": {
            "maxReadBytes": e.max_read_bytes,
            "maxOutputRecords": e.max_output_records,
            "maxOutputBytes": e.max_output_bytes,
            "timeoutMs": e.timeout_ms,
        },
        "store": {
            "timeoutMs": config.store.timeout_ms,
            "retries": config.store.retries,
        },
    })
}

/// The configuration of a call given none: the defaults with this process's
/// `ATLATL_PROMPT__OFFLOAD__*` variables on top, as the CLI reads them. Reading the
/// environment costs a microsecond or two, so every call reads it afresh and a variable set
/// through `process.env` after `require` counts. (A worker thread's `process.env` is its own
/// copy, which Node does not show to native addons; the process environment is read.)
pub fn default_config() -> Result<OffloadConfig, LroError> {
    let mut config = OffloadConfig::default();
    config.apply_env_os(std::env::vars_os())?;
    Ok(config)
}

/// A configuration object's data keys (JSON drops the callback and `undefined`s) and its
/// event callback.
fn read(
    env: &Env,
    value: Unknown<'_>,
) -> Result<(Map<String, Value>, Option<EventCallback>), LroError> {
    if value.get_type().ok() != Some(ValueType::Object) {
        return Err(LroError::new(
            ErrorCode::InvalidConfig,
            "config must be an object",
        ));
    }
    let object = value
        .coerce_to_object()
        .map_err(|e| LroError::new(ErrorCode::InvalidConfig, e.reason.clone()))?;
    let on_event = callback(&object)?;
    let fields = js::from_js(env, value, ErrorCode::InvalidConfig, "config")?;
    Ok((fields, on_event))
}

/// Resolves the optional `config` argument of an entry point: as given when it holds a
/// configuration value, else [`default_config`] (see the module's documentation).
pub fn resolve(env: &Env, value: Option<Unknown<'_>>) -> Result<Resolved, LroError> {
    let Some(value) = js::present(value) else {
        return Ok(Resolved {
            config: default_config()?,
            on_event: None,
        });
    };
    let (fields, on_event) = read(env, value)?;
    // `null` keeps a key's default, so only other values make a configuration.
    let config = if fields.values().all(Value::is_null) {
        default_config()?
    } else {
        from_map(fields)?
    };
    Ok(Resolved { config, on_event })
}

/// A base for `withEnv` / `configFromEnv`: the object over the defaults, never the
/// environment (the caller layers the variables it was given).
pub fn base(env: &Env, value: Option<Unknown<'_>>) -> Result<OffloadConfig, LroError> {
    match js::present(value) {
        None => Ok(OffloadConfig::default()),
        Some(value) => from_map(read(env, value)?.0),
    }
}

/// Applies the `ATLATL_PROMPT__OFFLOAD__*` entries of `vars` (a JS object of variables, as
/// `process.env`) over `config`, or this process's environment when `vars` is omitted.
pub fn layer_env(
    env: &Env,
    config: &mut OffloadConfig,
    vars: Option<Unknown<'_>>,
) -> Result<(), LroError> {
    let Some(vars) = js::present(vars) else {
        return config.apply_env_os(std::env::vars_os());
    };
    let vars: Map<String, Value> = js::from_js(env, vars, ErrorCode::InvalidConfig, "environment")?;
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    config.apply_env(
        vars.iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), text(v))),
    )
}

fn callback(object: &Object<'_>) -> Result<Option<EventCallback>, LroError> {
    let not_a_function = || {
        LroError::new(
            ErrorCode::InvalidConfig,
            "config.onEvent must be a function",
        )
    };
    let value: Unknown<'_> = object
        .get_named_property("onEvent")
        .map_err(|_| not_a_function())?;
    match value.get_type() {
        Ok(ValueType::Undefined | ValueType::Null) => Ok(None),
        Ok(ValueType::Function) => {
            // A reference keeps the function alive until an async task has resolved.
            FunctionRef::from_unknown(value)
                .map(Some)
                .map_err(|_| not_a_function())
        }
        _ => Err(not_a_function()),
    }
}
