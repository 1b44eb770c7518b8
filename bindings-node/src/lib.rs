//! # lro (Node addon)
//!
//! Large Result Offloading for Node.js: a thin N-API shim over `lro-core`. Every function
//! takes plain JS values, hands them to the core as JSON, and returns the core's JSON result;
//! errors are thrown as `Error`s whose `.code` is the core's stable code (`invalid_config`,
//! `invalid_detail`, ...). Each function has an `*Async` twin that runs on the libuv thread
//! pool and returns a Promise.

mod chunks;
mod config;
mod encoded;
mod js;
mod jsstr;
mod options;
mod task;

/// mimalloc, as in every native LRO artifact: extraction allocates and frees millions of
/// small jq values across worker threads, where glibc's per-thread arenas are slow (see
/// ARCHITECTURE.md, "Allocator").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use lro_core::{ErrorCode, LroError, OffloadConfig, OffloadRequest};
use napi::bindgen_prelude::{
    AsyncTask, Buffer, FromNapiValue, Function, JsObjectValue, Object, Unknown,
};
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;
use serde_json::Value;

use crate::config::Resolved;
use crate::jsstr::Json;
use crate::options::convert;
use crate::task::{Job, LroTask, Records, settle};

/// A call's resolved configuration and work; argument errors become a rejected job.
struct Call {
    resolved: Resolved,
    job: Job,
}

fn prepare(
    env: &Env,
    config: Option<Unknown<'_>>,
    job: impl FnOnce() -> Result<Job, LroError>,
) -> Call {
    match config::resolve(env, config) {
        Ok(resolved) => Call {
            job: job().unwrap_or_else(Job::Rejected),
            resolved,
        },
        Err(err) => Call {
            resolved: Resolved {
                config: OffloadConfig::default(),
                on_event: None,
            },
            job: Job::Rejected(err),
        },
    }
}

fn run_sync(env: &Env, call: Call) -> napi::Result<Json> {
    let Call { resolved, job } = call;
    let ran = job.run(resolved.config, resolved.on_event.is_some());
    settle(env, resolved.on_event.as_ref(), ran).map(Json)
}

fn run_async(call: Call) -> AsyncTask<LroTask> {
    AsyncTask::new(LroTask::new(
        call.resolved.config,
        call.job,
        call.resolved.on_event,
    ))
}

fn unreadable(err: napi::Error) -> LroError {
    LroError::new(ErrorCode::InvalidInput, err.reason.clone())
}

fn js_string(value: Unknown<'_>) -> Result<String, LroError> {
    value
        .coerce_to_string()
        .and_then(|s| s.into_utf8())
        .and_then(|s| s.into_owned())
        .map_err(unreadable)
}

fn is_bytes(value: &Unknown<'_>) -> bool {
    value.get_type().ok() == Some(ValueType::Object) && value.is_buffer().unwrap_or(false)
}

/// Tool output from JS: a Buffer/Uint8Array is JSON bytes (the fast path); a string is text
/// output (one record per line); anything else a JSON value.
fn records(env: &Env, value: Unknown<'_>) -> Result<Records, LroError> {
    match value.get_type().map_err(unreadable)? {
        ValueType::String => Ok(Records::Value(Value::String(js_string(value)?))),
        ValueType::Object if is_bytes(&value) => Ok(Records::Json(
            Buffer::from_unknown(value).map_err(unreadable)?.to_vec(),
        )),
        ValueType::Undefined => Err(LroError::new(
            ErrorCode::InvalidInput,
            "records are missing (undefined)",
        )),
        // JSON text into the core's text path: no Value tree on either side.
        _ => match js::stringify(env, value, ErrorCode::InvalidInput, "records")? {
            Some(text) => Ok(Records::Json(text.into_bytes())),
            // No JSON form (a function, a symbol): JSON's `null`, as `JSON.stringify` nests it.
            None => Ok(Records::Value(Value::Null)),
        },
    }
}

