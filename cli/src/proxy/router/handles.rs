//! Result handles in a client's `tools/call`: an argument `{"$lro": URI, ...}` is replaced by
//! the data it names before the call reaches the server ([`lro_mcp::handles`]), so an agent
//! passes an offloaded result (or a slice of it) to the next tool without reading it.
//!
//! A call whose text lacks the bytes `"$lro"` is forwarded as it came, its bytes untouched
//! (the common case costs one substring search). A handle that cannot be resolved is answered
//! here, as a `CallToolResult` with `isError: true` naming the argument: the server never
//! sees a call with a handle, or with part of one's data.
//!
//! Resolution runs on the client's reader thread, before the next client message: the call
//! reaches the server in the order the client sent it, and a later `notifications/cancelled`
//! for it never overtakes it. It is bounded by the extraction's time limit and
//! `extract.handle_max_bytes`.

use std::sync::atomic::AtomicBool;

use serde_json::Value;

use super::super::jsonrpc::{self, IdKey};
use super::Router;

/// What becomes of a `tools/call` that may hold handles.
pub(super) enum Resolved {
    /// No handle: forward the line as received.
    Unchanged,
    /// Handles replaced: forward this message instead.
    Message(Vec<u8>),
    /// A handle failed: the client has its answer; nothing goes to the server.
    Answered,
}

impl Router {
    /// Resolves the handles of the `tools/call` request `id` whose text is `line`; `message`
    /// is the request read, without its `params` (given apart, as read).
    pub(super) fn resolve_handles(
        &self,
        id: &IdKey,
        line: &[u8],
        mut message: Value,
        mut params: Value,
    ) -> Resolved {
        if !lro_mcp::handles::text_may_hold_handles(line) {
            return Resolved::Unchanged;
        }
        let Some(arguments) = params.get("arguments") else {
            return Resolved::Unchanged;
        };
        // The proxy does not wait for a cancellation here: resolution is bounded, and the
        // client's next message is read once it is done.
        match lro_mcp::handles::resolve(&self.lro, arguments, &AtomicBool::new(false)) {
            Ok(None) => Resolved::Unchanged,
            Ok(Some(resolved)) => {
                params["arguments"] = resolved;
                message["params"] = params;
                Resolved::Message(serde_json::to_vec(&message).unwrap_or_default())
            }
            Err(err) => {
                note!(
                    "lro proxy: answering tools/call {} without calling the tool: {err}",
                    id.to_value()
                );
                self.out.send(&jsonrpc::response(id, err.to_call_result()));
                Resolved::Answered
            }
        }
    }
}
