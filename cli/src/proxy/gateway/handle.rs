//! One HTTP request to the gateway, as MCP's streamable HTTP transport (2025-11-25) has a
//! server answer it: POST carries one client message (a request is answered with JSON or an
//! event stream, a notification or response with `202`), GET opens the session's stream of
//! server messages, DELETE ends the session. `Host` and `Origin` are checked first, then the
//! bearer token when the gateway asks for one ([`auth`](super::auth)), then the
//! session (`Mcp-Session-Id`, issued with the answer to `initialize`; 404 for one unknown or
//! ended) and `MCP-Protocol-Version`.
//!
//! Every event stream's events carry ids (see [`events`](super::events)); a stream opened
//! for a client of protocol 2025-11-25 or later begins with a priming event, so that the
//! client holds an id to resume from before the first message, and such a client's POST is
//! always answered with a stream: whatever happens to its connection, the answer can be
//! resumed. Older clients, and those that take no event stream, get JSON when the answer
//! comes first.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use tiny_http::{Method, Request};

use super::auth::Principal;
use super::checks::{self, Refusal};
use super::dispatch::WaitError;
use super::events::{Next, OpenError, Reader};
use super::respond::{self, EventStream, SESSION_HEADER};
use super::session::{Session, StartError};
use super::{Gateway, Slot};
use crate::proxy::jsonrpc::{self, IdKey, Kind, Peek};
use crate::proxy::router::ClientAction;

/// How often an idle event stream gets a comment (a proxy in between may close a silent
/// connection; a client that left is found by the write failing).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How long a client waits before reconnecting a stream whose connection was lost (the
/// `retry` field of every priming event).
const RETRY: Duration = Duration::from_secs(1);

/// The first protocol version whose clients take priming events: older ones may read the
/// empty data as a message, and fail on it.
const PRIMING_SINCE: &str = "2025-11-25";

/// Whether a client of protocol `version` (a date: they order as text) takes priming events.
fn primes(version: Option<&str>) -> bool {
    version.is_some_and(|v| v >= PRIMING_SINCE)
}

/// The value of header `name`, when given once or more (the first).
fn header<'r>(request: &'r Request, name: &'static str) -> Option<&'r str> {
    request
        .headers()
        .iter()
        .find(|h| h.field.equiv(name))
        .map(|h| h.value.as_str())
}

impl Gateway {
    /// Answers one request (on a thread of its own).
    pub(super) fn handle(self: &Arc<Self>, request: Request) {
        let framing = checks::check_framing(
            request
                .headers()
                .iter()
                .map(|h| (h.field.as_str().as_str(), h.value.as_str())),
        );
        if let Err(refused) = framing {
            return respond::refusal_closing(request, &refused);
        }
        let path = request
            .url()
            .split('?')
            .next()
            .unwrap_or_default()
            .to_owned();
        if matches!(path.as_str(), "/healthz" | "/health") && *request.method() == Method::Get {
            let body = serde_json::json!({
                "status": "ok",
                "sessions": self.sessions.count(),
                "in_flight": self.in_flight.taken(),
                "connections": self.server.num_connections(),
            });
            return respond::send(
                request,
                respond::json(200, body.to_string().into_bytes(), None),
            );
        }
        let checked = self
            .guard
            .check_host(header(&request, "Host"))
            .and_then(|()| self.guard.check_origin(header(&request, "Origin")));
        if let Err(refused) = checked {
            return refuse(request, &refused, Value::Null);
        }
        if *request.method() == Method::Get {
            if let Some(document) = self.auth.as_ref().and_then(|auth| auth.metadata(&path)) {
                return respond::send(request, document);
            }
        }
        if path != self.path {
            let refused = Refusal::new(
                404,
                format!("no MCP endpoint at {path:?}; it is at {:?}", self.path),
            );
            return refuse(request, &refused, Value::Null);
        }
        let principal = match &self.auth {
            None => None,
            Some(auth) => {
                match auth.authenticate(request.url(), header(&request, "Authorization")) {
                    Ok(principal) => Some(principal),
                    Err(denied) => {
                        return respond::send(request, auth.challenge(&denied, Value::Null));
                    }
                }
            }
        };
        match request.method() {
            Method::Post => self.post(request, principal),
            Method::Get => self.get(request, principal.as_ref()),
            Method::Delete => self.delete(request, principal.as_ref()),
            _ => refuse(
                request,
                &Refusal::new(405, "use POST, GET or DELETE"),
                Value::Null,
            ),
        }
    }

