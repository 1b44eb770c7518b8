//! The extract tool as agents see it, and its answers: one description, one input schema
//! and one way of answering, used by the `lro proxy` and the Python and Node MCP helpers, so
//! every surface offers the same names described the same way and answers alike.
//!
//! The definition comes in two forms ([`definition`]): short by default, long by option.
//! [`arguments`] reads every argument of the long form whichever is listed, and the object
//! forms clients sent before. The answer ([`call_result`]) is text alone, bounded by
//! `extract.answer_max_bytes` and `extract.answer_max_tokens`.

mod answer;
pub mod arguments;
pub(crate) mod clip;
pub mod definition;
mod save;

pub use definition::{
    LONG_DESCRIPTION, QUERY_PARAMETERS, SHORT_BUDGET_TOKENS, SHORT_DESCRIPTION,
    argument_description, arguments_reference, tool_definition, tool_description,
    tool_input_schema,
};

use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};

use lro_core::host::Host;
use lro_core::offload::Offloader;

/// Most characters of an error answer's message.
const ERROR_MAX_CHARS: usize = 600;

/// The tool's name.
pub const TOOL_NAME: &str = "lro_extract";

/// Answers one call of the extract tool with a `CallToolResult` (as JSON): the answer as
/// one text block ([`answer`]); every failure a result with `isError: true` whose text
/// starts with the error code (`error[path_denied]: ...`). A call whose `cancel` flag is
/// raised stops early (its result is then not wanted). No `structuredContent`: the text is
/// the answer, and a second copy is what clients show twice.
pub fn call_result<H: Host>(
    lro: &Offloader<H>,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
) -> Value {
    call_result_as(lro, arguments, cancel, None)
}

/// [`call_result`] for a tool listed as `extract_tool` when that is not the configured name
/// (`lro proxy` names it after its server): `describe: true` rebuilds a descriptor whose
/// guidance names the tool as the client sees it.
pub fn call_result_as<H: Host>(
    lro: &Offloader<H>,
    arguments: Option<&Value>,
    cancel: &AtomicBool,
    extract_tool: Option<&str>,
) -> Value {
    let answered = arguments::parse(arguments).and_then(|mut call| {
        call.request.extract_tool = extract_tool.map(str::to_owned);
        if call.save {
            return save::answer(lro, &call, arguments, cancel);
        }
        let response = lro.extract_cancellable(&call.file_path, &call.request, cancel)?;
        let text = answer::text(lro, &call, &response);
        Ok(json!({"content": [{"type": "text", "text": text}], "isError": false}))
    });
    match answered {
        Ok(result) => result,
        // An error message may quote the caller's arguments or the data's field names: cut
        // it, so an error answer is bounded like any other.
        Err(err) => json!({
            "content": [{"type": "text", "text": format!("error[{}]: {}", err.code(), clip::clip(err.message(), ERROR_MAX_CHARS))}],
            "isError": true
        }),
    }
}
