//! One HTTP request to the gateway, as MCP's streamable HTTP transport (2025-11-25) has a
//! server answer it: POST carries one client message (a request is answered with JSON or an
//! event stream, a notification or response with `202`), GET opens the session's stream of
//! server messages, DELETE ends the session. `Host` and `Origin` are checked first, then the
//! session (`Mcp-Session-Id`, issued with the answer to `initialize`; 404 for one unknown or
//! ended) and `MCP-Protocol-Version`.

use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::Value;
use tiny_http::{Method, Request};

use super::checks::{self, Refusal};
use super::dispatch::{StreamError, WaitError};
use super::respond::{self, EventStream, SESSION_HEADER};
use super::session::{Session, StartError};
use super::{Gateway, Slot};
use crate::proxy::jsonrpc::{self, IdKey, Kind, Peek};
use crate::proxy::router::ClientAction;

/// How often an idle event stream gets a comment (a proxy in between may close a silent
/// connection; a client that left is found by the write failing).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

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
        if path != self.path {
            let refused = Refusal::new(
                404,
                format!("no MCP endpoint at {path:?}; it is at {:?}", self.path),
            );
            return refuse(request, &refused, Value::Null);
        }
        match request.method() {
            Method::Post => self.post(request),
            Method::Get => self.get(request),
            Method::Delete => self.delete(request),
            _ => refuse(
                request,
                &Refusal::new(405, "use POST, GET or DELETE"),
                Value::Null,
            ),
        }
    }

    /// The session a request names, or the refusal to answer it with: none named (400), an
    /// unknown or ended one (404), an unsupported protocol version (400).
    fn session_of(&self, request: &Request) -> Result<Arc<Session>, Refusal> {
        let id = header(request, SESSION_HEADER).ok_or_else(|| {
            Refusal::new(
                400,
                format!("no {SESSION_HEADER} header: send initialize first"),
            )
        })?;
        let session = self.sessions.get(id).ok_or_else(|| {
            Refusal::new(404, format!("no session {id:?} (it ended, or never began)"))
        })?;
        checks::check_protocol_version(header(request, "MCP-Protocol-Version"))?;
        session.touch();
        Ok(session)
    }

    fn post(self: &Arc<Self>, mut request: Request) {
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
            match self.sessions.start() {
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
            match self.session_of(&request) {
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
        let (answers, order) = match session.dispatch.wait_for(&id, progress.as_ref(), stream) {
            Ok(waiting) => waiting,
            Err(WaitError::InFlight) => {
                let refused =
                    Refusal::new(400, "a request with this id is in flight in this session");
                return refuse(request, &refused, id.to_value());
            }
            Err(WaitError::Closed) => {
                let refused = Refusal::new(404, "the session has ended");
                return refuse(request, &refused, id.to_value());
            }
        };
        let _waiting = Forget(&session, &id, order);
        if let ClientAction::Forward {
            message,
            request: forwarded,
        } = session.router.from_client(&body)
        {
            session.upstream.send(message, forwarded);
        }
        drop(body);
        let issued = initialize.then_some(session.id.as_str());
        let answered = answer(request, &answers, &id, json, issued, slot);
        if initialize && !answered {
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

    fn get(self: &Arc<Self>, request: Request) {
        let session = match self.session_of(&request) {
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
        let messages = match session.dispatch.open_stream() {
            Ok(messages) => messages,
            Err(StreamError::Open) => {
                return refuse(
                    request,
                    &Refusal::new(409, "this session's GET stream is open already"),
                    Value::Null,
                );
            }
            Err(StreamError::Closed) => {
                return refuse(
                    request,
                    &Refusal::new(404, "the session has ended"),
                    Value::Null,
                );
            }
        };
        drop(session);
        let Ok(mut events) = EventStream::open(request, None) else {
            return;
        };
        loop {
            let sent = match messages.recv_timeout(KEEP_ALIVE) {
                Ok(message) => events.send(&message),
                Err(RecvTimeoutError::Timeout) => events.keep_alive(),
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if sent.is_err() {
                return; // the client left; the dispatcher finds the stream gone
            }
        }
        let _ = events.finish();
    }

    fn delete(self: &Arc<Self>, request: Request) {
        let session = match self.session_of(&request) {
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

/// Answers a request's POST: with JSON when its answer comes first and the client takes
/// JSON, else with an event stream of what the session routed to it, its answer last. The
/// in-flight `slot` is given back once the answer is there, before it is written. Whether
/// the answer was a result (not an error, nor missing).
fn answer(
    request: Request,
    answers: &Receiver<Vec<u8>>,
    id: &IdKey,
    json: bool,
    issued: Option<&str>,
    slot: Slot<'_>,
) -> bool {
    let Ok(first) = answers.recv() else {
        drop(slot);
        let refused = Refusal::new(503, "the session ended before the server answered");
        refuse(request, &refused, id.to_value());
        return false;
    };
    if json && is_answer(&first, id) {
        drop(slot);
        let result = is_result(&first);
        // A session whose initialize failed is not one: no id is issued.
        let issued = issued.filter(|_| result);
        respond::send(request, respond::json(200, first, issued));
        return result;
    }
    let Ok(mut events) = EventStream::open(request, issued) else {
        return false;
    };
    let mut next = Some(first);
    while let Some(message) = next.take() {
        let last = is_answer(&message, id);
        if last {
            let result = is_result(&message);
            drop(slot);
            let sent = events.send(&message).and_then(|()| events.finish());
            return result && sent.is_ok();
        }
        if events.send(&message).is_err() {
            return false;
        }
        next = answers.recv().ok();
    }
    let _ = events.finish();
    false
}

fn is_result(message: &[u8]) -> bool {
    Peek::parse(message).is_some_and(|p| p.result.is_some())
}

fn is_answer(message: &[u8], id: &IdKey) -> bool {
    Peek::parse(message)
        .as_ref()
        .is_some_and(|p| matches!(p.kind(), Kind::Response(ref answered) if answered == id))
}

/// Removes a POST's route when it is done, however it ends.
struct Forget<'a>(&'a Session, &'a IdKey, u64);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.0.dispatch.forget(self.1, self.2);
    }
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

/// A request's `params._meta.progressToken`, read only when the body names one.
fn progress_token(body: &[u8]) -> Option<Value> {
    memchr::memmem::find(body, b"progressToken")?;
    let message: Value = serde_json::from_slice(body).ok()?;
    message.pointer("/params/_meta/progressToken").cloned()
}