    /// The session a request names, or the refusal to answer it with: none named (400), an
    /// unknown or ended one, or one another principal opened (404), an unsupported protocol
    /// version (400).
    fn session_of(
        &self,
        request: &Request,
        principal: Option<&Principal>,
    ) -> Result<Arc<Session>, Refusal> {
        let id = header(request, SESSION_HEADER).ok_or_else(|| {
            Refusal::new(
                400,
                format!("no {SESSION_HEADER} header: send initialize first"),
            )
        })?;
        let session = self.sessions.get(id, principal).ok_or_else(|| {
            Refusal::new(404, format!("no session {id:?} (it ended, or never began)"))
        })?;
        checks::check_protocol_version(header(request, "MCP-Protocol-Version"))?;
        session.touch();
        Ok(session)
    }

    fn post(self: &Arc<Self>, mut request: Request, principal: Option<Principal>) {
        if self.stopping.load(Ordering::SeqCst) {
            return refuse(
                request,
                &Refusal::new(503, "the gateway is shutting down"),
                Value::Null,
            );
        }
        if !checks::is_json(header(&request, "Content-Type")) {
            return refuse(
                request,
                &Refusal::new(415, "a POST's Content-Type must be application/json"),
                Value::Null,
            );
        }
        let (json, stream) = checks::accepts(header(&request, "Accept"));
        if !json && !stream {
            let refused = Refusal::new(
                406,
                "a POST must accept application/json or text/event-stream",
            );
            return refuse(request, &refused, Value::Null);
        }
        let Some(slot) = self.in_flight.take() else {
            let refused = Refusal::new(
                503,
                format!(
                    "{} requests are in flight already (--max-in-flight)",
                    self.in_flight.max()
                ),
            );
            return refuse(request, &refused, Value::Null);
        };
        let body = match self.read_body(&mut request) {
            Ok(body) => body,
            Err(refused) => return refuse(request, &refused, Value::Null),
        };
        let peek = match read_message(&body) {
            Ok(peek) => peek,
            Err((refused, id)) => return refuse(request, &refused, id),
        };
        let request_id = match peek.kind() {
            Kind::Request(id, _) => Some(id),
            _ => None,
        };
        let initialize = matches!(peek.kind(), Kind::Request(_, "initialize"));
        drop(peek);
        let session = if initialize && header(&request, SESSION_HEADER).is_none() {
            match self.sessions.start(principal) {
                Ok(session) => session,
                Err(StartError::Full(max)) => {
                    let refused = Refusal::new(
                        503,
                        format!("{max} sessions are open already (--max-sessions)"),
                    );
                    return refuse(request, &refused, id_value(request_id.as_ref()));
                }
                Err(StartError::Failed(err)) => {
                    let refused = Refusal::new(
                        500,
                        format!(
                            "cannot start a session: error[{}]: {}",
                            err.code(),
                            err.message()
                        ),
                    );
                    return refuse(request, &refused, id_value(request_id.as_ref()));
                }
            }
        } else {
            match self.session_of(&request, principal.as_ref()) {
                Ok(session) => session,
                Err(refused) => return refuse(request, &refused, id_value(request_id.as_ref())),
            }
        };
        let Some(id) = request_id else {
            // A notification or a response: the server gets it, the client gets 202.
            if let ClientAction::Forward {
                message,
                request: id,
            } = session.router.from_client(&body)
            {
                session.upstream.send(message, id);
            }
            drop(slot);
            return respond::send(request, respond::empty(202));
        };
        let progress = progress_token(&body);
        let version = if initialize {
            requested_version(&body)
        } else {
            session.router.protocol_version()
        };
        let prime = stream && primes(version.as_deref());
        let ended = || Refusal::new(404, "the session has ended");
        let Some(reader) = session.events.open_post() else {
            return refuse(request, &ended(), id.to_value());
        };
        let waited = session
            .dispatch
            .wait_for(&id, progress.as_ref(), stream, reader.stream());
        let order = match waited {
            Ok(order) => order,
            Err(WaitError::InFlight) => {
                reader.discard();
                let refused =
                    Refusal::new(400, "a request with this id is in flight in this session");
                return refuse(request, &refused, id.to_value());
            }
            Err(WaitError::Closed) => {
                reader.discard();
                return refuse(request, &ended(), id.to_value());
            }
        };
        if let ClientAction::Forward {
            message,
            request: forwarded,
        } = session.router.from_client(&body)
        {
            session.upstream.send(message, forwarded);
        }
        drop(body);
        let issued = initialize.then_some(session.id.as_str());
        let answered = answer(request, reader, &id, json && !prime, prime, issued, slot);
        if !answered.resumable {
            // Nobody can resume this answer: when it comes, it goes where unclaimed ones go.
            session.dispatch.forget(&id, order);
        }
        if initialize && !answered.result {
            // The client has no session to use or end: it ends here.
            self.sessions
                .end(&session.id, "the session's initialize failed (lro proxy)");
        }
    }

