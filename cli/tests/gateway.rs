//! `lro proxy --listen`: the gateway over streamable HTTP in front of the mock server. A
//! session begins at initialize (its id in `Mcp-Session-Id`) and gets its own server
//! process and its own offload files; Host, Origin, body size, unknown sessions and protocol
//! versions are refused with their HTTP status and a JSON-RPC error; DELETE ends a session
//! and its server; SIGTERM answers what is in flight and exits 0.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TIMEOUT;
use crate::support::gateway::{Gateway, events, sse_events};
use crate::support::proxy::{descriptor, text, wait_reaped};

#[test]
fn a_session_offloads_lists_reads_and_extracts_its_results() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    assert_eq!(session.len(), 32, "{session}");
    let tools = gateway.call(&session, 1, "tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"lro_extract_mock"), "{names:?}");

    let small = gateway.tool(&session, 2, "echo", json!({"text": "hi"}));
    assert_eq!(text(&small), "hi");
    let big = gateway.tool(&session, 3, "records", json!({"count": 2000}));
    let found = descriptor(&big);
    assert_eq!(found["summary"]["count"], 2000, "{big}");
    let uri = found["resource_uri"].as_str().unwrap().to_owned();
    let file_path = found["file_path"].as_str().unwrap().to_owned();
    // The session's files are in a directory of their own, named by a hash of the session
    // id: the path the model sees does not give the session away.
    assert!(!file_path.contains(&session), "{file_path}");
    let hash = ring::digest::digest(&ring::digest::SHA256, session.as_bytes());
    let hex: String = hash.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let session_dir = gateway.proxy.dir.path().join(format!("s-{hex}"));
    assert!(
        std::path::Path::new(&file_path).starts_with(&session_dir),
        "{file_path} not in {}",
        session_dir.display()
    );
    assert_eq!(gateway.offload_uris(&session, 4), vec![uri.clone()]);
    let read = gateway.call(&session, 5, "resources/read", json!({"uri": uri}));
    let contents = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(contents.lines().count(), 2001, "a header and 2000 records");
    let extracted = gateway.tool(
        &session,
        6,
        "lro_extract_mock",
        json!({"file_path": file_path, "query": "select(.id == \"r1234\") | .label"}),
    );
    assert_ne!(extracted["isError"], true, "{extracted}");
    assert_eq!(
        text(&extracted).lines().next(),
        Some("\"record number 1234\""),
        "{extracted}"
    );
}

#[test]
fn a_session_never_sees_another_sessions_offloads() {
    let gateway = Gateway::start(&[]);
    let first = gateway.initialize();
    let second = gateway.initialize();
    assert_ne!(first, second);
    let found = descriptor(&gateway.tool(&first, 1, "records", json!({"count": 2000})));
    let uri = found["resource_uri"].as_str().unwrap().to_owned();
    let file_path = found["file_path"].as_str().unwrap().to_owned();
    assert_eq!(gateway.offload_uris(&first, 2), vec![uri.clone()]);

    assert_eq!(gateway.offload_uris(&second, 1), Vec::<String>::new());
    let read = gateway.call(&second, 2, "resources/read", json!({"uri": uri}));
    assert!(read.get("error").is_some(), "{read}");
    for path in [
        file_path.clone(),
        format!("../{}/{}", dir_name(&file_path), file_name(&file_path)),
    ] {
        let extracted = gateway.tool(
            &second,
            3,
            "lro_extract_mock",
            json!({"file_path": path, "query": "length"}),
        );
        assert_eq!(extracted["isError"], true, "{extracted}");
        assert!(
            text(&extracted).contains("path_denied") || text(&extracted).contains("not_found"),
            "{extracted}"
        );
    }
    // The first session still reads its own.
    let read = gateway.call(&first, 3, "resources/read", json!({"uri": uri}));
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap()
}

/// The name of the directory `path` is in.
fn dir_name(path: &str) -> &str {
    path.rsplit('/').nth(1).unwrap()
}

