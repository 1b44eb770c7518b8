//! What the proxy remembers between a request and its response.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::jsonrpc::IdKey;

/// Requests given up on (timed out) whose late answers are still dropped; older ones are
/// forgotten (their answers, should they ever come, are then dropped as unknown responses).
const ABANDONED_REMEMBERED: usize = 4096;

/// Requests of the server's whose answers from the client are awaited; past this many, the
/// oldest are forgotten (a server that never hears back is no reason to grow).
const SERVER_REQUESTS_REMEMBERED: usize = 4096;

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
    /// `resources/list` forwarded to the server: a page of offload files joins its answer.
    ResourcesList {
        /// Which page of offload files.
        lro: LroPage,
    },
    /// `resources/templates/list`: the first page gains LRO's templates.
    ResourceTemplatesList {
        /// No `cursor` in the request.
        first_page: bool,
    },
    /// Any other request: passed through, answered with an error if the server goes away.
    Other,
}

/// Which page of offload files a `resources/list` page holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LroPage {
    /// The first (the client sent no cursor).
    First,
    /// The page after the core's cursor.
    After(String),
    /// None: the offload files were all listed on earlier pages.
    Done,
}

/// A request in flight.
#[derive(Debug)]
struct InFlight {
    pending: Pending,
    /// When the proxy stops waiting for the server's answer (`None`: never).
    deadline: Option<Instant>,
    /// The request's `_meta.progressToken`: a progress notification for it moves the
    /// deadline (the server is working, not hanging).
    progress_token: Option<Value>,
}

/// The session as the proxy sees it.
#[derive(Debug, Default)]
struct Session {
    pending: HashMap<IdKey, InFlight>,
    /// Requests that timed out, oldest first, and the same as a set.
    abandoned: VecDeque<IdKey>,
    abandoned_set: HashSet<IdKey>,
    /// Requests the server sent the client, not answered yet, oldest first, and as a set.
    server_requests: VecDeque<IdKey>,
    server_requests_set: HashSet<IdKey>,
    /// How long the server may take to answer a request (`None`: forever).
    request_timeout: Option<Duration>,
    /// The client announced `clientInfo.proxy: true`: results go through untouched.
    client_is_proxy: bool,
    /// The server's `initialize` result had no `tools` capability: the proxy added it and
    /// answers `tools/list` itself.
    server_lacks_tools: bool,
    /// The protocol version the server chose (sent as `MCP-Protocol-Version` over HTTP).
    protocol_version: Option<String>,
    /// The server's `serverInfo.name`, which names the extract tool (`lro_extract_<name>`).
    server_name: Option<String>,
    /// The server's `initialize` result had no `resources` capability: the proxy added it and
    /// answers every resource request itself.
    server_lacks_resources: bool,
    /// The client listed resources or subscribed to one: it hears of changes to the list.
    client_asked_resources: bool,
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

    /// Sets how long the server may take to answer each request from now on.
    pub fn set_request_timeout(&self, timeout: Option<Duration>) {
        self.lock().request_timeout = timeout;
    }

    /// Remembers a request forwarded to the server.
    pub fn insert(&self, id: IdKey, pending: Pending) {
        self.insert_with_progress(id, pending, None);
    }

    /// Remembers a request whose progress notifications carry `progress_token`.
    pub fn insert_with_progress(&self, id: IdKey, pending: Pending, progress_token: Option<Value>) {
        let mut session = self.lock();
        let deadline = session.request_timeout.map(|t| Instant::now() + t);
        // An id used again is a new request: an old timeout no longer applies to it.
        if session.abandoned_set.remove(&id) {
            session.abandoned.retain(|a| *a != id);
        }
        session.pending.insert(
            id,
            InFlight {
                pending,
                deadline,
                progress_token,
            },
        );
    }

    /// Forgets a request (answered or cancelled) and returns what it was.
    pub fn take(&self, id: &IdKey) -> Option<Pending> {
        self.lock().pending.remove(id).map(|f| f.pending)
    }

    /// Whether a request with `id` is in flight.
    pub fn in_flight(&self, id: &IdKey) -> bool {
        self.lock().pending.contains_key(id)
    }

    /// The client cancelled request `id`: it is forgotten, and the server's answer, should
    /// it come, is dropped as a timed-out one is.
    pub fn cancel(&self, id: &IdKey) {
        let mut session = self.lock();
        if session.pending.remove(id).is_some() {
            abandon(&mut session, id.clone());
        }
    }

