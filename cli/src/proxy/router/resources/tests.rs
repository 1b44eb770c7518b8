//! The router's resource handling alone: client messages in, server answers fed by hand.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lro_core::{OffloadConfig, Offloader, StdHost};
use lro_host_s3::NativeHost;
use serde_json::{Value, json};

use super::super::{ClientAction, Router};
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

    /// The messages once there are `n` of them (answers from worker threads arrive late).
    fn wait_for(&self, n: usize) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let messages = self.messages();
            if messages.len() >= n || start.elapsed() > Duration::from_secs(20) {
                assert_eq!(messages.len(), n, "{messages:#?}");
                return messages;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

fn router(dir: &std::path::Path) -> (Arc<Router>, Capture) {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    let capture = Capture::default();
    let lro = Arc::new(Offloader::new(config, NativeHost::Local(StdHost::new())).unwrap());
    let router = Router::new(lro, ClientOut::new(Box::new(capture.clone())));
    (Arc::new(router), capture)
}

fn request(id: i64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn forwarded(action: ClientAction) -> Value {
    match action {
        ClientAction::Forward { message, .. } => serde_json::from_slice(&message).unwrap(),
        ClientAction::Done => panic!("not forwarded"),
    }
}

fn answered(action: ClientAction) {
    assert!(matches!(action, ClientAction::Done), "{action:?}");
}

/// `initialize` answered by a server with these capabilities; returns what the client got.
fn initialize(router: &Arc<Router>, capture: &Capture, capabilities: Value) -> Value {
    forwarded(router.from_client(&request(
        0,
        "initialize",
        json!({"clientInfo": {"name": "c"}}),
    )));
    let answer = json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": capabilities}});
    router.on_server_message(answer.to_string().into_bytes());
    let out = capture.wait_for(1);
    capture.clear();
    out[0]["result"]["capabilities"].clone()
}

/// A tools/call whose 300-record answer is offloaded; returns the result the client got.
fn offloaded_call(router: &Arc<Router>, capture: &Capture, id: i64) -> Value {
    forwarded(router.from_client(&request(id, "tools/call", json!({"name": "read_graph"}))));
    let rows: Vec<Value> = (0..300)
        .map(|i| json!({"name": format!("entity {i}"), "kind": "person"}))
        .collect();
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": json!(rows).to_string()}]}});
    router.on_server_message(answer.to_string().into_bytes());
    let out = capture.messages();
    capture.clear();
    out.into_iter().find(|m| m["id"] == id).unwrap()["result"].clone()
}

/// The offload file's URI, as the descriptor (the result's text) names it.
fn resource_uri(result: &Value) -> String {
    let descriptor: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    descriptor["resource_uri"].as_str().unwrap().to_owned()
}

#[test]
fn a_server_without_resources_gets_the_proxys() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    let caps = initialize(&router, &capture, json!({"tools": {}}));
    assert_eq!(caps["resources"], json!({"listChanged": true}));
    assert_eq!(caps["tools"], json!({}));

    // Before the client asked for resources, an offload notifies nobody.
    let result = offloaded_call(&router, &capture, 1);
    let uri = resource_uri(&result);

    answered(router.from_client(&request(2, "resources/list", json!({}))));
    let listed = capture.wait_for(1);
    capture.clear();
    let resources = listed[0]["result"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 1);
    assert_eq!(resources[0]["uri"], uri.as_str());
    assert_eq!(resources[0]["title"], "read_graph: 300 records");
    assert!(listed[0]["result"].get("nextCursor").is_none());

    answered(router.from_client(&request(3, "resources/read", json!({"uri": uri}))));
    let read = capture.wait_for(1);
    capture.clear();
    let descriptor: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    let file = descriptor["file_path"].as_str().unwrap();
    assert_eq!(
        read[0]["result"]["contents"][0]["text"],
        std::fs::read_to_string(file).unwrap()
    );
    assert_eq!(
        read[0]["result"]["contents"][0]["mimeType"],
        "application/jsonl"
    );

    answered(router.from_client(&request(4, "resources/templates/list", json!({}))));
    let templates = capture.wait_for(1);
    capture.clear();
    assert_eq!(
        templates[0]["result"]["resourceTemplates"][0]["uriTemplate"],
        "lro://offloads/{file}"
    );

    // Now that the client listed them, an offload tells it the list changed.
    offloaded_call(&router, &capture, 5);
    forwarded(router.from_client(&request(6, "tools/call", json!({"name": "read_graph"}))));
    let rows: Vec<Value> = (0..300).map(|i| json!({"n": i, "v": "entity"})).collect();
    let answer = json!({"jsonrpc": "2.0", "id": 6, "result": {"content": [{"type": "text", "text": json!(rows).to_string()}]}});
    router.on_server_message(answer.to_string().into_bytes());
    let out = capture.wait_for(2);
    assert_eq!(out[0]["id"], 6);
    assert_eq!(
        out[1],
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
    );
    capture.clear();

    // Any other URI, or a traversal, is an error with the request's id.
    for (id, uri, code) in [
        (7, "file:///etc/passwd", -32002),
        (8, "lro://offloads/../../etc/passwd", -32602),
        (
            9,
            "lro://offloads/atlatl-read_graph-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl",
            -32002,
        ),
    ] {
        answered(router.from_client(&request(id, "resources/read", json!({"uri": uri}))));
        let out = capture.wait_for(1);
        capture.clear();
        assert_eq!(
            (out[0]["id"].clone(), out[0]["error"]["code"].clone()),
            (json!(id), json!(code)),
            "{uri}"
        );
    }
    answered(router.from_client(&request(10, "resources/subscribe", json!({"uri": uri}))));
    assert_eq!(capture.wait_for(1)[0]["result"], json!({}));
}

#[test]
fn pages_hold_offload_files_then_the_servers_resources() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    let caps = initialize(&router, &capture, json!({"resources": {"subscribe": true}}));
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    let uri = json!(resource_uri(&offloaded_call(&router, &capture, 1)));

    // Page 1: the server is asked for its first page, without a cursor.
    let sent = forwarded(router.from_client(&request(2, "resources/list", json!({}))));
    assert_eq!(sent["params"], json!({}));
    let theirs = json!({"jsonrpc": "2.0", "id": 2, "result": {"resources": [{"uri": "test://1", "name": "one"}], "nextCursor": "s2"}});
    router.on_server_message(theirs.to_string().into_bytes());
    let page = capture.wait_for(1);
    capture.clear();
    let listed: Vec<&Value> = page[0]["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["uri"])
        .collect();
    assert_eq!(listed, [&uri, &json!("test://1")]);
    let cursor = page[0]["result"]["nextCursor"].as_str().unwrap().to_owned();

    // Page 2: the offload files are done; the server gets its own cursor back.
    let sent =
        forwarded(router.from_client(&request(3, "resources/list", json!({"cursor": cursor}))));
    assert_eq!(sent["params"]["cursor"], "s2");
    let theirs = json!({"jsonrpc": "2.0", "id": 3, "result": {"resources": [{"uri": "test://2", "name": "two"}]}});
    router.on_server_message(theirs.to_string().into_bytes());
    let page = capture.wait_for(1);
    capture.clear();
    assert_eq!(
        page[0]["result"]["resources"],
        json!([{"uri": "test://2", "name": "two"}])
    );
    assert!(page[0]["result"].get("nextCursor").is_none());

    // Templates: LRO's lead the server's first page.
    forwarded(router.from_client(&request(4, "resources/templates/list", json!({}))));
    let theirs = json!({"jsonrpc": "2.0", "id": 4, "result": {"resourceTemplates": [{"uriTemplate": "test://{id}", "name": "t"}]}});
    router.on_server_message(theirs.to_string().into_bytes());
    let templates = capture.wait_for(1)[0]["result"]["resourceTemplates"].clone();
    capture.clear();
    let uris: Vec<&str> = templates
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "lro://offloads/{file}",
            "lro://offloads/{file}/records",
            "test://{id}"
        ]
    );

    // The server's own URIs and subscriptions go to the server.
    let sent =
        forwarded(router.from_client(&request(5, "resources/read", json!({"uri": "test://1"}))));
    assert_eq!(sent["params"]["uri"], "test://1");
    forwarded(router.from_client(&request(
        6,
        "resources/subscribe",
        json!({"uri": "test://1"}),
    )));

    // A cursor the proxy never gave is refused.
    answered(router.from_client(&request(7, "resources/list", json!({"cursor": "s2"}))));
    let out = capture.wait_for(1);
    assert_eq!(out[0]["error"]["code"], -32602);
}

