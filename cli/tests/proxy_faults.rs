//! `lro proxy` when things really go wrong: writes the kernel refuses, a server that
//! crashes mid-answer, writes garbage, closes its stdout or hangs, a client that goes away.
//! Every call ends with the specification's fallback (an inline truncated result, a warning
//! and an `OffloadWriteFailed` event) or a JSON-RPC error with the call's id; no call is
//! lost, no child is left unreaped, and no partial file carries an offload name.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::proxy::{self, Proxy, descriptor, only_whole_offload_files, text, wait_reaped};

/// The spec's fallback for a failed write: the leading records inline, then the warning.
fn assert_truncated_fallback(result: &Value) {
    assert_eq!(result["isError"], false, "{result}");
    let records: Value = serde_json::from_str(text(result)).unwrap();
    let count = records.as_array().unwrap().len();
    assert!(count > 0 && count < 2000, "{count} records inline");
    assert_eq!(records[0]["id"], "r0");
    let warning = result["content"][1]["text"].as_str().unwrap();
    assert!(
        warning.contains("could not write the offload file")
            && warning.contains(&format!("first {count} of 2000 records")),
        "{warning}"
    );
}

/// The `OffloadWriteFailed` events the proxy printed (`--events`).
fn write_failures(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "OffloadWriteFailed")
        .collect()
}

/// The proxy's stderr once it holds a whole `OffloadWriteFailed` event line: the proxy
/// prints the event before its answer, but the test's reader thread may not have read it
/// when the answer arrives (this test failed on a loaded machine when it read at once).
fn stderr_with_a_write_failure(proxy: &Proxy) -> String {
    proxy.stderr_when("an OffloadWriteFailed event", |stderr| {
        !write_failures(stderr).is_empty()
    })
}

fn server_pid(proxy: &mut Proxy, id: i64) -> u32 {
    text(&proxy.tool(id, "pid", json!({}))).parse().unwrap()
}

#[test]
fn a_file_size_limit_in_the_kernel_gives_the_inline_fallback() {
    // 64 KB: the offload file of 2,000 records (about 150 KB) cannot be written. Without
    // lro's SIGXFSZ handler the kernel would kill the proxy at the first write past it.
    let mut proxy = Proxy::start_with(&["prlimit", "--fsize=65536"], None, &["--events"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "records", json!({"count": 2000}));
    assert_truncated_fallback(&result);
    let stderr = stderr_with_a_write_failure(&proxy);
    let failures = write_failures(&stderr);
    assert_eq!(failures.len(), 1, "{stderr}");
    assert!(
        failures[0]["error"]
            .as_str()
            .unwrap()
            .contains("File too large"),
        "{}",
        failures[0]
    );
    // Nothing is left under any name, and the proxy goes on.
    assert_eq!(only_whole_offload_files(proxy.dir.path()), 0);
    assert_eq!(
        text(&proxy.tool(2, "echo", json!({"text": "alive"}))),
        "alive"
    );
}

#[test]
fn an_output_dir_under_a_regular_file_gives_the_inline_fallback() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let mut proxy = Proxy::start_with(&[], Some(&file.join("offloads")), &["--events"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    assert_truncated_fallback(&proxy.tool(1, "records", json!({"count": 2000})));
    assert_eq!(
        write_failures(&stderr_with_a_write_failure(&proxy)).len(),
        1
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
}

#[test]
fn a_directory_removed_mid_run_is_made_again_and_one_replaced_by_a_file_falls_back() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("offloads");
    let mut proxy = Proxy::start_with(&[], Some(&dir), &["--events"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let first = proxy.tool(1, "records", json!({"count": 2000}));
    assert_eq!(descriptor(&first)["offloaded"], true);
    std::fs::remove_dir_all(&dir).unwrap();
    let second = proxy.tool(2, "records", json!({"count": 2000}));
    assert_eq!(descriptor(&second)["offloaded"], true, "{second}");
    assert_eq!(only_whole_offload_files(&dir), 1);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::write(&dir, b"now a file").unwrap();
    assert_truncated_fallback(&proxy.tool(3, "records", json!({"count": 2000})));
    assert_eq!(
        write_failures(&stderr_with_a_write_failure(&proxy)).len(),
        1
    );
}

#[test]
fn extracting_from_a_file_that_vanished_is_an_error_result() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let offloaded = proxy.tool(1, "records", json!({"count": 2000}));
    let file = descriptor(&offloaded)["file_path"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::remove_file(&file).unwrap();
    let result = proxy.extract(2, json!({"file_path": file, "recipe": 1}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).starts_with("error[not_found]"), "{result}");
}

#[test]
fn a_server_crashing_mid_answer_fails_the_calls_in_flight_with_their_ids() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let pid = server_pid(&mut proxy, 1);
    proxy.request(
        json!("slow-1"),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 10_000}}),
    );
    proxy.request(
        json!(2),
        "tools/call",
        json!({"name": "die_mid", "arguments": {}}),
    );
    let mut failed = Vec::new();
    for _ in 0..2 {
        let message = proxy.next();
        assert_eq!(message["error"]["code"], -32000, "{message}");
        failed.push(message["id"].to_string());
    }
    failed.sort();
    assert_eq!(failed, ["\"slow-1\"", "2"]);
    assert_eq!(proxy.wait(Duration::from_secs(15)).code(), Some(1));
    assert!(
        wait_reaped(pid, Duration::from_secs(30)),
        "server {pid} left"
    );
    let stderr = proxy.stderr_to_end();
    assert!(
        stderr.contains("malformed message from the server"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn lines_from_the_server_that_are_not_json_are_skipped_and_an_unreadable_answer_fails_its_call() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let after = proxy.tool(1, "log_noise", json!({}));
    assert_eq!(text(&after), "after noise");
    // An answer that is not UTF-8 would be unreadable by the client: it gets an error.
    proxy.request(json!(2), "tools/call", json!({"name": "bad_utf8"}));
    let (before, failed) = proxy.until_response(&json!(2));
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(failed["error"]["code"], -32000, "{failed}");
    assert_eq!(
        text(&proxy.tool(3, "echo", json!({"text": "still"}))),
        "still"
    );
    proxy.stderr_containing(&["not UTF-8"]);
}

#[test]
fn a_server_closing_its_stdout_is_stopped_and_its_calls_fail() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let pid = server_pid(&mut proxy, 1);
    proxy.request(
        json!(2),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 60_000}}),
    );
    proxy.request(json!(3), "tools/call", json!({"name": "close_stdout"}));
    let started = Instant::now();
    let mut failed = Vec::new();
    for _ in 0..2 {
        let message = proxy.next();
        assert_eq!(message["error"]["code"], -32000, "{message}");
        failed.push(message["id"].as_i64().unwrap());
    }
    failed.sort_unstable();
    assert_eq!(failed, [2, 3]);
    // The server still runs with its stdout closed: it is given 5 s, then killed.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(proxy.wait(Duration::from_secs(15)).code(), Some(1));
    assert!(
        wait_reaped(pid, Duration::from_secs(30)),
        "server {pid} left"
    );
}

