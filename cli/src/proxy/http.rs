//! A remote MCP server over streamable HTTP (MCP 2025-03-26 and later): every client message
//! is POSTed; the answer is `application/json` or a `text/event-stream` of messages; the
//! session is the `Mcp-Session-Id` header of the `initialize` response; a GET stream carries
//! what the server sends on its own (requests and notifications outside a call).
//!
//! A server may close an event stream before it has sent everything (MCP 2025-11-25,
//! "Resumability and redelivery"): a stream whose events carried ids is resumed with a GET
//! bearing `Last-Event-ID`, after the delay of its last `retry` field.

use std::io::{BufReader, Read};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use lro_core::{ErrorCode, LroError};
use serde_json::Value;

use crate::allocator;

use super::jsonrpc::{self, IdKey, Kind, Peek};
use super::oauth::{Bearer, OAuth, Refusal};
use super::sse;
use super::{Inbound, Upstream};

/// Longest wait, on exit, for calls still in flight.
const CLOSE_GRACE: Duration = Duration::from_secs(30);
/// Attempts to (re)open the GET stream before giving up on it.
const LISTEN_ATTEMPTS: u32 = 3;
/// Authorizations one request may start before its refusal is its answer: a step-up that
/// the authorization server never grants must not loop.
const MAX_AUTHORIZATIONS: u32 = 3;
/// Reconnections in a row that bring no new event before a call whose answer stream was
/// closed is failed. A reconnection that brings one starts the count again: a server may
/// close a long call's stream every so often (SEP-1699 polling), the call's timeout bounds that.
const RESUME_ATTEMPTS: u32 = 5;
/// The reconnection delay when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The shortest reconnection delay: a `retry: 0` must not make the proxy spin on a server
/// that closes every stream at once.
const MIN_RETRY: Duration = Duration::from_millis(100);

/// `--header "Name: value"` options as pairs.
pub fn parse_headers(options: &[String]) -> Result<Vec<(String, String)>, LroError> {
    options
        .iter()
        .map(|option| {
            let (name, value) = option
                .split_once(':')
                .filter(|(n, _)| !n.trim().is_empty())
                .ok_or_else(|| {
                    LroError::new(
                        ErrorCode::InvalidArgument,
                        format!("--header {option:?}: expected \"Name: value\""),
                    )
                })?;
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        })
        .collect()
}

/// `url` as messages show it: without its userinfo (`user:token@`) and fragment, and with
/// its query as `?...`, since any of them may hold a credential (`?api_key=...`) and the
/// messages reach the client (the agent, or any client of a gateway). The path is shown: a
/// secret there is the URL's own business, and without it the message says too little.
fn shown_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return "the --url given".to_owned();
    };
    // Neither fails for a URL with a host, which every URL the proxy reaches has.
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    if parsed.query().is_some() {
        parsed.set_query(Some("..."));
    }
    parsed.set_fragment(None);
    parsed.to_string()
}

/// The remote server.
pub struct HttpUpstream {
    inner: Arc<Inner>,
}

struct Inner {
    agent: ureq::Agent,
    url: String,
    /// `url` as messages show it ([`shown_url`]): they reach the client.
    shown: String,
    headers: Vec<(String, String)>,
    /// The server's OAuth authorization, when it asks for one (not with an Authorization
    /// `--header`, which is the user's own).
    oauth: Option<Arc<OAuth>>,
    session: Mutex<Option<String>>,
    router: Arc<dyn Inbound>,
    in_flight: (Mutex<usize>, Condvar),
    listening: AtomicBool,
    closed: AtomicBool,
    /// Wakes the reconnection waits when the proxy closes.
    closing: (Mutex<()>, Condvar),
}

impl HttpUpstream {
    /// A client of the streamable-HTTP endpoint at `url`.
    pub fn new(
        url: &str,
        headers: Vec<(String, String)>,
        oauth: Option<Arc<OAuth>>,
        router: Arc<dyn Inbound>,
    ) -> Self {
        let oauth = oauth.filter(|_| {
            !headers
                .iter()
                .any(|(name, _)| name.eq_ignore_ascii_case("authorization"))
        });
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .build()
            .into();
        Self {
            inner: Arc::new(Inner {
                agent,
                url: url.to_owned(),
                shown: shown_url(url),
                headers,
                oauth,
                session: Mutex::new(None),
                router,
                in_flight: (Mutex::new(0), Condvar::new()),
                listening: AtomicBool::new(false),
                closed: AtomicBool::new(false),
                closing: (Mutex::new(()), Condvar::new()),
            }),
        }
    }
}

