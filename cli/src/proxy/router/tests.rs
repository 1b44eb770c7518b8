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
    let descriptor = &out[0]["result"]["structuredContent"];
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
