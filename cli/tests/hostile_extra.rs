//! Filters that loop without building or calling anything stop at the time limit (CLI and
//! proxy), a cancelled `lro_extract` stops and is not answered, `LRO://OFFLOADS/...` is the
//! proxy's resource (scheme and authority are case-insensitive), and concurrent reads of
//! offload files are all answered.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::TIMEOUT;
use crate::support::proxy::{self, Proxy};
use crate::support::run::{lro, offload_records};

/// The time limit the loop tests set (ms): short, so a debug build meets it fast.
const TIMEOUT_MS: &str = "1500";

/// Loops that neither call a definition nor build a value.
const LOOPS: [&str; 3] = [
    "[range(1e6)] | .[] as $a | .[] | empty",
    "[range(1e6)] | .[] as $a | .[] as $b | 1",
    "[range(3000)] | .[] as $a | .[] as $b | .[] | empty",
];

fn offload(dir: &Path) -> PathBuf {
    let records: Vec<Value> = (0..50)
        .map(|i| json!({"id": i, "title": format!("t{i}")}))
        .collect();
    offload_records(dir, records)
}

#[test]
fn loops_that_build_nothing_stop_at_the_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = offload(dir.path());
    for filter in LOOPS {
        let query = format!("select(.id == 1) | {filter}");
        let started = Instant::now();
        let out = lro(
            &[
                "extract",
                "--output-dir",
                dir.path().to_str().unwrap(),
                file.to_str().unwrap(),
                "--query",
                &query,
            ],
            "",
            &[("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", TIMEOUT_MS)],
        );
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Before: still running after minutes. Generous for a debug build on a loaded machine.
        assert!(took < Duration::from_secs(60), "{filter}: {took:?}");
        assert!(
            stderr.contains("timeout_ms")
                || String::from_utf8_lossy(&out.stdout).contains("timeout_ms"),
            "{filter}: {:?} {stderr}",
            out.status
        );
    }
}

#[test]
fn the_proxy_answers_a_loop_at_the_time_limit() {
    let mut proxy = Proxy::start(
        &[],
        &[("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", TIMEOUT_MS)],
    );
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "t", "version": "1"}));
    let query = format!("select(.id == 1) | {}", LOOPS[0]);
    let result = proxy.extract(1, json!({"file_path": file, "query": query}));
    // The answer says it was cut, and by what (the text is the whole answer).
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("[truncated] Cut by timeout_ms")),
        "{result}"
    );
    assert_eq!(proxy.call(2, "ping", json!({}))["result"], json!({}));
}

/// The proxy's threads that run an `lro_extract` call.
fn extract_threads(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "lro-extract")
        })
        .count()
}

#[test]
fn a_cancelled_extract_stops_and_is_not_answered() {
    // A time limit far beyond the test: only the cancellation can stop the filter.
    let mut proxy = Proxy::start(
        &[],
        &[("ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS", "600000")],
    );
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "t", "version": "1"}));
    let pid = proxy.child.id();
    proxy.request(
        json!(7),
        "tools/call",
        json!({"name": proxy.extract_tool, "arguments": {"file_path": file, "query": "last(range(0;1;0))"}}),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while extract_threads(pid) == 0 {
        assert!(Instant::now() < deadline, "the extraction never started");
        std::thread::yield_now();
    }
    proxy.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 7, "reason": "user stopped"}}),
    );
    // The thread ends (before: it ran to the time limit, then answered).
    while extract_threads(pid) != 0 {
        assert!(
            Instant::now() < deadline,
            "the cancelled extraction still runs"
        );
        std::thread::yield_now();
    }
    // Still answering, and the cancelled call never was: the thread sends before it ends.
    assert_eq!(proxy.call(8, "ping", json!({}))["result"], json!({}));
    let done = proxy.extract(9, json!({"file_path": file, "query": ".id"}));
    assert_eq!(done["isError"], false, "{done}");
    proxy.close_stdin();
    while let Some(line) = proxy.next_line() {
        let message: Value = serde_json::from_str(&line).unwrap();
        assert_ne!(message.get("id"), Some(&json!(7)), "{line}");
    }
}