impl Upstream for HttpUpstream {
    fn send(&self, message: Vec<u8>, request: Option<IdKey>) {
        let initialize = Peek::parse(&message)
            .is_some_and(|p| matches!(p.kind(), Kind::Request(_, "initialize")));
        self.inner.begin();
        match request {
            // Requests run side by side: a slow call must not hold up the others.
            Some(id) if !initialize => {
                let inner = Arc::clone(&self.inner);
                std::thread::spawn(move || {
                    inner.post(&message, Some(&id));
                    inner.end();
                });
            }
            // `initialize` (the session starts with its answer), notifications and responses
            // go in order, as the client sent them.
            request => {
                self.inner.post(&message, request.as_ref());
                self.inner.end();
                if initialize && !self.inner.listening.swap(true, Ordering::SeqCst) {
                    let inner = Arc::clone(&self.inner);
                    std::thread::spawn(move || inner.listen());
                }
            }
        }
    }

    fn close(&self) {
        let (count, idle) = &self.inner.in_flight;
        let guard = count
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = idle.wait_timeout_while(guard, CLOSE_GRACE, |n| *n > 0);
        self.end_now();
    }
}

impl HttpUpstream {
    /// Ends the session on the server without waiting for the calls in flight: for a
    /// client whose calls were all answered already (a gateway session that ended).
    pub fn end_now(&self) {
        self.inner.close_now();
        let session = self
            .inner
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(session) = session {
            // Ends the session on the server (a server may answer 405: it keeps it until expiry).
            let (builder, _) = self.inner.authorized(
                self.inner
                    .with_headers(self.inner.agent.delete(&self.inner.url)),
            );
            let _ = builder.header("Mcp-Session-Id", &session).call();
        }
    }
}

impl Inner {
    fn close_now(&self) {
        let _guard = self
            .closing
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.closed.store(true, Ordering::SeqCst);
        self.closing.1.notify_all();
    }

    /// Waits the reconnection delay `resume` asks for: false when the proxy closed meanwhile.
    fn wait_to_reconnect(&self, resume: &sse::Resume) -> bool {
        let guard = self
            .closing
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let delay = resume.retry.unwrap_or(DEFAULT_RETRY).max(MIN_RETRY);
        let _ = self
            .closing
            .1
            .wait_timeout_while(guard, delay, |()| !self.closed.load(Ordering::SeqCst));
        !self.closed.load(Ordering::SeqCst)
    }

    /// A GET of the event stream, resuming after event `last_event_id` when given, with the
    /// authorization the server asks for.
    fn get_stream(
        &self,
        last_event_id: Option<&str>,
    ) -> Result<ureq::http::Response<ureq::Body>, GetFailed> {
        let mut attempts = 0;
        loop {
            let mut builder = self
                .with_headers(self.agent.get(&self.url))
                .header("Accept", "text/event-stream");
            if let Some(id) = last_event_id {
                builder = builder.header("Last-Event-ID", id);
            }
            let (builder, bearer) = self.authorized(builder);
            let response = builder.call().map_err(|_| GetFailed::Unreachable)?;
            match self.authorize_again(&response, bearer.as_ref(), &mut attempts) {
                Ok(true) => {}
                Ok(false) => return Ok(response),
                Err(reason) => return Err(GetFailed::Unauthorized(reason)),
            }
        }
    }

    fn begin(&self) {
        *self
            .in_flight
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
    }

    fn end(&self) {
        let mut count = self
            .in_flight
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *count = count.saturating_sub(1);
        self.in_flight.1.notify_all();
    }

    fn with_headers<B>(&self, mut builder: ureq::RequestBuilder<B>) -> ureq::RequestBuilder<B> {
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        if let Some(session) = self
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_deref()
        {
            builder = builder.header("Mcp-Session-Id", session);
        }
        if let Some(version) = self.router.protocol_version() {
            builder = builder.header("MCP-Protocol-Version", version);
        }
        builder
    }

