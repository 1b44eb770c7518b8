//! LRO as a WASI Preview 2 component: the `lro:offload/offloader` interface of
//! `wit/world.wit`, a thin shim over `lro-core`.
//!
//! Built for wasm32-wasip1 and wrapped by `jco new --wasi-reactor`, so the only imports are
//! the standard WASI interfaces the adapter maps std onto. The core's own `StdHost` does the
//! I/O (std::fs, SystemTime and getrandom all work over WASI); [`WasiHost`] only fills in the
//! two things WASI std does not provide.

mod wasi_host;

use std::cell::RefCell;
use std::rc::Rc;

use lro_core::offload::from_json_value;
use lro_core::{ErrorCode, ExtractRequest, LroError, OffloadConfig, OffloadRequest, Offloader};
use lro_mcp::intercept::ToolCallContext;
use serde_json::Value;

use bindings::exports::lro::offload::offloader::{Guest, LroError as WitError};
use wasi_host::WasiHost;

mod bindings {
    //! Generated from `wit/world.wit`, and the export of [`Component`](super::Component).
    // The generated glue is the canonical ABI: raw pointers by nature. The export is made here
    // rather than at the crate root so that this allowance covers its glue too.
    #![allow(unsafe_code, missing_docs)]
    wit_bindgen::generate!({ world: "lro", path: "wit" });
    use super::Component;
    export!(Component with_types_in self);
}

/// The core's error as the WIT variant whose case is its code, so `?` converts it.
impl From<LroError> for WitError {
    fn from(err: LroError) -> Self {
        let message = err.message().to_owned();
        match err.code() {
            ErrorCode::InvalidConfig => Self::InvalidConfig(message),
            ErrorCode::InvalidInput => Self::InvalidInput(message),
            ErrorCode::InvalidDetail => Self::InvalidDetail(message),
            ErrorCode::InvalidOperation => Self::InvalidOperation(message),
            ErrorCode::InvalidArgument => Self::InvalidArgument(message),
            ErrorCode::InvalidQuery => Self::InvalidQuery(message),
            ErrorCode::QueryFailed => Self::QueryFailed(message),
            ErrorCode::ResourceLimit => Self::ResourceLimit(message),
            ErrorCode::PathDenied => Self::PathDenied(message),
            ErrorCode::NotFound => Self::NotFound(message),
            // `ErrorCode` is non-exhaustive: a future code is still an I/O-level failure to
            // the host until the WIT variant learns it.
            _ => Self::IoError(format!("[{}] {message}", err.code())),
        }
    }
}

type Result<T> = std::result::Result<T, WitError>;

/// JSON text as a value; `what` names the argument in the error.
fn parse(text: &str, code: ErrorCode, what: &str) -> Result<Value> {
    serde_json::from_slice(text.as_bytes())
        .map_err(|e| LroError::new(code, format!("{what} is not valid JSON: {e}")).into())
}

fn to_json(value: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string(value).map_err(|e| {
        LroError::new(
            ErrorCode::InvalidInput,
            format!("cannot serialize the result: {e}"),
        )
        .into()
    })
}

thread_local! {
    /// The engine of the last configuration text, and that text (see [`offloader`]).
    static LAST: RefCell<Option<(String, Rc<Offloader<WasiHost>>)>> = const { RefCell::new(None) };
}

/// The engine for a config argument (empty = defaults).
///
/// A host passes its configuration with every call, most often the same text, so the
/// engine of the last one is kept for the next call with the same text: its output
/// directory then stays made and resolved, as in a native engine that lives across calls
/// (the CLI's proxy, a Python `Offloader`). That spares each offload the configuration's
/// parse and four WASI calls (make the directory, stat it, resolve its path), each a round
/// trip to a thread pool under wasmtime.
fn offloader(config: &str) -> Result<Rc<Offloader<WasiHost>>> {
    let kept = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(text, _)| text == config)
            .map(|(_, lro)| Rc::clone(lro))
    });
    if let Some(lro) = kept {
        return Ok(lro);
    }
    let parsed = if config.trim().is_empty() {
        OffloadConfig::default()
    } else {
        OffloadConfig::from_json(&parse(config, ErrorCode::InvalidConfig, "config")?)?
    };
    let lro = Rc::new(Offloader::new(parsed, WasiHost)?);
    LAST.set(Some((config.to_owned(), Rc::clone(&lro))));
    Ok(lro)
}

fn request(text: &str) -> Result<OffloadRequest> {
    let value = if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        parse(text, ErrorCode::InvalidArgument, "request")?
    };
    Ok(OffloadRequest::from_json(&value)?)
}

struct Component;

impl Guest for Component {
    fn offload(config: String, records: String, request_json: String) -> Result<String> {
        let lro = offloader(&config)?;
        let outcome = lro.offload_json(records.as_bytes(), &request(&request_json)?)?;
        to_json(&outcome)
    }

    fn offload_inject(
        config: String,
        formatted: String,
        pre_budget: String,
        request_json: String,
    ) -> Result<String> {
        let lro = offloader(&config)?;
        let pre_budget = parse(&pre_budget, ErrorCode::InvalidInput, "pre-budget")?;
        let outcome = lro.offload_inject(&formatted, &pre_budget, &request(&request_json)?)?;
        to_json(&outcome)
    }

    fn intercept_tool_result(
        config: String,
        tool_result: String,
        context: String,
    ) -> Result<String> {
        let lro = offloader(&config)?;
        let result = parse(&tool_result, ErrorCode::InvalidInput, "tool-result")?;
        let context = if context.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            parse(&context, ErrorCode::InvalidArgument, "context")?
        };
        let context = ToolCallContext::from_json(&context)?;
        to_json(&lro_mcp::intercept_tool_result(&*lro, &result, &context)?)
    }

    fn extract(config: String, file_path: String, request_json: String) -> Result<String> {
        let lro = offloader(&config)?;
        let request = parse(&request_json, ErrorCode::InvalidArgument, "extract request")?;
        let request: ExtractRequest = from_json_value(&request, "extract request")?;
        to_json(&lro.extract(&file_path, &request)?)
    }

    fn cleanup(config: String) -> Result<String> {
        to_json(&offloader(&config)?.cleanup()?)
    }

    fn config_from_toml(text: String) -> Result<String> {
        to_json(&OffloadConfig::from_toml_str(&text)?)
    }

    fn config_from_env(vars: Vec<(String, String)>) -> Result<String> {
        let mut config = OffloadConfig::default();
        config.apply_env(vars)?;
        to_json(&config)
    }
}
