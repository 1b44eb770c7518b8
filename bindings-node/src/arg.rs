//! The arguments of the entry points, read from JS as the shared JS API (`lro-js`) describes
//! them.
//!
//! Each type is named after its TypeScript type, so napi writes `options?: OffloadOptions`
//! into `index.d.ts` from the Rust signatures (and [`String`] is napi's `string`). Reading
//! one never throws: a value of the wrong shape is kept as the error the call reports, with
//! the core's code, thrown by a sync function and a rejected Promise from its async twin,
//! like any failure found later.
//!
//! Option objects cross as `JSON.stringify` gives them (see `js.rs` for why): what an MCP
//! server would put on the wire, with a cycle or a throwing `toJSON` a catchable error.
#![allow(
    unsafe_code,
    reason = "napi's FromNapiValue is an unsafe fn; these read the live handles napi passes with safe calls"
)]

use lro_core::{ErrorCode, LroError};
use lro_js::Argument;
use napi::bindgen_prelude::{Buffer, FromNapiValue, FunctionRef, JsObjectValue, TypeName, Unknown};
use napi::{Env, JsValue, ValueType, sys};
use serde_json::Value;

use crate::js::{self, EventCallback};
use crate::task::Records;

/// Argument types: `Name(Read): Kind = reader` declares `Name`, whose value is what `reader`
/// made of the JS value (a `Read`, or the call's error), and whose JS type is `Name` of kind
/// `Kind`.
macro_rules! arguments {
    ($($(#[$doc:meta])* $name:ident($read:ty): $kind:ident = $reader:expr;)*) => {$(
        $(#[$doc])*
        pub struct $name(pub Result<$read, LroError>);

        impl TypeName for $name {
            fn type_name() -> &'static str {
                stringify!($name)
            }

            fn value_type() -> ValueType {
                ValueType::$kind
            }
        }

        impl FromNapiValue for $name {
            unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
                // SAFETY: `env` and `value` are the live handles napi passes for this call.
                let value = unsafe { Unknown::from_napi_value(env, value) }?;
                Ok(Self($reader(&Env::from_raw(env), value)))
            }
        }
    )*};
}

arguments! {
    /// `offload`'s options (`lro_js::OffloadOptions`).
    OffloadOptions(lro_js::OffloadOptions): Object = read_json;
    /// `interceptToolResult`'s context (`lro_js::ToolContext`).
    ToolContext(lro_js::ToolContext): Object = read_json;
    /// `extract`'s request (`lro_js::ExtractOptions`).
    ExtractOptions(lro_js::ExtractOptions): Object = read_json;
    /// The `config` argument: its values and the event callback it holds.
    Config(Given): Object = read_config;
    /// A string argument (`filePath`, `uri`, ...): named `String` so that napi writes
    /// `string` for it; anything else is the call's `invalid_argument`.
    String(std::string::String): String = read_string;
    /// Serialized JSON (`offloadJson`): a string, or its UTF-8 bytes in a Buffer/Uint8Array.
    JsonText(Records): Unknown = read_json_text;
    /// An MCP `CallToolResult` to intercept, as its JSON.
    CallToolResult(Value): Object = read_call_tool_result;
    /// The arguments of an extract tool call, as the client sent them (read by the core).
    ToolArguments(Value): Object = read_tool_arguments;
    /// The arguments of any tool call, as the client sent them (`resolveToolCall`).
    CallArguments(Value): Object = read_tool_arguments;
    /// Environment variables (`configFromEnv`, `withEnv`): an object of names to values, as
    /// `process.env`.
    Environment(Vec<(std::string::String, std::string::String)>): Object = read_environment;
}

/// An option object of an optional argument: omitted or `null`, the defaults.
fn options<T: Argument>(given: Option<Result<T, LroError>>) -> Result<T, LroError> {
    given.unwrap_or_else(|| Ok(T::default()))
}

impl OffloadOptions {
    /// The options of an optional argument.
    pub fn read(given: Option<Self>) -> Result<lro_js::OffloadOptions, LroError> {
        options(given.map(|Self(read)| read))
    }
}

