//! The router alone: client messages in, actions and client-bound messages out.

use std::io::Write;
use std::sync::{Arc, Mutex};

use lro_core::{OffloadConfig, Offloader, StdHost};
use lro_host_s3::NativeHost;
use serde_json::{Value, json};

use super::{ClientAction, Router};
use crate::proxy::output::ClientOut;

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    fn messages(&self) -> Vec<Value> {
        let bytes = self.0.lock().unwrap();
        bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }
}

fn router(dir: &std::path::Path) -> (Arc<Router>, Capture) {
    router_with_timeout(dir, None)
}

fn router_with_timeout(
    dir: &std::path::Path,
    timeout: Option<std::time::Duration>,
) -> (Arc<Router>, Capture) {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    router_with_config(config, timeout)
}

fn router_with_config(
    config: OffloadConfig,
    timeout: Option<std::time::Duration>,
) -> (Arc<Router>, Capture) {
    let capture = Capture::default();
    let lro = Arc::new(Offloader::new(config, NativeHost::Local(StdHost::new())).unwrap());
    let router =
        Router::new(lro, ClientOut::new(Box::new(capture.clone()))).with_request_timeout(timeout);
    (Arc::new(router), capture)
}

fn forwarded(action: ClientAction) -> Value {
    match action {
        ClientAction::Forward { message, .. } => serde_json::from_slice(&message).unwrap(),
        ClientAction::Done => panic!("not forwarded"),
    }
}

#[test]
fn initialize_gains_the_proxy_flag_and_remembers_a_proxy_client() {
    let dir = tempfile::tempdir().unwrap();
    let (router, _) = router(dir.path());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"clientInfo": {"name": "c", "version": "1"}}});
    let sent = forwarded(router.from_client(init.to_string().as_bytes()));
    assert_eq!(
        sent["params"]["clientInfo"],
        json!({"name": "c", "version": "1", "proxy": true})
    );
    assert!(!router.state.client_is_proxy());
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"clientInfo": {"name": "p", "proxy": true}}});
    forwarded(router.from_client(init.to_string().as_bytes()));
    assert!(router.state.client_is_proxy());
}

#[test]
fn tool_results_above_the_threshold_are_offloaded_with_the_call_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    let call = json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
                      "params": {"name": "recall_memories", "arguments": {"query": "caching", "detail": "light"}}});
    forwarded(router.from_client(call.to_string().as_bytes()));
    let memories: Vec<Value> = (0..200)
        .map(|i| json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": "_semantic/x", "title": format!("Title {i} about caching layers"), "content": "c".repeat(100)}))
        .collect();
    let text = serde_json::to_string(&memories).unwrap();
    let response = json!({"jsonrpc": "2.0", "id": "a", "result": {"content": [{"type": "text", "text": text}]}});
    router.on_server_message(response.to_string().into_bytes());
    let out = capture.messages();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], "a");
    // One text block, the descriptor; no structuredContent, no link.
    let result = &out[0]["result"];
    assert_eq!(result["content"].as_array().unwrap().len(), 1);
    assert!(result.get("structuredContent").is_none());
    let descriptor: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(descriptor["summary"]["operation"], "recall");
    assert_eq!(descriptor["summary"]["detail"], "light");
    assert!(
        descriptor["file_path"]
            .as_str()
            .unwrap()
            .contains("atlatl-recall-")
    );
}

#[test]
fn cancelled_requests_are_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "x"}});
    forwarded(router.from_client(call.to_string().as_bytes()));
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}});
    forwarded(router.from_client(cancel.to_string().as_bytes()));
    router.fail_all("gone");
    assert!(
        capture.messages().is_empty(),
        "a cancelled request is not answered again"
    );
}

#[test]
fn messages_that_are_not_utf8_are_answered_not_forwarded() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    // From the client: a request the server could not read gets a parse error with its id.
    let request = b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}";
    assert!(matches!(router.from_client(request), ClientAction::Done));
    // From the server: an answer the client could not read fails the request it answers.
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "x"}});
    forwarded(router.from_client(call.to_string().as_bytes()));
    router.on_server_message(
        b"{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xfe\"}]}}\n"
            .to_vec(),
    );
    let out = capture.messages();
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(
        (out[0]["id"].clone(), out[0]["error"]["code"].clone()),
        (json!(9), json!(-32700))
    );
    assert_eq!(
        (out[1]["id"].clone(), out[1]["error"]["code"].clone()),
        (json!(10), json!(-32000))
    );
}

