//! `lro proxy --url` resuming event streams the server closes early (MCP 2025-11-25,
//! "Resumability and redelivery", SEP-1699): a call's answer stream closed (or dropped)
//! after an event with an id is resumed by a GET with `Last-Event-ID` once the `retry`
//! delay has passed, the answer routed from there and that stream let go; a bounded number
//! of fruitless reconnections fails the call; the GET listen stream reconnects the same way.
//! The server is scripted per test over raw HTTP/1.1, so each one closes streams as it says.

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::TIMEOUT;
use crate::support::proxy::Proxy;
use crate::support::raw_http::read_request;

/// One HTTP request the server read.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    headers: Vec<(String, String)>,
    body: Value,
    at: Instant,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn tool(&self) -> Option<&str> {
        (self.body["method"] == "tools/call")
            .then(|| self.body["params"]["name"].as_str())
            .flatten()
    }

    fn last_event_id(&self) -> Option<&str> {
        self.header("last-event-id")
    }
}

/// What the test sees of the server: each request as it is read, and each event stream
/// the server ended (`Closed`) or found ended by the proxy (`LetGo`).
#[derive(Debug)]
enum Seen {
    Request(Request),
    Closed(Instant),
    LetGo,
}

/// How a handler leaves the connection.
enum After {
    /// The response had a length: the connection takes the next request.
    KeepAlive,
    /// The response was an event stream: the connection is done.
    Done,
}

/// A streamable-HTTP server whose answers a test scripts: `initialize` and notifications
/// are answered here, every other request by the test's handler.
struct Server {
    url: String,
    seen: Receiver<Seen>,
}

type Handler = dyn Fn(&Request, &mut TcpStream, &Sender<Seen>) -> After + Send + Sync;

impl Server {
    fn start(
        handler: impl Fn(&Request, &mut TcpStream, &Sender<Seen>) -> After + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let (tx, seen) = mpsc::channel();
        let handler: Arc<Handler> = Arc::new(handler);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let (tx, handler) = (tx.clone(), Arc::clone(&handler));
                std::thread::spawn(move || serve(stream, &tx, &*handler));
            }
        });
        Self { url, seen }
    }

    fn next(&self) -> Seen {
        self.seen
            .recv_timeout(TIMEOUT)
            .expect("the server saw nothing more")
    }

    /// The next request the test's handler was asked about (`initialize` and
    /// notifications are skipped).
    fn next_request(&self) -> Request {
        loop {
            if let Seen::Request(request) = self.next() {
                if request.method == "GET" || request.tool().is_some() {
                    return request;
                }
            }
        }
    }
}

fn serve(stream: TcpStream, tx: &Sender<Seen>, handler: &Handler) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    while let Some(raw) = read_request(&mut reader) {
        let request = Request {
            method: raw.method().to_owned(),
            body: serde_json::from_slice(&raw.body).unwrap_or(Value::Null),
            headers: raw.headers,
            at: Instant::now(),
        };
        let _ = tx.send(Seen::Request(request.clone()));
        let after = match request.body["method"].as_str() {
            Some("initialize") => {
                let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "resuming", "version": "1"}});
                respond_json(&mut writer, &answer(&request.body["id"], result));
                After::KeepAlive
            }
            Some(_) if request.body.get("id").is_none() => {
                respond_json(&mut writer, &Value::Null);
                After::KeepAlive
            }
            _ => handler(&request, &mut writer, tx),
        };
        if let After::Done = after {
            return;
        }
    }
}