#[test]
fn bad_host_origin_size_session_and_version_are_refused() {
    let gateway = Gateway::start(&["--max-body-bytes", "1000"]);
    let session = gateway.initialize();
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    let head = |host: &str, extra: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}{extra}"
        )
    };
    let (status, _) = gateway.raw(&head(&gateway.addr, ""), ping.as_bytes());
    assert_eq!(status, 200);
    // DNS rebinding: a page of evil.example whose name now points at 127.0.0.1.
    let (status, body) = gateway.raw(&head("evil.example:80", ""), ping.as_bytes());
    assert_eq!(status, 403, "{body}");
    assert_eq!(error_code(&body), -32600, "{body}");
    let (status, body) = gateway.raw(
        &head(&gateway.addr, "\r\nOrigin: https://evil.example"),
        ping.as_bytes(),
    );
    assert_eq!(status, 403, "{body}");
    let (status, _) = gateway.raw(
        &head(&gateway.addr, "\r\nOrigin: http://localhost:5173"),
        ping.as_bytes(),
    );
    assert_eq!(status, 200);
    let big =
        json!({"jsonrpc": "2.0", "id": 10, "method": "ping", "params": {"pad": "x".repeat(2000)}});
    let (status, body) = gateway.raw(&head(&gateway.addr, ""), big.to_string().as_bytes());
    assert_eq!(status, 413, "{body}");
    assert_eq!(error_code(&body), -32600, "{body}");

    let unknown = gateway.post(
        &"0".repeat(32),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(unknown.status, 404, "{unknown:?}");
    let version = gateway.post_with(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        &[
            ("Accept", "application/json"),
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
    );
    assert_eq!(version.status, 400, "{version:?}");
    let missing = gateway.post_with(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        &[("Accept", "application/json")],
    );
    assert_eq!(missing.status, 400, "{missing:?}");
    let batch = gateway.post(
        &session,
        &json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
    );
    assert_eq!(batch.status, 400, "{batch:?}");
    assert_eq!(gateway.health()["sessions"], 1);
}

#[test]
fn ambiguous_framing_and_repeated_host_or_authorization_are_refused() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    // `raw` adds the true Content-Length; each case adds what a smuggler would.
    let head = |extra: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}{extra}",
            gateway.addr
        )
    };
    let (status, body) = gateway.raw(&head(""), ping.as_bytes());
    assert_eq!(status, 200, "{body}");
    for (extra, said) in [
        ("\r\nContent-Length: 5", "several Content-Length"),
        (
            "\r\nTransfer-Encoding: chunked",
            "both Content-Length and Transfer-Encoding",
        ),
        (
            "\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity",
            "several Transfer-Encoding",
        ),
        ("\r\nHost: 127.0.0.1", "several Host"),
        (
            "\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b",
            "several Authorization",
        ),
    ] {
        let (status, body) = gateway.raw(&head(extra), ping.as_bytes());
        assert_eq!(status, 400, "{extra:?}: {body}");
        assert_eq!(error_code(&body), -32600, "{extra:?}: {body}");
        assert!(body.contains(said), "{extra:?}: {body}");
    }
    // The session is untouched by what was refused.
    let (status, body) = gateway.raw(&head(""), ping.as_bytes());
    assert_eq!(status, 200, "{body}");
}

/// Writes `bytes` on a new connection and reads until the gateway closes it (the test fails
/// at TIMEOUT if it never does): everything the gateway answered on that connection.
fn answered_until_closed(gateway: &Gateway, bytes: &[u8], what: &str) -> String {
    let mut stream = TcpStream::connect(&gateway.addr).unwrap();
    stream.set_read_timeout(Some(TIMEOUT)).unwrap();
    // The gateway may close before reading all of it: that is an outcome, not a failure.
    let _ = stream.write_all(bytes);
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .unwrap_or_else(|e| panic!("{what}: the connection stayed open: {e}"));
    String::from_utf8_lossy(&answer).into_owned()
}