    /// The body, read up to `--max-body-bytes` (413 past it).
    fn read_body(&self, request: &mut Request) -> Result<Vec<u8>, Refusal> {
        let too_large = || {
            Refusal::new(
                413,
                format!(
                    "the request body is larger than {} bytes (--max-body-bytes)",
                    self.max_body
                ),
            )
        };
        if request
            .body_length()
            .is_some_and(|length| length > self.max_body)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        let limit = u64::try_from(self.max_body)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        request
            .as_reader()
            .take(limit)
            .read_to_end(&mut body)
            .map_err(|e| Refusal::new(400, format!("cannot read the request body: {e}")))?;
        if body.len() > self.max_body {
            return Err(too_large());
        }
        Ok(body)
    }

    fn get(self: &Arc<Self>, request: Request, principal: Option<&Principal>) {
        let session = match self.session_of(&request, principal) {
            Ok(session) => session,
            Err(refused) => return refuse(request, &refused, Value::Null),
        };
        if !checks::accepts(header(&request, "Accept")).1 {
            return refuse(
                request,
                &Refusal::new(406, "a GET must accept text/event-stream"),
                Value::Null,
            );
        }
        let last_event_id = header(&request, "Last-Event-ID");
        let opened = match last_event_id {
            Some(id) => session.events.resume(id),
            None => session.events.open_get(),
        };
        let reader = match opened {
            Ok(reader) => reader,
            Err(refused) => {
                let id = last_event_id.unwrap_or_default();
                let refused = match refused {
                    OpenError::Open => {
                        Refusal::new(409, "this session's GET stream is open already")
                    }
                    OpenError::Unknown => Refusal::new(
                        400,
                        format!("Last-Event-ID {id:?} names no event of this session"),
                    ),
                    OpenError::Gone => Refusal::new(
                        400,
                        format!(
                            "the events after Last-Event-ID {id:?} are no longer kept (a \
                             session keeps its {} latest events, {} bytes at most)",
                            super::events::MAX_EVENTS,
                            super::events::MAX_BYTES
                        ),
                    ),
                    OpenError::Closed => Refusal::new(404, "the session has ended"),
                };
                return refuse(request, &refused, Value::Null);
            }
        };
        let prime = primes(session.router.protocol_version().as_deref());
        drop(session);
        let Ok(mut events) = EventStream::open(request, None) else {
            return;
        };
        if prime && events.prime(reader.position(), RETRY).is_err() {
            return;
        }
        pump(events, reader, None);
    }

    fn delete(self: &Arc<Self>, request: Request, principal: Option<&Principal>) {
        let session = match self.session_of(&request, principal) {
            Ok(session) => session,
            Err(refused) => return refuse(request, &refused, Value::Null),
        };
        let ended = self.sessions.end(
            &session.id,
            "the client ended the session (HTTP DELETE) before the server answered (lro proxy)",
        );
        drop(session);
        if ended.is_some() {
            respond::send(request, respond::empty(200));
        } else {
            refuse(
                request,
                &Refusal::new(404, "the session has ended"),
                Value::Null,
            );
        }
    }
}

/// How a POST's answer went.
struct Answered {
    /// The answer was a result (not an error, nor missing), and was written.
    result: bool,
    /// The client holds an event id of the answer's stream: it may resume it.
    resumable: bool,
}

