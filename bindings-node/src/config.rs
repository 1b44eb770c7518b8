//! The configuration of a call, as the shared JS API tells it (`lro_js::resolve`), with this
//! process's environment: an object holding configuration is used as given; without one,
//! the defaults with the `ATLATL_PROMPT__OFFLOAD__*` variables on top, read at each call, as
//! `lro offload` reads them.

use lro_core::{LroError, OffloadConfig};
use serde_json::Value;

use crate::arg::Given;
use crate::js::EventCallback;

/// A resolved `config` argument: the core's configuration and the event callback.
pub struct Resolved {
    pub config: OffloadConfig,
    pub on_event: Option<EventCallback>,
}

/// This process's `ATLATL_PROMPT__OFFLOAD__*` variables over `config`. Reading them costs a
/// microsecond or two, so every call reads them afresh and a variable set through
/// `process.env` after `require` counts. (A worker thread's `process.env` is its own copy,
/// which Node does not show to native addons; the process environment is read.)
pub fn process_environment(config: &mut OffloadConfig) -> Result<(), LroError> {
    config.apply_env_os(std::env::vars_os())
}

/// The configuration of a call given `given`.
pub fn resolve(given: Given) -> Result<Resolved, LroError> {
    Ok(Resolved {
        config: lro_js::resolve(given.values, process_environment)?,
        on_event: given.on_event,
    })
}

/// `variables` (a JS object of them) over `config`, or this process's environment when
/// none are given.
pub fn layer_variables(
    config: &mut OffloadConfig,
    variables: Option<Vec<(String, String)>>,
) -> Result<(), LroError> {
    match variables {
        Some(vars) => config.apply_env(vars),
        None => process_environment(config),
    }
}

/// The JS view of a configuration (what `configFromToml` and friends return).
pub fn view(config: &OffloadConfig) -> Result<Value, LroError> {
    lro_js::to_value(&lro_js::Config::from(config))
}