#[test]
fn a_timed_out_request_is_answered_once_and_its_late_answer_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router_with_timeout(dir.path(), Some(std::time::Duration::ZERO));
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "x"}});
    forwarded(router.from_client(call.to_string().as_bytes()));
    let expired = router.expire_requests();
    assert_eq!(expired.len(), 1);
    let late = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}});
    router.on_server_message(late.to_string().into_bytes());
    router.fail_all("gone");
    let out = capture.messages();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["error"]["code"], -32001);
    assert_eq!(out[0]["id"], 3);
}

/// The client's `initialize`, answered by a server named `server_name` (or by one without
/// `serverInfo.name`).
fn initialized(router: &Arc<Router>, capture: &Capture, server_name: Option<&str>) {
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"clientInfo": {"name": "c"}}});
    forwarded(router.from_client(init.to_string().as_bytes()));
    let info = server_name.map_or_else(
        || json!({"version": "1"}),
        |n| json!({"name": n, "version": "1"}),
    );
    let answer = json!({"jsonrpc": "2.0", "id": "init", "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": info}});
    router.on_server_message(answer.to_string().into_bytes());
    capture.0.lock().unwrap().clear();
}

/// `tools/list` through the router, the server listing `tools`.
fn listed(router: &Arc<Router>, capture: &Capture, tools: Value) -> Vec<Value> {
    let list = json!({"jsonrpc": "2.0", "id": "l", "method": "tools/list"});
    forwarded(router.from_client(list.to_string().as_bytes()));
    let answer = json!({"jsonrpc": "2.0", "id": "l", "result": {"tools": tools}});
    router.on_server_message(answer.to_string().into_bytes());
    let out = capture.messages();
    capture.0.lock().unwrap().clear();
    out[0]["result"]["tools"].as_array().unwrap().clone()
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

#[test]
fn the_extract_tool_is_named_after_the_server_and_answered_under_that_name_only() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    initialized(&router, &capture, Some("memory-server"));
    let schema = json!({"type": "object"});
    let tools = listed(
        &router,
        &capture,
        json!([
            {"name": "read_graph", "inputSchema": schema, "outputSchema": schema},
            {"name": "lro_extract", "inputSchema": schema},
            {"name": "lro_extract_memory_server", "inputSchema": schema},
        ]),
    );
    // The server's tool of the proxy's name is replaced; its plain `lro_extract` is its own.
    assert_eq!(
        names(&tools),
        ["read_graph", "lro_extract", "lro_extract_memory_server"]
    );
    assert!(tools[0].get("outputSchema").is_none());
    assert!(
        tools[2]["description"]
            .as_str()
            .unwrap()
            .contains("offloaded")
    );
    // The proxy answers its name; `lro_extract` goes to the server, as any tool it lists.
    let call = |name: &str| json!({"jsonrpc": "2.0", "id": name, "method": "tools/call", "params": {"name": name, "arguments": {"file_path": "/nowhere.jsonl"}}});
    assert!(matches!(
        router.from_client(call("lro_extract_memory_server").to_string().as_bytes()),
        ClientAction::Done
    ));
    let sent = forwarded(router.from_client(call("lro_extract").to_string().as_bytes()));
    assert_eq!(sent["params"]["name"], "lro_extract");
}

#[test]
fn a_server_without_a_name_gets_lro_extract_and_the_descriptor_names_the_listed_tool() {
    let dir = tempfile::tempdir().unwrap();
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        guidance: lro_core::GuidanceMode::Native,
        ..OffloadConfig::default()
    };
    for (server, configured, expected) in [
        (None, None, "lro_extract"),
        (Some("Everything"), None, "lro_extract_everything"),
        (Some("Everything"), Some("ev_x"), "ev_x"),
    ] {
        let mut config = config.clone();
        config.mcp.extract_tool_name = configured.map(str::to_owned);
        let (router, capture) = router_with_config(config, None);
        initialized(&router, &capture, server);
        assert_eq!(names(&listed(&router, &capture, json!([]))), [expected]);
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "read_graph"}});
        forwarded(router.from_client(call.to_string().as_bytes()));
        let rows: Vec<Value> = (0..300)
            .map(|i| json!({"name": format!("entity {i}"), "kind": "person"}))
            .collect();
        let answer = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": json!(rows).to_string()}]}});
        router.on_server_message(answer.to_string().into_bytes());
        let out = capture.messages();
        let descriptor: Value =
            serde_json::from_str(out[0]["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(descriptor["extract_tool"], expected);
        let guidance = descriptor["guidance"].as_str().unwrap();
        assert!(
            guidance.contains(&format!("{expected}(file_path=")),
            "{guidance}"
        );
    }
}

