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

/// The value napi passes, as an `Unknown` of this call.
///
/// # Safety
/// `env` and `value` must be the live handles napi passes to `from_napi_value`.
unsafe fn unknown<'env>(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Unknown<'env>> {
    // SAFETY: the caller passes napi's own handles, valid for the call.
    unsafe { Unknown::from_napi_value(env, value) }
}

/// `T` read from a JS value through its JSON form (`undefined` and functions: the defaults).
fn read_json<T: Argument>(env: &Env, value: Unknown<'_>) -> Result<T, LroError> {
    let text = js::stringify(env, value, T::code_at(""), T::NAME)?;
    lro_js::from_json(text.as_deref())
}

/// The option objects, each read into its `lro-js` mirror.
macro_rules! option_arguments {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        pub struct $name(pub Result<lro_js::$name, LroError>);

        impl TypeName for $name {
            fn type_name() -> &'static str {
                stringify!($name)
            }

            fn value_type() -> ValueType {
                ValueType::Object
            }
        }

        impl FromNapiValue for $name {
            unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
                // SAFETY: napi's handles, passed on.
                let value = unsafe { unknown(env, value) }?;
                Ok(Self(read_json(&Env::from_raw(env), value)))
            }
        }

        impl $name {
            /// The options of an optional argument: omitted or `null`, the defaults.
            pub fn read(given: Option<Self>) -> Result<lro_js::$name, LroError> {
                given.map_or_else(|| Ok(Default::default()), |Self(read)| read)
            }
        }
    )*};
}

option_arguments! {
    /// `offload`'s options (`lro_js::OffloadOptions`).
    OffloadOptions;
    /// `interceptToolResult`'s context (`lro_js::ToolContext`).
    ToolContext;
    /// `extract`'s request (`lro_js::ExtractOptions`).
    ExtractOptions;
}

/// The `config` argument: its values, and the event callback it holds.
pub struct Config(pub Result<Given, LroError>);

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

impl TypeName for Config {
    fn type_name() -> &'static str {
        "Config"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl FromNapiValue for Config {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi's handles, passed on.
        let value = unsafe { unknown(env, value) }?;
        Ok(Self(read_config(&Env::from_raw(env), value)))
    }
}

fn read_config(env: &Env, value: Unknown<'_>) -> Result<Given, LroError> {
    let invalid = |message: &str| LroError::new(ErrorCode::InvalidConfig, message);
    if value.get_type().ok() != Some(ValueType::Object) {
        // Not an object: the shared reader names what it got.
        return lro_js::from_json::<lro_js::Config>(
            js::stringify(env, value, ErrorCode::InvalidConfig, "config")?.as_deref(),
        )
        .and(Err(invalid("config must be an object")));
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

/// A string argument (`filePath`, `uri`, ...). Named `String` so that napi writes `string`
/// for it; anything else is the call's `invalid_argument`.
pub struct String(pub Result<std::string::String, LroError>);

impl String {
    /// The string, or the call's error.
    pub fn read(self) -> Result<std::string::String, LroError> {
        self.0
    }
}

impl TypeName for String {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl FromNapiValue for String {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi's handles, passed on.
        let value = unsafe { unknown(env, value) }?;
        let env = Env::from_raw(env);
        Ok(Self(if value.get_type().ok() == Some(ValueType::String) {
            js::text(&env, &value)
        } else {
            Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!("expected a string, got {}", js::describe(&env, value)),
            ))
        }))
    }
}

/// Serialized JSON (`offloadJson`): a string, or its UTF-8 bytes in a Buffer/Uint8Array.
pub struct JsonText(pub Result<Records, LroError>);

impl TypeName for JsonText {
    fn type_name() -> &'static str {
        "JsonText"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for JsonText {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi's handles, passed on.
        let value = unsafe { unknown(env, value) }?;
        let env = Env::from_raw(env);
        Ok(Self(match value.get_type() {
            Ok(ValueType::String) => js::text(&env, &value).map(|s| Records::Json(s.into_bytes())),
            Ok(ValueType::Object) if js::is_bytes(&value) => Buffer::from_unknown(value)
                .map(|b| Records::Json(b.to_vec()))
                .map_err(js::unreadable),
            _ => Err(LroError::new(
                ErrorCode::InvalidInput,
                "json must be a string or a Buffer of JSON text",
            )),
        }))
    }
}

/// An MCP `CallToolResult` to intercept, as its JSON.
pub struct CallToolResult(pub Result<Value, LroError>);

impl TypeName for CallToolResult {
    fn type_name() -> &'static str {
        "CallToolResult"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl FromNapiValue for CallToolResult {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi's handles, passed on.
        let value = unsafe { unknown(env, value) }?;
        Ok(Self(js::from_js(
            &Env::from_raw(env),
            value,
            ErrorCode::InvalidInput,
            "result",
        )))
    }
}

/// Environment variables (`configFromEnv`, `withEnv`): an object of names to values, as
/// `process.env`.
pub struct Environment(pub Result<Vec<(std::string::String, std::string::String)>, LroError>);

impl TypeName for Environment {
    fn type_name() -> &'static str {
        "Environment"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl FromNapiValue for Environment {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> napi::Result<Self> {
        // SAFETY: napi's handles, passed on.
        let value = unsafe { unknown(env, value) }?;
        let vars = js::from_js::<serde_json::Map<_, _>>(
            &Env::from_raw(env),
            value,
            ErrorCode::InvalidConfig,
            "environment",
        );
        // A value that is not text reads as its JSON text; `undefined` (dropped) and `null`
        // are unset.
        Ok(Self(vars.map(|vars| {
            vars.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(name, v)| match v {
                    Value::String(text) => (name, text),
                    other => (name, other.to_string()),
                })
                .collect()
        })))
    }
}