#[test]
fn offload_uris_are_the_proxys_whatever_their_case() {
    let mut proxy = Proxy::start(&[], &[]);
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "t", "version": "1"}));
    let name = file.file_name().unwrap().to_str().unwrap();
    for (id, uri) in [
        (1, format!("LRO://offloads/{name}")),
        (2, format!("lro://OFFLOADS/{name}")),
        (3, format!("Lro://Offloads/{name}/records")),
    ] {
        let read = proxy.call(id, "resources/read", json!({"uri": uri}));
        let contents = &read["result"]["contents"][0];
        assert!(
            contents["text"]
                .as_str()
                .is_some_and(|t| t.contains("\"title\":\"t49\"")),
            "{uri}: {read}"
        );
    }
    // The file name keeps its case: another name is no offload file (and not the server's).
    let upper = proxy.call(
        4,
        "resources/read",
        json!({"uri": format!("lro://offloads/{}", name.to_uppercase())}),
    );
    assert!(
        upper["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("path_denied")),
        "{upper}"
    );
}

#[test]
fn concurrent_reads_of_an_offload_file_are_all_answered() {
    let mut proxy = Proxy::start(&[], &[]);
    let file = offload(proxy.dir.path());
    proxy.initialize(json!({"name": "t", "version": "1"}));
    let name = file.file_name().unwrap().to_str().unwrap();
    for id in 10..18 {
        proxy.request(
            json!(id),
            "resources/read",
            json!({"uri": format!("lro://offloads/{name}")}),
        );
    }
    let mut answered = Vec::new();
    while answered.len() < 8 {
        let message = proxy.next();
        if let Some(id) = message.get("id").and_then(Value::as_i64) {
            assert!(
                message["result"]["contents"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("t49")),
                "{message}"
            );
            answered.push(id);
        }
    }
    answered.sort_unstable();
    assert_eq!(answered, (10..18).collect::<Vec<_>>());
}

/// Runs the rest of its arguments with stderr a pipe whose reader is gone, as when stderr is
/// piped to `head` that exited, or a client closed its end of the proxy's stderr.
const BROKEN_STDERR: [&str; 3] = [
    "python3",
    "-c",
    "import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 2); os.execvp(sys.argv[1], sys.argv[1:])",
];

#[test]
fn an_error_on_a_broken_stderr_keeps_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let file = offload(dir.path());
    let out = Command::new(BROKEN_STDERR[0])
        .args(&BROKEN_STDERR[1..])
        .arg(env!("CARGO_BIN_EXE_lro"))
        .args(["extract", "--output-dir"])
        .arg(dir.path())
        .arg(&file)
        .args(["--section", "nosuch", "--count"])
        .output()
        .unwrap();
    // invalid_argument (65), as with a stderr someone reads; a panic would be 101.
    assert_eq!(out.status.code(), Some(65), "{out:?}");
}

#[test]
fn the_proxy_goes_on_with_a_broken_stderr() {
    let mut proxy = Proxy::start_with(&BROKEN_STDERR, None, &[], &[]);
    proxy.initialize(json!({"name": "broken-stderr", "version": "1"}));
    // Each of these makes the proxy write a note to stderr, which fails.
    for (i, line) in ["not json", "[1, 2]", "{\"jsonrpc\": \"2.0\", \"id\": 5}"]
        .into_iter()
        .enumerate()
    {
        proxy.send_line(line);
        let answer = proxy.next();
        assert!(answer["error"]["code"].is_i64(), "line {i}: {answer}");
    }
    let pong = proxy.call(7, "ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[test]
fn the_proxy_goes_on_when_nobody_reads_its_stderr() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let mut child = proxy::command(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Open, and never read: the pipe fills after 64 KiB of notes.
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _unread = child.stderr.take().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, answers) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = || {
        answers
            .recv_timeout(TIMEOUT)
            .expect("the proxy stopped answering")
    };
    // Each malformed line is answered -32700 and noted on stderr (about 120 bytes): 2,000
    // of them are four times what the pipe holds.
    for i in 0..2000 {
        writeln!(stdin, "not json {i} {}", "x".repeat(40)).unwrap();
        let answer: Value = serde_json::from_str(&next()).unwrap();
        assert_eq!(answer["error"]["code"], -32700, "line {i}: {answer}");
    }
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":7,"method":"ping"}}"#).unwrap();
    let pong: Value = serde_json::from_str(&next()).unwrap();
    assert_eq!(pong["id"], 7, "{pong}");
    drop(stdin);
    let _ = child.wait();
}