/// Serialized JSON from JS, as a string or a Buffer/Uint8Array.
fn json_text(value: Unknown<'_>) -> Result<Records, LroError> {
    match value.get_type().map_err(unreadable)? {
        ValueType::String => Ok(Records::Json(js_string(value)?.into_bytes())),
        ValueType::Object if is_bytes(&value) => Ok(Records::Json(
            Buffer::from_unknown(value).map_err(unreadable)?.to_vec(),
        )),
        _ => Err(LroError::new(
            ErrorCode::InvalidInput,
            "json must be a string or a Buffer of JSON text",
        )),
    }
}

/// An optional options argument as JSON (`null` when omitted).
fn options_json(
    env: &Env,
    value: Option<Unknown<'_>>,
    code: ErrorCode,
    what: &str,
) -> Result<Value, LroError> {
    js::present(value).map_or(Ok(Value::Null), |v| js::from_js(env, v, code, what))
}

/// The options of an offload, as the core reads them.
fn offload_request(env: &Env, options: Option<Unknown<'_>>) -> Result<OffloadRequest, LroError> {
    convert(
        options_json(env, options, ErrorCode::InvalidArgument, "options")?,
        ErrorCode::InvalidArgument,
        "options",
    )
}

fn offload_job(
    env: &Env,
    records: Result<Records, LroError>,
    options: Option<Unknown<'_>>,
) -> Result<Job, LroError> {
    let request = offload_request(env, options)?;
    Ok(Job::Offload {
        records: records?,
        request,
    })
}

fn inject_job(
    env: &Env,
    formatted: Unknown<'_>,
    pre_budget: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Job, LroError> {
    let formatted: Value = js::from_js(env, formatted, ErrorCode::InvalidInput, "formatted")?;
    let Value::String(formatted) = formatted else {
        return Err(LroError::new(
            ErrorCode::InvalidInput,
            "formatted must be a string",
        ));
    };
    let mut options = options_json(env, options, ErrorCode::InvalidArgument, "options")?;
    if options.is_null() {
        // The inject rule belongs to inject_context: default the operation accordingly.
        options = serde_json::json!({ "operation": "inject" });
    }
    let request = convert(options, ErrorCode::InvalidArgument, "options")?;
    Ok(Job::Inject {
        formatted,
        pre_budget: records(env, pre_budget)?,
        request,
    })
}

fn intercept_job(
    env: &Env,
    result: Unknown<'_>,
    context: Option<Unknown<'_>>,
) -> Result<Job, LroError> {
    let result = js::from_js(env, result, ErrorCode::InvalidInput, "result")?;
    let context = convert(
        options_json(env, context, ErrorCode::InvalidArgument, "context")?,
        ErrorCode::InvalidArgument,
        "context",
    )?;
    Ok(Job::Intercept { result, context })
}

/// Offloads `records` when their estimated tokens exceed the threshold: writes the JSONL file
/// and returns the descriptor (`offloaded: true`); otherwise returns them inline
/// (`offloaded: false`). `records` is the tool output: an array, an object holding an array,
/// a string of text (one record per line), any other JSON value, or a Buffer of JSON text
/// (the fast path, as `offloadJson`).
#[napi(
    ts_args_type = "records: unknown, options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Outcome"
)]
pub fn offload(
    env: Env,
    records: Unknown<'_>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    run_sync(
        &env,
        prepare(&env, config, || {
            offload_job(&env, self::records(&env, records), options)
        }),
    )
}

/// `offload` on the libuv thread pool: the JS value is serialized on the calling thread, the
/// rest (parsing, projection, the file write) runs off it.
#[napi(
    ts_args_type = "records: unknown, options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Promise<Outcome>"
)]
pub fn offload_async(
    env: Env,
    records: Unknown<'_>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || {
        offload_job(&env, self::records(&env, records), options)
    }))
}

