//! Messages longer than the proxy reads (`--max-client-message-bytes`,
//! `--max-server-message-bytes`): a peer that sends an endless line used to take the proxy's
//! memory until an allocation failed and the process aborted, losing every call in flight.
//! The transports read at most the bound, keep the start and drop the rest; this answers
//! for what was dropped.

use serde_json::Value;

use super::super::jsonrpc::{self, IdKey};
use super::Router;

/// The bounds on one message, in bytes (its line ending aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageLimits {
    /// A message from the client.
    pub client: usize,
    /// A message from the server (a line on stdio, a JSON body or one event over HTTP).
    pub server: usize,
}

impl Router {
    /// The bounds the transports read messages with.
    pub fn limits(&self) -> MessageLimits {
        self.limits
    }

    /// A client message longer than the bound, of which `start` was read.
    pub fn client_message_too_long(&self, start: &[u8]) {
        let why = format!(
            "longer than {} bytes, --max-client-message-bytes",
            self.limits.client
        );
        self.client_message_unread(start, &why);
    }

    /// A client message the proxy could not read whole (`why`), of which `start` was read:
    /// `-32600`, with its id when the start shows a request and its id (a response to the
    /// server has no answer), else `null`.
    pub fn client_message_unread(&self, start: &[u8], why: &str) {
        let read = jsonrpc::start_of(start);
        note!(
            "lro proxy: answering {} to a message from the client ({why}): {}",
            jsonrpc::INVALID_REQUEST,
            jsonrpc::excerpt(&start[..start.len().min(120)])
        );
        let id = read
            .id
            .filter(|id| read.method && !self.state.in_flight(id))
            .map_or(Value::Null, |id| id.to_value());
        self.out.send(&jsonrpc::error_to(
            id,
            jsonrpc::INVALID_REQUEST,
            &format!("invalid request: the message is {why} (lro proxy)"),
        ));
    }

    /// A server message the proxy could not read whole (`why`: longer than the bound, or
    /// no memory to hold it), of which `start` and `end` were seen. The request it answers
    /// gets `-32000` saying why: `request` when the transport knows it (an HTTP POST), else
    /// the id at the start of an answer, or its last member.
    pub fn server_message_dropped(
        &self,
        start: &[u8],
        end: &[u8],
        request: Option<&IdKey>,
        why: &str,
    ) {
        let read = jsonrpc::start_of(start);
        let answered = request
            .cloned()
            .or(read.id.filter(|_| !read.method))
            .or_else(|| jsonrpc::id_at_end(end).filter(|_| !read.method));
        note!(
            "lro proxy: dropping a message from the MCP server ({why}){}: {}",
            answered
                .as_ref()
                .map(|id| format!(", the answer to request {}", id.to_value()))
                .unwrap_or_default(),
            jsonrpc::excerpt(&start[..start.len().min(120)])
        );
        if let Some(id) = answered {
            self.fail_request(
                &id,
                &format!("the MCP server's answer is {why} (lro proxy)"),
            );
        }
    }

    /// Why a message past `--max-server-message-bytes` is dropped.
    pub fn server_message_too_long(&self) -> String {
        format!(
            "longer than {} bytes, --max-server-message-bytes",
            self.limits.server
        )
    }
}