impl ToolContext {
    /// The context of an optional argument.
    pub fn read(given: Option<Self>) -> Result<lro_js::ToolContext, LroError> {
        options(given.map(|Self(read)| read))
    }
}

/// A `config` object as given: the values (`lro_js::Config`) and `onEvent`.
pub struct Given {
    /// The configuration values.
    pub values: lro_js::Config,
    /// `onEvent`, kept alive until an async call settles.
    pub on_event: Option<EventCallback>,
}

impl Config {
    /// The configuration of an optional argument: omitted or `null`, no values.
    pub fn given(config: Option<Self>) -> Result<Given, LroError> {
        config.map_or_else(
            || {
                Ok(Given {
                    values: lro_js::Config::default(),
                    on_event: None,
                })
            },
            |Self(given)| given,
        )
    }
}

impl String {
    /// The string, or the call's error.
    pub fn read(self) -> Result<std::string::String, LroError> {
        self.0
    }
}

/// `T` read from a JS value through its JSON form (`undefined` and functions: the defaults).
fn read_json<T: Argument>(env: &Env, value: Unknown<'_>) -> Result<T, LroError> {
    let text = js::stringify(env, value, T::code_at(""), T::NAME)?;
    lro_js::from_json(text.as_deref())
}

fn read_config(env: &Env, value: Unknown<'_>) -> Result<Given, LroError> {
    let invalid = |message: &str| LroError::new(ErrorCode::InvalidConfig, message);
    if value.get_type().ok() != Some(ValueType::Object) {
        // Not an object: the shared reader names what it got.
        read_json::<lro_js::Config>(env, value)?;
        return Err(invalid("config must be an object"));
    }
    let object = value.coerce_to_object().map_err(|e| invalid(&e.reason))?;
    let property = |name: &str| -> Result<Option<Unknown<'_>>, LroError> {
        let found: Unknown<'_> = object
            .get_named_property(name)
            .map_err(|e| invalid(&format!("config.{name}: {}", e.reason)))?;
        Ok(js::present(Some(found)))
    };
    if property("host")?.is_some() {
        return Err(invalid(
            "config.host: the native addon reads and writes the system's files itself; a host is for the WebAssembly build (lro-wasm)",
        ));
    }
    let on_event = match property("onEvent")? {
        None => None,
        Some(callback) if callback.get_type().ok() == Some(ValueType::Function) => Some(
            // A reference keeps the function alive until an async task has settled.
            FunctionRef::from_unknown(callback)
                .map_err(|e| invalid(&format!("config.onEvent: {}", e.reason)))?,
        ),
        Some(_) => return Err(invalid("config.onEvent must be a function")),
    };
    Ok(Given {
        values: read_json(env, value)?,
        on_event,
    })
}

fn read_string(env: &Env, value: Unknown<'_>) -> Result<std::string::String, LroError> {
    if value.get_type().ok() == Some(ValueType::String) {
        return js::text(env, &value);
    }
    Err(LroError::new(
        ErrorCode::InvalidArgument,
        format!("expected a string, got {}", js::describe(env, value)),
    ))
}

fn read_json_text(env: &Env, value: Unknown<'_>) -> Result<Records, LroError> {
    match value.get_type() {
        Ok(ValueType::String) => js::text(env, &value).map(|s| Records::Json(s.into_bytes())),
        Ok(ValueType::Object) if js::is_bytes(&value) => Buffer::from_unknown(value)
            .map(|b| Records::Json(b.to_vec()))
            .map_err(js::unreadable),
        _ => Err(LroError::new(
            ErrorCode::InvalidInput,
            "json must be a string or a Buffer of JSON text",
        )),
    }
}

fn read_call_tool_result(env: &Env, value: Unknown<'_>) -> Result<Value, LroError> {
    js::from_js(env, value, ErrorCode::InvalidInput, "result")
}

fn read_tool_arguments(env: &Env, value: Unknown<'_>) -> Result<Value, LroError> {
    js::from_js(env, value, ErrorCode::InvalidArgument, "arguments")
}

fn read_environment(
    env: &Env,
    value: Unknown<'_>,
) -> Result<Vec<(std::string::String, std::string::String)>, LroError> {
    js::from_js(env, value, ErrorCode::InvalidConfig, "environment").map(lro_js::variables)
}