#[test]
fn a_never_offloaded_tool_keeps_its_output_schema_and_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    config.mcp.never_offload = vec!["get_rows".to_owned()];
    let (router, capture) = router_with_config(config, None);
    initialized(&router, &capture, Some("s"));
    let schema = json!({"type": "object"});
    let tools = listed(
        &router,
        &capture,
        json!([
            {"name": "get_rows", "inputSchema": schema, "outputSchema": schema},
            {"name": "list_rows", "inputSchema": schema, "outputSchema": schema},
        ]),
    );
    assert_eq!(tools[0]["outputSchema"], schema);
    assert!(tools[1].get("outputSchema").is_none());
    let rows: Vec<Value> = (0..300)
        .map(|i| json!({"name": format!("entity {i}"), "kind": "person"}))
        .collect();
    let result = json!({"content": [{"type": "text", "text": json!(rows).to_string()}], "structuredContent": {"rows": rows}});
    for (id, tool, offloaded) in [(1, "get_rows", false), (2, "list_rows", true)] {
        let call =
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}});
        forwarded(router.from_client(call.to_string().as_bytes()));
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        router.on_server_message(answer.to_string().into_bytes());
        let out = capture.messages();
        capture.0.lock().unwrap().clear();
        assert_eq!(out[0]["result"] != result, offloaded, "{tool}");
    }
}

#[test]
fn a_client_that_is_a_proxy_is_not_offered_the_extract_tool() {
    // An LRO proxy in front (`lro proxy --url` before a gateway) offloads on its side and
    // lists its own extract tool: this one has nothing to extract, and the same name twice
    // would have the client hide this one with a note about a clash that is not one.
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                      "params": {"clientInfo": {"name": "lro", "version": "1", "proxy": true}}});
    forwarded(router.from_client(init.to_string().as_bytes()));
    let answer = json!({"jsonrpc": "2.0", "id": "init", "result": {"protocolVersion": "2025-06-18",
                        "capabilities": {"tools": {}}, "serverInfo": {"name": "memory-server", "version": "1"}}});
    router.on_server_message(answer.to_string().into_bytes());
    capture.0.lock().unwrap().clear();
    let tools = listed(
        &router,
        &capture,
        json!([{"name": "read_graph", "inputSchema": {"type": "object"}}]),
    );
    assert_eq!(names(&tools), ["read_graph"]);
}

#[test]
fn tool_calls_with_handles_reach_the_server_with_the_data_and_bad_ones_never_do() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "kind": if i % 2 == 0 { "even" } else { "odd" }, "label": format!("row {i}")}))
        .collect();
    let outcome = router
        .lro
        .offload(&json!(records), &lro_core::OffloadRequest::new("rows"))
        .unwrap();
    let uri = outcome.offloaded().unwrap().resource_uri.clone();
    // No handle: the very bytes the client sent.
    let plain = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"content":"x",  "n":1.0}}}"#;
    match router.from_client(plain) {
        ClientAction::Forward { message, .. } => assert_eq!(message, plain.to_vec()),
        ClientAction::Done => panic!("not forwarded"),
    }
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write_file",
        "arguments": {"path": "odd.jsonl", "content": {"$lro": uri, "where": {"id": {"$lt": 5}, "kind": "odd"}, "fields": "id", "as": "jsonl"}}}});
    let sent = forwarded(router.from_client(call.to_string().as_bytes()));
    assert_eq!(
        sent["params"]["arguments"],
        json!({"path": "odd.jsonl", "content": "{\"id\":1}\n{\"id\":3}\n"})
    );
    assert_eq!(sent["id"], 2);
    let bad = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "write_file",
        "arguments": {"path": "x", "content": {"$lro": "/etc/passwd"}}}});
    assert!(matches!(
        router.from_client(bad.to_string().as_bytes()),
        ClientAction::Done
    ));
    let answers = capture.messages();
    let answer = answers.iter().find(|m| m["id"] == 3).unwrap();
    assert_eq!(answer["result"]["isError"], true);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error[path_denied]: argument `content`"),
        "{text}"
    );
    // The refused call is not in flight: its id may be used again.
    assert!(!router.state.in_flight(&super::IdKey::of(&json!(3))));
}
