//! Result handles: an offloaded result, or a slice of it, passed to the next tool by
//! reference. Wherever LRO sits in front of tools, a `tools/call` argument value of the form
//! `{"$lro": "lro://offloads/NAME" or a file_path, ...}` is replaced, before the call reaches
//! the tool, by the data it names; the agent never reads the data into its context to type
//! it back out.
//!
//! Beside `$lro`, a handle holds the extract tool's arguments (`query`, `params`, `recipe`,
//! `where`, `fields`, `sort`, `skip`, `limit`, `count`, `group_by`, `distinct`, `stats`,
//! `lines`, `search`, `section`: objects or JSON text, read as the tool reads them) and `as`:
//! - `json` (default): the results as an array; a summary (`count`, `group_by`, `distinct`,
//!   `stats`) as its one value;
//! - `jsonl`: one string, each result as a compact JSON line ending in `\n`;
//! - `text`: one string, one result per line, strings as they are, others as compact JSON.
//!
//! With no verb, the handle names every record of the file (of `section`, when given).
//!
//! A handle is read under the offloader's own confinement (the output directory, offload
//! names, no symbolic links: the checks of every extraction), and never in part: an
//! extraction a limit cut, data past `extract.handle_max_bytes` (for all the handles of one
//! call together), an unknown key, a bad `as` or a missing file is an error that names the
//! argument (`content`, `items/2/body`), and the tool is not called. The output limits are
//! raised to that cap for the read, so the engine never cuts below it unnoticed.
//!
//! ```
//! use lro_core::{MemoryHost, OffloadConfig, OffloadRequest, Offloader};
//! use serde_json::json;
//! use std::sync::atomic::AtomicBool;
//!
//! let lro = Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap();
//! let rows: Vec<_> = (0..300).map(|i| json!({"id": i, "kind": if i % 3 == 0 { "a" } else { "b" }})).collect();
//! let outcome = lro.offload(&json!(rows), &OffloadRequest::new("list_rows")).unwrap();
//! let uri = &outcome.offloaded().unwrap().resource_uri;
//!
//! let arguments = json!({"path": "out.jsonl", "content": {"$lro": uri, "where": {"id": {"$lt": 6}, "kind": "a"}, "as": "jsonl"}});
//! let resolved = lro_mcp::handles::resolve(&lro, &arguments, &AtomicBool::new(false)).unwrap();
//! assert_eq!(resolved.unwrap()["content"], "{\"id\":0,\"kind\":\"a\"}\n{\"id\":3,\"kind\":\"a\"}\n");
//!
//! let bad = json!({"content": {"$lro": uri, "as": "yaml"}});
//! let err = lro_mcp::handles::resolve(&lro, &bad, &AtomicBool::new(false)).unwrap_err();
//! assert_eq!(err.path, "content");
//! assert_eq!(err.to_call_result()["isError"], true);
//! ```

use std::fmt;
use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value, json};

use lro_core::config::ExtractLimits;
use lro_core::error::{ErrorCode, LroError, Result};
use lro_core::extract::{ExtractRequest, ExtractResponse};
use lro_core::host::Host;
use lro_core::offload::Offloader;

use crate::extract_tool::arguments;

/// The key that makes an object a handle; its value names the offload file.
pub const HANDLE_KEY: &str = "$lro";

/// Every key a handle may hold: `$lro`, `as`, and the extract tool's arguments that choose
/// and shape records (not `describe`, `explain`, `chars` or `save`, which answer other
/// questions than "which data").
pub const HANDLE_KEYS: [&str; 17] = [
    HANDLE_KEY, "as", "query", "params", "recipe", "where", "fields", "sort", "skip", "limit",
    "count", "group_by", "distinct", "stats", "lines", "search", "section",
];

/// The keys that name a verb: a handle with none of them reads every record.
const VERB_KEYS: [&str; 13] = [
    "query", "recipe", "where", "fields", "sort", "skip", "limit", "count", "group_by", "distinct",
    "stats", "lines", "search",
];

/// How a handle's data is put into the arguments (`as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The results as a JSON array (a summary as its one value).
    Json,
    /// One string: each result as a compact JSON line ending in `\n`.
    Jsonl,
    /// One string: one result per line, strings as they are, others as compact JSON.
    Text,
}

impl Form {
    fn parse(value: Option<&Value>) -> Result<Self> {
        match value {
            None | Some(Value::Null) => Ok(Self::Json),
            Some(Value::String(name)) if name == "json" => Ok(Self::Json),
            Some(Value::String(name)) if name == "jsonl" => Ok(Self::Jsonl),
            Some(Value::String(name)) if name == "text" => Ok(Self::Text),
            Some(other) => Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "as must be \"json\", \"jsonl\" or \"text\", got {}",
                    crate::extract_tool::clip::clip(&other.to_string(), 40)
                ),
            )),
        }
    }
}