/// Internal to the package entry (`lro.js`), which calls it for MIF memories it encodes
/// itself instead of calling `JSON.stringify` (see `encoded.rs`): `offload` of the records
/// `next()` hands over, a chunk per call (`[text, shape]`), until it returns `undefined`;
/// `fields` are the fields the chunks hold. From the second chunk on, a worker thread writes
/// each chunk's JSON and scans it while this thread takes the next. Returns `null` when
/// `next` does (a record that is not a MIF memory), when the core finds records that are
/// not, or when `fields` are not those the projection of `options` reads (options the
/// encoder read otherwise than their JSON says); the caller then offloads them whole.
#[napi(
    ts_args_type = "next: () => [string, Int32Array] | null | undefined, fields: string[], options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Outcome | null"
)]
pub fn offload_encoded(
    env: Env,
    next: Function<'_, (), Unknown<'_>>,
    fields: Vec<String>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    run_sync(
        &env,
        prepare(&env, config, || {
            let request = offload_request(&env, options)?;
            let scanned = chunks::scan(&env, &next, &fields, &request)?;
            Ok(Job::Offload {
                records: Records::Chunks(scanned),
                request,
            })
        }),
    )
}

/// `offloadEncoded` on the libuv thread pool: the chunks are taken on the calling thread,
/// written as JSON, scanned and offloaded off it. Resolves to `null` as `offloadEncoded`
/// returns it.
#[napi(
    ts_args_type = "next: () => [string, Int32Array] | null | undefined, fields: string[], options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Promise<Outcome | null>"
)]
pub fn offload_encoded_async(
    env: Env,
    next: Function<'_, (), Unknown<'_>>,
    fields: Vec<String>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || {
        let request = offload_request(&env, options)?;
        Ok(Job::Offload {
            records: Records::Encoded(chunks::take_all(&env, &next, &fields, &request)?),
            request,
        })
    }))
}

/// The fast path: `offload` on serialized JSON (a string or a Buffer), parsed by the core
/// without building JS objects: what a tool that already holds JSON text should call.
/// Text that is not JSON throws `invalid_input`.
#[napi(
    ts_args_type = "json: string | Uint8Array, options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Outcome"
)]
pub fn offload_json(
    env: Env,
    json: Unknown<'_>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    run_sync(
        &env,
        prepare(&env, config, || offload_job(&env, json_text(json), options)),
    )
}

/// `offloadJson` on the libuv thread pool: the text is copied on the calling thread, parsed
/// and written off it.
#[napi(
    ts_args_type = "json: string | Uint8Array, options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Promise<Outcome>"
)]
pub fn offload_json_async(
    env: Env,
    json: Unknown<'_>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || {
        offload_job(&env, json_text(json), options)
    }))
}

/// The `inject_context` rule: the *pre-budget* result set decides. Above the threshold the
/// full set is offloaded and `formatted` (the budgeted prompt text) is discarded; otherwise
/// `formatted` is returned inline as `results`. The operation defaults to `inject`.
#[napi(
    ts_args_type = "formatted: string, preBudget: unknown, options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Outcome"
)]
pub fn offload_inject(
    env: Env,
    formatted: Unknown<'_>,
    pre_budget: Unknown<'_>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    run_sync(
        &env,
        prepare(&env, config, || {
            inject_job(&env, formatted, pre_budget, options)
        }),
    )
}

/// `offloadInject` on the libuv thread pool.
#[napi(
    ts_args_type = "formatted: string, preBudget: unknown, options?: OffloadOptions | null, config?: Config | null",
    ts_return_type = "Promise<Outcome>"
)]
pub fn offload_inject_async(
    env: Env,
    formatted: Unknown<'_>,
    pre_budget: Unknown<'_>,
    options: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || {
        inject_job(&env, formatted, pre_budget, options)
    }))
}

/// Decides on an MCP `tools/call` result (a `CallToolResult`) and returns the result to send
/// on: above the threshold its data is offloaded and `content` holds the descriptor as text,
/// `structuredContent` the descriptor object (`isError` and `_meta` are kept).
#[napi(
    ts_args_type = "result: CallToolResult, context?: ToolContext | null, config?: Config | null",
    ts_return_type = "Intercepted"
)]
pub fn intercept_tool_result(
    env: Env,
    result: Unknown<'_>,
    context: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    run_sync(
        &env,
        prepare(&env, config, || intercept_job(&env, result, context)),
    )
}

