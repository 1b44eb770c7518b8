//! Drives `lro proxy --listen 127.0.0.1:0` over HTTP, as a streamable-HTTP MCP client would,
//! in front of the mock server: the gateway prints the address it bound on stderr, and the
//! test reads it there (waiting for the line, not for a time).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Command;

use serde_json::{Value, json};

use super::TIMEOUT;
use super::proxy::{Proxy, mock_server};

/// A gateway process and its address.
pub struct Gateway {
    /// The process, its stderr and its offload directory.
    pub proxy: Proxy,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    agent: ureq::Agent,
    /// The bearer token every request carries, once set ([`Gateway::set_token`]).
    bearer: Option<String>,
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub session: Option<String>,
    pub content_type: String,
    /// The `WWW-Authenticate` challenge of a refusal.
    pub challenge: Option<String>,
    pub body: String,
}

impl Answer {
    /// The body as JSON, or the last message of an event stream.
    pub fn message(&self) -> Value {
        if self.content_type.starts_with("text/event-stream") {
            let last = events(&self.body)
                .pop()
                .unwrap_or_else(|| panic!("no event: {self:?}"));
            return last;
        }
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }
}

/// The messages of an event stream's text (priming events, with no data, carry none).
pub fn events(text: &str) -> Vec<Value> {
    sse_events(text)
        .into_iter()
        .filter_map(|event| event.message())
        .collect()
}

/// One event of an event stream: its fields.
#[derive(Debug, Default, Clone)]
pub struct Event {
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
}

impl Event {
    /// Its data as a message; `None` for a priming event (empty data).
    pub fn message(&self) -> Option<Value> {
        (!self.data.is_empty())
            .then(|| serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {self:?}")))
    }

    /// The stream its id names (`STREAM-SEQ`).
    pub fn stream(&self) -> &str {
        let id = self
            .id
            .as_deref()
            .unwrap_or_else(|| panic!("no id: {self:?}"));
        id.split('-').next().unwrap()
    }
}

/// The events of an event stream's text.
pub fn sse_events(text: &str) -> Vec<Event> {
    let mut lines = text.lines().map(|line| Ok(line.to_owned()));
    std::iter::from_fn(|| next_event(&mut lines)).collect()
}

/// The next event of a stream's lines; `None` at its end.
fn next_event(lines: &mut dyn Iterator<Item = std::io::Result<String>>) -> Option<Event> {
    let mut event = Event::default();
    let mut fields = false;
    let mut data: Vec<String> = Vec::new();
    loop {
        let line = match lines.next() {
            Some(Ok(line)) => line,
            _ => return fields.then(|| finish(event, data)),
        };
        if line.is_empty() {
            if fields {
                return Some(finish(event, data));
            }
            continue;
        }
        fields |= !line.starts_with(':');
        if let Some(id) = line.strip_prefix("id: ") {
            event.id = Some(id.to_owned());
        } else if let Some(retry) = line.strip_prefix("retry: ") {
            event.retry = Some(retry.parse().unwrap());
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
        }
    }
}

fn finish(mut event: Event, data: Vec<String>) -> Event {
    event.data = data.join("\n");
    event
}

/// An event stream read as it comes.
pub struct EventReader {
    lines: std::io::Lines<BufReader<Box<dyn Read>>>,
}

impl Iterator for EventReader {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        next_event(&mut self.lines)
    }
}

