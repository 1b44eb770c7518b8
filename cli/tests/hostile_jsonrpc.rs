//! Hostile JSON-RPC through `lro proxy` ("JSON-RPC as the specification says"):
//! each case asserts the exact error the client receives, that nothing invalid reached the
//! server (the mock server records every line it reads), one answer per request id, and
//! that the proxy still answers `ping` afterwards. Then the client's EOF: the proxy exits
//! and its server is reaped, whatever the server does.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, text, wait_reaped};
use crate::support::raw_http::read_request;

/// The error object a client receives for `id`.
fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn started() -> Proxy {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    proxy
}

/// The proxy answers a `ping` (forwarded to the server) with its id, and nothing comes
/// before that answer.
fn answers_ping(proxy: &mut Proxy, id: i64) {
    proxy.request(json!(id), "ping", json!({}));
    assert_eq!(
        proxy.next(),
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    );
}

/// Every line the server has read so far (the `received` tool), as JSON values.
fn received(proxy: &mut Proxy, id: i64) -> Vec<Value> {
    let result = proxy.tool(id, "received", json!({}));
    let lines: Vec<String> = serde_json::from_str(text(&result)).unwrap();
    lines
        .iter()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("the server read a line that is not JSON ({e}): {line}"))
        })
        .collect()
}

/// Every line the server read is a JSON-RPC 2.0 message MCP allows.
fn all_valid(lines: &[Value]) {
    for message in lines {
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        let id_ok = message
            .get("id")
            .is_none_or(|id| id.is_string() || id.is_i64());
        assert!(id_ok, "{message}");
        match message.get("method") {
            Some(method) => assert!(method.is_string(), "{message}"),
            None => assert!(
                message.get("result").is_some() != message.get("error").is_some(),
                "{message}"
            ),
        }
    }
}

#[test]
fn lines_that_are_not_json_get_a_parse_error_with_a_null_id() {
    let mut proxy = started();
    let parse_error = error(
        Value::Null,
        -32700,
        "parse error: the message is not JSON (lro proxy)",
    );
    for line in [
        "this is {not json",
        "{\"jsonrpc\":\"2.0\",\"id\":1,",
        "{'jsonrpc': '2.0'}",
    ] {
        proxy.send_line(line);
        assert_eq!(proxy.next(), parse_error, "{line}");
    }
    answers_ping(&mut proxy, 2);
    let lines = received(&mut proxy, 3);
    all_valid(&lines);
    let stderr = proxy.stderr_containing(&["answering -32700"]);
    assert!(stderr.contains("answering -32700"), "{stderr}");
}

