//! What the proxy remembers between a request and its response.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use super::jsonrpc::IdKey;

/// A client request forwarded to the server and not answered yet.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// `initialize`: the response tells whether the server offers tools.
    Initialize,
    /// `tools/list`: the first page gains `lro_extract`.
    ToolsList {
        /// No `cursor` in the request.
        first_page: bool,
    },
    /// `tools/call`: the result may be offloaded; the arguments give `detail` and `query`.
    ToolCall {
        /// The tool's name.
        name: String,
        /// The call's arguments.
        arguments: Option<Value>,
    },
    /// Any other request: passed through, answered with an error if the server goes away.
    Other,
}

/// The session as the proxy sees it.
#[derive(Debug, Default)]
struct Session {
    pending: HashMap<IdKey, Pending>,
    /// The client announced `clientInfo.proxy: true`: results go through untouched.
    client_is_proxy: bool,
    /// The server's `initialize` result had no `tools` capability: the proxy added it and
    /// answers `tools/list` itself.
    server_lacks_tools: bool,
    /// The protocol version the server chose (sent as `MCP-Protocol-Version` over HTTP).
    protocol_version: Option<String>,
}

/// Thread-safe session state.
#[derive(Debug, Default)]
pub struct State(Mutex<Session>);

impl State {
    fn lock(&self) -> std::sync::MutexGuard<'_, Session> {
        // A panic elsewhere must not take the proxy down: the map stays usable.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers a request forwarded to the server.
    pub fn insert(&self, id: IdKey, pending: Pending) {
        self.lock().pending.insert(id, pending);
    }

    /// Forgets a request (answered or cancelled) and returns what it was.
    pub fn take(&self, id: &IdKey) -> Option<Pending> {
        self.lock().pending.remove(id)
    }

    /// Forgets every request in flight and returns their ids.
    pub fn drain(&self) -> Vec<IdKey> {
        self.lock().pending.drain().map(|(id, _)| id).collect()
    }

    /// The client announced itself as a proxy.
    pub fn set_client_is_proxy(&self, value: bool) {
        self.lock().client_is_proxy = value;
    }

    /// Whether the client announced itself as a proxy.
    pub fn client_is_proxy(&self) -> bool {
        self.lock().client_is_proxy
    }

    /// Records that the server has no `tools` capability.
    pub fn set_server_lacks_tools(&self) {
        self.lock().server_lacks_tools = true;
    }

    /// Whether the proxy answers `tools/list` itself.
    pub fn server_lacks_tools(&self) -> bool {
        self.lock().server_lacks_tools
    }

    /// Records the negotiated protocol version.
    pub fn set_protocol_version(&self, version: Option<String>) {
        self.lock().protocol_version = version;
    }

    /// The negotiated protocol version, once known.
    pub fn protocol_version(&self) -> Option<String> {
        self.lock().protocol_version.clone()
    }
}
