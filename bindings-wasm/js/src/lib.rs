//! LRO for JavaScript hosts without native addons: a thin wasm-bindgen shim over `lro-core`.
//!
//! ```js
//! const { Lro } = require("lro-wasm");
//! const lro = new Lro({ threshold_tokens: 800 });          // built-in in-memory host
//! const outcome = lro.offload(memories, { operation: "recall", detail: "light" });
//! if (outcome.offloaded) console.log(lro.readText(outcome.file_path));
//! ```
//!
//! Records and results cross the boundary as JSON text (the engine's `JSON.stringify` /
//! `JSON.parse` on the JS side, serde_json on ours): that is the fastest path for large result
//! sets and keeps a record's key order, so files are byte-identical to the native build's.
//! Option objects (config, request, tool-call context) go through serde-wasm-bindgen.
//! Every failure is thrown as an `Error` named `LroError` whose `code` is the core's code.

mod host;

use js_sys::{JSON, Reflect};
use lro_core::intercept::ToolCallContext;
use lro_core::offload::from_json_value;
use lro_core::{
    ExtractRequest, LroError, OffloadConfig, OffloadEvent, OffloadRequest, Offloader, Outcome,
};
use serde_json::Value;
use wasm_bindgen::prelude::*;

pub use host::{BindingHost, InMemoryHost, JsHost, JsHostObject};

/// An `LroError` as a JS `Error` with `name = "LroError"` and `code` set.
fn js_error(err: &LroError) -> JsValue {
    let error = js_sys::Error::new(err.message());
    error.set_name("LroError");
    let _ = Reflect::set(&error, &"code".into(), &err.code().as_str().into());
    error.into()
}

fn input_error(code: lro_core::ErrorCode, what: &str, detail: impl std::fmt::Display) -> JsValue {
    js_error(&LroError::new(code, format!("{what}: {detail}")))
}

/// A JS value as serde_json, through the engine's JSON.stringify (`undefined` is `null`).
fn to_json(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    let text = JSON::stringify(value)
        .map_err(|e| input_error(lro_core::ErrorCode::InvalidInput, what, format!("{e:?}")))?
        .as_string()
        .unwrap_or_else(|| "null".to_owned());
    serde_json::from_str(&text).map_err(|e| input_error(lro_core::ErrorCode::InvalidInput, what, e))
}

/// An option object (small, structured) as serde_json.
fn options(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_wasm_bindgen::from_value(value.clone())
        .map_err(|e| input_error(lro_core::ErrorCode::InvalidArgument, what, e))
}

/// A Rust result as a plain JS value, through JSON.parse.
fn to_js(value: &impl serde::Serialize) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| {
        input_error(
            lro_core::ErrorCode::InvalidInput,
            "cannot serialize the result",
            e,
        )
    })?;
    JSON::parse(&text)
}

fn outcome_to_js(outcome: &Outcome) -> Result<JsValue, JsValue> {
    to_js(&outcome.to_value())
}

/// The LRO engine for one configuration and host.
#[wasm_bindgen]
pub struct Lro {
    inner: Offloader<BindingHost>,
}

#[wasm_bindgen]
impl Lro {
    /// A new engine. `config` is an object of `[prompt.offload]` keys over the defaults
    /// (`{ threshold_tokens: 800, output_dir: "/data/lro" }`); `host` implements `LroHost`
    /// (`nodeHost()` from `lro-wasm/node-host` for real files), or is omitted for the built-in
    /// in-memory host. `onEvent` receives `OffloadCreated`, `OffloadWriteFailed` and
    /// `OffloadFileExpired` events as plain objects.
    #[wasm_bindgen(constructor)]
    pub fn new(
        config: JsValue,
        host: Option<JsHostObject>,
        #[wasm_bindgen(js_name = onEvent)] on_event: Option<js_sys::Function>,
    ) -> Result<Lro, JsValue> {
        let config = OffloadConfig::from_json(&options(&config, "invalid config")?)
            .map_err(|e| js_error(&e))?;
        Self::with_config(config, host, on_event)
    }

    /// A new engine configured from a TOML document's `[prompt.offload]` section.
    #[wasm_bindgen(js_name = fromToml)]
    pub fn from_toml(
        text: &str,
        host: Option<JsHostObject>,
        #[wasm_bindgen(js_name = onEvent)] on_event: Option<js_sys::Function>,
    ) -> Result<Lro, JsValue> {
        let config = OffloadConfig::from_toml_str(text).map_err(|e| js_error(&e))?;
        Self::with_config(config, host, on_event)
    }

    fn with_config(
        config: OffloadConfig,
        host: Option<JsHostObject>,
        on_event: Option<js_sys::Function>,
    ) -> Result<Lro, JsValue> {
        let host = match host {
            Some(object) if !object.is_undefined() && !object.is_null() => {
                BindingHost::Js(JsHost(object))
            }
            _ => BindingHost::Memory(InMemoryHost {
                store: lro_core::MemoryHost::new(),
            }),
        };
        let mut inner = Offloader::new(config, host).map_err(|e| js_error(&e))?;
        if let Some(callback) = on_event {
            // A throwing listener must not break the offload: its exception is dropped.
            inner = inner.with_event_sink(move |event: &OffloadEvent| {
                if let Ok(value) = to_js(event) {
                    let _ = callback.call1(&JsValue::NULL, &value);
                }
            });
        }
        Ok(Lro { inner })
    }