/// A body the gateway did not read to its end, or whose chunks did not decode, ends its
/// connection: the bytes after it are not a request. And no declared length, however large,
/// is allocated or read: `Content-Length: 2^50` with no body aborted the whole gateway (a
/// drain buffer the declared size), before any token was checked.
#[test]
fn a_body_not_read_to_its_end_ends_the_connection() {
    let gateway = Gateway::start(&[]);
    let smuggled = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", gateway.addr);
    let post = |version: &str, headers: &str, body: &str| {
        format!(
            "POST /mcp {version}\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{headers}\r\n{body}{smuggled}",
            gateway.addr
        )
    };
    for (what, request) in [
        (
            "a length of 2^50 with no body",
            post("HTTP/1.1", "Content-Length: 1125899906842624\r\n", ""),
        ),
        (
            "a length of 2^63",
            post("HTTP/1.1", "Content-Length: 9223372036854775808\r\n", ""),
        ),
        (
            "a length past 2^64",
            post("HTTP/1.1", "Content-Length: 18446744073709551616\r\n", ""),
        ),
        (
            "a chunk size that is not hexadecimal",
            post(
                "HTTP/1.1",
                "Transfer-Encoding: chunked\r\n",
                "zz\r\nab\r\n0\r\n\r\n",
            ),
        ),
        (
            "a chunk shorter than its size",
            post(
                "HTTP/1.1",
                "Transfer-Encoding: chunked\r\n",
                "5\r\nab\r\n0\r\n\r\n",
            ),
        ),
        (
            "a chunked body in HTTP/1.0",
            post(
                "HTTP/1.0",
                "Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n",
                "2\r\n{}\r\n0\r\n\r\n",
            ),
        ),
    ] {
        let answer = answered_until_closed(&gateway, request.as_bytes(), what);
        assert!(answer.starts_with("HTTP/1."), "{what}: {answer:?}");
        assert_eq!(answer.matches("HTTP/1.").count(), 1, "{what}: {answer}");
        assert!(!answer.contains("\"status\""), "{what}: {answer}");
    }
    // Alive, and answering.
    assert_eq!(gateway.health()["status"], "ok");
}

/// After refusing an ambiguous head the gateway reads nothing more from that connection: a
/// front proxy that took the other `Content-Length` (or the other `Host` or `Authorization`
/// line's meaning) sent the bytes after it as that request's body, and they must not run as a
/// request of their own. The connection closes after the 400, which says so.
#[test]
fn nothing_is_read_after_an_ambiguous_head() {
    let gateway = Gateway::start(&[]);
    let smuggled = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", gateway.addr);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n",
        gateway.addr
    );
    for extra in [
        format!(
            "Content-Length: 0\r\nContent-Length: {}\r\n",
            smuggled.len()
        ),
        "Authorization: Bearer a\r\nAuthorization: Bearer b\r\nContent-Length: 0\r\n".to_owned(),
        "Host: elsewhere\r\nContent-Length: 0\r\n".to_owned(),
    ] {
        let mut stream = TcpStream::connect(&gateway.addr).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        stream
            .write_all(format!("{head}{extra}\r\n{smuggled}").as_bytes())
            .unwrap();
        // Ends when the gateway closes the connection (or fails the test at TIMEOUT).
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .unwrap_or_else(|e| panic!("{extra:?}: the connection stayed open: {e}"));
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 400 "), "{extra:?}: {answer}");
        assert!(answer.contains("Connection: close"), "{extra:?}: {answer}");
        assert_eq!(
            answer.matches("HTTP/1.1 ").count(),
            1,
            "{extra:?}: {answer}"
        );
        assert!(!answer.contains("\"status\""), "{extra:?}: {answer}");
    }
}

fn error_code(body: &str) -> i64 {
    let message: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    message["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("{message}"))
}

#[test]
fn events_streams_carry_answers_progress_and_the_servers_requests() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    // A client that takes only event streams gets its answer as one.
    let only_events = gateway.post_with(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "streamed"}}}),
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
        ],
    );
    assert!(
        only_events.content_type.starts_with("text/event-stream"),
        "{only_events:?}"
    );
    assert_eq!(text(&only_events.message()["result"]), "streamed");
    // Progress comes on the call's own stream, before its answer.
    let progress = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": "p"}}}),
    );
    let messages = events(&progress.body);
    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        ["notifications/progress", "notifications/progress"],
        "{progress:?}"
    );
    assert_eq!(text(&messages.last().unwrap()["result"]), "done");
    // The server's own request, made while it works on a call, comes on that call's stream
    // (not on the GET stream, open meanwhile); the client's answer goes back by POST.
    let _stream = gateway.open_stream(&session);
    let asked = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "ask_client", "arguments": {}}}),
    );
    let messages = events(&asked.body);
    assert_eq!(messages.len(), 2, "{asked:?}");
    let request = &messages[0];
    assert_eq!(request["method"], "roots/list", "{request}");
    assert_eq!(text(&messages[1]["result"]), "asked");
    let reply = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": []}}),
    );
    assert_eq!(reply.status, 202, "{reply:?}");
    let received = gateway.tool(&session, 4, "received", json!({}));
    assert!(text(&received).contains("\\\"roots\\\""), "{received}");
}

