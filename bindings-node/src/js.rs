//! The bridge between JS values and the core's plain Rust types.
//!
//! Values cross as JSON text: V8's `JSON.stringify` walks a JS object graph far faster than
//! one N-API call per property, it turns a cycle or runaway nesting into a catchable
//! exception (a recursive walk would overflow the native stack and kill the process), and it
//! gives exactly what an MCP server would put on the wire (`toJSON`, dropped `undefined`s).
//! serde then parses the text with its recursion limit, off the main thread when async.

use lro_core::{ErrorCode, LroError, OffloadEvent};
use napi::bindgen_prelude::JsObjectValue;
use napi::bindgen_prelude::{Function, FunctionRef, Object, Unknown};
use napi::{Env, JsValue, ValueType};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The event callback, kept as a reference so an async task can call it when it resolves.
pub type EventCallback = FunctionRef<Value, Unknown<'static>>;

/// `JSON.stringify(value)`, or `None` when the value has no JSON form (`undefined`, a function).
pub fn stringify(
    env: &Env,
    value: Unknown<'_>,
    code: ErrorCode,
    what: &str,
) -> Result<Option<String>, LroError> {
    let Some(text) = json_string(env, value, code, what)? else {
        return Ok(None);
    };
    let bytes = crate::jsstr::utf8_bytes(env, &text).map_err(internal)?;
    // JSON.stringify escapes lone surrogates, so its text is always valid UTF-8.
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| LroError::new(code, format!("{what} did not serialize to UTF-8: {e}")))
}

/// The JS string `JSON.stringify(value)` returns, or `None` when it returns `undefined`.
fn json_string<'env>(
    env: &'env Env,
    value: Unknown<'env>,
    code: ErrorCode,
    what: &str,
) -> Result<Option<Unknown<'env>>, LroError> {
    let json: Object<'_> = env
        .get_global()
        .and_then(|g| g.get_named_property("JSON"))
        .map_err(internal)?;
    let stringify: Function<'_, Unknown<'_>, Unknown<'_>> =
        json.get_named_property("stringify").map_err(internal)?;
    // A cycle, a BigInt or a throwing `toJSON` comes back as a JS exception: report it, keep going.
    let text = stringify.call(value).map_err(|e| {
        LroError::new(
            code,
            format!("{what} cannot be serialized to JSON: {}", e.reason),
        )
    })?;
    Ok((text.get_type().map_err(internal)? == ValueType::String).then_some(text))
}

/// `value` as a JS value: `JSON.parse` of its text.
pub fn parse<'env>(env: &'env Env, value: &Value) -> napi::Result<Unknown<'env>> {
    let text = serde_json::to_string(value)
        .map_err(|e| napi::Error::from_reason(format!("unserializable result: {e}")))?;
    let json: Object<'_> = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<'_, Unknown<'_>, Unknown<'_>> = json.get_named_property("parse")?;
    parse.call(env.create_string(&text)?.to_unknown())
}

/// A JS value as `T`, through its JSON form; `undefined` reads as `null`.
pub fn from_js<T: DeserializeOwned>(
    env: &Env,
    value: Unknown<'_>,
    code: ErrorCode,
    what: &str,
) -> Result<T, LroError> {
    let text = stringify(env, value, code, what)?;
    serde_json::from_str(text.as_deref().unwrap_or("null"))
        .map_err(|e| LroError::new(code, format!("invalid {what}: {e}")))
}

/// `Some(value)` unless it is `undefined` or `null` (an omitted optional argument).
pub fn present(value: Option<Unknown<'_>>) -> Option<Unknown<'_>> {
    value.filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined | ValueType::Null)))
}

/// A JS `Error` named `LroError` whose `.code` is the core's stable code, ready to be
/// thrown or rejected (the wasm package's errors are the same).
pub fn to_js_error(env: &Env, err: &LroError) -> napi::Error {
    let build = || -> napi::Result<napi::Error> {
        let ctor: Function<'_, String, Unknown<'_>> =
            env.get_global()?.get_named_property("Error")?;
        let instance = ctor.new_instance(err.message().to_owned())?;
        let mut object = instance.coerce_to_object()?;
        object.set_named_property("name", "LroError")?;
        object.set_named_property("code", err.code().as_str())?;
        Ok(napi::Error::from(instance))
    };
    build().unwrap_or_else(|e| e)
}

/// Delivers collected events to the callback, in order, on the JS thread. An exception the
/// callback throws stops delivery and propagates to the caller.
pub fn deliver(
    env: &Env,
    callback: Option<&EventCallback>,
    events: Vec<OffloadEvent>,
) -> napi::Result<()> {
    let Some(callback) = callback else {
        return Ok(());
    };
    let function = callback.borrow_back(env)?;
    for event in events {
        let event = lro_js::to_value(&event).map_err(|e| to_js_error(env, &e))?;
        function.call(event)?;
    }
    Ok(())
}

/// The text of a JS string (the caller checked its type).
pub fn text(env: &Env, string: &Unknown<'_>) -> Result<String, LroError> {
    let bytes = crate::jsstr::utf8_bytes(env, string).map_err(unreadable)?;
    // N-API writes lone surrogates as U+FFFD, so its UTF-8 is always valid.
    String::from_utf8(bytes).map_err(|e| LroError::new(ErrorCode::InvalidInput, e.to_string()))
}

/// Whether `value` is a Buffer or another Uint8Array (JSON bytes).
pub fn is_bytes(value: &Unknown<'_>) -> bool {
    value.get_type().ok() == Some(ValueType::Object) && value.is_buffer().unwrap_or(false)
}

/// What a value is, for a message: its JSON text when short, else its type.
pub fn describe(env: &Env, value: Unknown<'_>) -> String {
    let kind = value.get_type().map_or("a value", |t| match t {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "a boolean",
        ValueType::Number => "a number",
        ValueType::String => "a string",
        ValueType::Symbol => "a symbol",
        ValueType::Function => "a function",
        ValueType::BigInt => "a bigint",
        _ => "an object",
    });
    match stringify(env, value, ErrorCode::InvalidArgument, "value") {
        Ok(Some(text)) if text.len() <= 40 => text,
        _ => kind.to_owned(),
    }
}

/// A JS value that N-API could not read, as the call's `invalid_input`.
pub fn unreadable(err: napi::Error) -> LroError {
    LroError::new(ErrorCode::InvalidInput, err.reason.clone())
}

/// A failure of the N-API plumbing itself, which user input should never cause.
fn internal(err: napi::Error) -> LroError {
    LroError::new(
        ErrorCode::InvalidInput,
        format!("cannot read the JS value: {}", err.reason),
    )
}