/// Answers a request's POST from its stream: with JSON when `json` and its answer comes
/// first, else with an event stream (a priming event first when `prime`), its answer last.
/// The in-flight `slot` is given back once the answer is there, before it is written.
fn answer(
    request: Request,
    mut reader: Reader,
    id: &IdKey,
    json: bool,
    prime: bool,
    issued: Option<&str>,
    slot: Slot<'_>,
) -> Answered {
    let lost = Answered {
        result: false,
        resumable: false,
    };
    if prime {
        let Ok(mut events) = EventStream::open(request, issued) else {
            return lost;
        };
        if events.prime(reader.position(), RETRY).is_err() {
            return lost;
        }
        return pump(events, reader, Some(slot));
    }
    let first = loop {
        match reader.next(KEEP_ALIVE) {
            Next::Event { id, message, last } => break (id, message, last),
            Next::Idle => {}
            Next::Ended | Next::Replaced | Next::Closed => {
                drop(slot);
                let refused = Refusal::new(503, "the session ended before the server answered");
                refuse(request, &refused, id.to_value());
                return lost;
            }
        }
    };
    let (event, message, last) = first;
    if json && last {
        drop(slot);
        reader.discard();
        let result = is_result(&message);
        // A session whose initialize failed is not one: no id is issued.
        let issued = issued.filter(|_| result);
        let body = Arc::try_unwrap(message).unwrap_or_else(|shared| shared.to_vec());
        respond::send(request, respond::json(200, body, issued));
        return Answered {
            result,
            resumable: false,
        };
    }
    let Ok(mut events) = EventStream::open(request, issued) else {
        return lost;
    };
    let mut slot = Some(slot);
    if last {
        slot.take();
    }
    if events.send(event, &message).is_err() {
        return lost;
    }
    reader.written(event.seq);
    if last {
        let sent = events.finish();
        return Answered {
            result: is_result(&message) && sent.is_ok(),
            resumable: true,
        };
    }
    pump(events, reader, slot)
}

/// Writes a stream's events as they come, until its last (a POST's answer), the session's
/// end, or another connection taking it over; `slot` is given back when the last is there.
fn pump(mut events: EventStream, mut reader: Reader, mut slot: Option<Slot<'_>>) -> Answered {
    loop {
        match reader.next(KEEP_ALIVE) {
            Next::Event { id, message, last } => {
                if last {
                    slot.take();
                }
                if events.send(id, &message).is_err() {
                    // The client left; the stream keeps what comes for its resumption.
                    break;
                }
                reader.written(id.seq);
                if last {
                    let sent = events.finish();
                    return Answered {
                        result: is_result(&message) && sent.is_ok(),
                        resumable: true,
                    };
                }
            }
            Next::Idle => {
                if events.keep_alive().is_err() {
                    break;
                }
            }
            Next::Ended | Next::Replaced | Next::Closed => {
                let _ = events.finish();
                break;
            }
        }
    }
    Answered {
        result: false,
        resumable: true,
    }
}

fn is_result(message: &[u8]) -> bool {
    Peek::parse(message).is_some_and(|p| p.result.is_some())
}

fn refuse(request: Request, refused: &Refusal, id: Value) {
    respond::send(request, respond::refusal(refused, id));
}

fn id_value(id: Option<&IdKey>) -> Value {
    id.map_or(Value::Null, IdKey::to_value)
}

/// The envelope of a POSTed message, or the refusal for a body that is none: not JSON
/// (-32700), a batch (removed from MCP in 2025-06-18) or not a JSON-RPC message (-32600).
fn read_message(body: &[u8]) -> Result<Peek<'_>, (Refusal, Value)> {
    let refused = |code: i64, message: &str| {
        let mut refusal = Refusal::new(400, message);
        refusal.code = code;
        (refusal, Value::Null)
    };
    let utf8 = std::str::from_utf8(body).is_ok();
    let Some(peek) = Peek::parse(body).filter(|_| utf8) else {
        return Err(
            if !utf8 || serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() {
                refused(jsonrpc::PARSE_ERROR, "parse error: the body is not JSON")
            } else if body.trim_ascii_start().starts_with(b"[") {
                refused(
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: batches are not supported (MCP removed them in 2025-06-18)",
                )
            } else {
                refused(
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: the body is not a JSON-RPC message",
                )
            },
        );
    };
    if let Kind::Invalid {
        id,
        request,
        reason,
    } = peek.kind()
    {
        let id = id
            .filter(|_| request)
            .map_or(Value::Null, |id| id.to_value());
        let mut refusal = Refusal::new(400, format!("invalid request: {reason}"));
        refusal.code = jsonrpc::INVALID_REQUEST;
        return Err((refusal, id));
    }
    Ok(peek)
}

/// The protocol version an `initialize` request asks for.
fn requested_version(body: &[u8]) -> Option<String> {
    let message: Value = serde_json::from_slice(body).ok()?;
    message
        .pointer("/params/protocolVersion")?
        .as_str()
        .map(str::to_owned)
}

/// A request's `params._meta.progressToken`, read only when the body names one.
fn progress_token(body: &[u8]) -> Option<Value> {
    memchr::memmem::find(body, b"progressToken")?;
    let message: Value = serde_json::from_slice(body).ok()?;
    message.pointer("/params/_meta/progressToken").cloned()
}