    /// The request with the OAuth token, if there is one, and which token it was.
    fn authorized<B>(
        &self,
        builder: ureq::RequestBuilder<B>,
    ) -> (ureq::RequestBuilder<B>, Option<Bearer>) {
        match self.oauth.as_ref().and_then(|oauth| oauth.bearer()) {
            Some(bearer) => (
                builder.header("Authorization", &bearer.header),
                Some(bearer),
            ),
            None => (builder, None),
        }
    }

    /// Whether a response refused for want of authorization (401, 403) should be sent again,
    /// now that a token that should pass is there (`Err`: why none could be had).
    fn authorize_again<B>(
        &self,
        response: &ureq::http::Response<B>,
        sent: Option<&Bearer>,
        attempts: &mut u32,
    ) -> Result<bool, String> {
        let status = response.status().as_u16();
        let Some(oauth) = self.oauth.as_ref().filter(|_| matches!(status, 401 | 403)) else {
            return Ok(false);
        };
        *attempts += 1;
        if *attempts > MAX_AUTHORIZATIONS {
            return Ok(false);
        }
        let challenges: Vec<&str> = response
            .headers()
            .get_all("www-authenticate")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        match oauth.refused(status, &challenges, sent) {
            Ok(Refusal::Retry) => Ok(true),
            Ok(Refusal::NotOurs) => Ok(false),
            Err(err) => Err(format!(
                "cannot authorize with the MCP server at {}: {}",
                self.shown,
                self.hide_url(&err.to_string())
            )),
        }
    }