/// The pid of `session`'s MCP server.
fn server_pid(gateway: &Gateway, session: &str, id: i64) -> u32 {
    text(&gateway.tool(session, id, "pid", json!({})))
        .parse()
        .unwrap()
}

#[test]
fn delete_ends_the_session_and_its_server() {
    let gateway = Gateway::start(&[]);
    let first = gateway.initialize();
    let second = gateway.initialize();
    let (one, two) = (
        server_pid(&gateway, &first, 1),
        server_pid(&gateway, &second, 1),
    );
    assert_ne!(one, two, "a server per session");
    let deleted = gateway.delete(&first);
    assert_eq!(deleted.status, 200, "{deleted:?}");
    assert!(
        wait_reaped(one, TIMEOUT),
        "the first session's server is still there"
    );
    let after = gateway.post(
        &first,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    );
    assert_eq!(after.status, 404, "{after:?}");
    assert_eq!(gateway.delete(&first).status, 404);
    // The other session goes on.
    assert_eq!(server_pid(&gateway, &second, 2), two);
}

#[test]
fn sigterm_answers_calls_in_flight_ends_servers_and_exits_zero() {
    let mut gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    let pid = server_pid(&gateway, &session, 1);
    let url = gateway.url();
    let slow = {
        let session = session.clone();
        std::thread::spawn(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into();
            agent
                .post(url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("Mcp-Session-Id", &session)
                .send(
                    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "hang", "arguments": {}}})
                    .to_string(),
                )
                .unwrap()
                .into_body()
                .read_to_string()
                .unwrap()
        })
    };
    // The call is in flight once the server has it.
    let received = loop {
        let seen = text(&gateway.tool(&session, 3, "received", json!({}))).to_owned();
        if seen.contains("hang") {
            break seen;
        }
    };
    assert!(received.contains("hang"));
    let killed = Command::new("kill")
        .args(["-TERM", &gateway.proxy.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let answer: Value = serde_json::from_str(&slow.join().unwrap()).unwrap();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    let status = gateway.proxy.wait(TIMEOUT);
    assert!(
        status.success(),
        "{status:?}; stderr: {}",
        gateway.proxy.stderr()
    );
    assert!(
        wait_reaped(pid, Duration::from_secs(10)),
        "the server is still there"
    );
}

/// The `initialize` request a client sends first.
fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "gateway-test", "version": "1"}}})
}

#[test]
fn sessions_and_requests_beyond_their_limits_get_503() {
    let gateway = Gateway::start(&["--max-sessions", "1", "--max-in-flight", "1"]);
    let session = gateway.initialize();
    let another = gateway.post_with(&initialize_request(), &[("Accept", "application/json")]);
    assert_eq!(another.status, 503, "{another:?}");
    assert_eq!(another.message()["error"]["code"], -32000, "{another:?}");
    assert!(another.session.is_none());

    // The refused request's handler gives its slot back after its answer is written: wait
    // for that, so that the one slot taken below can only be the held call's.
    while gateway.health()["in_flight"] != 0 {}
    // A call that never ends holds the one slot; the next request is refused until it ends.
    let url = gateway.url();
    let held = {
        let session = session.clone();
        std::thread::spawn(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .build()
                .into();
            agent
                .post(url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("Mcp-Session-Id", &session)
                .send(
                    json!({"jsonrpc": "2.0", "id": "held", "method": "tools/call",
                           "params": {"name": "hang", "arguments": {}}})
                    .to_string(),
                )
                .unwrap()
                .into_body()
                .read_to_string()
                .unwrap()
        })
    };
    // Asking the health endpoint takes no slot: wait there for the call to hold it.
    while gateway.health()["in_flight"] != 1 {}
    let refused = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(
        refused.status,
        503,
        "{refused:?}; stderr: {}",
        gateway.proxy.stderr()
    );
    assert_eq!(refused.message()["error"]["code"], -32000, "{refused:?}");
    // DELETE answers the held call; the slot and the session are free again.
    assert_eq!(gateway.delete(&session).status, 200);
    let answer: Value = serde_json::from_str(&held.join().unwrap()).unwrap();
    assert_eq!(answer["id"], "held", "{answer}");
    assert_eq!(answer["error"]["code"], -32000, "{answer}");
    gateway.initialize();
}