/// A handle that could not be resolved: where it sits in the arguments, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct HandleError {
    /// The argument, as a JSON pointer without its leading `/` (`content`, `items/2/body`;
    /// `~` and `/` in a key escaped as `~0` and `~1`).
    pub path: String,
    /// Why: the extraction's error, or `invalid_argument` / `resource_limit` of the handle.
    pub error: LroError,
}

impl HandleError {
    /// The error's stable code (`invalid_argument`, `path_denied`, `not_found`, ...).
    pub fn code(&self) -> ErrorCode {
        self.error.code()
    }

    /// The `CallToolResult` a surface answers instead of calling the tool: `isError: true`,
    /// its text `error[code]: argument `path`: message`, as the extract tool's errors read.
    pub fn to_call_result(&self) -> Value {
        json!({
            "content": [{"type": "text", "text": format!("error[{}]: {self}", self.code())}],
            "isError": true
        })
    }
}

impl fmt::Display for HandleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = crate::extract_tool::clip::clip(self.error.message(), 600);
        write!(
            f,
            "argument `{}` holds a result handle that cannot be resolved: {message}",
            self.path
        )
    }
}

impl std::error::Error for HandleError {}

/// Whether a JSON text may hold a handle: it holds the bytes `"$lro"`. A surface that has the
/// arguments as text (the proxy) skips everything else unread; a text that has them only
/// in a string, or spells the key with an escape (`"\u0024lro"`), is read and holds none.
pub fn text_may_hold_handles(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"\"$lro\"").is_some()
}

/// Whether `arguments` hold a handle anywhere.
pub fn holds_handles(arguments: &Value) -> bool {
    let mut stack = vec![arguments];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) if is_handle(map) => return true,
            Value::Object(map) => stack.extend(map.values()),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

fn is_handle(map: &Map<String, Value>) -> bool {
    matches!(map.get(HANDLE_KEY), Some(Value::String(_)))
}

/// `arguments` with every handle replaced by the data it names; `Ok(None)` when they hold
/// no handle (the call goes on as it came). Data is never searched for handles in turn.
/// Every handle is read before any is put in, and one error fails the whole call.
pub fn resolve<H: Host>(
    lro: &Offloader<H>,
    arguments: &Value,
    cancel: &AtomicBool,
) -> std::result::Result<Option<Value>, HandleError> {
    let positions = handle_positions(arguments)?;
    if positions.is_empty() {
        return Ok(None);
    }
    let cap = lro.config().extract.handle_max_bytes;
    let mut left = cap;
    // One time limit for all the handles of a call, as one byte cap: thousands of handles
    // each just under the limit would otherwise hold a thread (and a stdio proxy's every
    // other message) for as long as a client likes.
    let timeout_ms = lro.config().extract.timeout_ms;
    let started = lro.host().now_millis();
    let mut data = Vec::with_capacity(positions.len());
    for pointer in &positions {
        let fail = |error: LroError| HandleError {
            path: pointer[1..].to_owned(),
            error,
        };
        let Some(Value::Object(handle)) = arguments.pointer(pointer) else {
            unreachable!("a position found in the same arguments")
        };
        let spent = lro.host().now_millis().saturating_sub(started);
        let Some(time_left) = timeout_ms.checked_sub(spent).filter(|&ms| ms > 0) else {
            return Err(fail(out_of_time(timeout_ms)));
        };
        let (value, bytes) =
            resolve_handle(lro, handle, left, cap, time_left, cancel).map_err(fail)?;
        left -= bytes;
        data.push(value);
    }
    let mut resolved = arguments.clone();
    for (pointer, value) in positions.iter().zip(data) {
        if let Some(slot) = resolved.pointer_mut(pointer) {
            *slot = value;
        }
    }
    Ok(Some(resolved))
}

/// [`resolve`] for a surface that answers the call: `Ok` the arguments to call the tool with
/// (unchanged when they hold no handle), `Err` the `CallToolResult` to answer instead.
pub fn resolve_call<H: Host>(
    lro: &Offloader<H>,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
) -> std::result::Result<Option<Value>, Value> {
    let Some(arguments) = arguments else {
        return Ok(None);
    };
    resolve(lro, arguments, cancel)
        .map(|resolved| resolved.or_else(|| Some(arguments.clone())))
        .map_err(|e| e.to_call_result())
}

/// The JSON pointers of the handles in `arguments`, in document order (outermost first; a
/// handle's own keys are not searched). The arguments object itself is no position.
fn handle_positions(arguments: &Value) -> std::result::Result<Vec<String>, HandleError> {
    if matches!(arguments, Value::Object(map) if is_handle(map)) {
        return Err(HandleError {
            path: String::new(),
            error: LroError::new(
                ErrorCode::InvalidArgument,
                "the arguments themselves are a handle: give it as the value of an argument",
            ),
        });
    }
    let mut found = Vec::new();
    // Depth-first with an explicit stack: arguments built in code may nest deeper than any
    // stack would allow a recursion to go.
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), arguments)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Value::Object(map) if !pointer.is_empty() && is_handle(map) => found.push(pointer),
            Value::Object(map) => {
                for (key, child) in map.iter().rev() {
                    stack.push((format!("{pointer}/{}", escape(key)), child));
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate().rev() {
                    stack.push((format!("{pointer}/{index}"), child));
                }
            }
            _ => {}
        }
    }
    Ok(found)
}

