//! `lro proxy` under stress: a dying server, malformed lines, 1,000 calls at once, 50 MB.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, descriptor, text};

#[test]
fn a_server_dying_mid_call_gives_errors_and_a_clean_exit() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.request(
        json!(1),
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 5000}}),
    );
    proxy.request(
        json!(2),
        "tools/call",
        json!({"name": "die", "arguments": {}}),
    );
    let mut errors = Vec::new();
    for _ in 0..2 {
        let message = proxy.next();
        assert_eq!(message["error"]["code"], -32000, "{message}");
        errors.push(message["id"].as_i64().unwrap());
    }
    errors.sort_unstable();
    assert_eq!(errors, vec![1, 2]);
    let status = proxy.wait(Duration::from_secs(15));
    assert_eq!(status.code(), Some(1));
    let stderr = proxy.stderr_to_end();
    assert!(stderr.contains("exited"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn malformed_lines_are_reported_not_fatal() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.send_line("this is {not json");
    proxy.send_line("");
    let after = proxy.tool(1, "garbage", json!({}));
    assert_eq!(text(&after), "after garbage");
    let echo = proxy.tool(2, "echo", json!({"text": "still here"}));
    assert_eq!(text(&echo), "still here");
    let stderr = proxy.stderr_containing(&[
        "answering -32700 to a message from the client",
        "malformed message from the server",
    ]);
    assert!(
        stderr.contains("answering -32700 to a message from the client"),
        "{stderr}"
    );
    assert!(
        stderr.contains("malformed message from the server"),
        "{stderr}"
    );
}

#[test]
fn a_thousand_concurrent_calls_are_each_answered_with_their_own_id() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    // Numbers and strings, `7` and `"7"` among them: JSON-RPC ids differ by type too.
    let id_of = |i: usize| {
        if i % 2 == 0 {
            json!(i)
        } else {
            json!((i - 1).to_string())
        }
    };
    // All sent before any answer is read: every tenth is offloaded, some answer at once
    // (echo), the others after a pause, on threads of the server's, in any order.
    for i in 0..1000 {
        let (name, arguments) = match i % 10 {
            0 => ("records", json!({"count": 500})),
            1 => ("echo", json!({"text": format!("echo {i}")})),
            _ => ("slow", json!({"ms": 20, "n": i})),
        };
        proxy.request(
            id_of(i),
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
    }
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < 1000 {
        let message = proxy.next();
        let i = (0..1000)
            .find(|&i| id_of(i) == message["id"])
            .unwrap_or_else(|| panic!("an answer to no request: {message}"));
        assert!(answered.insert(i), "answered twice: {}", message["id"]);
        let result = &message["result"];
        match i % 10 {
            0 => assert_eq!(descriptor(result)["summary"]["count"], 500, "{i}"),
            1 => assert_eq!(text(result), format!("echo {i}")),
            _ => assert_eq!(text(result), format!("slow {i}")),
        }
    }
    let files = std::fs::read_dir(proxy.dir.path()).unwrap().count();
    assert_eq!(files, 100, "one file per offloaded call");
}

#[test]
fn closing_stdin_lets_calls_in_flight_finish_then_exits() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.request(
        json!(1),
        "tools/call",
        json!({"name": "records", "arguments": {"count": 3}}),
    );
    proxy.close_stdin();
    let response = proxy.next();
    assert_eq!(response["id"], 1);
    assert_eq!(proxy.wait(Duration::from_secs(15)).code(), Some(0));
}

#[test]
fn a_50_mb_result_is_offloaded_with_bounded_memory() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "big", json!({"mb": 50}));
    let descriptor = &descriptor(&result);
    assert_eq!(descriptor["offloaded"], true);
    let file = std::path::PathBuf::from(descriptor["file_path"].as_str().unwrap());
    let size = std::fs::metadata(&file).unwrap().len();
    assert!(size > 45_000_000, "{size}");
    let peak = proxy.peak_rss();
    eprintln!(
        "50 MB result: file {size} bytes, proxy peak RSS {} MB",
        peak >> 20
    );
    // A loose bound against a return of the `Value` tree (figures belong in benchmarks, `make
    // bench-proxy-memory`): the proxy holds the message, its decoded text and the JSONL
    // lines, about 3.4 times the 60 MB message in a release build (193 MB; 360 MB before the
    // text path, and 860 MB when the whole message was parsed into a `Value`).
    assert!(peak < 1200 << 20, "peak RSS {} MB", peak >> 20);
    let count = descriptor["summary"]["count"].as_u64().unwrap();
    let last = proxy.extract(2, json!({"file_path": file, "lines": {"start": count - 1}}));
    let record: Value = serde_json::from_str(text(&last).trim_end()).unwrap();
    assert_eq!(record["id"], format!("r{}", count - 1));
}