/// `interceptToolResult` on the libuv thread pool.
#[napi(
    ts_args_type = "result: CallToolResult, context?: ToolContext | null, config?: Config | null",
    ts_return_type = "Promise<Intercepted>"
)]
pub fn intercept_tool_result_async(
    env: Env,
    result: Unknown<'_>,
    context: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || {
        intercept_job(&env, result, context)
    }))
}

fn extract_job(
    env: &Env,
    file_path: Unknown<'_>,
    request: Option<Unknown<'_>>,
) -> Result<Job, LroError> {
    let Value::String(file_path) =
        js::from_js(env, file_path, ErrorCode::InvalidArgument, "filePath")?
    else {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            "filePath must be a string",
        ));
    };
    let request = convert(
        options_json(env, request, ErrorCode::InvalidArgument, "request")?,
        ErrorCode::InvalidArgument,
        "request",
    )?;
    Ok(Job::Extract {
        file_path,
        request: Box::new(request),
    })
}

/// Native extraction (`lro_extract`): runs one recipe, jq filter, record range or regex
/// search over an offloaded file, in-process and bounded by `config.extract`. The file must
/// be an offload file inside `config.outputDir` (else `path_denied`); a result cut by a limit
/// has `truncated: true` and names the `limit`.
#[napi(
    ts_args_type = "filePath: string, request: ExtractOptions, config?: Config | null",
    ts_return_type = "ExtractResponse"
)]
pub fn extract(
    env: Env,
    file_path: Unknown<'_>,
    request: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    run_sync(
        &env,
        prepare(&env, config, || extract_job(&env, file_path, request)),
    )
}

/// `extract` on the libuv thread pool (a filter over a large file can take a while).
#[napi(
    ts_args_type = "filePath: string, request: ExtractOptions, config?: Config | null",
    ts_return_type = "Promise<ExtractResponse>"
)]
pub fn extract_async(
    env: Env,
    file_path: Unknown<'_>,
    request: Option<Unknown<'_>>,
    config: Option<Unknown<'_>>,
) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || {
        extract_job(&env, file_path, request)
    }))
}

/// Deletes offload files in the output directory whose time-to-live has passed (emitting
/// `OffloadFileExpired` for each). A missing directory is an empty report.
#[napi(
    ts_args_type = "config?: Config | null",
    ts_return_type = "CleanupReport"
)]
pub fn cleanup(env: Env, config: Option<Unknown<'_>>) -> napi::Result<Json> {
    run_sync(&env, prepare(&env, config, || Ok(Job::Cleanup)))
}

/// `cleanup` on the libuv thread pool.
#[napi(
    ts_args_type = "config?: Config | null",
    ts_return_type = "Promise<CleanupReport>"
)]
pub fn cleanup_async(env: Env, config: Option<Unknown<'_>>) -> AsyncTask<LroTask> {
    run_async(prepare(&env, config, || Ok(Job::Cleanup)))
}

fn config_result(env: &Env, result: Result<OffloadConfig, LroError>) -> napi::Result<Json> {
    result
        .map(|c| Json(config::to_js_value(&c)))
        .map_err(|e| js::to_js_error(env, &e))
}

/// The `lro_extract` tool as every LRO surface describes it: `{ name, description,
/// inputSchema }` from the core (the `lro proxy` publishes the same), for MCP servers that
/// register the tool themselves (`mcp.js` does).
#[napi(ts_return_type = "ExtractTool")]
pub fn extract_tool() -> Json {
    Json(serde_json::json!({
        "name": lro_core::extract::tool::TOOL_NAME,
        "description": lro_core::extract::tool::TOOL_DESCRIPTION,
        "inputSchema": lro_core::extract::tool::tool_input_schema(),
    }))
}