/// A key as a JSON pointer token (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// One handle's data and its size in bytes, within `left` of the call's `cap`.
fn resolve_handle<H: Host>(
    lro: &Offloader<H>,
    handle: &Map<String, Value>,
    left: u64,
    cap: u64,
    time_left: u64,
    cancel: &AtomicBool,
) -> Result<(Value, u64)> {
    if let Some(key) = handle.keys().find(|k| !HANDLE_KEYS.contains(&k.as_str())) {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            format!(
                "unknown key {:?} in a handle; a handle holds {}",
                crate::extract_tool::clip::clip(key, 40),
                HANDLE_KEYS.join(", ")
            ),
        ));
    }
    let form = Form::parse(handle.get("as"))?;
    let given = |key: &str| handle.get(key).is_some_and(|v| !v.is_null());
    if given("params") && !given("query") && !given("recipe") {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            "params belong to a query or a recipe",
        ));
    }
    let mut call: Map<String, Value> = handle
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), HANDLE_KEY | "as"))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    call.insert("file_path".to_owned(), handle[HANDLE_KEY].clone());
    if !VERB_KEYS.iter().any(|key| given(key)) {
        call.insert("lines".to_owned(), json!({"start": 0}));
    }
    let call = arguments::parse(Some(&Value::Object(call)))?;
    let response = extract_whole(lro, &call.file_path, &call.request, left, time_left, cancel)?;
    let summary = call.request.is_summary() && response.results.len() == 1;
    let (value, bytes) = shaped(response.results, form, summary);
    if bytes > left {
        return Err(over_cap(cap));
    }
    Ok((value, bytes))
}

/// Runs `request` over `file_path` with output limits raised to `max_bytes` (and no limit
/// on the number of records) within `timeout_ms`, so that a result is read whole or not at
/// all: a response some limit cut is an error naming the limit and how to ask for less. Used
/// by handles and by the extract tool's `save`.
pub(crate) fn extract_whole<H: Host>(
    lro: &Offloader<H>,
    file_path: &str,
    request: &ExtractRequest,
    max_bytes: u64,
    timeout_ms: u64,
    cancel: &AtomicBool,
) -> Result<ExtractResponse> {
    let configured = &lro.config().extract;
    let limits = ExtractLimits {
        max_output_records: u64::MAX,
        max_output_bytes: max_bytes,
        timeout_ms,
        ..configured.clone()
    };
    let response = lro.extract_within(file_path, request, &limits, cancel)?;
    let limit = response.limit.as_deref().unwrap_or("a limit");
    // A search's own `max_results` is the caller's choice of how many, not a cut.
    if !response.truncated || limit.starts_with("max_results") {
        return Ok(response);
    }
    if limit.starts_with("max_output_bytes") {
        return Err(over_cap(configured.handle_max_bytes));
    }
    if limit.starts_with("timeout_ms") {
        return Err(out_of_time(configured.timeout_ms));
    }
    let hint = response
        .hint
        .as_deref()
        .map(|h| format!(" ({h})"))
        .unwrap_or_default();
    Err(LroError::new(
        ErrorCode::ResourceLimit,
        format!(
            "the extraction was cut by {limit}{hint}; it is passed on whole or not at all: narrow it \
             (a where filter, fields, a lines range) until it reads within the limit"
        ),
    ))
}

fn out_of_time(timeout_ms: u64) -> LroError {
    LroError::new(
        ErrorCode::ResourceLimit,
        format!(
            "reading the data took longer than extract.timeout_ms ({timeout_ms} ms), the time \
             one call has for all it reads; narrow it (a where filter, fields, a lines range) \
             or pass fewer handles"
        ),
    )
}

fn over_cap(cap: u64) -> LroError {
    LroError::new(
        ErrorCode::ResourceLimit,
        format!(
            "the data is over extract.handle_max_bytes ({cap} bytes for one call); narrow it (a \
             where filter, fields, limit, a lines range) or raise the limit"
        ),
    )
}

/// The results in `form`, and their size in bytes (the JSON text of a value, the bytes of
/// a string).
fn shaped(results: Vec<Value>, form: Form, summary: bool) -> (Value, u64) {
    match form {
        Form::Json => {
            let value = if summary {
                results.into_iter().next().unwrap_or(Value::Null)
            } else {
                Value::Array(results)
            };
            let bytes = lro_core::json::size::json_size(&value);
            (value, bytes)
        }
        Form::Jsonl | Form::Text => {
            let mut text = String::new();
            for result in &results {
                match result {
                    Value::String(s) if form == Form::Text => text.push_str(s),
                    other => text.push_str(&other.to_string()),
                }
                text.push('\n');
            }
            let bytes = text.len() as u64;
            (Value::String(text), bytes)
        }
    }
}
