//! One call of the API: its arguments read as the shared JS API (`lro-js`) describes them,
//! its configuration resolved, the core run over the call's host, the events delivered and
//! the result returned, as the Node addon does each step.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, JSON, Object, Reflect, Uint8Array};
use lro_core::{ErrorCode, LroError, OffloadConfig, OffloadEvent, Offloader};
use lro_js::Argument;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::host::{self, BindingHost, JsHost, JsHostObject};

/// An `LroError` as a JS `Error` named `LroError`, with the core's `code`.
pub fn js_error(err: &LroError) -> JsValue {
    let error = js_sys::Error::new(err.message());
    error.set_name("LroError");
    // Setting a property on a fresh Error cannot fail.
    let _ = Reflect::set(&error, &"code".into(), &err.code().as_str().into());
    error.into()
}

/// The message of a thrown JS value.
fn message_of(thrown: &JsValue) -> String {
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
        LroError::new(code, format!("{what} cannot be serialized to JSON: {}", message_of(&e)))
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
    Ok(match stringify(value, ErrorCode::InvalidInput, "records")? {
        Some(text) => Records::Json(text.into_bytes()),
        // No JSON form (a function, a symbol): JSON's `null`, as `JSON.stringify` nests it.
        None => Records::Value(Value::Null),
    })
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

/// A `config` argument as given: its values, `onEvent` and `host`.
pub struct Given {
    /// The configuration values.
    pub values: lro_js::Config,
    /// `onEvent`.
    pub on_event: Option<Function>,
    /// `host`, an object implementing `LroHost`.
    pub host: Option<JsValue>,
}

impl Given {
    /// Reads an optional `config` argument (omitted or `null`: no values).
    pub fn read(config: &JsValue) -> Result<Self, JsValue> {
        Self::parse(config).map_err(|e| js_error(&e))
    }

    fn parse(config: &JsValue) -> Result<Self, LroError> {
        let invalid = |message: String| LroError::new(ErrorCode::InvalidConfig, message);
        if config.is_undefined() || config.is_null() {
            return Ok(Self {
                values: lro_js::Config::default(),
                on_event: None,
                host: None,
            });
        }
        if !config.is_object() || config.is_function() {
            lro_js::from_json::<lro_js::Config>(
                stringify(config, ErrorCode::InvalidConfig, "config")?.as_deref(),
            )?;
            return Err(invalid("config must be an object".to_owned()));
        }
        let property = |name: &str| -> Result<Option<JsValue>, LroError> {
            let value = Reflect::get(config, &name.into())
                .map_err(|e| invalid(format!("config.{name}: {}", message_of(&e))))?;
            Ok((!value.is_undefined() && !value.is_null()).then_some(value))
        };
        let on_event = match property("onEvent")? {
            None => None,
            Some(callback) => Some(
                callback
                    .dyn_into::<Function>()
                    .map_err(|_| invalid("config.onEvent must be a function".to_owned()))?,
            ),
        };
        let host = property("host")?;
        if host.as_ref().is_some_and(|h| !h.is_object()) {
            return Err(invalid(
                "config.host must be an object implementing LroHost".to_owned(),
            ));
        }
        // The values without the callback and the host: a host may hold anything (files in
        // memory, cycles), which is no configuration.
        let values = Object::assign(&Object::new(), config.unchecked_ref());
        for name in ["onEvent", "host"] {
            let _ = Reflect::delete_property(&values, &name.into());
        }
        let text = stringify(&values, ErrorCode::InvalidConfig, "config")?;
        Ok(Self {
            values: lro_js::from_json(text.as_deref())?,
            on_event,
            host,
        })
    }

    /// `withEnv` and `configFromEnv`: the values over the defaults, then the variables of
    /// `vars` (an object of them), or the platform's environment when `vars` is omitted.
    pub fn layered(self, vars: &JsValue) -> Result<OffloadConfig, LroError> {
        let vars = if vars.is_undefined() || vars.is_null() {
            None
        } else {
            Some(variables(vars)?)
        };
        lro_js::layer(self.values, |config| match vars {
            Some(vars) => config.apply_env(vars),
            None => host::platform_environment(config),
        })
    }
}

/// The variables of a JS object (`process.env`, say), as `lro_js::variables` reads them.
pub fn variables(vars: &JsValue) -> Result<Vec<(String, String)>, LroError> {
    let text = stringify(vars, ErrorCode::InvalidConfig, "environment")?;
    serde_json::from_str(text.as_deref().unwrap_or("{}"))
        .map(lro_js::variables)
        .map_err(|e| LroError::new(ErrorCode::InvalidConfig, format!("invalid environment: {e}")))
}

/// A call ready to run: the configuration, the host and the event callback.
pub struct Call {
    config: OffloadConfig,
    host: BindingHost,
    on_event: Option<Function>,
}

impl Call {
    /// The call of a `config` argument: as given when it holds configuration values, else
    /// the defaults with the platform's environment on top.
    pub fn new(config: &JsValue) -> Result<Self, JsValue> {
        let Given {
            values,
            on_event,
            host,
        } = Given::read(config)?;
        let config = lro_js::resolve(values, host::platform_environment).map_err(|e| js_error(&e))?;
        let host = match host {
            Some(object) => BindingHost::Js(JsHost(object.unchecked_into::<JsHostObject>())),
            None => host::platform_host(),
        };
        Ok(Self {
            config,
            host,
            on_event,
        })
    }

    /// Runs `work` with an offloader over the call's host; the events it emitted reach
    /// `onEvent` before the result is returned or the error thrown. An exception `onEvent`
    /// throws stops the delivery and is what the call throws.
    pub fn run(
        self,
        work: impl FnOnce(&Offloader<BindingHost>) -> Result<Value, LroError>,
    ) -> Result<JsValue, JsValue> {
        let events: Rc<RefCell<Vec<OffloadEvent>>> = Rc::default();
        let result = Offloader::new(self.config, self.host).and_then(|lro| {
            let lro = match &self.on_event {
                Some(_) => {
                    let sink = Rc::clone(&events);
                    lro.with_event_sink(move |event: &OffloadEvent| {
                        sink.borrow_mut().push(event.clone());
                    })
                }
                None => lro,
            };
            work(&lro)
        });
        if let Some(callback) = &self.on_event {
            for event in events.take() {
                let event = lro_js::to_value(&event).map_err(|e| js_error(&e))?;
                callback.call1(&JsValue::NULL, &crate::to_js(&event)?)?;
            }
        }
        crate::to_js(&result.map_err(|e| js_error(&e))?)
    }
}