impl Gateway {
    /// `lro proxy --listen 127.0.0.1:0 --output-dir TMP EXTRA... -- python3 mock_server.py`.
    pub fn start(extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lro"));
        cmd.arg("proxy")
            .args(["--listen", "127.0.0.1:0", "--output-dir"])
            .arg(dir.path())
            .args(extra)
            .args(["--", "python3"])
            .arg(mock_server());
        let proxy = Proxy::spawn(cmd, dir);
        let stderr = proxy.stderr_containing(&["listening on http://"]);
        let rest = stderr.split("listening on http://").nth(1).unwrap();
        let addr = rest.split('/').next().unwrap().to_owned();
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(TIMEOUT))
            .build()
            .into();
        Self {
            proxy,
            addr,
            agent,
            bearer: None,
        }
    }

    /// Sends `token` as the bearer token of every request from now on (none: no
    /// `Authorization` header).
    pub fn set_token(&mut self, token: Option<&str>) {
        self.bearer = token.map(|t| format!("Bearer {t}"));
    }

    /// GETs `path` of the gateway (not the MCP endpoint), without a token.
    pub fn get_path(&self, path: &str) -> Answer {
        Self::answer(
            self.agent
                .get(format!("http://{}{path}", self.addr))
                .call()
                .unwrap(),
        )
    }

    /// The URIs of the offload files `resources/list` gives in `session`.
    pub fn offload_uris(&self, session: &str, id: i64) -> Vec<String> {
        let listed = self.call(session, id, "resources/list", json!({}));
        listed["result"]["resources"]
            .as_array()
            .unwrap_or_else(|| panic!("no resources: {listed}"))
            .iter()
            .filter_map(|r| r["uri"].as_str())
            .filter(|uri| uri.starts_with("lro://offloads/"))
            .map(str::to_owned)
            .collect()
    }

    /// The MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    fn answer(response: ureq::http::Response<ureq::Body>) -> Answer {
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let session = header("mcp-session-id");
        let content_type = header("content-type").unwrap_or_default();
        let challenge = header("www-authenticate");
        let status = response.status().as_u16();
        let body = response.into_body().read_to_string().unwrap();
        Answer {
            status,
            session,
            content_type,
            challenge,
            body,
        }
    }

    /// POSTs `message` with these headers (and JSON's content type).
    pub fn post_with(&self, message: &Value, headers: &[(&str, &str)]) -> Answer {
        let mut builder = self
            .agent
            .post(self.url())
            .header("Content-Type", "application/json");
        if let Some(bearer) = &self.bearer {
            builder = builder.header("Authorization", bearer);
        }
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        Self::answer(builder.send(message.to_string().as_bytes()).unwrap())
    }

    /// POSTs `message` in `session`, accepting JSON and event streams.
    pub fn post(&self, session: &str, message: &Value) -> Answer {
        self.post_with(
            message,
            &[
                ("Accept", "application/json, text/event-stream"),
                ("Mcp-Session-Id", session),
                ("MCP-Protocol-Version", "2025-11-25"),
            ],
        )
    }

    /// A request in `session`: its answer.
    pub fn call(&self, session: &str, id: i64, method: &str, params: Value) -> Value {
        let answer = self.post(
            session,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        assert_eq!(answer.status, 200, "{answer:?}");
        answer.message()
    }

    /// A tool call's result in `session`.
    pub fn tool(&self, session: &str, id: i64, name: &str, arguments: Value) -> Value {
        let answer = self.call(
            session,
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("no result: {answer}"))
    }

    /// Initializes a session and sends `notifications/initialized`: the session's id.
    pub fn initialize(&self) -> String {
        let answer = self.post_with(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "gateway-test", "version": "1"}}}),
            &[("Accept", "application/json, text/event-stream")],
        );
        assert_eq!(answer.status, 200, "{answer:?}");
        assert_eq!(answer.message()["result"]["serverInfo"]["name"], "mock");
        let session = answer.session.clone().expect("an Mcp-Session-Id");
        let initialized = self.post(
            &session,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert_eq!(initialized.status, 202, "{initialized:?}");
        session
    }

    /// DELETEs `session`.
    pub fn delete(&self, session: &str) -> Answer {
        let mut builder = self
            .agent
            .delete(self.url())
            .header("Mcp-Session-Id", session);
        if let Some(bearer) = &self.bearer {
            builder = builder.header("Authorization", bearer);
        }
        Self::answer(builder.call().unwrap())
    }

    /// Opens `session`'s GET stream: a reader of its events' messages.
    pub fn open_stream(&self, session: &str) -> Box<dyn Iterator<Item = Value>> {
        let events = self.get_events(session, None).expect("a GET stream");
        Box::new(events.filter_map(|event| event.message()))
    }

    /// GETs `session`'s stream (from `last_event_id`, when given): its events as they come,
    /// or the answer that refused it.
    pub fn get_events(
        &self,
        session: &str,
        last_event_id: Option<&str>,
    ) -> Result<EventReader, Answer> {
        let mut builder = self
            .agent
            .get(self.url())
            .header("Accept", "text/event-stream")
            .header("Mcp-Session-Id", session);
        if let Some(bearer) = &self.bearer {
            builder = builder.header("Authorization", bearer);
        }
        if let Some(id) = last_event_id {
            builder = builder.header("Last-Event-ID", id);
        }
        let response = builder.call().unwrap();
        if response.status().as_u16() != 200 {
            return Err(Self::answer(response));
        }
        let reader: Box<dyn Read> = Box::new(response.into_body().into_reader());
        Ok(EventReader {
            lines: BufReader::new(reader).lines(),
        })
    }

    /// POSTs a request in `session` taking only an event stream, on a connection of its
    /// own, reads the stream's first event (the priming one) and drops the connection:
    /// that event.
    pub fn post_and_leave(&self, session: &str, message: &Value) -> Event {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let body = message.to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\
             MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        // The head, then the first event, each its own chunk: read up to the event's end.
        let mut seen = Vec::new();
        let mut byte = [0u8];
        while !seen.ends_with(b"\n\n\r\n") || !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            stream.read_exact(&mut byte).unwrap();
            seen.push(byte[0]);
        }
        stream.shutdown(std::net::Shutdown::Both).unwrap();
        let text = String::from_utf8(seen).unwrap();
        let (head, chunk) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let event = chunk.split_once("\r\n").unwrap().1;
        sse_events(event).remove(0)
    }

    /// `GET /healthz`: the gateway's counts (`sessions`, `in_flight`).
    pub fn health(&self) -> Value {
        let (status, body) = self.raw(
            &format!("GET /healthz HTTP/1.1\r\nHost: {}", self.addr),
            b"",
        );
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// Sends `head` (request line and headers, without the blank line) and `body` as they
    /// are, on a connection of its own: the status and body of the answer. For the headers
    /// an HTTP client library sets itself (`Host`).
    pub fn raw(&self, head: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let request = format!(
            "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        // A refused body may be left unread: the answer comes first.
        let _ = stream.write_all(body);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status: {text}"));
        let body = text.split("\r\n\r\n").nth(1).unwrap_or_default().to_owned();
        (status, body)
    }
}
