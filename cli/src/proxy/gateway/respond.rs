//! The gateway's HTTP answers: JSON bodies, refusals with a JSON-RPC error, and event
//! streams written as they happen.
//!
//! tiny_http buffers a streamed body into 8 KiB chunks and never flushes between them, which
//! would hold an event back until more followed; an event stream is therefore written on the
//! connection itself ([`tiny_http::Request::into_writer`]): the head, then each event as one
//! HTTP chunk, flushed.

use std::io::{self, Cursor, Write};
use std::time::Duration;

use serde_json::Value;
use tiny_http::{Header, Request, Response};

use super::checks::Refusal;
use super::events::EventId;
use crate::proxy::jsonrpc;

/// The `Mcp-Session-Id` header.
pub const SESSION_HEADER: &str = "Mcp-Session-Id";

/// A header from its name and value; `None` for a value no header can hold.
pub fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// A response with `body` as `application/json`.
pub fn json(status: u16, body: Vec<u8>, session: Option<&str>) -> Response<Cursor<Vec<u8>>> {
    let mut response = Response::from_data(body).with_status_code(status);
    response.add_header(header("Content-Type", "application/json").expect("a valid header"));
    if let Some(header) = session.and_then(|id| header(SESSION_HEADER, id)) {
        response.add_header(header);
    }
    response
}

/// A refusal: its status, and a JSON-RPC error for `id` (`null` when the request had none
/// or was not read).
pub fn refusal(refused: &Refusal, id: Value) -> Response<Cursor<Vec<u8>>> {
    let body = jsonrpc::error_to(id, refused.code, &refused.message);
    let mut response = json(
        refused.status,
        serde_json::to_vec(&body).unwrap_or_default(),
        None,
    );
    if refused.status == 503 {
        response.add_header(header("Retry-After", "1").expect("a valid header"));
    }
    if refused.status == 405 {
        response.add_header(header("Allow", "GET, POST, DELETE").expect("a valid header"));
    }
    response
}

/// A refusal after which the connection is not to be used again (`Connection: close`): its
/// message's framing was ambiguous, so where the next request begins is too. tiny_http drops
/// a `Connection` header from a [`Response`], so this answer is written on the connection
/// itself.
pub fn refusal_closing(request: Request, refused: &Refusal) {
    let body = serde_json::to_vec(&jsonrpc::error_to(
        Value::Null,
        refused.code,
        &refused.message,
    ))
    .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        refused.status,
        tiny_http::StatusCode(refused.status).default_reason_phrase(),
        body.len()
    );
    let mut out = request.into_writer();
    // A client that went away is not worth a note.
    let _ = out
        .write_all(head.as_bytes())
        .and_then(|()| out.write_all(&body))
        .and_then(|()| out.flush());
}

/// An empty answer (`202 Accepted` for a notification or a response, `200` for a DELETE).
pub fn empty(status: u16) -> Response<io::Empty> {
    Response::empty(status)
}

/// Answers `request`, reporting a connection that failed (a client that went away is
/// not worth a note).
pub fn send<R: io::Read>(request: Request, response: Response<R>) {
    if let Err(err) = request.respond(response) {
        note!("lro proxy: cannot answer an HTTP request: {err}");
    }
}

/// A `text/event-stream` answer written as it goes.
pub struct EventStream {
    out: Box<dyn Write + Send>,
}

impl EventStream {
    /// Writes the head of a `200` event stream (with the session's id, when given).
    pub fn open(request: Request, session: Option<&str>) -> io::Result<Self> {
        let mut out = request.into_writer();
        let mut head = String::from(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
             Transfer-Encoding: chunked\r\n",
        );
        if let Some(id) = session {
            head.push_str(&format!("{SESSION_HEADER}: {id}\r\n"));
        }
        head.push_str("\r\n");
        out.write_all(head.as_bytes())?;
        out.flush()?;
        Ok(Self { out })
    }

    /// The priming event: `id` (where a resumption starts) and `retry` (how long a client
    /// waits before reconnecting), with empty data.
    pub fn prime(&mut self, id: EventId, retry: Duration) -> io::Result<()> {
        let event = format!("id: {id}\nretry: {}\ndata: \n\n", retry.as_millis());
        self.chunk(event.as_bytes())
    }

    /// Writes one message as a `message` event with its id.
    pub fn send(&mut self, id: EventId, message: &[u8]) -> io::Result<()> {
        let mut event = Vec::with_capacity(message.len() + 48);
        event.extend_from_slice(format!("id: {id}\nevent: message\n").as_bytes());
        for line in message.split(|&b| b == b'\n') {
            event.extend_from_slice(b"data: ");
            event.extend_from_slice(line.strip_suffix(b"\r").unwrap_or(line));
            event.push(b'\n');
        }
        event.push(b'\n');
        self.chunk(&event)
    }

    /// A comment line, which keeps the connection alive and finds a client that left.
    pub fn keep_alive(&mut self) -> io::Result<()> {
        self.chunk(b": keep-alive\n\n")
    }

    /// Ends the stream (the last, empty chunk).
    pub fn finish(mut self) -> io::Result<()> {
        self.out.write_all(b"0\r\n\r\n")?;
        self.out.flush()
    }

    fn chunk(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out
            .write_all(format!("{:x}\r\n", bytes.len()).as_bytes())?;
        self.out.write_all(bytes)?;
        self.out.write_all(b"\r\n")?;
        self.out.flush()
    }
}