#[test]
fn a_hanging_server_gets_a_timeout_per_request_and_its_late_answers_are_dropped() {
    // Two seconds, with progress every 250 ms: a loaded machine may delay one progress
    // notification by a second (a 1 s timeout failed so at load 37), not by eight of them.
    let mut proxy = Proxy::start(&["--request-timeout", "2"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let started = Instant::now();
    proxy.request(json!("h"), "tools/call", json!({"name": "hang"}));
    proxy.request(
        json!(2),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 5000, "n": 2}}),
    );
    // A call that reports progress is working, not hanging: its time starts again.
    proxy.request(
        json!(3),
        "tools/call",
        json!({"name": "progress_slow", "arguments": {"ms": 5000, "steps": 20},
               "_meta": {"progressToken": "p3"}}),
    );
    let answered = proxy.tool(4, "echo", json!({"text": "quick"}));
    assert_eq!(text(&answered), "quick");
    let mut timed_out = Vec::new();
    let mut worked = None;
    while timed_out.len() < 2 || worked.is_none() {
        let message = proxy.next();
        if message.get("method").is_some() {
            continue; // progress notifications
        }
        if message["id"] == 3 {
            worked = Some(message);
            continue;
        }
        assert_eq!(message["error"]["code"], -32001, "{message}");
        assert!(started.elapsed() >= Duration::from_secs(2));
        timed_out.push(message["id"].to_string());
    }
    timed_out.sort();
    assert_eq!(timed_out, ["\"h\"", "2"]);
    assert_eq!(text(&worked.unwrap()["result"]), "worked");
    // The server was told, and the answer to 2 that came late (at 5 s) was dropped, with a
    // note on stderr, and not passed on.
    proxy.stderr_containing(&["late answer"]);
    proxy.request(json!(5), "tools/call", json!({"name": "cancelled"}));
    let (before, response) = proxy.until_response(&json!(5));
    assert!(
        before.iter().all(|m| m.get("id") != Some(&json!(2))),
        "a late answer reached the client: {before:?}"
    );
    let cancelled: Value = serde_json::from_str(text(&response["result"])).unwrap();
    assert!(
        cancelled.as_array().unwrap().contains(&json!("h"))
            && cancelled.as_array().unwrap().contains(&json!(2)),
        "{cancelled}"
    );
}

#[test]
fn a_client_going_away_mid_call_ends_the_proxy_and_its_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = proxy::command(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| {
        use std::io::Write;
        writeln!(stdin, "{message}").unwrap();
    };
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}));
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "pid"}}));
    let mut answer_to = |id: i64| loop {
        use std::io::BufRead;
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            break message;
        }
    };
    let pid = text(&answer_to(1)["result"]).parse::<u32>().unwrap();
    // Two calls in flight (a slow one, known to have reached the server once the echo sent
    // after it is answered, and a 20 MB result the server is still writing), then the client
    // is gone: both of its pipes close, as when it crashes.
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "slow", "arguments": {"ms": 3000}}}));
    send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "in flight"}}}));
    answer_to(4);
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "big", "arguments": {"mb": 20}}}));
    drop(stdin);
    drop(stdout);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the proxy outlived its client");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        wait_reaped(pid, Duration::from_secs(30)),
        "server {pid} left"
    );
    // The 20 MB result was written whole or not at all.
    only_whole_offload_files(dir.path());
    assert!(Path::new(dir.path()).is_dir());
}