    /// The effective configuration, as a plain object.
    #[wasm_bindgen(getter)]
    pub fn config(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.config())
    }

    /// Offloads `records` (an array, an object holding an array, a string of text, ...) when
    /// its estimated tokens exceed the threshold, else returns it inline. `request` is
    /// `{ operation, detail, query, scores, next_cursor, descriptor, context_remaining_tokens }`
    /// (all optional): `descriptor` (`"full"`, `"compact"`, `"pointer"`) is this call's
    /// descriptor profile; `context_remaining_tokens` lowers the threshold to
    /// `adaptive_ratio` of it, and the outcome reports the one applied as `threshold_tokens`.
    pub fn offload(&self, records: JsValue, request: JsValue) -> Result<JsValue, JsValue> {
        let records = to_json(&records, "records are not JSON-serializable")?;
        let request = self.request(&request)?;
        outcome_to_js(
            &self
                .inner
                .offload(&records, &request)
                .map_err(|e| js_error(&e))?,
        )
    }

    /// [`Lro::offload`] on records already serialized as JSON text (exact numbers, no
    /// JS round trip).
    #[wasm_bindgen(js_name = offloadJson)]
    pub fn offload_json(&self, json: &str, request: JsValue) -> Result<JsValue, JsValue> {
        let request = self.request(&request)?;
        outcome_to_js(
            &self
                .inner
                .offload_json(json.as_bytes(), &request)
                .map_err(|e| js_error(&e))?,
        )
    }

    /// The `inject_context` rule: `preBudget` (the full recall) decides; below the threshold
    /// `formatted` is returned inline.
    #[wasm_bindgen(js_name = offloadInject)]
    pub fn offload_inject(
        &self,
        formatted: &str,
        #[wasm_bindgen(js_name = preBudget)] pre_budget: JsValue,
        request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let pre_budget = to_json(&pre_budget, "preBudget is not JSON-serializable")?;
        let request = self.request(&request)?;
        outcome_to_js(
            &self
                .inner
                .offload_inject(formatted, &pre_budget, &request)
                .map_err(|e| js_error(&e))?,
        )
    }

    /// Decides on an MCP `tools/call` result; returns `{ result, action, response? }`.
    /// `context` is `{ tool_name, arguments, client_is_proxy, output_schema_declared }`
    /// (camelCase accepted).
    #[wasm_bindgen(js_name = interceptToolResult)]
    pub fn intercept_tool_result(
        &self,
        result: JsValue,
        context: JsValue,
    ) -> Result<JsValue, JsValue> {
        let result = to_json(&result, "result is not JSON-serializable")?;
        let context = ToolCallContext::from_json(&options(&context, "invalid context")?)
            .map_err(|e| js_error(&e))?;
        to_js(
            &self
                .inner
                .intercept_tool_result(&result, &context)
                .map_err(|e| js_error(&e))?,
        )
    }

    /// Native extraction (`lro_extract`) from an offload file inside the output directory:
    /// `request` names exactly one of `recipe` (1-10, with `params`), `query` (a jq filter),
    /// `lines` (`{ start, end, unit }`), `search` (`{ pattern, ignore_case, max_results }`), or
    /// a structured query (`where`, a MongoDB filter document, with `fields`, `sort`, `skip`,
    /// `limit`, or one of `count`, `group_by`, `distinct`, `stats`), or `describe: true` (the
    /// file's full descriptor, rebuilt from the file).
    pub fn extract(
        &self,
        #[wasm_bindgen(js_name = filePath)] file_path: &str,
        request: JsValue,
    ) -> Result<JsValue, JsValue> {
        let request: ExtractRequest = from_json_value(
            &options(&request, "invalid extract request")?,
            "extract request",
        )
        .map_err(|e| js_error(&e))?;
        to_js(
            &self
                .inner
                .extract(file_path, &request)
                .map_err(|e| js_error(&e))?,
        )
    }

    /// Deletes expired offload files in the output directory; returns the report.
    pub fn cleanup(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.cleanup().map_err(|e| js_error(&e))?)
    }

    /// The bytes of a file in the built-in in-memory host (`undefined` when absent, or when
    /// this engine has a JS host: read those files through the host).
    #[wasm_bindgen(js_name = readFile)]
    pub fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        match self.inner.host() {
            BindingHost::Memory(memory) => memory.store.file(path),
            BindingHost::Js(_) => None,
        }
    }

    /// The paths of the files in the built-in in-memory host, sorted.
    pub fn files(&self) -> Vec<String> {
        match self.inner.host() {
            BindingHost::Memory(memory) => memory
                .store
                .paths()
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            BindingHost::Js(_) => Vec::new(),
        }
    }

    fn request(&self, request: &JsValue) -> Result<OffloadRequest, JsValue> {
        OffloadRequest::from_json(&options(request, "invalid request")?).map_err(|e| js_error(&e))
    }
}

/// The configuration a TOML document's `[prompt.offload]` section gives.
#[wasm_bindgen(js_name = configFromToml)]
pub fn config_from_toml(text: &str) -> Result<JsValue, JsValue> {
    to_js(&OffloadConfig::from_toml_str(text).map_err(|e| js_error(&e))?)
}

/// The configuration the `ATLATL_PROMPT__OFFLOAD__*` entries of `vars` (e.g. `process.env`)
/// give over the defaults.
#[wasm_bindgen(js_name = configFromEnv)]
pub fn config_from_env(vars: JsValue) -> Result<JsValue, JsValue> {
    let vars = options(&vars, "invalid environment")?;
    let pairs = vars
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())));
    let mut config = OffloadConfig::default();
    config.apply_env(pairs).map_err(|e| js_error(&e))?;
    to_js(&config)
}

/// The estimated tokens of `text` with the core's heuristic (characters / 4 for Latin
/// script, one per character for wide scripts), as Python's `lro.estimate_tokens`: what a
/// descriptor or an inline result costs a model, counted as LRO counts it.
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(text: &str) -> usize {
    lro_core::estimate::estimate_tokens(text.as_bytes())
}

/// Every stable error code, in the core's order.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    lro_core::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect()
}
