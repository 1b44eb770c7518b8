//! One MCP server for every session (`--upstream shared`): each session keeps its own
//! router (its offloads, its extract tool, its requests in flight), and this sits between
//! those routers and the one server, as the server's only client.
//!
//! - Request ids: two sessions may both send request `1`. Each request goes to the server
//!   under an id of the gateway's (a counter), and its answer goes back to its session
//!   under the id the client gave, spliced into the bytes (a large result is never parsed);
//!   a progress token is renumbered the same way, and a `notifications/cancelled` names the
//!   renumbered id. A session that ends has its calls still in flight cancelled.
//! - `initialize`: the server is initialized once, by the first session; the others get
//!   the same result (their routers then see an `initialize` answer as with a server of
//!   their own) and their `notifications/initialized` is not repeated.
//! - What the server sends on its own goes to the session it concerns when that can be
//!   told: progress by its token, a message that came on a call's HTTP response stream to
//!   that call's session; else a request (sampling, elicitation, roots) to the session
//!   with the oldest call in flight (or the first one), a notification about the server's
//!   state (`list_changed`, `resources/updated`) to every session, any other to the session
//!   with the oldest call in flight, or every session.
//! - The server going away ends every session (their clients initialize again); the next
//!   session starts a new one. A session's end never ends the server: shutdown does.

use std::collections::HashMap;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use lro_core::LroError;
use serde_json::Value;

use super::splice::{as_json, span, splice, text_at, text_of};
use crate::proxy::jsonrpc::{self, IdKey, Kind, Peek};
use crate::proxy::router::{MessageLimits, Router};
use crate::proxy::{Inbound, Lifecycle, Upstream};

/// Starts a server whose messages go to the given `Inbound`, telling the `Sender` when it
/// goes away.
pub type Start = Box<
    dyn Fn(Arc<dyn Inbound>, Sender<Lifecycle>) -> Result<Arc<dyn Upstream>, LroError>
        + Send
        + Sync,
>;

/// The server all sessions share.
pub struct Shared {
    start: Start,
    limits: MessageLimits,
    /// Itself, for the transport it starts to deliver to.
    me: Weak<Shared>,
    mux: Mutex<Mux>,
}

/// What the demultiplexer remembers.
#[derive(Default)]
struct Mux {
    server: Option<Server>,
    /// Counts the servers started: the one a lifecycle event is about.
    generation: u64,
    sessions: HashMap<String, Attached>,
    next_order: u64,
    /// Requests at the server, by the id the server knows.
    calls: HashMap<IdKey, Call>,
    /// The same, by session and the id its client gave.
    ids: HashMap<(String, IdKey), IdKey>,
    /// Progress tokens the server knows, to the call whose token it is.
    tokens: HashMap<IdKey, IdKey>,
    /// The server's requests, to the session each was given to.
    asked: HashMap<IdKey, String>,
    next_id: u64,
    init: Init,
    initialized_sent: bool,
    protocol_version: Option<String>,
}

struct Server {
    upstream: Arc<dyn Upstream>,
    generation: u64,
}

struct Attached {
    router: Arc<Router>,
    lifecycle: Sender<Lifecycle>,
    order: u64,
}

/// A session's request at the server.
struct Call {
    session: String,
    /// The id the client gave, and as it wrote it.
    id: IdKey,
    id_text: String,
    /// The progress token the server knows, and the client's as it wrote it.
    token: Option<(IdKey, String)>,
    initialize: bool,
}

/// The server's `initialize`.
#[derive(Default)]
enum Init {
    /// Not asked (or asked and refused).
    #[default]
    Fresh,
    /// Asked by one session; these wait for its answer.
    Asking(Vec<Waiting>),
    /// Answered: this `result`, as text, answers every later session.
    Done(String),
}

/// A session's `initialize`, waiting for the one at the server.
struct Waiting {
    session: String,
    id: IdKey,
    id_text: String,
    message: Vec<u8>,
}

