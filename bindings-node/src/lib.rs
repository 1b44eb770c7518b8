//! # lro (Node addon)
//!
//! Large Result Offloading for Node.js: a thin N-API shim over `lro-core`. The API itself
//! (option objects, their conversion, the configuration story) is `lro-js`, shared with the
//! WebAssembly package; here each entry point reads its arguments (`arg.rs`), hands a job
//! on core types to the core (`task.rs`), and returns the core's JSON (`out.rs`). Errors are
//! thrown as `Error`s named `LroError` whose `.code` is the core's stable code
//! (`invalid_config`, `invalid_detail`, ...). Each call has an `*Async` twin that runs on the
//! libuv thread pool and returns a Promise; a bad argument rejects it, as any failure does.

mod arg;
mod chunks;
mod config;
mod encoded;
mod js;
mod jsstr;
mod out;
mod task;

/// mimalloc, as in every native LRO artifact: extraction allocates and frees millions of
/// small jq values across worker threads, where glibc's per-thread arenas are slow (see
/// ARCHITECTURE.md, "Allocator").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use lro_core::{ErrorCode, LroError, OffloadConfig};
use napi::bindgen_prelude::{
    AsyncTask, Buffer, FromNapiValue, Function, JsObjectValue, Object, Unknown,
};
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;
use serde_json::Value;

use crate::config::Resolved;
use crate::task::{
    CleanupTask, ExtractTask, ExtractToolCallTask, InterceptTask, Job, ListResourcesTask, LroTask,
    OutcomeTask, ReadResourceTask, Records, ResolveToolCallTask, settle,
};

/// A call's resolved configuration and work; argument errors become a rejected job, so an
/// async twin rejects its Promise instead of throwing.
struct Call {
    resolved: Resolved,
    job: Job,
}