    /// POSTs one message and delivers whatever comes back.
    fn post(&self, message: &[u8], request: Option<&IdKey>) {
        let mut attempts = 0;
        let response = loop {
            let (builder, bearer) = self.authorized(
                self.with_headers(self.agent.post(&self.url))
                    .header("Content-Type", "application/json")
                    .header("Accept", "application/json, text/event-stream"),
            );
            let response = match builder.send(message) {
                Ok(response) => response,
                Err(err) => {
                    return self.fail(
                        request,
                        &format!(
                            "cannot reach the MCP server at {}: {}",
                            self.shown,
                            self.hide_url(&err.to_string())
                        ),
                    );
                }
            };
            match self.authorize_again(&response, bearer.as_ref(), &mut attempts) {
                Ok(true) => continue,
                Ok(false) => break response,
                Err(reason) => {
                    if request.is_none() {
                        note!("lro proxy: {reason}");
                    }
                    return self.fail(request, &reason);
                }
            }
        };
        if let Some(session) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        {
            *self
                .session
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(session.to_owned());
        }
        let status = response.status().as_u16();
        let event_stream = is_event_stream(&response);
        let body = response.into_body().into_reader();
        match status {
            202 | 204 => {}
            200..=299 if event_stream => {
                let max = self.router.limits().server;
                let mut resume = sse::Resume::default();
                let received = |data: Vec<u8>| {
                    match request {
                        Some(id) => self.received_about(data, id),
                        None => self.received(data),
                    }
                    ControlFlow::Continue(())
                };
                let end = sse::read_events(BufReader::new(body), max, &mut resume, received);
                match (end, request) {
                    // The connection is dropped with the reader: nothing more is read.
                    (Ok(sse::End::TooLong(start)), _) => {
                        let why = self.router.server_message_too_long();
                        self.router
                            .server_message_dropped(&start, &[], request, &why);
                    }
                    // Closed (or dropped) before the answer, after an event with an id: the
                    // answer may come on a GET that resumes the stream.
                    (end, Some(id)) if resume.last_event_id.is_some() && self.router.awaits(id) => {
                        if let Err(err) = end {
                            note!("lro proxy: the MCP server's event stream broke: {err}");
                        }
                        self.resume(id, resume);
                    }
                    (Err(err), _) => {
                        note!("lro proxy: the MCP server's event stream broke: {err}");
                    }
                    (Ok(_), _) => {}
                }
            }
            200..=299 => {
                let max = self.router.limits().server;
                match read_all(body.take(u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1)))
                {
                    Ok(bytes) if bytes.len() > max => {
                        let why = self.router.server_message_too_long();
                        let start = &bytes[..bytes.len().min(1 << 20)];
                        self.router
                            .server_message_dropped(start, &[], request, &why);
                    }
                    Ok(bytes) => self.deliver(bytes),
                    Err(err) => note!("lro proxy: cannot read the MCP server's answer: {err}"),
                }
            }
            _ => {
                let text = read_all(body.take(64 * 1024)).unwrap_or_default();
                // A JSON-RPC error for the request is the best answer there is.
                if Peek::parse(&text).is_some_and(|p| matches!(p.kind(), Kind::Response(_))) {
                    self.router.on_server_message(text);
                } else {
                    let detail = if status == 404 {
                        " (the session has expired)".to_owned()
                    } else {
                        String::new()
                    };
                    let reason = format!(
                        "HTTP {status} from the MCP server{detail}: {}",
                        jsonrpc::excerpt(&text)
                    );
                    if request.is_none() {
                        note!("lro proxy: {reason}");
                    }
                    self.fail(request, &reason);
                }
            }
        }
        // A request whose stream ended without its answer gets an error (no-op if answered).
        self.fail(
            request,
            "the MCP server ended the response without answering",
        );
    }

    /// A JSON body: one message, or a batch of them.
    fn deliver(&self, bytes: Vec<u8>) {
        if bytes.trim_ascii_start().starts_with(b"[") {
            if let Ok(batch) = serde_json::from_slice::<Vec<Value>>(&bytes) {
                for message in batch {
                    self.router
                        .on_server_message(serde_json::to_vec(&message).unwrap_or_default());
                }
                return;
            }
        }
        self.received(bytes);
    }

    /// Hands a message to the router, once the memory reading a large one freed is given
    /// back (see [`allocator`]).
    fn received(&self, message: Vec<u8>) {
        if message.len() >= allocator::LARGE_MESSAGE {
            allocator::release_freed_memory();
        }
        self.router.on_server_message(message);
    }

    /// A message the server sent while answering request `about`.
    fn received_about(&self, message: Vec<u8>, about: &IdKey) {
        if message.len() >= allocator::LARGE_MESSAGE {
            allocator::release_freed_memory();
        }
        self.router.on_server_message_about(message, about);
    }

    /// `text` with the server's URL, wherever it appears (an error of the HTTP client may
    /// quote it), as messages show it.
    fn hide_url(&self, text: &str) -> String {
        text.replace(&self.url, &self.shown)
    }

    fn fail(&self, request: Option<&IdKey>, reason: &str) {
        if let Some(id) = request {
            self.router
                .fail_request(id, &format!("{reason} (lro proxy)"));
        }
    }

    /// Resumes the event stream of request `id`, closed before its answer, on GETs with
    /// `Last-Event-ID`: the server replays what came after that event, the answer among it.
    /// Each resumption stream is dropped once the answer is read; the call fails after
    /// [`RESUME_ATTEMPTS`] reconnections in a row that bring no new event.
    fn resume(&self, id: &IdKey, mut resume: sse::Resume) {
        let max = self.router.limits().server;
        let (mut attempts, mut fruitless) = (0, 0);
        while fruitless < RESUME_ATTEMPTS {
            attempts += 1;
            if !self.wait_to_reconnect(&resume) || !self.router.awaits(id) {
                return; // closing, or the call was answered, cancelled or timed out meanwhile
            }
            let before = resume.last_event_id.clone();
            match self.get_stream(before.as_deref()) {
                Ok(response) if response.status().as_u16() == 200 && is_event_stream(&response) => {
                    let body = BufReader::new(response.into_body().into_reader());
                    let end = sse::read_events(body, max, &mut resume, |data| {
                        self.received_about(data, id);
                        if self.router.awaits(id) {
                            ControlFlow::Continue(())
                        } else {
                            ControlFlow::Break(()) // answered: the stream is let go
                        }
                    });
                    match end {
                        Ok(sse::End::Stopped) => return,
                        Ok(sse::End::TooLong(start)) => {
                            let why = self.router.server_message_too_long();
                            return self
                                .router
                                .server_message_dropped(&start, &[], Some(id), &why);
                        }
                        Ok(sse::End::Done) | Err(_) => {}
                    }
                }
                // 405: the server offers no GET stream; 404: the session is gone. Asking
                // again cannot help.
                Ok(response) if matches!(response.status().as_u16(), 404 | 405) => {
                    let status = response.status().as_u16();
                    return self.fail(
                        Some(id),
                        &format!(
                            "the MCP server closed the call's event stream before answering, \
                             and its GET to resume it (Last-Event-ID) was refused with HTTP {status}"
                        ),
                    );
                }
                Err(GetFailed::Unauthorized(reason)) => return self.fail(Some(id), &reason),
                Ok(_) | Err(GetFailed::Unreachable) => {}
            }
            if resume.last_event_id.is_none() {
                break; // an empty id reset it: the stream cannot be resumed any further
            }
            fruitless = if resume.last_event_id == before {
                fruitless + 1
            } else {
                0
            };
        }
        self.fail(
            Some(id),
            &format!(
                "the MCP server closed the call's event stream before answering, and resuming \
                 it with Last-Event-ID brought no answer ({attempts} reconnections, the last \
                 {fruitless} with no new event)"
            ),
        );
    }

    /// The GET stream of server-initiated messages, while the proxy runs. A server without
    /// one answers 405, and that is fine. A stream the server closes is opened again after
    /// its `retry` delay, with `Last-Event-ID` when its events had ids.
    fn listen(&self) {
        let mut failures = 0;
        let mut resume = sse::Resume::default();
        while failures < LISTEN_ATTEMPTS && !self.closed.load(Ordering::SeqCst) {
            match self.get_stream(resume.last_event_id.as_deref()) {
                Ok(response) if response.status().as_u16() == 200 && is_event_stream(&response) => {
                    let opened = Instant::now();
                    let mut delivered = false;
                    let body = BufReader::new(response.into_body().into_reader());
                    let max = self.router.limits().server;
                    // A message past the bound drops the stream; the next one is opened.
                    if let Ok(sse::End::TooLong(start)) =
                        sse::read_events(body, max, &mut resume, |data| {
                            delivered = true;
                            self.received(data);
                            ControlFlow::Continue(())
                        })
                    {
                        let why = self.router.server_message_too_long();
                        self.router.server_message_dropped(&start, &[], None, &why);
                    }
                    // A stream that stays open a while, or brought messages, was worth it;
                    // one closed at once counts as a failure (a priming event is no message:
                    // a server that only primes and closes is not listened to for ever).
                    failures = if delivered || opened.elapsed() > Duration::from_secs(10) {
                        0
                    } else {
                        failures + 1
                    };
                }
                Ok(_) => return, // 405 and friends: no stream offered
                Err(GetFailed::Unauthorized(reason)) => {
                    return note!("lro proxy: no event stream: {reason}");
                }
                Err(GetFailed::Unreachable) => failures += 1,
            }
            if !self.wait_to_reconnect(&resume) {
                return;
            }
        }
    }
}