/// What to do once the lock is released: a router may write to its streams, and a
/// transport may deliver to us again (an HTTP `initialize` is answered before `send`
/// returns).
/// A message for the server: the transport, the message, its request id if a request.
type ToSend = (Arc<dyn Upstream>, Vec<u8>, Option<IdKey>);

#[derive(Default)]
struct After {
    deliver: Vec<(Arc<Router>, Vec<u8>)>,
    fail: Vec<(Arc<Router>, IdKey, String)>,
    send: Vec<ToSend>,
    gone: Vec<(Sender<Lifecycle>, Result<(), String>)>,
}

impl After {
    fn run(self) {
        for (upstream, message, request) in self.send {
            upstream.send(message, request);
        }
        for (router, message) in self.deliver {
            router.on_server_message(message);
        }
        for (router, id, reason) in self.fail {
            router.fail_request(&id, &reason);
        }
        for (lifecycle, outcome) in self.gone {
            let _ = lifecycle.send(Lifecycle::ServerGone(outcome));
        }
    }
}

/// A session's end of the shared server.
struct Link {
    shared: Arc<Shared>,
    session: String,
}

impl Upstream for Link {
    fn send(&self, message: Vec<u8>, request: Option<IdKey>) {
        self.shared.to_server(&self.session, message, request);
    }

    /// The session ends, not the server: its calls in flight are cancelled there.
    fn close(&self) {
        self.shared.detach(&self.session);
    }
}