fn answer(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// A JSON body, or `202 Accepted` for `Value::Null`.
fn respond_json(stream: &mut TcpStream, body: &Value) {
    let (status, body) = match body {
        Value::Null => ("202 Accepted", String::new()),
        body => ("200 OK", body.to_string()),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nMcp-Session-Id: s1\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
}

fn respond_status(stream: &mut TcpStream, status: &str) -> After {
    let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n");
    After::KeepAlive
}

/// The head of an event stream that ends when the connection closes.
fn sse_head(stream: &mut TcpStream) {
    stream
        .write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s1\r\n\
              Connection: close\r\n\r\n",
        )
        .unwrap();
}

/// Ends an event stream gracefully, noting when.
fn close(stream: &mut TcpStream, tx: &Sender<Seen>) -> After {
    stream.flush().unwrap();
    let _ = tx.send(Seen::Closed(Instant::now()));
    let _ = stream.shutdown(std::net::Shutdown::Both);
    After::Done
}

/// Keeps an event stream open until the proxy lets it go (reads its end of the connection).
fn hold(stream: &mut TcpStream, tx: &Sender<Seen>) -> After {
    stream.flush().unwrap();
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    let _ = tx.send(Seen::LetGo);
    After::Done
}

fn started(server: &Server) -> Proxy {
    let mut proxy = Proxy::start_url(&server.url);
    proxy.initialize(json!({"name": "resume", "version": "1"}));
    proxy
}

fn call_tool(proxy: &mut Proxy, id: i64, name: &str) -> Value {
    proxy.call(id, "tools/call", json!({"name": name, "arguments": {}}))
}

/// Waits for a `Closed` from the server (the requests before it are skipped).
fn closed_at(server: &Server) -> Instant {
    loop {
        if let Seen::Closed(at) = server.next() {
            return at;
        }
    }
}

/// The call's stream: a priming event (id, `retry: 300`), a progress notification with a
/// newer id, then a graceful close. The resuming GET comes no sooner than 300 ms later, with
/// the newer id; the answer comes on it, and the proxy lets that stream go (the server
/// holds it open).
#[test]
fn a_call_stream_closed_early_is_resumed_after_retry_with_last_event_id() {
    let server = Server::start(|request, stream, tx| match request.method.as_str() {
        "GET" if request.last_event_id() == Some("e2") => {
            sse_head(stream);
            let result = answer(&json!(1), text_result("resumed"));
            write!(stream, "id: e3\ndata: {result}\n\n").unwrap();
            hold(stream, tx)
        }
        "GET" => respond_status(stream, "405 Method Not Allowed"),
        _ => {
            sse_head(stream);
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "working"}});
            write!(
                stream,
                "id: e1\nretry: 300\ndata: \n\nid: e2\ndata: {progress}\n\n"
            )
            .unwrap();
            close(stream, tx)
        }
    });
    let mut proxy = started(&server);
    proxy.request(
        json!(1),
        "tools/call",
        json!({"name": "slow", "arguments": {}}),
    );
    let closed = closed_at(&server);
    let get = loop {
        let request = server.next_request();
        if request.last_event_id().is_some() {
            break request;
        }
    };
    assert_eq!(get.last_event_id(), Some("e2"));
    let waited = get.at - closed;
    assert!(
        waited >= Duration::from_millis(300),
        "reconnected {waited:?} after the close, retry was 300 ms"
    );
    let (before, answer) = proxy.until_response(&json!(1));
    assert_eq!(before[0]["params"]["data"], "working", "{before:?}");
    assert_eq!(
        answer["result"]["content"][0]["text"], "resumed",
        "{answer}"
    );
    assert!(matches!(server.next(), Seen::LetGo));
}

/// A connection dropped mid-stream (a chunked body cut off) is resumed as a graceful close is.
#[test]
fn a_dropped_call_stream_is_resumed() {
    let server = Server::start(|request, stream, tx| match request.method.as_str() {
        "GET" if request.last_event_id() == Some("d1") => {
            sse_head(stream);
            let result = answer(&json!(7), text_result("after the drop"));
            write!(stream, "id: d2\ndata: {result}\n\n").unwrap();
            hold(stream, tx)
        }
        "GET" => respond_status(stream, "405 Method Not Allowed"),
        _ => {
            let event = "id: d1\nretry: 50\ndata: \n\n";
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s1\r\n\
                 Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{event}\r\n40\r\nid: d9",
                event.len()
            )
            .unwrap();
            close(stream, tx)
        }
    });
    let mut proxy = started(&server);
    let answer = call_tool(&mut proxy, 7, "drop");
    assert_eq!(
        answer["result"]["content"][0]["text"], "after the drop",
        "{answer}"
    );
}