#[test]
fn offload_files_page_on_after_the_server_ran_out() {
    let dir = tempfile::tempdir().unwrap();
    let (router, capture) = router(dir.path());
    initialize(&router, &capture, json!({"resources": {}}));
    // More offload files than one page holds.
    let rows: Vec<Value> = (0..400).map(|i| json!({"n": i, "v": "a value"})).collect();
    for _ in 0..lro_mcp::resources::PAGE_SIZE + 5 {
        let outcome = router
            .lro
            .offload(&json!(rows), &lro_core::OffloadRequest::new("q"))
            .unwrap();
        assert!(outcome.offloaded().is_some());
    }
    forwarded(router.from_client(&request(1, "resources/list", json!({}))));
    let theirs = json!({"jsonrpc": "2.0", "id": 1, "result": {"resources": [{"uri": "test://1", "name": "one"}]}});
    router.on_server_message(theirs.to_string().into_bytes());
    let page = capture.wait_for(1);
    capture.clear();
    assert_eq!(
        page[0]["result"]["resources"].as_array().unwrap().len(),
        lro_mcp::resources::PAGE_SIZE + 1
    );
    let cursor = page[0]["result"]["nextCursor"].as_str().unwrap().to_owned();
    // The server is done: the proxy answers the next page alone.
    answered(router.from_client(&request(2, "resources/list", json!({"cursor": cursor}))));
    let page = capture.wait_for(1);
    assert_eq!(page[0]["result"]["resources"].as_array().unwrap().len(), 5);
    assert!(page[0]["result"].get("nextCursor").is_none());
}