#[test]
fn an_idle_session_ends_with_its_server() {
    let gateway = Gateway::start(&["--session-idle-timeout", "1"]);
    let answer = gateway.post_with(&initialize_request(), &[("Accept", "application/json")]);
    let session = answer.session.expect("a session");
    gateway
        .proxy
        .stderr_containing(&[&format!("session {session} ended: idle for 1 s")]);
    let after = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    );
    assert_eq!(after.status, 404, "{after:?}");
}

#[test]
fn streams_begin_with_a_priming_event_and_every_event_has_an_id() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    let call = |id: i64, name: &str| {
        let answer = gateway.post(
            &session,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": name, "arguments": {}, "_meta": {"progressToken": id}}}),
        );
        assert!(
            answer.content_type.starts_with("text/event-stream"),
            "a client of 2025-11-25 that takes a stream gets one: {answer:?}"
        );
        sse_events(&answer.body)
    };
    let first = call(1, "progress");
    let priming = &first[0];
    assert!(priming.id.is_some() && priming.data.is_empty(), "{first:?}");
    assert!(priming.retry.is_some_and(|ms| ms > 0), "{first:?}");
    assert_eq!(
        first.len(),
        4,
        "priming, two progress, the answer: {first:?}"
    );
    assert_eq!(text(&first[3].message().unwrap()["result"]), "done");
    let mut ids: Vec<&str> = first.iter().map(|e| e.id.as_deref().unwrap()).collect();
    assert!(
        first.iter().all(|e| e.stream() == priming.stream()),
        "{first:?}"
    );
    // Another call: a stream of its own, ids unique in the session.
    let second = call(2, "echo");
    assert_ne!(second[0].stream(), priming.stream(), "{second:?}");
    ids.extend(second.iter().map(|e| e.id.as_deref().unwrap()));
    let unique: std::collections::HashSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
    // The GET stream primes too.
    let mut stream = gateway.get_events(&session, None).unwrap();
    let primed = stream.next().unwrap();
    assert!(
        primed.retry.is_some() && primed.data.is_empty(),
        "{primed:?}"
    );
    assert!(!ids.contains(&primed.id.as_deref().unwrap()), "{primed:?}");

    // An older client is never primed: its answer comes as JSON when it takes JSON.
    let older = gateway.post_with(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "gateway-test", "version": "1"}}}),
        &[("Accept", "application/json, text/event-stream")],
    );
    let older_session = older.session.clone().expect("a session");
    let answer = gateway.post_with(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        &[
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", &older_session),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
    );
    assert!(
        answer.content_type.starts_with("application/json"),
        "{answer:?}"
    );
}

#[test]
fn a_call_whose_connection_dropped_is_resumed_with_its_answer() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    // The client reads the priming event and loses its connection; the answer comes after.
    let priming = gateway.post_and_leave(
        &session,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "gate", "arguments": {}}}),
    );
    assert!(
        priming.retry.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );
    let opened = gateway.tool(&session, 2, "open_gate", json!({}));
    assert_eq!(text(&opened), "opened");
    // Resumed from the priming event's id: the answer, on the same stream, and the end.
    let resumed: Vec<_> = gateway
        .get_events(&session, priming.id.as_deref())
        .unwrap()
        .filter(|event| !event.data.is_empty())
        .collect();
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    let answer = resumed[0].message().unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(text(&answer["result"]), "through the gate");
    assert_eq!(resumed[0].stream(), priming.stream());
    // From the answer's own id, nothing is left: the stream just ends.
    let after: Vec<_> = gateway
        .get_events(&session, resumed[0].id.as_deref())
        .unwrap()
        .filter(|event| !event.data.is_empty())
        .collect();
    assert!(after.is_empty(), "{after:?}");
}