impl Shared {
    /// Nothing started yet: the first session starts the server.
    pub fn new(start: Start, limits: MessageLimits) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            start,
            limits,
            me: me.clone(),
            mux: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Mux> {
        self.mux.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Session `session` joins, delivering to `router`; the server is started if none runs.
    pub fn attach(
        self: &Arc<Self>,
        session: &str,
        router: Arc<Router>,
        lifecycle: Sender<Lifecycle>,
    ) -> Result<Arc<dyn Upstream>, LroError> {
        let mut mux = self.lock();
        if mux.server.is_none() {
            self.start(&mut mux)?;
        }
        let order = mux.next_order;
        mux.next_order += 1;
        mux.sessions.insert(
            session.to_owned(),
            Attached {
                router,
                lifecycle,
                order,
            },
        );
        Ok(Arc::new(Link {
            shared: Arc::clone(self),
            session: session.to_owned(),
        }))
    }

    /// Starts the server (under the lock: one at a time).
    fn start(&self, mux: &mut Mux) -> Result<(), LroError> {
        let inbound: Arc<dyn Inbound> = self.me.upgrade().ok_or_else(|| {
            LroError::new(lro_core::ErrorCode::Io, "the gateway is shutting down")
        })?;
        let (lifecycle, ended) = mpsc::channel();
        let server = (self.start)(inbound, lifecycle)?;
        mux.generation += 1;
        let generation = mux.generation;
        mux.server = Some(Server {
            upstream: server,
            generation,
        });
        let me = self.me.clone();
        std::thread::spawn(move || {
            if let Ok(Lifecycle::ServerGone(outcome)) = ended.recv() {
                if let Some(shared) = me.upgrade() {
                    shared.server_gone(generation, outcome);
                }
            }
        });
        Ok(())
    }

    /// The server exited: every session ends with it, and the next one starts another.
    fn server_gone(&self, generation: u64, outcome: Result<(), String>) {
        let mut mux = self.lock();
        if mux.server.as_ref().map(|s| s.generation) != Some(generation) {
            return;
        }
        let reason = match &outcome {
            Ok(()) => "the shared MCP server exited (lro proxy)".to_owned(),
            Err(why) => format!("the shared MCP server stopped: {why} (lro proxy)"),
        };
        let mut after = fail_everything(&mut mux, &reason);
        let sessions = std::mem::take(&mut mux.sessions);
        *mux = Mux {
            generation: mux.generation,
            next_id: mux.next_id,
            next_order: mux.next_order,
            ..Mux::default()
        };
        drop(mux);
        for (_, attached) in sessions {
            after.gone.push((attached.lifecycle, outcome.clone()));
        }
        after.run();
    }

    /// At shutdown: stops the server.
    pub fn close(&self) {
        let server = self.lock().server.take();
        if let Some(server) = server {
            server.upstream.close();
        }
    }

    /// Session `session` has ended: its calls at the server are cancelled, its waits
    /// forgotten. The server's answer to an `initialize` it asked still answers the others.
    fn detach(&self, session: &str) {
        let mut mux = self.lock();
        if mux.sessions.remove(session).is_none() {
            return;
        }
        let server = mux.server.as_ref().map(|s| Arc::clone(&s.upstream));
        let theirs: Vec<IdKey> = mux
            .calls
            .iter()
            .filter(|(_, call)| call.session == session && !call.initialize)
            .map(|(id, _)| id.clone())
            .collect();
        let mut after = After::default();
        for id in theirs {
            forget_call(&mut mux, &id);
            if let Some(server) = &server {
                let cancel = jsonrpc::cancelled(&id, "the client's session ended (lro proxy)");
                after.send.push((
                    Arc::clone(server),
                    serde_json::to_vec(&cancel).unwrap_or_default(),
                    None,
                ));
            }
        }
        mux.asked.retain(|_, asked| asked != session);
        if let Init::Asking(waiting) = &mut mux.init {
            waiting.retain(|w| w.session != session);
        }
        drop(mux);
        after.run();
    }

    /// A message from session `session`'s router to the server.
    fn to_server(&self, session: &str, message: Vec<u8>, request: Option<IdKey>) {
        let mut mux = self.lock();
        let Some(router) = mux.sessions.get(session).map(|a| Arc::clone(&a.router)) else {
            return;
        };
        let mut after = After::default();
        let Some(server) = mux.server.as_ref().map(|s| Arc::clone(&s.upstream)) else {
            if let Some(id) = request {
                let reason = "the shared MCP server is gone (lro proxy)".to_owned();
                after.fail.push((router, id, reason));
            }
            drop(mux);
            return after.run();
        };
        let method = Peek::parse(&message).and_then(|peek| match peek.kind() {
            Kind::Request(_, method) | Kind::Notification(method) => Some(method.to_owned()),
            _ => None,
        });
        match (request, method.as_deref()) {
            (Some(id), Some("initialize")) => {
                let id_text = text_at(&message, &["id"]).unwrap_or_default();
                let waiting = Waiting {
                    session: session.to_owned(),
                    id,
                    id_text,
                    message,
                };
                match &mut mux.init {
                    Init::Done(result) => {
                        let answer = answer_text(&waiting.id_text, result);
                        after.deliver.push((router, answer));
                    }
                    Init::Asking(queue) => queue.push(waiting),
                    Init::Fresh => {
                        mux.init = Init::Asking(Vec::new());
                        ask(&mut mux, waiting, &server, &mut after);
                    }
                }
            }
            (Some(id), _) => {
                if let Some(forwarded) = renumber(&mut mux, session, &id, &message, false) {
                    after.send.push((server, forwarded.0, Some(forwarded.1)));
                }
            }
            (None, Some("notifications/cancelled")) => {
                let cancelled = requested_id(&message);
                let upstream_id = cancelled
                    .and_then(|id| mux.ids.get(&(session.to_owned(), id)).cloned())
                    .filter(|id| mux.calls.get(id).is_some_and(|call| !call.initialize));
                // Not at the server (answered already, or never sent): nothing to cancel.
                if let Some(upstream_id) = upstream_id {
                    let range = span(&message, &["params", "requestId"]);
                    if let Some(range) = range {
                        forget_call(&mut mux, &upstream_id);
                        let renamed = splice(&message, vec![(range, as_json(&upstream_id))]);
                        after.send.push((server, renamed, None));
                    }
                }
            }
            (None, Some("notifications/initialized")) => {
                // Once, from the session whose initialize the server answered.
                if matches!(mux.init, Init::Done(_)) && !mux.initialized_sent {
                    mux.initialized_sent = true;
                    after.send.push((server, message, None));
                }
            }
            (None, _) => {
                // A response to a request of the server's: it was asked of this session.
                if let Some(Kind::Response(id)) = Peek::parse(&message).as_ref().map(Peek::kind) {
                    mux.asked.remove(&id);
                }
                after.send.push((server, message, None));
            }
        }
        drop(mux);
        after.run();
    }

    /// Routes one message from the server; `about` is the request (the server's id) whose
    /// response stream carried it.
    fn route(&self, message: Vec<u8>, about: Option<&IdKey>) {
        let text = jsonrpc::trim_line(&message);
        if text.trim_ascii_start().starts_with(b"[") {
            // A batch (MCP 2025-03-26): each message on its own.
            if let Ok(batch) = serde_json::from_slice::<Vec<Value>>(text) {
                for item in batch {
                    self.route(serde_json::to_vec(&item).unwrap_or_default(), about);
                }
            }
            return;
        }
        let peek = Peek::parse(text).filter(|_| std::str::from_utf8(text).is_ok());
        let kind = peek.as_ref().map(Peek::kind);
        let mut mux = self.lock();
        let mut after = After::default();
        match kind {
            Some(Kind::Response(id)) => answered(&mut mux, &id, text, &mut after),
            Some(Kind::Notification("notifications/progress")) => {
                let token = text_at(text, &["params", "progressToken"]);
                let call = token
                    .as_deref()
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .and_then(|t| mux.tokens.get(&IdKey::of(&t)).cloned());
                let target = call.and_then(|id| {
                    let call = mux.calls.get(&id)?;
                    let (_, original) = call.token.as_ref()?;
                    let range = span(text, &["params", "progressToken"])?;
                    let router = router_of(&mux, &call.session)?;
                    Some((router, splice(text, vec![(range, original.clone())])))
                });
                // Progress on a call no session waits for any more goes nowhere.
                after.deliver.extend(target);
            }
            Some(Kind::Request(id, _)) => {
                let session = about
                    .and_then(|about| mux.calls.get(about))
                    .map(|call| call.session.clone())
                    .or_else(|| oldest_caller(&mux))
                    .or_else(|| first_session(&mux));
                match session.and_then(|s| Some((router_of(&mux, &s)?, s))) {
                    Some((router, session)) => {
                        mux.asked.insert(id, session);
                        after.deliver.push((router, text.to_vec()));
                    }
                    None => {
                        // No session to ask: the server hears so rather than waiting.
                        if let Some(server) = &mux.server {
                            let refusal = jsonrpc::error(
                                &id,
                                jsonrpc::UPSTREAM_ERROR,
                                "no client session is open to answer (lro proxy)",
                            );
                            let refusal = serde_json::to_vec(&refusal).unwrap_or_default();
                            after
                                .send
                                .push((Arc::clone(&server.upstream), refusal, None));
                        }
                    }
                }
            }
            Some(Kind::Notification(method)) => {
                let tied = about
                    .and_then(|about| mux.calls.get(about))
                    .map(|call| call.session.clone());
                let targets: Vec<String> = if method == "notifications/cancelled" {
                    // The server gave up on a request of its own: the session it asked.
                    requested_id(text)
                        .and_then(|id| mux.asked.remove(&id))
                        .into_iter()
                        .collect()
                } else if let Some(session) = tied {
                    vec![session]
                } else if method.ends_with("/list_changed")
                    || method == "notifications/resources/updated"
                {
                    mux.sessions.keys().cloned().collect()
                } else {
                    oldest_caller(&mux)
                        .map_or_else(|| mux.sessions.keys().cloned().collect(), |s| vec![s])
                };
                for session in targets {
                    if let Some(router) = router_of(&mux, &session) {
                        after.deliver.push((router, text.to_vec()));
                    }
                }
            }
            Some(Kind::Invalid {
                id: Some(id),
                request: false,
                reason,
            }) => {
                let reason =
                    format!("the MCP server's answer is not valid JSON-RPC: {reason} (lro proxy)");
                fail_call(&mut mux, &id, &reason, &mut after);
            }
            _ => {
                note!(
                    "lro proxy: ignoring a message from the shared MCP server that is not valid \
                     JSON-RPC: {}",
                    jsonrpc::excerpt(text)
                );
                // A response that is not UTF-8 still fails the call it answers.
                if let Some(Kind::Response(id)) = Peek::parse(text).as_ref().map(Peek::kind) {
                    let reason = "the MCP server's answer is not valid JSON (lro proxy)";
                    fail_call(&mut mux, &id, reason, &mut after);
                }
            }
        }
        drop(mux);
        after.run();
    }
}

impl Inbound for Shared {
    fn limits(&self) -> MessageLimits {
        self.limits
    }

