//! `save: true`: the extraction's output written as a new offload file, whatever its size
//! (the call asked for it), and answered with that file's descriptor in the configured
//! profile, whose `resource_uri` the agent passes on as a result handle
//! ([`crate::handles`]). So a large result filtered down to the rows a next tool needs
//! reaches that tool without the rows entering the context.
//!
//! The output is read whole (the limits of [`crate::handles`]: every record, up to
//! `extract.handle_max_bytes`) or the call fails: a saved file is data a tool will take as
//! complete. The file's operation is `extract.OPERATION` after the file it came from, and
//! its header's `query` is the call's arguments, so a listing says where it came from.

use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value};

use lro_core::error::{ErrorCode, LroError, Result};
use lro_core::files::{is_offload_uri, parse_offload_file_name, parse_uri};
use lro_core::host::Host;
use lro_core::offload::{OffloadRequest, Offloader, Outcome};

use super::arguments::ToolCall;
use super::clip::clip;

/// Most characters of the call recorded as the saved file's `query`.
const QUERY_MAX_CHARS: usize = 500;

/// Most characters of an operation name (the configuration's rule for names).
const OPERATION_MAX_CHARS: usize = 64;

/// Answers `call` (which asked to `save`) with the `CallToolResult` of the saved file.
pub(crate) fn answer<H: Host>(
    lro: &Offloader<H>,
    call: &ToolCall,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
) -> Result<Value> {
    if call.request.describe == Some(true) {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            "save keeps an extraction's output; describe has none to keep",
        ));
    }
    let cap = lro.config().extract.handle_max_bytes;
    let timeout_ms = lro.config().extract.timeout_ms;
    let response = crate::handles::extract_whole(
        lro,
        &call.file_path,
        &call.request,
        cap,
        timeout_ms,
        cancel,
    )?;
    let request = OffloadRequest {
        operation: operation(lro, &call.file_path),
        query: Some(recorded_query(arguments)),
        extract_tool: call.request.extract_tool.clone(),
        ..OffloadRequest::default()
    };
    let saved = lro.offload_saved(&Value::Array(response.results), &request)?;
    let mut fields = Map::new();
    fields.insert("isError".to_owned(), Value::Bool(false));
    crate::intercept::rewrite(
        lro,
        &fields,
        Outcome::Offloaded(Box::new(saved)),
        Vec::new(),
        None,
    )
    .map(|rewritten| rewritten.result)
    .ok_or_else(|| LroError::new(ErrorCode::Io, "the saved file has no descriptor"))
}

/// `extract.OPERATION` of the file `file_path` names (a path or an `lro://` URI), or
/// `extract` when its name says none.
fn operation<H: Host>(lro: &Offloader<H>, file_path: &str) -> String {
    let prefix = &lro.config().file_prefix;
    let source = if is_offload_uri(file_path) {
        parse_uri(file_path, prefix).ok().map(|uri| uri.parsed)
    } else {
        let name = file_path.rsplit(['/', '\\']).next().unwrap_or(file_path);
        parse_offload_file_name(name, prefix)
    };
    match source {
        Some(parsed) => {
            let mut operation = format!("extract.{}", parsed.operation);
            // Operations are ASCII (the name rule): cutting at a byte is cutting at a character.
            operation.truncate(OPERATION_MAX_CHARS);
            operation
        }
        None => "extract".to_owned(),
    }
}

/// The call's arguments as the saved file's header records them: compact JSON without the
/// file and the flags, cut to a few hundred characters.
fn recorded_query(arguments: Option<&Value>) -> String {
    let mut kept = match arguments {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    };
    kept.retain(|key, value| {
        !value.is_null() && !matches!(key.as_str(), "file_path" | "save" | "explain")
    });
    clip(&Value::Object(kept).to_string(), QUERY_MAX_CHARS)
}