    /// Remembers a request the server sent the client.
    pub fn remember_server_request(&self, id: IdKey) {
        let mut session = self.lock();
        if session.server_requests_set.insert(id.clone()) {
            session.server_requests.push_back(id);
        }
        while session.server_requests.len() > SERVER_REQUESTS_REMEMBERED {
            if let Some(old) = session.server_requests.pop_front() {
                session.server_requests_set.remove(&old);
            }
        }
    }

    /// Whether `id` is a request of the server's awaiting the client's answer (then no
    /// longer: it is answered once).
    pub fn take_server_request(&self, id: &IdKey) -> bool {
        let mut session = self.lock();
        let was = session.server_requests_set.remove(id);
        if was {
            session.server_requests.retain(|r| r != id);
        }
        was
    }

    /// Whether `id` is a request that timed out (its late answer is then dropped, once).
    pub fn take_abandoned(&self, id: &IdKey) -> bool {
        let mut session = self.lock();
        let was = session.abandoned_set.remove(id);
        if was {
            session.abandoned.retain(|a| a != id);
        }
        was
    }

    /// Gives up on every request whose deadline has passed by `now` and returns their ids.
    pub fn expire(&self, now: Instant) -> Vec<IdKey> {
        let mut session = self.lock();
        let expired: Vec<IdKey> = session
            .pending
            .iter()
            .filter(|(_, f)| f.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            session.pending.remove(id);
            abandon(&mut session, id.clone());
        }
        expired
    }

    /// The server reported progress on the request with `token`: its time starts again.
    pub fn progress(&self, token: &Value) {
        let mut session = self.lock();
        let Some(timeout) = session.request_timeout else {
            return;
        };
        for flight in session.pending.values_mut() {
            if flight.progress_token.as_ref() == Some(token) {
                flight.deadline = Some(Instant::now() + timeout);
            }
        }
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

    /// Records the server's `serverInfo.name`.
    pub fn set_server_name(&self, name: Option<String>) {
        self.lock().server_name = name;
    }

    /// The server's `serverInfo.name`, once the server has answered `initialize`.
    pub fn server_name(&self) -> Option<String> {
        self.lock().server_name.clone()
    }

    /// Records that the server has no `tools` capability.
    pub fn set_server_lacks_tools(&self) {
        self.lock().server_lacks_tools = true;
    }

    /// Whether the proxy answers `tools/list` itself.
    pub fn server_lacks_tools(&self) -> bool {
        self.lock().server_lacks_tools
    }

    /// Records that the server has no `resources` capability.
    pub fn set_server_lacks_resources(&self) {
        self.lock().server_lacks_resources = true;
    }

    /// Whether the proxy answers every resource request itself.
    pub fn server_lacks_resources(&self) -> bool {
        self.lock().server_lacks_resources
    }

    /// Records that the client has asked for resources (listed or subscribed).
    pub fn set_client_asked_resources(&self) {
        self.lock().client_asked_resources = true;
    }

    /// Whether the client has asked for resources, and so hears of changes to the list.
    pub fn client_asked_resources(&self) -> bool {
        self.lock().client_asked_resources
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

/// Remembers `id` as given up on (timed out or cancelled): its late answer is dropped.
fn abandon(session: &mut Session, id: IdKey) {
    if session.abandoned_set.insert(id.clone()) {
        session.abandoned.push_back(id);
    }
    while session.abandoned.len() > ABANDONED_REMEMBERED {
        if let Some(old) = session.abandoned.pop_front() {
            session.abandoned_set.remove(&old);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(n: i64) -> IdKey {
        IdKey::of(&json!(n))
    }

    #[test]
    fn requests_expire_at_their_deadline_and_progress_moves_it() {
        let state = State::default();
        state.set_request_timeout(Some(Duration::from_secs(10)));
        state.insert(id(1), Pending::Other);
        state.insert_with_progress(id(2), Pending::Other, Some(json!("tok")));
        let start = Instant::now();
        assert!(state.expire(start).is_empty());
        // Progress on request 2 just before its deadline gives it ten more seconds.
        std::thread::sleep(Duration::from_millis(20));
        state.progress(&json!("tok"));
        let expired = state.expire(start + Duration::from_secs(10));
        assert_eq!(expired, vec![id(1)]);
        assert!(
            state.take_abandoned(&id(1)),
            "a late answer to 1 is dropped"
        );
        assert!(!state.take_abandoned(&id(1)), "once");
        assert_eq!(state.take(&id(2)), Some(Pending::Other));
    }

    #[test]
    fn without_a_timeout_nothing_expires() {
        let state = State::default();
        state.insert(id(1), Pending::Other);
        assert!(
            state
                .expire(Instant::now() + Duration::from_secs(1 << 30))
                .is_empty()
        );
        assert_eq!(state.drain(), vec![id(1)]);
    }
}