#[test]
fn json_that_is_no_message_gets_invalid_request_and_never_reaches_the_server() {
    let mut proxy = started();
    let invalid = |id: Value, reason: &str| {
        error(
            id,
            -32600,
            &format!("invalid request: {reason} (lro proxy)"),
        )
    };
    let not_an_object = invalid(Value::Null, "a message must be a JSON object");
    let cases = [
        ("123", not_an_object.clone()),
        ("\"str\"", not_an_object.clone()),
        ("null", not_an_object),
        (
            "[]",
            invalid(
                Value::Null,
                "batches are not supported (MCP removed JSON-RPC batching in 2025-06-18)",
            ),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":10,"method":"ping"}]"#,
            invalid(
                Value::Null,
                "batches are not supported (MCP removed JSON-RPC batching in 2025-06-18)",
            ),
        ),
        ("{}", invalid(Value::Null, r#""jsonrpc" must be "2.0""#)),
        (
            r#"{"jsonrpc":"1.0","id":11,"method":"ping"}"#,
            invalid(json!(11), r#""jsonrpc" must be "2.0""#),
        ),
        (
            r#"{"id":"twelve","method":"ping"}"#,
            invalid(json!("twelve"), r#""jsonrpc" must be "2.0""#),
        ),
        (
            r#"{"jsonrpc":"2.0","id":13,"method":7}"#,
            invalid(json!(13), r#""method" must be a string"#),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            invalid(
                Value::Null,
                r#""id" must be a string or an integer written as one, of 64 bits at most (MCP allows no null id)"#,
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            invalid(
                Value::Null,
                r#""id" must be a string or an integer written as one, of 64 bits at most (MCP allows no null id)"#,
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"ping","params":"x"}"#,
            invalid(json!(14), r#""params" must be an object or an array"#),
        ),
        (
            r#"{"jsonrpc":"2.0","id":15,"method":"ping","result":{}}"#,
            invalid(json!(15), r#"a request has no "result" or "error""#),
        ),
        (
            r#"{"jsonrpc":"2.0","id":16,"id":17,"method":"ping"}"#,
            invalid(
                Value::Null,
                "a field of the envelope is given twice or cannot be read",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
            invalid(
                Value::Null,
                "a response to no request (its id is not usable)",
            ),
        ),
    ];
    for (line, expected) in cases {
        proxy.send_line(line);
        assert_eq!(proxy.next(), expected, "{line}");
    }
    answers_ping(&mut proxy, 2);
    let lines = received(&mut proxy, 3);
    all_valid(&lines);
    // initialize, notifications/initialized, ping, and the call to `received`.
    assert_eq!(lines.len(), 4, "{lines:?}");
}

#[test]
fn an_unterminated_last_request_is_answered_then_the_proxy_exits_and_reaps_its_server() {
    let mut proxy = started();
    let pid: u32 = text(&proxy.tool(1, "pid", json!({}))).parse().unwrap();
    proxy.send_raw(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    proxy.close_stdin();
    assert_eq!(
        proxy.next(),
        json!({"jsonrpc": "2.0", "id": "last", "result": {}})
    );
    assert_eq!(proxy.wait(Duration::from_secs(20)).code(), Some(0));
    assert!(
        wait_reaped(pid, Duration::from_secs(5)),
        "server {pid} not reaped"
    );
}

#[test]
fn a_server_answering_twice_or_to_no_request_reaches_the_client_once() {
    let mut proxy = started();
    let first = proxy.tool(1, "answer_twice", json!({}));
    assert_eq!(text(&first), "first");
    // The second answer (sent before the server read the ping) would come first.
    answers_ping(&mut proxy, 2);
    proxy.request(
        json!(3),
        "tools/call",
        json!({"name": "answer_unknown", "arguments": {}}),
    );
    // The answers to "nobody" and to a null id are not passed on: the call's is next.
    let answered = proxy.next();
    assert_eq!(answered["id"], 3, "{answered}");
    assert_eq!(text(&answered["result"]), "answered");
    answers_ping(&mut proxy, 4);
    let stderr = proxy.stderr_containing(&[
        "dropping the server's answer to request 1: no request with this id",
        "dropping the server's answer to request \"nobody\"",
    ]);
    assert!(
        stderr.contains("dropping the server's answer to request 1: no request with this id"),
        "{stderr}"
    );
    assert!(
        stderr.contains("dropping the server's answer to request \"nobody\""),
        "{stderr}"
    );
}

#[test]
fn a_second_request_with_an_id_in_flight_is_refused_and_the_first_answered_once() {
    let mut proxy = started();
    proxy.request(
        json!(7),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 300, "n": 7}}),
    );
    proxy.request(json!(7), "ping", json!({}));
    assert_eq!(
        proxy.next(),
        error(
            json!(7),
            -32600,
            "invalid request: a request with this id is still in flight (lro proxy)"
        )
    );
    let answer = proxy.next();
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(text(&answer["result"]), "slow 7");
    answers_ping(&mut proxy, 8);
    // The server saw one request 7, the call.
    let lines = received(&mut proxy, 9);
    let sevens: Vec<&Value> = lines.iter().filter(|m| m["id"] == 7).collect();
    assert_eq!(sevens.len(), 1, "{sevens:?}");
    assert_eq!(sevens[0]["method"], "tools/call");
}

#[test]
fn the_client_answers_only_the_server_requests_and_each_once() {
    let mut proxy = started();
    proxy.request(
        json!(1),
        "tools/call",
        json!({"name": "ask_client", "arguments": {}}),
    );
    let (before, answer) = proxy.until_response(&json!(1));
    assert_eq!(text(&answer["result"]), "asked");
    assert_eq!(
        before,
        vec![json!({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list", "params": {}})]
    );
    let roots = json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"roots": []}});
    proxy.send(&roots);
    proxy.send(&roots);
    proxy.send(&json!({"jsonrpc": "2.0", "id": "srv-2", "result": {}}));
    answers_ping(&mut proxy, 2);
    let lines = received(&mut proxy, 3);
    all_valid(&lines);
    let responses: Vec<&Value> = lines.iter().filter(|m| m.get("method").is_none()).collect();
    assert_eq!(responses, vec![&roots], "{lines:?}");
    let note = "dropping a response from the client to no request of the server's (id \"srv-2\")";
    let stderr = proxy.stderr_containing(&[note]);
    assert!(stderr.contains(note), "{stderr}");
}

#[test]
fn what_the_server_sends_that_is_no_message_never_reaches_the_client() {
    let mut proxy = started();
    proxy.request(
        json!(1),
        "tools/call",
        json!({"name": "invalid_lines", "arguments": {}}),
    );
    let (before, answer) = proxy.until_response(&json!(1));
    assert_eq!(text(&answer["result"]), "after invalid lines");
    // Only the notification the server sent in a batch of one is passed on, on its own.
    assert_eq!(
        before,
        vec![json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "batched"}})]
    );
    // An answer that breaks the rules fails its call.
    let failed = proxy.call(
        2,
        "tools/call",
        json!({"name": "answer_invalid", "arguments": {}}),
    );
    assert_eq!(
        failed,
        error(
            json!(2),
            -32000,
            "the MCP server's answer is not valid JSON-RPC: a response has a result or an error, not both (lro proxy)"
        )
    );
    answers_ping(&mut proxy, 3);
}

/// The client's EOF while the server has stopped reading its stdin (and a megabyte of
/// messages waits for it): the proxy still sees the EOF, answers the call in flight, stops
/// the server (SIGTERM, or SIGKILL when it ignores that) and reaps it, and exits.
fn eof_with_a_server_that_stopped_reading(env: &[(&str, &str)], signal: &str) {
    let mut proxy = Proxy::start(&[], env);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    let pid: u32 = text(&proxy.tool(1, "pid", json!({}))).parse().unwrap();
    proxy.request(
        json!(2),
        "tools/call",
        json!({"name": "stop_reading", "arguments": {}}),
    );
    let pad = "x".repeat(1000);
    for _ in 0..1000 {
        proxy.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/noise", "params": {"pad": pad}}),
        );
    }
    proxy.close_stdin();
    let answer = proxy.next();
    assert_eq!(
        answer,
        error(
            json!(2),
            -32000,
            "the client closed its input before the server answered (lro proxy)"
        )
    );
    assert_eq!(proxy.wait(Duration::from_secs(30)).code(), Some(0));
    assert!(
        wait_reaped(pid, Duration::from_secs(5)),
        "server {pid} not reaped"
    );
    let stderr = proxy.stderr_containing(&[signal]);
    assert!(stderr.contains(signal), "{stderr}");
}

#[test]
fn on_eof_a_server_that_stopped_reading_is_terminated_and_reaped() {
    eof_with_a_server_that_stopped_reading(&[], "SIGTERM");
}

#[test]
fn on_eof_a_server_that_ignores_sigterm_is_killed_and_reaped() {
    eof_with_a_server_that_stopped_reading(&[("MOCK_IGNORE_TERM", "1")], "SIGKILL");
}

/// A streamable-HTTP MCP server in a few lines (HTTP/1.1, JSON bodies, an event stream for
/// one tool), recording every body POSTed to it (see [`http_answer`]).
struct HttpServer {
    url: String,
    received: std::sync::Arc<std::sync::Mutex<Vec<Value>>>,
}

impl HttpServer {
    fn start() -> Self {
        use std::io::{BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = std::sync::Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let record = std::sync::Arc::clone(&record);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut writer = stream;
                    while let Some(request) = read_request(&mut reader) {
                        let (status, content_type, answer) = if request.method() == "POST" {
                            let body = request.body;
                            let message: Value = serde_json::from_slice(&body)
                                .unwrap_or_else(|_| json!(String::from_utf8_lossy(&body)));
                            record.lock().unwrap().push(message.clone());
                            http_answer(&message)
                        } else {
                            ("405 Method Not Allowed", "application/json", String::new())
                        };
                        let response = format!(
                            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nMcp-Session-Id: s1\r\nContent-Length: {}\r\n\r\n{answer}",
                            answer.len()
                        );
                        if writer.write_all(response.as_bytes()).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Self { url, received }
    }

    fn received(&self) -> Vec<Value> {
        self.received.lock().unwrap().clone()
    }
}

/// The answer to a POSTed message: status, content type, body. `tools/call` of `long_sse`
/// and `long_json` answer with 3 MB of text (a `data:` line of an event stream, a JSON
/// body); any other tool with the batch of `twice`.
fn http_answer(message: &Value) -> (&'static str, &'static str, String) {
    const JSON: &str = "application/json";
    let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
        return ("202 Accepted", JSON, String::new());
    };
    let answer = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
    let long = || answer(json!({"content": [{"type": "text", "text": "a".repeat(3_000_000)}]}));
    let body = match (method, message["params"]["name"].as_str()) {
        ("initialize", _) => answer(json!({"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "http", "version": "1"}})),
        ("tools/call", Some("long_sse")) => {
            return (
                "200 OK",
                "text/event-stream",
                format!("data: {}\n\n", long()),
            );
        }
        ("tools/call", Some("long_json")) => long(),
        ("tools/call", _) => {
            let once = answer(json!({"content": [{"type": "text", "text": "once"}]}));
            json!([once, once, {"jsonrpc": "2.0", "id": "nobody", "result": {}}])
        }
        _ => answer(json!({})),
    };
    ("200 OK", JSON, body.to_string())
}

#[test]
fn through_url_nothing_invalid_reaches_the_server_and_each_request_is_answered_once() {
    let server = HttpServer::start();
    let mut proxy = Proxy::start_url(&server.url);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    for line in ["123", "[]", "{}", "not json"] {
        proxy.send_line(line);
        let answer = proxy.next();
        assert_eq!(answer["id"], Value::Null, "{line}: {answer}");
        assert!(
            [-32600, -32700].contains(&answer["error"]["code"].as_i64().unwrap()),
            "{line}: {answer}"
        );
    }
    let once = proxy.call(1, "tools/call", json!({"name": "twice", "arguments": {}}));
    assert_eq!(text(&once["result"]), "once");
    // Neither the second answer nor the one to "nobody" comes before the ping's.
    answers_ping(&mut proxy, 2);
    let received = server.received();
    all_valid(&received);
    let methods: Vec<&str> = received
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/call",
            "ping"
        ]
    );
}

/// A client message past `--max-client-message-bytes` is answered `-32600` (with its id
/// when it comes before the part cut off), never reaches the server, and the next message
/// is read: the proxy used to hold the whole line and abort on a 900 MB one.
#[test]
fn a_client_message_past_the_bound_is_refused_and_the_next_one_served() {
    let mut proxy = Proxy::start(&["--max-client-message-bytes", "1000000"], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    let long = "a".repeat(3_000_000);
    let too_long = "invalid request: the message is longer than 1000000 bytes, \
                    --max-client-message-bytes (lro proxy)";
    proxy.request(json!(2), "ping", json!({"x": long}));
    assert_eq!(proxy.next(), error(json!(2), -32600, too_long));
    // The id after the part cut off is not known: null.
    let id_last = json!({"jsonrpc": "2.0", "method": "ping", "params": {"x": long}, "id": 3});
    proxy.send(&id_last);
    assert_eq!(proxy.next(), error(Value::Null, -32600, too_long));
    answers_ping(&mut proxy, 4);
    let lines = received(&mut proxy, 5);
    let ids: Vec<&Value> = lines.iter().filter_map(|m| m.get("id")).collect();
    assert_eq!(ids, [&json!(0), &json!(4), &json!(5)], "{ids:?}");
    // At the bound exactly, a message is read.
    let mut fits = json!({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": {"x": ""}});
    let room = 1_000_000 - fits.to_string().len();
    fits["params"]["x"] = json!("b".repeat(room));
    proxy.send(&fits);
    assert_eq!(
        proxy.next(),
        json!({"jsonrpc": "2.0", "id": 6, "result": {}})
    );
}

/// The default bound, 64 MiB: a 70 MB message is refused with the proxy's memory near the
/// bound (it held the whole line before).
#[test]
fn the_default_client_bound_refuses_a_70_mb_message_in_bounded_memory() {
    let mut proxy = started();
    let mut line = br#"{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":""#.to_vec();
    line.resize(line.len() + 70_000_000, b'a');
    line.extend_from_slice(b"\"}}\n");
    proxy.send_raw(&line);
    drop(line);
    let answer = proxy.next();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "invalid request: the message is longer than 67108864 bytes, \
         --max-client-message-bytes (lro proxy)"
    );
    answers_ping(&mut proxy, 3);
    let peak = proxy.peak_rss();
    assert!(peak < 120 << 20, "peak RSS {peak} bytes");
}

/// An answer from the stdio server past `--max-server-message-bytes` fails its call with
/// `-32000` naming the bound, whether its id comes first (Python SDK) or last (TypeScript
/// SDK); a long line naming no id is read over and the call's answer after it passes.
#[test]
fn a_server_answer_past_the_bound_fails_its_call_and_the_proxy_goes_on() {
    let mut proxy = Proxy::start(&["--max-server-message-bytes", "1000000"], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    let too_long = "the MCP server's answer is longer than 1000000 bytes, \
                    --max-server-message-bytes (lro proxy)";
    for (id, order) in [(1, "id_first"), (2, "id_last")] {
        let params = json!({"name": "long_line", "arguments": {"mb": 3, "order": order}});
        let answer = proxy.call(id, "tools/call", params);
        assert_eq!(answer, error(json!(id), -32000, too_long), "{order}");
    }
    let after = proxy.tool(3, "long_line", json!({"mb": 3, "order": "no_id"}));
    assert_eq!(text(&after), "after the long line");
    answers_ping(&mut proxy, 4);
    let note = "dropping a message from the MCP server (longer than 1000000 bytes";
    let stderr = proxy.stderr_containing(&[note]);
    assert!(stderr.contains(note), "{stderr}");
}

/// An answer past the bound whose line never ends fails its call at once (its id is at its
/// start), not when the line ends or the call times out.
#[test]
fn a_server_answer_that_never_ends_fails_its_call_at_once() {
    let mut proxy = Proxy::start(&["--max-server-message-bytes", "1000000"], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    let params = json!({"name": "long_line", "arguments": {"mb": 3, "order": "unended"}});
    let answer = proxy.call(1, "tools/call", params);
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than 1000000 bytes"),
        "{answer}"
    );
}

/// Through `--url`: an event whose `data:` passes the bound, or a JSON body that does, fails
/// its call with `-32000` naming the bound (the stream is dropped), and the proxy goes on.
#[test]
fn through_url_an_answer_past_the_bound_fails_its_call_and_the_proxy_goes_on() {
    let server = HttpServer::start();
    let mut proxy = Proxy::start_url_with(&server.url, &["--max-server-message-bytes", "1000000"]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    let too_long = "the MCP server's answer is longer than 1000000 bytes, \
                    --max-server-message-bytes (lro proxy)";
    for (id, tool) in [(1, "long_sse"), (2, "long_json")] {
        let answer = proxy.call(id, "tools/call", json!({"name": tool, "arguments": {}}));
        assert_eq!(answer, error(json!(id), -32000, too_long), "{tool}");
    }
    answers_ping(&mut proxy, 3);
}

/// A number id is an integer written as one: `-0`, `1e0`, `1.0` and integers beyond 64 bits
/// are no ids (`-32600`, `id: null`, nothing forwarded), so two ids in flight that are equal
/// numbers are the same text, refused as a duplicate. With serde_json's
/// `arbitrary_precision`, `-0` and `0` were both in flight; the server (Python's json)
/// answered `0` to both, one request got the other's answer and the other timed out.
#[test]
fn numeric_ids_are_integers_written_as_such() {
    let mut proxy = started();
    for (n, id) in ["-0", "1e0", "1.0", "123456789012345678901234567890"]
        .iter()
        .enumerate()
    {
        proxy.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"n":{n}}}}}"#
        ));
        let refused = proxy.next();
        assert_eq!(refused["id"], Value::Null, "{id}: {refused}");
        assert_eq!(
            refused["error"]["message"],
            r#"invalid request: "id" must be a string or an integer written as one, of 64 bits at most (MCP allows no null id) (lro proxy)"#,
            "{id}"
        );
    }
    // `0` itself is an id, once: a second `0` in flight is refused.
    proxy.send_line(
        r#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"slow","arguments":{"ms":300,"n":0}}}"#,
    );
    proxy.send_line(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#);
    assert_eq!(
        proxy.next(),
        error(
            json!(0),
            -32600,
            "invalid request: a request with this id is still in flight (lro proxy)"
        )
    );
    let answer = proxy.next();
    assert_eq!(answer["id"], 0, "{answer}");
    assert_eq!(text(&answer["result"]), "slow 0");
    answers_ping(&mut proxy, 3);
    let lines = received(&mut proxy, 4);
    assert!(
        lines.iter().all(|m| m["params"].get("n").is_none()),
        "{lines:?}"
    );
}

/// A request the proxy must read but serde_json cannot (nested 130 levels deep, or holding a
/// lone surrogate) is answered `-32602` by the proxy: an `lro_extract` call used to be forwarded to a server that never
/// offered the tool, with the local file path. Nothing of it reaches the server.
#[test]
fn a_request_nested_too_deep_to_read_is_answered_not_forwarded() {
    let mut proxy = started();
    let deep = format!(
        "{}{{\"id\":1}}{}",
        "{\"$and\":[".repeat(130),
        "]}".repeat(130)
    );
    for (id, tool) in [(2, "lro_extract"), (3, "echo")] {
        proxy.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{"file_path":"/tmp/x.jsonl","count":true,"where":{deep}}}}}}}"#
        ));
        let answer = proxy.next();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(
                "invalid params: the proxy cannot read this request: it is nested deeper than 128 levels"
            ),
            "{message}"
        );
    }
    // A lone surrogate escape, which JSON's grammar allows and no string holds, is named as
    // such (serde_json says "unexpected end of hex escape", or "lone leading surrogate").
    for (id, escape) in [(6, r"\ud800"), (7, r"\udc00")] {
        proxy.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x{escape}"}}}}}}"#
        ));
        let answer = proxy.next();
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("it holds a lone UTF-16 surrogate escape"),
            "{message}"
        );
    }
    answers_ping(&mut proxy, 4);
    let lines = received(&mut proxy, 5);
    all_valid(&lines);
    assert!(
        lines
            .iter()
            .all(|m| m["method"] != "tools/call" || m["params"]["name"] == "received"),
        "{lines:?}"
    );
}

/// A credential in `--url` (`user:password@`, `?api_key=`) never reaches the client: the
/// error for a server out of reach shows the URL without its userinfo and its query.
#[test]
fn the_servers_url_is_shown_without_its_credentials() {
    // A port nothing listens on (taken, then freed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://user:SECRETPW@127.0.0.1:{port}/mcp?key=SECRETQ&x=1");
    let mut proxy = Proxy::start_url(&url);
    let response = proxy.call(
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "c", "version": "1"}}),
    );
    let message = response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{response}"));
    assert!(
        message.contains(&format!("http://127.0.0.1:{port}/mcp?...")),
        "{message}"
    );
    assert!(
        !message.contains("SECRET") && !message.contains("user"),
        "{message}"
    );
}
