//! JS values read into Rust and Rust values written back: errors as JS `Error`s named
//! `LroError`, string and option arguments, records and JSON text, environment variables, and
//! results as plain JS values. Each reading fails with the core's error code, as the Node
//! addon's does.

use js_sys::{JSON, Reflect, Uint8Array};
use lro_core::{ErrorCode, LroError};
use lro_js::Argument;
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// An `LroError` as a JS `Error` named `LroError`, with the core's `code`.
pub fn js_error(err: &LroError) -> JsValue {
    let error = js_sys::Error::new(err.message());
    error.set_name("LroError");
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&error, &"code".into(), &err.code().as_str().into());
    error.into()
}

/// The message of a thrown JS value.
pub fn message_of(thrown: &JsValue) -> String {
    Reflect::get(thrown, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "an exception".to_owned())
}

/// `JSON.stringify(value)`, or `None` when it has no JSON form (`undefined`, a function). A
/// cycle, a BigInt or a throwing `toJSON` is an error with `code`.
pub fn stringify(value: &JsValue, code: ErrorCode, what: &str) -> Result<Option<String>, LroError> {
    let text = JSON::stringify(value).map_err(|e| {
        LroError::new(
            code,
            format!("{what} cannot be serialized to JSON: {}", message_of(&e)),
        )
    })?;
    Ok(text.as_string())
}

/// An option object (`options`, `context`, `request`), read as `lro-js` describes it.
pub fn read_option<T: Argument>(value: &JsValue) -> Result<T, LroError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    lro_js::from_json(stringify(value, T::code_at(""), T::NAME)?.as_deref())
}

/// What a value is, for a message: its JSON text when short, else its type.
fn describe(value: &JsValue) -> String {
    match JSON::stringify(value).ok().and_then(|t| t.as_string()) {
        Some(text) if text.len() <= 40 => text,
        _ => value.js_typeof().as_string().unwrap_or_default(),
    }
}

/// A string argument; anything else is `invalid_argument`.
pub fn string(value: &JsValue) -> Result<String, LroError> {
    value.as_string().ok_or_else(|| {
        LroError::new(
            ErrorCode::InvalidArgument,
            format!("expected a string, got {}", describe(value)),
        )
    })
}

/// Tool output as the core takes it.
pub enum Records {
    /// A value (text output, or JSON's `null`).
    Value(Value),
    /// Serialized JSON, for the core's text path.
    Json(Vec<u8>),
}

/// Tool output from JS: a Uint8Array is JSON bytes; a string is text output (one record per
/// line); anything else a JSON value, as its text.
pub fn records(value: &JsValue) -> Result<Records, LroError> {
    if let Some(text) = value.as_string() {
        return Ok(Records::Value(Value::String(text)));
    }
    if let Some(bytes) = value.dyn_ref::<Uint8Array>() {
        return Ok(Records::Json(bytes.to_vec()));
    }
    if value.is_undefined() {
        return Err(LroError::new(
            ErrorCode::InvalidInput,
            "records are missing (undefined)",
        ));
    }
    Ok(
        match stringify(value, ErrorCode::InvalidInput, "records")? {
            Some(text) => Records::Json(text.into_bytes()),
            // No JSON form (a function, a symbol): JSON's `null`, as `JSON.stringify` nests it.
            None => Records::Value(Value::Null),
        },
    )
}

/// Serialized JSON (`offloadJson`): a string, or its UTF-8 bytes.
pub fn json_text(value: &JsValue) -> Result<Vec<u8>, LroError> {
    if let Some(text) = value.as_string() {
        return Ok(text.into_bytes());
    }
    value
        .dyn_ref::<Uint8Array>()
        .map(Uint8Array::to_vec)
        .ok_or_else(|| {
            LroError::new(
                ErrorCode::InvalidInput,
                "json must be a string or a Uint8Array of JSON text",
            )
        })
}

/// The variables of a JS object (`process.env`, say), as `lro_js::variables` reads them.
pub fn variables(vars: &JsValue) -> Result<Vec<(String, String)>, LroError> {
    let text = stringify(vars, ErrorCode::InvalidConfig, "environment")?;
    serde_json::from_slice(text.as_deref().unwrap_or("{}").as_bytes())
        .map(lro_js::variables)
        .map_err(|e| {
            LroError::new(
                ErrorCode::InvalidConfig,
                format!("invalid environment: {e}"),
            )
        })
}

/// A result computed in Rust, as a plain JS value (through `JSON.parse`).
pub fn to_js(value: &Value) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| {
        js_error(&LroError::new(
            ErrorCode::InvalidInput,
            format!("the result cannot be written as JSON: {e}"),
        ))
    })?;
    JSON::parse(&text)
}
