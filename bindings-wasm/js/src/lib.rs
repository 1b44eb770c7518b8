//! LRO for JavaScript hosts without native addons: a thin wasm-bindgen shim over `lro-core`,
//! with the Node addon's API (`lro-js` describes it once for both builds).
//!
//! ```js
//! import init, { offload, extract } from "lro-wasm";
//! await init();                                         // fetches the module in a browser; at once under Node
//! const outcome = offload(memories, { operation: "recall", detail: "light" }, { thresholdTokens: 800 });
//! if (outcome.offloaded) console.log(extract(outcome.file_path, { recipe: 6 }).results);
//! ```
//!
//! Every function takes the addon's arguments (camelCase options, a per-call `config`) and
//! returns its results; each that works on files has an `*Async` twin returning a Promise
//! (there is no thread pool here: the work is done, then the Promise settles). Files go to
//! `config.host`, an object implementing `LroHost`; without one, to the platform's: node:fs
//! under Node (the package's Node entry hands it in, with `process.env`), the module's
//! in-memory store elsewhere. Records and results cross as JSON text (`JSON.stringify` /
//! `JSON.parse` on the JS side, serde_json on ours): the fastest path for large result sets,
//! and it keeps a record's key order, so files are byte-identical to the native build's.
//! Every failure is thrown as an `Error` named `LroError` whose `code` is the core's code.

mod call;
mod host;
mod values;

use js_sys::Promise;
use lro_core::{ErrorCode, ExtractRequest, LroError, OffloadConfig};
use lro_js::{ExtractOptions, OffloadOptions, ToolContext};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::call::Call;
use crate::values::{js_error, read_option, string, stringify, to_js};

pub use host::{BindingHost, InMemoryHost, JsHost, JsHostObject};

/// A call's result as a Promise: resolved with the value, or rejected with the error.
fn promise(result: Result<JsValue, JsValue>) -> Promise {
    match result {
        Ok(value) => Promise::resolve(&value),
        Err(err) => Promise::reject(&err),
    }
}

fn thrown<T>(result: Result<T, LroError>) -> Result<T, JsValue> {
    result.map_err(|e| js_error(&e))
}

/// Offloads `records` when their estimated tokens exceed the threshold: writes the JSONL file
/// and returns the descriptor (`offloaded: true`); otherwise returns them inline.
#[wasm_bindgen]
pub fn offload(records: JsValue, options: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let request = read_option::<OffloadOptions>(&options)?.into_request("recall")?;
        let outcome = match values::records(&records)? {
            values::Records::Value(value) => lro.offload(&value, &request)?,
            values::Records::Json(bytes) => lro.offload_json(&bytes, &request)?,
        };
        lro_js::to_value(&outcome)
    })
}

/// `offload`, as a Promise.
#[wasm_bindgen(js_name = offloadAsync)]
pub fn offload_async(records: JsValue, options: JsValue, config: JsValue) -> Promise {
    promise(offload(records, options, config))
}

/// `offload` on serialized JSON (a string or its UTF-8 bytes).
#[wasm_bindgen(js_name = offloadJson)]
pub fn offload_json(json: JsValue, options: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let request = read_option::<OffloadOptions>(&options)?.into_request("recall")?;
        let bytes = values::json_text(&json)?;
        lro_js::to_value(&lro.offload_json(&bytes, &request)?)
    })
}

/// `offloadJson`, as a Promise.
#[wasm_bindgen(js_name = offloadJsonAsync)]
pub fn offload_json_async(json: JsValue, options: JsValue, config: JsValue) -> Promise {
    promise(offload_json(json, options, config))
}