fn call(config: Option<arg::Config>, job: impl FnOnce() -> Result<Job, LroError>) -> Call {
    match arg::Config::given(config).and_then(config::resolve) {
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

/// Runs the call here: events delivered, then the result returned or the error thrown.
fn run<R: From<Value>>(env: &Env, call: Call) -> napi::Result<R> {
    let Call { resolved, job } = call;
    let ran = job.run(resolved.config, resolved.on_event.is_some());
    settle(env, resolved.on_event.as_ref(), ran).map(R::from)
}

/// The call on the libuv thread pool: its Promise settles on the JS thread.
fn spawn<T: From<LroTask> + napi::Task>(call: Call) -> AsyncTask<T> {
    AsyncTask::new(T::from(LroTask::new(
        call.resolved.config,
        call.job,
        call.resolved.on_event,
    )))
}

/// A result computed here, or the error thrown.
fn thrown<R>(env: &Env, result: Result<R, LroError>) -> napi::Result<R> {
    result.map_err(|e| js::to_js_error(env, &e))
}

/// Tool output from JS: a Buffer/Uint8Array is JSON bytes (the fast path); a string is text
/// output (one record per line); anything else a JSON value.
fn records(env: &Env, value: Unknown<'_>) -> Result<Records, LroError> {
    match value.get_type().map_err(js::unreadable)? {
        ValueType::String => Ok(Records::Value(Value::String(js::text(env, &value)?))),
        ValueType::Object if js::is_bytes(&value) => Ok(Records::Json(
            Buffer::from_unknown(value)
                .map_err(js::unreadable)?
                .to_vec(),
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

fn offload_job(
    records: Result<Records, LroError>,
    options: Option<arg::OffloadOptions>,
    operation: &str,
) -> Result<Job, LroError> {
    let request = arg::OffloadOptions::read(options)?.into_request(operation)?;
    Ok(Job::Offload {
        records: records?,
        request,
    })
}

/// Offloads `records` when their estimated tokens exceed the threshold: writes the JSONL file
/// and returns the descriptor (`offloaded: true`); otherwise returns them inline
/// (`offloaded: false`). `records` is the tool output: an array, an object holding an array,
/// a string of text (one record per line), any other JSON value, or a Buffer of JSON text
/// (the fast path, as `offloadJson`).
#[napi]
pub fn offload(
    env: Env,
    records: Unknown<'_>,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> napi::Result<out::Outcome> {
    run(
        &env,
        call(config, || {
            offload_job(self::records(&env, records), options, "recall")
        }),
    )
}

/// `offload`, as a Promise. The Node addon serializes the JS value on the calling thread and
/// does the rest (parsing, projection, the file write) on the libuv thread pool.
#[napi]
pub fn offload_async(
    env: Env,
    records: Unknown<'_>,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> AsyncTask<OutcomeTask> {
    spawn(call(config, || {
        offload_job(self::records(&env, records), options, "recall")
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
#[napi(skip_typescript)]
pub fn offload_encoded(
    env: Env,
    next: Function<'_, (), Unknown<'_>>,
    fields: Vec<String>,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> napi::Result<out::Outcome> {
    run(
        &env,
        call(config, || {
            let request = arg::OffloadOptions::read(options)?.into_request("recall")?;
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
#[napi(skip_typescript)]
pub fn offload_encoded_async(
    env: Env,
    next: Function<'_, (), Unknown<'_>>,
    fields: Vec<String>,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> AsyncTask<OutcomeTask> {
    spawn(call(config, || {
        let request = arg::OffloadOptions::read(options)?.into_request("recall")?;
        Ok(Job::Offload {
            records: Records::Encoded(chunks::take_all(&env, &next, &fields, &request)?),
            request,
        })
    }))
}

/// The fast path: `offload` on serialized JSON (a string or a Buffer), parsed by the core
/// without building JS objects: what a tool that already holds JSON text should call.
/// Text that is not JSON throws `invalid_input`.
#[napi]
pub fn offload_json(
    env: Env,
    json: arg::JsonText,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> napi::Result<out::Outcome> {
    run(
        &env,
        call(config, || offload_job(json.0, options, "recall")),
    )
}

/// `offloadJson`, as a Promise. The Node addon copies the text on the calling thread, and
/// parses and writes it on the libuv thread pool.
#[napi]
pub fn offload_json_async(
    json: arg::JsonText,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> AsyncTask<OutcomeTask> {
    spawn(call(config, || offload_job(json.0, options, "recall")))
}

fn inject_job(
    env: &Env,
    formatted: arg::String,
    pre_budget: Unknown<'_>,
    options: Option<arg::OffloadOptions>,
) -> Result<Job, LroError> {
    let formatted = formatted.read()?;
    // The inject rule belongs to inject_context: the operation defaults accordingly.
    let request = arg::OffloadOptions::read(options)?.into_request("inject")?;
    Ok(Job::Inject {
        formatted,
        pre_budget: records(env, pre_budget)?,
        request,
    })
}

/// The `inject_context` rule: the *pre-budget* result set decides. Above the threshold the
/// full set is offloaded and `formatted` (the budgeted prompt text) is discarded; otherwise
/// `formatted` is returned inline as `results`. The operation defaults to `inject`.
#[napi]
pub fn offload_inject(
    env: Env,
    formatted: arg::String,
    pre_budget: Unknown<'_>,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> napi::Result<out::Outcome> {
    run(
        &env,
        call(config, || inject_job(&env, formatted, pre_budget, options)),
    )
}

/// `offloadInject`, as a Promise (the Node addon works on the libuv thread pool).
#[napi]
pub fn offload_inject_async(
    env: Env,
    formatted: arg::String,
    pre_budget: Unknown<'_>,
    options: Option<arg::OffloadOptions>,
    config: Option<arg::Config>,
) -> AsyncTask<OutcomeTask> {
    spawn(call(config, || {
        inject_job(&env, formatted, pre_budget, options)
    }))
}

fn intercept_job(
    result: arg::CallToolResult,
    context: Option<arg::ToolContext>,
) -> Result<Job, LroError> {
    Ok(Job::Intercept {
        result: result.0?,
        context: arg::ToolContext::read(context)?.into(),
    })
}

/// Decides on an MCP `tools/call` result (a `CallToolResult`) and returns the result to send
/// on: above the threshold its data is offloaded and `content` holds the descriptor as text,
/// `structuredContent` the descriptor object (`isError` and `_meta` are kept).
#[napi]
pub fn intercept_tool_result(
    env: Env,
    result: arg::CallToolResult,
    context: Option<arg::ToolContext>,
    config: Option<arg::Config>,
) -> napi::Result<out::Intercepted> {
    run(&env, call(config, || intercept_job(result, context)))
}

/// `interceptToolResult`, as a Promise (the Node addon works on the libuv thread pool).
#[napi]
pub fn intercept_tool_result_async(
    result: arg::CallToolResult,
    context: Option<arg::ToolContext>,
    config: Option<arg::Config>,
) -> AsyncTask<InterceptTask> {
    spawn(call(config, || intercept_job(result, context)))
}

fn extract_job(file_path: arg::String, request: arg::ExtractOptions) -> Result<Job, LroError> {
    Ok(Job::Extract {
        file_path: file_path.read()?,
        request: Box::new(request.0?.into()),
    })
}

/// Native extraction (`lro_extract`): runs one recipe, jq filter, record range or regex
/// search over an offloaded file, in-process and bounded by `config.extract`. The file must
/// be an offload file inside `config.outputDir` (else `path_denied`), named by its path or
/// its resource URI; a result cut by a limit has `truncated: true` and names the `limit`.
#[napi]
pub fn extract(
    env: Env,
    file_path: arg::String,
    request: arg::ExtractOptions,
    config: Option<arg::Config>,
) -> napi::Result<out::ExtractResponse> {
    run(&env, call(config, || extract_job(file_path, request)))
}

/// `extract`, as a Promise: the Node addon runs it on the libuv thread pool (a filter over a
/// large file can take a while).
#[napi]
pub fn extract_async(
    file_path: arg::String,
    request: arg::ExtractOptions,
    config: Option<arg::Config>,
) -> AsyncTask<ExtractTask> {
    spawn(call(config, || extract_job(file_path, request)))
}

/// Answers one call of the extract tool as every LRO surface answers it (the `lro proxy`,
/// the Python helpers): `arguments` as the client sent them (`null` values are absent;
/// `where`, `params`, `sort` and `fields` as JSON text or objects; `lines` and `chars` as
/// `"START:END"`). Returns an MCP `CallToolResult`: one text block holding the answer alone
/// (a count is the number), bounded by `config.extract.answerMaxBytes` and
/// `answerMaxTokens`, with a `[truncated]` line naming the next call when cut; a bad call is
/// `isError: true` with text `error[code]: message` (it does not throw).
#[napi]
pub fn extract_tool_call(
    env: Env,
    arguments: arg::ToolArguments,
    config: Option<arg::Config>,
) -> napi::Result<out::ExtractToolResult> {
    run(&env, call(config, || extract_tool_call_job(arguments)))
}

/// `extractToolCall`, as a Promise (on the libuv thread pool).
#[napi]
pub fn extract_tool_call_async(
    arguments: arg::ToolArguments,
    config: Option<arg::Config>,
) -> AsyncTask<ExtractToolCallTask> {
    spawn(call(config, || extract_tool_call_job(arguments)))
}

fn extract_tool_call_job(arguments: arg::ToolArguments) -> Result<Job, LroError> {
    Ok(Job::ExtractToolCall {
        arguments: arguments.0?,
    })
}

/// Resolves the result handles in one `tools/call`'s arguments before the tool runs, as
/// every LRO surface does (the `lro proxy`, the Python helpers): an argument value
/// `{ "$lro": resource_uri or file_path, where?, query?, fields?, ..., as? }` is replaced by
/// the data it names (`as`: `json`, the default, `jsonl` or `text`), every handle read
/// before any is put in. Returns `null` when the arguments hold no handle (call the tool
/// with them as given), `{ arguments }` with the handles replaced, or, when one cannot be
/// resolved, `{ result, code, argument }`: the `isError` `CallToolResult` to answer instead
/// of calling the tool, its code, and the handle's place (`content`, `items/2/body`). A bad
/// handle does not throw: the model reads the error.
#[napi]
pub fn resolve_tool_call(
    env: Env,
    arguments: arg::CallArguments,
    config: Option<arg::Config>,
) -> napi::Result<out::ResolvedToolCall> {
    run(&env, call(config, || resolve_tool_call_job(arguments)))
}

/// `resolveToolCall`, as a Promise (on the libuv thread pool: a handle may filter a large
/// file).
#[napi]
pub fn resolve_tool_call_async(
    arguments: arg::CallArguments,
    config: Option<arg::Config>,
) -> AsyncTask<ResolveToolCallTask> {
    spawn(call(config, || resolve_tool_call_job(arguments)))
}

fn resolve_tool_call_job(arguments: arg::CallArguments) -> Result<Job, LroError> {
    Ok(Job::ResolveToolCall {
        arguments: arguments.0?,
    })
}

/// Deletes offload files in the output directory whose time-to-live has passed (emitting
/// `OffloadFileExpired` for each). A missing directory is an empty report.
#[napi]
pub fn cleanup(env: Env, config: Option<arg::Config>) -> napi::Result<out::CleanupReport> {
    run(&env, call(config, || Ok(Job::Cleanup)))
}

/// `cleanup`, as a Promise (the Node addon works on the libuv thread pool).
#[napi]
pub fn cleanup_async(config: Option<arg::Config>) -> AsyncTask<CleanupTask> {
    spawn(call(config, || Ok(Job::Cleanup)))
}

fn list_resources_job(cursor: Option<arg::String>) -> Result<Job, LroError> {
    Ok(Job::ListResources {
        cursor: cursor.map(arg::String::read).transpose()?,
    })
}

/// One page of the offload files in `config.outputDir` as MCP resources
/// (`lro://offloads/{file}`), newest first: `{ resources: [{ uri, name, title, description,
/// mimeType, size }], nextCursor? }`. `cursor` is the previous page's `nextCursor`; expired
/// files are left out even before cleanup removes them.
#[napi]
pub fn list_resources(
    env: Env,
    cursor: Option<arg::String>,
    config: Option<arg::Config>,
) -> napi::Result<out::ResourcePage> {
    run(&env, call(config, || list_resources_job(cursor)))
}

/// `listResources`, as a Promise (the Node addon works on the libuv thread pool).
#[napi]
pub fn list_resources_async(
    cursor: Option<arg::String>,
    config: Option<arg::Config>,
) -> AsyncTask<ListResourcesTask> {
    spawn(call(config, || list_resources_job(cursor)))
}

/// Reads the offload resource `uri`: `lro://offloads/{file}` gives the file as written,
/// `.../records` the file without its header line: `{ contents: [{ uri, mimeType, text }] }`.
/// Throws `invalid_argument` for a URI outside `lro://offloads/`, `path_denied` for one that
/// names no offload file (a `..`, a symbolic link), `not_found` for a missing or expired one.
#[napi]
pub fn read_resource(
    env: Env,
    uri: arg::String,
    config: Option<arg::Config>,
) -> napi::Result<out::ReadResourceResult> {
    run(
        &env,
        call(config, || Ok(Job::ReadResource { uri: uri.read()? })),
    )
}

/// `readResource`, as a Promise: the Node addon reads on the libuv thread pool (a file may
/// be large).
#[napi]
pub fn read_resource_async(
    uri: arg::String,
    config: Option<arg::Config>,
) -> AsyncTask<ReadResourceTask> {
    spawn(call(config, || Ok(Job::ReadResource { uri: uri.read()? })))
}

/// The offload files as MCP resources: the URI prefix, the media type and the two
/// `resources/templates/list` entries, as every LRO surface serves them.
#[napi]
pub fn resource_scheme() -> out::ResourceScheme {
    out::ResourceScheme(lro_js::resource_scheme())
}

/// The `resource_link` content block of an offloaded result whose file is `filePath`.
#[napi]
pub fn resource_link(env: Env, file_path: arg::String) -> napi::Result<out::ResourceLink> {
    let file_path = thrown(&env, file_path.read())?;
    Ok(out::ResourceLink(lro_mcp::resources::resource_link(
        &file_path,
    )))
}

/// The JSON-RPC error code a failed resource request answers with, for an error `code`:
/// `not_found` -32002, `path_denied` and `invalid_argument` -32602, others -32603.
#[napi]
pub fn resource_error_code(code: arg::String) -> i64 {
    lro_js::resource_error_code(code.read().as_deref().unwrap_or_default())
}

/// The extract tool's name for a server named `serverName`: `lro_extract_<server>`
/// (lowercased, each run of other characters one `_`, at most 64 characters), or
/// `lro_extract` without a name.
#[napi]
pub fn extract_tool_for_server(server_name: Option<String>) -> String {
    lro_mcp::extract_tool_for_server(server_name.as_deref())
}

/// The `lro_extract` tool as every LRO surface describes it: `{ name, description,
/// inputSchema }` from the core (the `lro proxy` publishes the same), in the form
/// `config.mcp.extractToolDefinition` names (short by default), for MCP servers that register
/// the tool themselves (`mcp.js` does). Throws `invalid_config` for a bad configuration.
#[napi]
pub fn extract_tool(env: Env, config: Option<arg::Config>) -> napi::Result<out::ExtractTool> {
    let resolved = thrown(&env, arg::Config::given(config).and_then(config::resolve))?;
    let form = resolved.config.mcp.extract_tool_definition;
    Ok(out::ExtractTool(lro_js::extract_tool(form)))
}

/// Reads the `[prompt.offload]` section of a TOML file over the defaults (a file without the
/// section gives the defaults). The file must be a regular file of at most 1 MiB (a FIFO, a
/// device or a directory is `invalid_config`, never waited on). Sections that look like
/// `[prompt.offload]` but are not it are emitted as `LroConfigWarning`s
/// (`process.emitWarning`). Throws `not_found`, `io_error` or `invalid_config`.
#[napi]
pub fn config_from_toml(env: Env, path: arg::String) -> napi::Result<out::Config> {
    let read = path
        .read()
        .and_then(|path| lro_core::config_file::read_config_file(std::path::Path::new(&path)));
    config_from_text(&env, read)
}

/// Reads the `[prompt.offload]` section of TOML text over the defaults (warnings as
/// `configFromToml`).
#[napi]
pub fn config_from_toml_string(env: Env, text: arg::String) -> napi::Result<out::Config> {
    config_from_text(&env, text.read())
}

fn config_from_text(env: &Env, text: Result<String, LroError>) -> napi::Result<out::Config> {
    let mut config = OffloadConfig::default();
    let warnings = text.and_then(|text| config.apply_toml_checked(&text));
    if let Ok(warnings) = &warnings {
        emit_warnings(env, warnings)?;
    }
    let view = warnings.and_then(|_| config::view(&config));
    thrown(env, view.map(out::Config))
}

/// Shows configuration warnings as Node shows its own: `process.emitWarning(text, type)`.
fn emit_warnings(env: &Env, warnings: &[String]) -> napi::Result<()> {
    use napi::bindgen_prelude::{FnArgs, Function, JsObjectValue, Object, Unknown};
    if warnings.is_empty() {
        return Ok(());
    }
    let process: Object<'_> = env.get_global()?.get_named_property("process")?;
    // `FnArgs`: two arguments (a plain tuple would arrive as one array).
    let emit: Function<'_, FnArgs<(String, String)>, Unknown<'_>> =
        process.get_named_property("emitWarning")?;
    for warning in warnings {
        let args = (warning.clone(), "LroConfigWarning".to_owned());
        emit.apply(process, FnArgs::from(args))?;
    }
    Ok(())
}

/// `base` (the defaults when omitted; its values only, never the environment) with the
/// `ATLATL_PROMPT__OFFLOAD__*` variables of `vars` on top, or this process's environment
/// when `vars` is omitted; and the callback `base` holds.
fn layered(
    base: Option<arg::Config>,
    vars: Option<arg::Environment>,
) -> Result<(OffloadConfig, Option<js::EventCallback>), LroError> {
    let given = arg::Config::given(base)?;
    let vars = vars.map(|v| v.0).transpose()?;
    let config = lro_js::layer(given.values, |c| config::layer_variables(c, vars))?;
    Ok((config, given.on_event))
}

/// Applies the `ATLATL_PROMPT__OFFLOAD__*` variables of `vars` (default: this process's
/// environment) over `base` (default: the defaults), so `configFromEnv(undefined,
/// configFromToml(path))` layers the sources as the specification orders them. An unknown
/// key under the prefix, or a bad value, throws `invalid_config` naming the variable. The
/// returned object has no `onEvent` (`withEnv` keeps it).
#[napi]
pub fn config_from_env(
    env: Env,
    vars: Option<arg::Environment>,
    base: Option<arg::Config>,
) -> napi::Result<out::Config> {
    let config = layered(base, vars).and_then(|(config, _)| config::view(&config));
    thrown(&env, config.map(out::Config))
}

/// `config` with the environment on top: this process's `ATLATL_PROMPT__OFFLOAD__*`
/// variables, or those of `vars`, override its keys; its `onEvent` is kept. A configuration
/// object is used as given, so this is how the environment gets a say over one:
/// `offload(records, options, withEnv({ thresholdTokens: 800, onEvent }))`. Read when called.
#[napi(ts_return_type = "Config")]
pub fn with_env<'env>(
    env: &'env Env,
    config: Option<arg::Config>,
    vars: Option<arg::Environment>,
) -> napi::Result<Object<'env>> {
    let (layered, on_event) = thrown(env, layered(config, vars))?;
    let view = thrown(env, config::view(&layered))?;
    let mut object = js::parse(env, &view)?.coerce_to_object()?;
    if let Some(callback) = on_event {
        object.set_named_property("onEvent", callback.borrow_back(env)?)?;
    }
    Ok(object)
}

/// Every configuration key, from the core's table: its dotted `name`, `camelCase` (its name
/// in a config object, `extract.timeoutMs` for `{ extract: { timeoutMs } }`), `env`, `type`,
/// `bounds`, `default`, `doc`, and `sample` / `bad` (a valid value other than the default,
/// and a refused one).
#[napi]
pub fn config_keys() -> out::ConfigKeys {
    out::ConfigKeys(lro_js::config_keys())
}

/// The stable error codes, as `err.code` holds them.
#[napi(ts_return_type = "ErrorCode[]")]
pub fn error_codes() -> Vec<&'static str> {
    ErrorCode::ALL.iter().map(|c| c.as_str()).collect()
}

/// The estimated tokens of `text` with the core's heuristic (characters / 4 for Latin
/// script, one per character for wide scripts): what a descriptor or an inline result costs
/// a model, counted as LRO counts it.
#[napi]
pub fn estimate_tokens(env: Env, text: arg::String) -> napi::Result<i64> {
    let text = thrown(&env, text.read())?;
    Ok(i64::try_from(lro_core::estimate::estimate_tokens(text.as_bytes())).unwrap_or(i64::MAX))
}

/// The top-level fields that projecting MIF memories of `operation` to `detail` reads
/// (`null` for full detail, or a detail name the core would reject). The package entry
/// (`lro.js`) uses it to drop unread fields in JS before `JSON.stringify`, which is what
/// makes `offload` of JS objects cheap; the core still decides MIF and projects.
#[napi(skip_typescript)]
pub fn projection_fields(operation: String, detail: Option<String>) -> Option<Vec<&'static str>> {
    let detail = match detail {
        Some(name) => name.parse::<lro_core::Detail>().ok()?,
        None => lro_core::Detail::default_for(&operation),
    };
    detail.read_fields().map(<[&str]>::to_vec)
}