#[test]
fn an_unknown_last_event_id_is_refused() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    let known = gateway.post_and_leave(
        &session,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x"}}}),
    );
    let stream = known.stream().to_owned();
    // Not an id, a stream never opened, an event not yet sent on a stream that is.
    for id in ["nonsense", "999-1", &format!("{stream}-999")] {
        let refused = gateway.get_events(&session, Some(id)).err().expect(id);
        assert_eq!(refused.status, 400, "{id}: {refused:?}");
        let message = refused.message();
        assert_eq!(message["error"]["code"], -32600, "{message}");
        let said = message["error"]["message"].as_str().unwrap();
        assert!(said.contains("Last-Event-ID"), "{said}");
    }
    let resumed: Vec<_> = gateway
        .get_events(&session, known.id.as_deref())
        .unwrap()
        .filter_map(|event| event.message())
        .collect();
    assert_eq!(text(&resumed[0]["result"]), "x", "{resumed:?}");
}

#[test]
fn a_burst_of_connections_held_open_is_answered_every_one() {
    // Fifty clients connect at once and keep their connections open (keep-alive, as MCP
    // clients do). Each must be answered while all the others are still open: a pool that
    // queued the burst behind one thread answered the rest only when a connection closed.
    let gateway = Gateway::start(&[]);
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", gateway.addr);
    let mut clients: Vec<TcpStream> = (0..50)
        .map(|_| TcpStream::connect(&gateway.addr).unwrap())
        .collect();
    for client in &mut clients {
        client.write_all(request.as_bytes()).unwrap();
    }
    for (i, client) in clients.iter_mut().enumerate() {
        // Bounded only so that a regression fails instead of hanging the suite.
        client
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut head = [0u8; 12];
        client
            .read_exact(&mut head)
            .unwrap_or_else(|e| panic!("client {i} got no answer: {e}"));
        assert_eq!(&head, b"HTTP/1.1 200", "client {i}");
    }
    // The fifty are open still, and the gateway counts them.
    let health = gateway.health();
    assert!(health["connections"].as_u64().unwrap() >= 50, "{health}");
}

#[test]
fn a_request_head_past_its_bound_gets_431_and_the_gateway_goes_on() {
    // 64 KiB of request line and headers at most: a header line of 200 KB is not buffered
    // whole (a few such lines of hundreds of MB each once filled the memory).
    let gateway = Gateway::start(&[]);
    let mut client = TcpStream::connect(&gateway.addr).unwrap();
    client.set_read_timeout(Some(TIMEOUT)).unwrap();
    let head = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\nX-Big: ", gateway.addr);
    client.write_all(head.as_bytes()).unwrap();
    // The gateway may close the connection before all of it is written.
    let _ = client.write_all(&vec![b'a'; 200 * 1024]);
    let mut answer = [0u8; 12];
    client.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 431");
    assert_eq!(gateway.health()["status"], "ok");
}

#[test]
fn connections_past_the_bound_are_closed_and_the_gateway_serves_again_once_they_go() {
    // Idle connections (no byte sent) once took a thread and two descriptors each, without
    // bound, until the gateway could accept none and exited. Past 256 open connections a new
    // one is closed at once; the gateway keeps running and serves as soon as some close.
    let gateway = Gateway::start(&[]);
    let idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&gateway.addr).unwrap())
        .collect();
    let mut one_more = TcpStream::connect(&gateway.addr).unwrap();
    one_more.set_read_timeout(Some(TIMEOUT)).unwrap();
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", gateway.addr);
    let _ = one_more.write_all(request.as_bytes());
    let mut answer = Vec::new();
    // Closed unanswered: end of stream, or a reset.
    let _ = one_more.read_to_end(&mut answer);
    assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    drop(idle);
    assert_eq!(gateway.health()["status"], "ok");
}