/// The `inject_context` rule: the pre-budget set decides; below the threshold `formatted`
/// is returned inline. The operation defaults to `inject`.
#[wasm_bindgen(js_name = offloadInject)]
pub fn offload_inject(
    formatted: JsValue,
    #[wasm_bindgen(js_name = preBudget)] pre_budget: JsValue,
    options: JsValue,
    config: JsValue,
) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let formatted = string(&formatted)?;
        let request = read_option::<OffloadOptions>(&options)?.into_request("inject")?;
        let pre_budget = match values::records(&pre_budget)? {
            values::Records::Value(value) => value,
            values::Records::Json(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                LroError::new(
                    ErrorCode::InvalidInput,
                    format!("input is not valid JSON: {e}"),
                )
            })?,
        };
        lro_js::to_value(&lro.offload_inject(&formatted, &pre_budget, &request)?)
    })
}

/// `offloadInject`, as a Promise.
#[wasm_bindgen(js_name = offloadInjectAsync)]
pub fn offload_inject_async(
    formatted: JsValue,
    #[wasm_bindgen(js_name = preBudget)] pre_budget: JsValue,
    options: JsValue,
    config: JsValue,
) -> Promise {
    promise(offload_inject(formatted, pre_budget, options, config))
}

/// Decides on an MCP `tools/call` result; returns `{ result, action, response? }`.
#[wasm_bindgen(js_name = interceptToolResult)]
pub fn intercept_tool_result(
    result: JsValue,
    context: JsValue,
    config: JsValue,
) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let result: Value = serde_json::from_slice(
            stringify(&result, ErrorCode::InvalidInput, "result")?
                .as_deref()
                .unwrap_or("null")
                .as_bytes(),
        )
        .map_err(|e| LroError::new(ErrorCode::InvalidInput, format!("invalid result: {e}")))?;
        let context = read_option::<ToolContext>(&context)?.into();
        lro_js::to_value(&lro_mcp::intercept_tool_result(lro, &result, &context)?)
    })
}

/// `interceptToolResult`, as a Promise.
#[wasm_bindgen(js_name = interceptToolResultAsync)]
pub fn intercept_tool_result_async(result: JsValue, context: JsValue, config: JsValue) -> Promise {
    promise(intercept_tool_result(result, context, config))
}

/// Native extraction (`lro_extract`) from an offload file inside the output directory,
/// named by its path or its resource URI.
#[wasm_bindgen]
pub fn extract(
    #[wasm_bindgen(js_name = filePath)] file_path: JsValue,
    request: JsValue,
    config: JsValue,
) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let file_path = string(&file_path)?;
        let request = ExtractRequest::from(read_option::<ExtractOptions>(&request)?);
        lro_js::to_value(&lro.extract(&file_path, &request)?)
    })
}

/// `extract`, as a Promise.
#[wasm_bindgen(js_name = extractAsync)]
pub fn extract_async(
    #[wasm_bindgen(js_name = filePath)] file_path: JsValue,
    request: JsValue,
    config: JsValue,
) -> Promise {
    promise(extract(file_path, request, config))
}

/// Answers one call of the extract tool as every LRO surface answers it: the MCP
/// `CallToolResult` (the answer alone as text, bounded; `isError` with `error[code]: ...`).
#[wasm_bindgen(js_name = extractToolCall)]
pub fn extract_tool_call(arguments: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let arguments = call_arguments(&arguments)?;
        let cancel = std::sync::atomic::AtomicBool::new(false);
        lro_js::to_value(&lro_mcp::extract_tool::call_result(
            lro,
            Some(&arguments),
            &cancel,
        ))
    })
}

/// `extractToolCall`, as a Promise.
#[wasm_bindgen(js_name = extractToolCallAsync)]
pub fn extract_tool_call_async(arguments: JsValue, config: JsValue) -> Promise {
    promise(extract_tool_call(arguments, config))
}

/// A tool call's arguments as JSON (`null` when omitted).
fn call_arguments(arguments: &JsValue) -> Result<Value, LroError> {
    serde_json::from_slice(
        stringify(arguments, ErrorCode::InvalidArgument, "arguments")?
            .as_deref()
            .unwrap_or("null")
            .as_bytes(),
    )
    .map_err(|e| {
        LroError::new(
            ErrorCode::InvalidArgument,
            format!("invalid arguments: {e}"),
        )
    })
}