/// Resuming GETs that bring nothing new (the server closes each at once) fail the call after
/// five of them, with an error saying so; the proxy goes on.
#[test]
fn fruitless_reconnections_fail_the_call_after_five() {
    let server = Server::start(|request, stream, tx| match request.method.as_str() {
        "GET" if request.last_event_id().is_some() => {
            sse_head(stream);
            stream.write_all(b": nothing new\n\n").unwrap();
            close(stream, tx)
        }
        "GET" => respond_status(stream, "405 Method Not Allowed"),
        _ if request.tool() == Some("gone") => {
            sse_head(stream);
            stream.write_all(b"id: g1\nretry: 10\ndata: \n\n").unwrap();
            close(stream, tx)
        }
        _ => {
            respond_json(stream, &answer(&request.body["id"], text_result("here")));
            After::KeepAlive
        }
    });
    let mut proxy = started(&server);
    let answer = call_tool(&mut proxy, 3, "gone");
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "the MCP server closed the call's event stream before answering, and resuming it with \
         Last-Event-ID brought no answer (5 reconnections, the last 5 with no new event) \
         (lro proxy)"
    );
    let mut resumptions = Vec::new();
    while let Ok(seen) = server.seen.try_recv() {
        if let Seen::Request(request) = seen {
            resumptions.extend(request.last_event_id().map(str::to_owned));
        }
    }
    assert_eq!(resumptions, vec!["g1"; 5]);
    let answer = call_tool(&mut proxy, 4, "other");
    assert_eq!(answer["result"]["content"][0]["text"], "here", "{answer}");
}

/// A stream that carried no event id cannot be resumed: the call fails at once, with no GET.
#[test]
fn a_stream_without_ids_is_not_resumed() {
    let server = Server::start(|request, stream, tx| match request.method.as_str() {
        "GET" => respond_status(stream, "405 Method Not Allowed"),
        _ => {
            sse_head(stream);
            stream.write_all(b"retry: 10\n: no ids here\n\n").unwrap();
            close(stream, tx)
        }
    });
    let mut proxy = started(&server);
    let answer = call_tool(&mut proxy, 5, "plain");
    assert_eq!(
        answer["error"]["message"],
        "the MCP server ended the response without answering (lro proxy)",
        "{answer}"
    );
    while let Ok(seen) = server.seen.try_recv() {
        if let Seen::Request(request) = seen {
            assert_eq!(request.last_event_id(), None, "{request:?}");
        }
    }
}

/// The GET listen stream, closed by the server, is opened again after its `retry` with
/// `Last-Event-ID`: what the server sends on the new stream reaches the client.
#[test]
fn the_listen_stream_reconnects_after_retry_with_last_event_id() {
    let notice = |n: i64| {
        json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": n}})
    };
    let server = Server::start(move |request, stream, tx| match request.last_event_id() {
        _ if request.method != "GET" => respond_status(stream, "400 Bad Request"),
        None => {
            sse_head(stream);
            write!(
                stream,
                "id: l1\nretry: 200\ndata: \n\nid: l2\ndata: {}\n\n",
                notice(1)
            )
            .unwrap();
            close(stream, tx)
        }
        Some(_) => {
            sse_head(stream);
            write!(stream, "id: l3\ndata: {}\n\n", notice(2)).unwrap();
            hold(stream, tx)
        }
    });
    let proxy = started(&server);
    assert_eq!(proxy.next()["params"]["data"], 1);
    let closed = closed_at(&server);
    let get = server.next_request();
    assert_eq!(get.last_event_id(), Some("l2"));
    let waited = get.at - closed;
    assert!(
        waited >= Duration::from_millis(200),
        "reconnected {waited:?} after the close, retry was 200 ms"
    );
    assert_eq!(proxy.next()["params"]["data"], 2);
}
