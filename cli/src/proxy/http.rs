//! A remote MCP server over streamable HTTP (MCP 2025-03-26 and later): every client message
//! is POSTed; the answer is `application/json` or a `text/event-stream` of messages; the
//! session is the `Mcp-Session-Id` header of the `initialize` response; a GET stream carries
//! what the server sends on its own (requests and notifications outside a call).

use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

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

/// The remote server.
pub struct HttpUpstream {
    inner: Arc<Inner>,
}

struct Inner {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    /// The server's OAuth authorization, when it asks for one (not with an Authorization
    /// `--header`, which is the user's own).
    oauth: Option<Arc<OAuth>>,
    session: Mutex<Option<String>>,
    router: Arc<dyn Inbound>,
    in_flight: (Mutex<usize>, Condvar),
    listening: AtomicBool,
    closed: AtomicBool,
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
                headers,
                oauth,
                session: Mutex::new(None),
                router,
                in_flight: (Mutex::new(0), Condvar::new()),
                listening: AtomicBool::new(false),
                closed: AtomicBool::new(false),
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
        self.inner.closed.store(true, Ordering::SeqCst);
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
                "cannot authorize with the MCP server at {}: {err}",
                self.url
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
                        &format!("cannot reach the MCP server at {}: {err}", self.url),
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
                let received = |data| match request {
                    Some(id) => self.received_about(data, id),
                    None => self.received(data),
                };
                match sse::read_events(BufReader::new(body), max, received) {
                    Ok(sse::End::Done) => {}
                    // The connection is dropped with the reader: nothing more is read.
                    Ok(sse::End::TooLong(start)) => {
                        let why = self.router.server_message_too_long();
                        self.router
                            .server_message_dropped(&start, &[], request, &why);
                    }
                    Err(err) => note!("lro proxy: the MCP server's event stream broke: {err}"),
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

    fn fail(&self, request: Option<&IdKey>, reason: &str) {
        if let Some(id) = request {
            self.router
                .fail_request(id, &format!("{reason} (lro proxy)"));
        }
    }

    /// The GET stream of server-initiated messages, while the proxy runs. A server without
    /// one answers 405, and that is fine.
    fn listen(&self) {
        let mut failures = 0;
        let mut attempts = 0;
        while failures < LISTEN_ATTEMPTS && !self.closed.load(Ordering::SeqCst) {
            let (builder, bearer) = self.authorized(
                self.with_headers(self.agent.get(&self.url))
                    .header("Accept", "text/event-stream"),
            );
            let response = builder.call();
            if let Ok(response) = &response {
                match self.authorize_again(response, bearer.as_ref(), &mut attempts) {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(reason) => return note!("lro proxy: no event stream: {reason}"),
                }
            }
            match response {
                Ok(response) if response.status().as_u16() == 200 && is_event_stream(&response) => {
                    let opened = std::time::Instant::now();
                    let body = BufReader::new(response.into_body().into_reader());
                    let max = self.router.limits().server;
                    // A message past the bound drops the stream; the next one is opened.
                    if let Ok(sse::End::TooLong(start)) =
                        sse::read_events(body, max, |data| self.received(data))
                    {
                        let why = self.router.server_message_too_long();
                        self.router.server_message_dropped(&start, &[], None, &why);
                    }
                    // A stream that stays open a while was worth it; one closed at once counts as a failure.
                    failures = if opened.elapsed() > Duration::from_secs(10) {
                        0
                    } else {
                        failures + 1
                    };
                }
                Ok(_) => return, // 405 and friends: no stream offered
                Err(_) => failures += 1,
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    }
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
