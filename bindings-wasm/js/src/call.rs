//! One call of the API: its arguments read as the shared JS API (`lro-js`) describes them,
//! its configuration resolved, the core run over the call's host, the events delivered and
//! the result returned, as the Node addon does each step.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Object, Reflect};
use lro_core::{ErrorCode, LroError, OffloadConfig, OffloadEvent, Offloader};
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::host::{self, BindingHost, JsHost, JsHostObject};
use crate::values::{js_error, message_of, stringify, to_js, variables};

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
        let config =
            lro_js::resolve(values, host::platform_environment).map_err(|e| js_error(&e))?;
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
        let mut work = Some(work);
        self.run_once(&mut |lro| work.take().map_or(Ok(Value::Null), |work| work(lro)))
    }

    /// [`Call::run`]'s body, compiled once: behind `dyn`, the offloader's setup, the events
    /// and the conversions are not copied into every exported function (about 1 KB each in
    /// the module).
    fn run_once(
        self,
        work: &mut dyn FnMut(&Offloader<BindingHost>) -> Result<Value, LroError>,
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
                callback.call1(&JsValue::NULL, &to_js(&event)?)?;
            }
        }
        to_js(&result.map_err(|e| js_error(&e))?)
    }
}