/// Resolves the result handles in one `tools/call`'s arguments against this call's host
/// (`config.host`, or the platform's files or memory), as the addon does: `null` when they
/// hold none, `{ arguments }` with every handle replaced by its data, or
/// `{ result, code, argument }`, the `isError` `CallToolResult` to answer instead.
#[wasm_bindgen(js_name = resolveToolCall)]
pub fn resolve_tool_call(arguments: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        lro_js::to_value(&lro_js::resolve_tool_call(
            lro,
            &call_arguments(&arguments)?,
        ))
    })
}

/// `resolveToolCall`, as a Promise.
#[wasm_bindgen(js_name = resolveToolCallAsync)]
pub fn resolve_tool_call_async(arguments: JsValue, config: JsValue) -> Promise {
    promise(resolve_tool_call(arguments, config))
}

/// Deletes expired offload files in the output directory; returns the report.
#[wasm_bindgen]
pub fn cleanup(config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| lro_js::to_value(&lro.cleanup()?))
}

/// `cleanup`, as a Promise.
#[wasm_bindgen(js_name = cleanupAsync)]
pub fn cleanup_async(config: JsValue) -> Promise {
    promise(cleanup(config))
}

/// One page of the offload files as MCP resources, newest first.
#[wasm_bindgen(js_name = listResources)]
pub fn list_resources(cursor: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        let cursor = match cursor.is_undefined() || cursor.is_null() {
            true => None,
            false => Some(string(&cursor)?),
        };
        lro_js::to_value(&lro_mcp::list_resources(lro, cursor.as_deref())?)
    })
}

/// `listResources`, as a Promise.
#[wasm_bindgen(js_name = listResourcesAsync)]
pub fn list_resources_async(cursor: JsValue, config: JsValue) -> Promise {
    promise(list_resources(cursor, config))
}

/// Reads the offload resource `uri` (`lro://offloads/{file}`, or `.../records`).
#[wasm_bindgen(js_name = readResource)]
pub fn read_resource(uri: JsValue, config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| lro_js::to_value(&lro_mcp::read_resource(lro, &string(&uri)?)?))
}

/// `readResource`, as a Promise.
#[wasm_bindgen(js_name = readResourceAsync)]
pub fn read_resource_async(uri: JsValue, config: JsValue) -> Promise {
    promise(read_resource(uri, config))
}

/// The offload files' URI prefix, media type and resource templates.
#[wasm_bindgen(js_name = resourceScheme)]
pub fn resource_scheme() -> Result<JsValue, JsValue> {
    to_js(&lro_js::resource_scheme())
}

/// The `resource_link` content block of an offloaded result whose file is `filePath`.
#[wasm_bindgen(js_name = resourceLink)]
pub fn resource_link(
    #[wasm_bindgen(js_name = filePath)] file_path: JsValue,
) -> Result<JsValue, JsValue> {
    let file_path = thrown(string(&file_path))?;
    to_js(&lro_mcp::resources::resource_link(&file_path))
}

/// The JSON-RPC error code a failed resource request answers with, for an error `code`.
#[wasm_bindgen(js_name = resourceErrorCode)]
pub fn resource_error_code(code: JsValue) -> f64 {
    lro_js::resource_error_code(&code.as_string().unwrap_or_default()) as f64
}

/// The extract tool's name for a server named `serverName`: `lro_extract_<server>`, or
/// `lro_extract` without a name.
#[wasm_bindgen(js_name = extractToolForServer)]
pub fn extract_tool_for_server(server_name: Option<String>) -> String {
    lro_mcp::extract_tool_for_server(server_name.as_deref())
}

/// The `lro_extract` tool: `{ name, description, inputSchema }`, in the form
/// `config.mcp.extractToolDefinition` names (short by default).
#[wasm_bindgen(js_name = extractTool)]
pub fn extract_tool(config: JsValue) -> Result<JsValue, JsValue> {
    Call::new(&config)?.run(|lro| {
        Ok(lro_js::extract_tool(
            lro.config().mcp.extract_tool_definition,
        ))
    })
}