/// Why a GET of the event stream brought no response to read.
enum GetFailed {
    /// The server could not be reached.
    Unreachable,
    /// It wants an authorization the proxy cannot have (why).
    Unauthorized(String),
}

fn is_event_stream<B>(response: &ureq::http::Response<B>) -> bool {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
        })
}

fn read_all(mut body: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    body.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_credentials() {
        for (url, shown) in [
            ("https://a:b@host/mcp?key=s#f", "https://host/mcp?..."),
            ("http://token@127.0.0.1:9/x", "http://127.0.0.1:9/x"),
            ("https://host/mcp", "https://host/mcp"),
            ("not a url", "the --url given"),
        ] {
            assert_eq!(shown_url(url), shown, "{url}");
        }
    }

    #[test]
    fn headers_parse() {
        let parsed =
            parse_headers(&["Authorization: Bearer a:b".to_owned(), "X-Key:1".to_owned()]).unwrap();
        assert_eq!(
            parsed,
            vec![
                ("Authorization".into(), "Bearer a:b".into()),
                ("X-Key".into(), "1".into())
            ]
        );
        assert_eq!(
            parse_headers(&["nocolon".to_owned()])
                .unwrap_err()
                .code()
                .as_str(),
            "invalid_argument"
        );
        assert!(parse_headers(&[": v".to_owned()]).is_err());
    }
}
