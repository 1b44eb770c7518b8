//! Messages longer than the proxy reads (`--max-client-message-bytes`,
//! `--max-server-message-bytes`): a peer that sends an endless line used to take the proxy's
//! memory until an allocation failed and the process aborted, losing every call in flight.
//! The transports read at most the bound, keep the start and drop the rest; this answers
//! for what the client sent (what the server sent is [`Inbound`](super::super::Inbound)'s).

use serde_json::Value;

use super::super::jsonrpc;
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
}