    fn protocol_version(&self) -> Option<String> {
        self.lock().protocol_version.clone()
    }

    fn on_server_message(&self, message: Vec<u8>) {
        self.route(message, None);
    }

    fn on_server_message_about(&self, message: Vec<u8>, about: &IdKey) {
        self.route(message, Some(about));
    }

    fn awaits(&self, id: &IdKey) -> bool {
        self.lock().calls.contains_key(id)
    }

    fn fail_request(&self, id: &IdKey, reason: &str) {
        let mut mux = self.lock();
        let mut after = After::default();
        fail_call(&mut mux, id, reason, &mut after);
        drop(mux);
        after.run();
    }

    fn fail_all(&self, reason: &str) {
        let mut mux = self.lock();
        let after = fail_everything(&mut mux, reason);
        drop(mux);
        after.run();
    }
}

/// Sends `waiting`'s `initialize` to the server, as the one the others wait on.
fn ask(mux: &mut Mux, waiting: Waiting, server: &Arc<dyn Upstream>, after: &mut After) {
    if let Some((message, id)) =
        renumber(mux, &waiting.session, &waiting.id, &waiting.message, true)
    {
        after.send.push((Arc::clone(server), message, Some(id)));
    }
}

/// Gives a session's request an id of the server's (and its progress token one): the
/// message to send and that id. `None` when the message cannot be read (it was checked as
/// JSON-RPC by the router: not expected).
fn renumber(
    mux: &mut Mux,
    session: &str,
    id: &IdKey,
    message: &[u8],
    initialize: bool,
) -> Option<(Vec<u8>, IdKey)> {
    let id_range = span(message, &["id"])?;
    let id_text = text_of(message, &id_range);
    mux.next_id += 1;
    let upstream_id = IdKey::of(&Value::from(mux.next_id));
    let mut edits = vec![(id_range, as_json(&upstream_id))];
    let mut token = None;
    if let Some(range) = memchr::memmem::find(message, b"progressToken")
        .and_then(|_| span(message, &["params", "_meta", "progressToken"]))
    {
        mux.next_id += 1;
        let upstream_token = IdKey::of(&Value::from(mux.next_id));
        let original = text_of(message, &range);
        edits.push((range, as_json(&upstream_token)));
        mux.tokens
            .insert(upstream_token.clone(), upstream_id.clone());
        token = Some((upstream_token, original));
    }
    mux.ids
        .insert((session.to_owned(), id.clone()), upstream_id.clone());
    mux.calls.insert(
        upstream_id.clone(),
        Call {
            session: session.to_owned(),
            id: id.clone(),
            id_text,
            token,
            initialize,
        },
    );
    Some((splice(message, edits), upstream_id))
}

/// Forgets the call the server knows as `id`.
fn forget_call(mux: &mut Mux, id: &IdKey) -> Option<Call> {
    let call = mux.calls.remove(id)?;
    if let Some((token, _)) = &call.token {
        mux.tokens.remove(token);
    }
    mux.ids.remove(&(call.session.clone(), call.id.clone()));
    Some(call)
}

/// The server answered its request `id` with `text`.
fn answered(mux: &mut Mux, id: &IdKey, text: &[u8], after: &mut After) {
    let Some(call) = forget_call(mux, id) else {
        note!(
            "lro proxy: dropping the shared MCP server's answer to request {}: no session \
             waits for it (cancelled, or its session ended)",
            id.to_value()
        );
        return;
    };
    let answer = span(text, &["id"]).map(|range| splice(text, vec![(range, call.id_text.clone())]));
    let router = router_of(mux, &call.session);
    if call.initialize {
        let result = text_at(text, &["result"]);
        initialized(mux, result, after);
    }
    if let (Some(router), Some(answer)) = (router, answer) {
        after.deliver.push((router, answer));
    }
}

/// The server answered `initialize`: with `result`, every waiting session gets it (and
/// later ones); without, the next waiting session asks in turn.
fn initialized(mux: &mut Mux, result: Option<String>, after: &mut After) {
    let waiting = match std::mem::take(&mut mux.init) {
        Init::Asking(waiting) => waiting,
        _ => Vec::new(),
    };
    match result {
        Some(result) => {
            mux.protocol_version = serde_json::from_str::<Value>(&result)
                .ok()
                .and_then(|r| r.get("protocolVersion")?.as_str().map(str::to_owned));
            for waiter in waiting {
                if let Some(router) = router_of(mux, &waiter.session) {
                    after
                        .deliver
                        .push((router, answer_text(&waiter.id_text, &result)));
                }
            }
            mux.init = Init::Done(result);
        }
        None => {
            let mut waiting = waiting.into_iter();
            let server = mux.server.as_ref().map(|s| Arc::clone(&s.upstream));
            if let (Some(next), Some(server)) = (waiting.next(), server) {
                mux.init = Init::Asking(waiting.collect());
                ask(mux, next, &server, after);
            }
        }
    }
}

/// Answers the call the server knows as `id` with an error.
fn fail_call(mux: &mut Mux, id: &IdKey, reason: &str, after: &mut After) {
    let Some(call) = forget_call(mux, id) else {
        return;
    };
    if call.initialize {
        initialized(mux, None, after);
    }
    if let Some(router) = router_of(mux, &call.session) {
        after.fail.push((router, call.id, reason.to_owned()));
    }
}

/// Every call, and every session waiting for `initialize`, gets an error.
fn fail_everything(mux: &mut Mux, reason: &str) -> After {
    let mut after = After::default();
    let ids: Vec<IdKey> = mux.calls.keys().cloned().collect();
    for id in ids {
        if let Some(call) = forget_call(mux, &id) {
            if let Some(router) = router_of(mux, &call.session) {
                after.fail.push((router, call.id, reason.to_owned()));
            }
        }
    }
    if let Init::Asking(waiting) = std::mem::take(&mut mux.init) {
        for waiter in waiting {
            if let Some(router) = router_of(mux, &waiter.session) {
                after.fail.push((router, waiter.id, reason.to_owned()));
            }
        }
    }
    after
}

fn router_of(mux: &Mux, session: &str) -> Option<Arc<Router>> {
    mux.sessions.get(session).map(|a| Arc::clone(&a.router))
}

/// The session whose call has waited longest (the server is most likely working for it).
fn oldest_caller(mux: &Mux) -> Option<String> {
    let upstream_order = |id: &IdKey| id.to_value().as_u64().unwrap_or(u64::MAX);
    mux.calls
        .iter()
        .filter(|(_, call)| mux.sessions.contains_key(&call.session))
        .min_by_key(|(id, _)| upstream_order(id))
        .map(|(_, call)| call.session.clone())
}

/// The session that joined first (whose client's capabilities the server was told).
fn first_session(mux: &Mux) -> Option<String> {
    mux.sessions
        .iter()
        .min_by_key(|(_, attached)| attached.order)
        .map(|(session, _)| session.clone())
}

/// A response to `initialize` with this id (as the client wrote it) and `result`.
fn answer_text(id_text: &str, result: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id_text},"result":{result}}}"#).into_bytes()
}

/// A `notifications/cancelled`'s `params.requestId`.
fn requested_id(message: &[u8]) -> Option<IdKey> {
    let text = text_at(message, &["params", "requestId"])?;
    Some(IdKey::of(&serde_json::from_str::<Value>(&text).ok()?))
}