/// Reads the `[prompt.offload]` section of a TOML file over the defaults (a file without the
/// section gives the defaults). Throws `not_found`, `io_error` or `invalid_config`.
#[napi(ts_return_type = "Config")]
pub fn config_from_toml(env: Env, path: String) -> napi::Result<Json> {
    let result = std::fs::read_to_string(&path)
        .map_err(|e| LroError::from_io(&e, &format!("cannot read {path}")))
        .and_then(|text| OffloadConfig::from_toml_str(&text));
    config_result(&env, result)
}

/// Reads the `[prompt.offload]` section of TOML text over the defaults.
#[napi(ts_return_type = "Config")]
pub fn config_from_toml_string(env: Env, text: String) -> napi::Result<Json> {
    config_result(&env, OffloadConfig::from_toml_str(&text))
}

/// Applies the `ATLATL_PROMPT__OFFLOAD__*` variables of `vars` (default: this process's
/// environment) over `base` (default: the defaults), so `configFromEnv(undefined,
/// configFromToml(path))` layers the sources as the specification orders them. An unknown
/// key under the prefix, or a bad value, throws `invalid_config` naming the variable. The
/// returned object has no `onEvent` (`withEnv` keeps it).
#[napi(
    ts_args_type = "vars?: Record<string, string | undefined> | null, base?: Config | null",
    ts_return_type = "Config"
)]
pub fn config_from_env(
    env: Env,
    vars: Option<Unknown<'_>>,
    base: Option<Unknown<'_>>,
) -> napi::Result<Json> {
    let result = config::base(&env, base).and_then(|mut config| {
        config::layer_env(&env, &mut config, vars)?;
        Ok(config)
    });
    config_result(&env, result)
}

/// `config` with the environment on top: this process's `ATLATL_PROMPT__OFFLOAD__*`
/// variables, or those of `vars`, override its keys; its `onEvent` is kept. A configuration
/// object is used as given, so this is how the environment gets a say over one:
/// `offload(records, options, withEnv({ thresholdTokens: 800, onEvent }))`. Read when called.
#[napi(
    ts_args_type = "config?: Config | null, vars?: Record<string, string | undefined> | null",
    ts_return_type = "Config"
)]
pub fn with_env<'env>(
    env: &'env Env,
    config: Option<Unknown<'env>>,
    vars: Option<Unknown<'env>>,
) -> napi::Result<Object<'env>> {
    let on_event = match js::present(config) {
        Some(given) if given.get_type()? == ValueType::Object => {
            let callback: Unknown<'_> = given.coerce_to_object()?.get_named_property("onEvent")?;
            js::present(Some(callback))
        }
        _ => None,
    };
    let layered = config::base(env, config)
        .and_then(|mut layered| {
            config::layer_env(env, &mut layered, vars)?;
            Ok(layered)
        })
        .map_err(|e| js::to_js_error(env, &e))?;
    let mut object = js::parse(env, &config::to_js_value(&layered))?.coerce_to_object()?;
    if let Some(callback) = on_event {
        object.set_named_property("onEvent", callback)?;
    }
    Ok(object)
}

/// The stable error codes, as `err.code` holds them.
#[napi(ts_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<&'static str> {
    ErrorCode::ALL.iter().map(|c| c.as_str()).collect()
}

/// The top-level fields that projecting MIF memories of `operation` to `detail` reads
/// (`null` for full detail, or a detail name the core would reject). The package entry
/// (`lro.js`) uses it to drop unread fields in JS before `JSON.stringify`, which is what
/// makes `offload` of JS objects cheap; the core still decides MIF and projects.
#[napi]
pub fn projection_fields(operation: String, detail: Option<String>) -> Option<Vec<&'static str>> {
    let detail = match detail {
        Some(name) => name.parse::<lro_core::Detail>().ok()?,
        None => lro_core::Detail::default_for(&operation),
    };
    detail.read_fields().map(<[&str]>::to_vec)
}