/// The configuration a TOML file's `[prompt.offload]` section gives, the file read through
/// the platform's host (node:fs under Node): a regular file of at most 1 MiB.
#[wasm_bindgen(js_name = configFromToml)]
pub fn config_from_toml(path: JsValue) -> Result<JsValue, JsValue> {
    let path = thrown(string(&path))?;
    let text = thrown(host::read_platform_file(&path))?;
    config_view(toml_config(&text))
}

/// The configuration TOML text's `[prompt.offload]` section gives.
#[wasm_bindgen(js_name = configFromTomlString)]
pub fn config_from_toml_string(text: JsValue) -> Result<JsValue, JsValue> {
    let text = thrown(string(&text))?;
    config_view(toml_config(&text))
}

/// The section over the defaults; sections that look like it but are not it
/// (`[Prompt.Offload]`) are emitted as the native addon emits them,
/// `process.emitWarning(text, "LroConfigWarning")`, where there is a `process` (Node);
/// elsewhere `console.warn`.
fn toml_config(text: &str) -> Result<OffloadConfig, LroError> {
    let mut config = OffloadConfig::default();
    for warning in config.apply_toml_checked(text)? {
        emit_warning(&warning);
    }
    Ok(config)
}

fn emit_warning(warning: &str) {
    use js_sys::{Function, Reflect};
    let global = js_sys::global();
    let member = |object: &JsValue, name: &str| {
        Reflect::get(object, &name.into())
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    };
    if let Some(process) = member(&global, "process")
        && let Some(emit) = member(&process, "emitWarning")
    {
        let emit: Function = emit.unchecked_into();
        let _ = emit.call2(&process, &warning.into(), &"LroConfigWarning".into());
    } else if let Some(console) = member(&global, "console")
        && let Some(warn) = member(&console, "warn")
    {
        let warn: Function = warn.unchecked_into();
        let _ = warn.call1(&console, &warning.into());
    }
}

fn config_view(config: Result<OffloadConfig, LroError>) -> Result<JsValue, JsValue> {
    let view = thrown(config.and_then(|c| lro_js::to_value(&lro_js::Config::from(&c))))?;
    to_js(&view)
}

/// The `ATLATL_PROMPT__OFFLOAD__*` variables of `vars` (default: the platform's environment,
/// `process.env` under Node) over `base` (default: the defaults).
#[wasm_bindgen(js_name = configFromEnv)]
pub fn config_from_env(vars: JsValue, base: JsValue) -> Result<JsValue, JsValue> {
    let given = call::Given::read(&base)?;
    config_view(given.layered(&vars))
}

/// `config` with the environment on top (`process.env` under Node, or `vars`); its
/// `onEvent` and `host` are kept.
#[wasm_bindgen(js_name = withEnv)]
pub fn with_env(config: JsValue, vars: JsValue) -> Result<JsValue, JsValue> {
    let given = call::Given::read(&config)?;
    let (on_event, host) = (given.on_event.clone(), given.host.clone());
    let object = config_view(given.layered(&vars))?;
    for (name, value) in [("onEvent", on_event.map(JsValue::from)), ("host", host)] {
        if let Some(value) = value {
            js_sys::Reflect::set(&object, &name.into(), &value)?;
        }
    }
    Ok(object)
}

/// Every configuration key, from the core's table (as the Node addon's `configKeys`).
#[wasm_bindgen(js_name = configKeys)]
pub fn config_keys() -> Result<JsValue, JsValue> {
    to_js(&lro_js::config_keys())
}

/// Every stable error code, in the core's order.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_owned())
        .collect()
}

/// The estimated tokens of `text` with the core's heuristic (characters / 4 for Latin
/// script, one per character for wide scripts).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(text: JsValue) -> Result<f64, JsValue> {
    let text = thrown(string(&text))?;
    Ok(lro_core::estimate::estimate_tokens(text.as_bytes()) as f64)
}
