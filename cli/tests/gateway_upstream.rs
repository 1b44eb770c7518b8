//! `lro proxy --listen` and the server behind it: cancellation and progress through the
//! gateway, and `--upstream shared`, where one mock server serves every session: request
//! ids and progress tokens the sessions share are renumbered at the server, each answer
//! goes back to its own session, cancellations name the server's id, a session's end
//! cancels its calls there without ending the server, the server's own requests reach the
//! session it is working for, and its exit ends every session.

use serde_json::{Value, json};

use crate::support::TIMEOUT;
use crate::support::gateway::{Gateway, events};
use crate::support::proxy::text;

/// A tool call in `session`, from a client of its own (the gateway's handle is not shared
/// between threads): every message of its answer, the answer last.
fn call_alone(url: &str, session: &str, id: i64, name: &str, params: Value) -> Vec<Value> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(TIMEOUT))
        .build()
        .into();
    let mut params = params;
    params["name"] = json!(name);
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let mut response = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send(message.to_string().as_bytes())
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    events(&response.body_mut().read_to_string().unwrap())
}

/// The request ids the server has seen cancelled, as `session` asks it.
fn cancelled_at_server(gateway: &Gateway, session: &str, id: i64) -> Value {
    serde_json::from_str(text(&gateway.tool(session, id, "cancelled", json!({})))).unwrap()
}

#[test]
fn a_clients_cancellation_reaches_its_server_with_the_calls_id() {
    let gateway = Gateway::start(&[]);
    let session = gateway.initialize();
    // The client leaves the call (holding its stream's first event id), then cancels it.
    gateway.post_and_leave(
        &session,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                "params": {"name": "hang", "arguments": {}}}),
    );
    let cancel = gateway.post(
        &session,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 5, "reason": "the user pressed stop"}}),
    );
    assert_eq!(cancel.status, 202, "{cancel:?}");
    assert_eq!(cancelled_at_server(&gateway, &session, 6), json!([5]));
}

#[test]
fn shared_sessions_get_their_own_answers_from_one_server() {
    let gateway = Gateway::start(&["--upstream", "shared"]);
    let sessions: Vec<String> = (0..3).map(|_| gateway.initialize()).collect();
    let pids: Vec<String> = sessions
        .iter()
        .map(|session| text(&gateway.tool(session, 1, "pid", json!({}))).to_owned())
        .collect();
    assert!(
        pids.iter().all(|pid| *pid == pids[0]),
        "one server: {pids:?}"
    );
    // The three call at once, with the same ids: the server sees them renumbered, each
    // answer goes to its own session; the slowest session's first answer comes last.
    let url = gateway.url();
    std::thread::scope(|scope| {
        for (n, session) in sessions.iter().enumerate() {
            let url = url.as_str();
            scope.spawn(move || {
                for round in 0..5 {
                    let ms = 30 * (3 - n);
                    let mark = format!("{n}-{round}");
                    let messages = call_alone(
                        url,
                        session,
                        10 + round,
                        "slow",
                        json!({"arguments": {"ms": ms, "n": mark}}),
                    );
                    let answer = messages.last().unwrap();
                    assert_eq!(answer["id"], 10 + round, "{messages:?}");
                    assert_eq!(text(&answer["result"]), format!("slow {mark}"));
                }
            });
        }
    });
    // Progress with the same token in two sessions at once: each hears its own, under its
    // own token.
    std::thread::scope(|scope| {
        for session in &sessions[..2] {
            let url = url.as_str();
            scope.spawn(move || {
                let messages = call_alone(
                    url,
                    session,
                    20,
                    "progress_slow",
                    json!({"arguments": {"steps": 2, "ms": 100}, "_meta": {"progressToken": "p"}}),
                );
                let progress: Vec<&Value> = messages
                    .iter()
                    .filter(|m| m["method"] == "notifications/progress")
                    .collect();
                assert_eq!(progress.len(), 2, "{messages:?}");
                assert!(progress.iter().all(|p| p["params"]["progressToken"] == "p"));
                assert_eq!(text(&messages.last().unwrap()["result"]), "worked");
            });
        }
    });
    let health = gateway.health();
    assert_eq!(health["sessions"], 3, "{health}");
}

#[test]
fn a_shared_servers_cancellations_name_its_own_ids_and_outlive_sessions() {
    let gateway = Gateway::start(&["--upstream", "shared"]);
    let first = gateway.initialize();
    let second = gateway.initialize();
    // Both sessions have a request 7 in flight. The server numbers requests as they come:
    // 1 was the first session's initialize (the second got the same answer), so the
    // first session's 7 is the server's 2 and the second's is 3.
    for session in [&first, &second] {
        gateway.post_and_leave(
            session,
            &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "hang", "arguments": {}}}),
        );
    }
    let cancel = gateway.post(
        &second,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 7}}),
    );
    assert_eq!(cancel.status, 202, "{cancel:?}");
    // (This call is the server's 4.)
    assert_eq!(cancelled_at_server(&gateway, &second, 8), json!([3]));
    let pid = text(&gateway.tool(&second, 9, "pid", json!({}))).to_owned();
    // The first session ends: its call in flight is cancelled at the server, which stays.
    assert_eq!(gateway.delete(&first).status, 200);
    assert_eq!(cancelled_at_server(&gateway, &second, 10), json!([3, 2]));
    assert_eq!(text(&gateway.tool(&second, 11, "pid", json!({}))), pid);
    // A session begun later is answered by the same server.
    let third = gateway.initialize();
    assert_eq!(text(&gateway.tool(&third, 1, "pid", json!({}))), pid);
}

#[test]
fn a_shared_servers_requests_reach_the_caller_and_its_exit_ends_every_session() {
    let gateway = Gateway::start(&["--upstream", "shared"]);
    let first = gateway.initialize();
    let second = gateway.initialize();
    let pid = text(&gateway.tool(&first, 1, "pid", json!({}))).to_owned();
    // The server asks for roots while working on the second session's call: the question
    // comes on that call's stream, and the second session's answer reaches the server.
    let asked = gateway.post(
        &second,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "ask_client", "arguments": {}}}),
    );
    let messages = events(&asked.body);
    assert_eq!(messages[0]["method"], "roots/list", "{asked:?}");
    let reply = gateway.post(
        &second,
        &json!({"jsonrpc": "2.0", "id": messages[0]["id"], "result": {"roots": []}}),
    );
    assert_eq!(reply.status, 202, "{reply:?}");
    let received = gateway.tool(&second, 2, "received", json!({}));
    assert!(
        text(&received).contains(r#"\"id\":\"srv-1\",\"result\":{\"roots\":[]}"#),
        "{received}"
    );
    // The server exits: the call gets an error, both sessions end, and the next session
    // starts another server.
    let died = gateway.call(
        &first,
        2,
        "tools/call",
        json!({"name": "die", "arguments": {}}),
    );
    assert_eq!(died["error"]["code"], -32000, "{died}");
    gateway.proxy.stderr_containing(&[
        &format!("session {first} ended: its MCP server stopped"),
        &format!("session {second} ended: its MCP server stopped"),
    ]);
    let after = gateway.post(
        &second,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    );
    assert_eq!(after.status, 404, "{after:?}");
    let third = gateway.initialize();
    assert_ne!(text(&gateway.tool(&third, 1, "pid", json!({}))), pid);
}
