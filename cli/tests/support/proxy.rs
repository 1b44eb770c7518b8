//! Drives `lro proxy` over its stdio, as an MCP client would, in front of the scriptable
//! mock server (`tests/e2e/servers/mock_server.py`, standard library Python).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::TIMEOUT;

/// The mock MCP server the proxy is started in front of.
pub fn mock_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/servers/mock_server.py")
}

/// `lro proxy --output-dir DIR -- python3 mock_server.py`, for the tests that hold its pipes
/// themselves (a client going away, a stderr nobody reads).
pub fn command(output_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lro"));
    command
        .arg("proxy")
        .arg("--output-dir")
        .arg(output_dir)
        .args(["--", "python3"])
        .arg(mock_server());
    command
}

pub struct Proxy {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Stderr>,
    pub dir: tempfile::TempDir,
    /// The extract tool's name: `lro_extract` until `initialize` gives the server's name,
    /// then `lro_extract_<server>` (as the proxy lists it).
    pub extract_tool: String,
}

/// The proxy's stderr as read so far by a reader thread, and whether it reached its end.
/// A line the proxy printed before its answer is not necessarily read when the answer is:
/// tests wait for the text they assert ([`Proxy::stderr_containing`], [`Proxy::stderr_to_end`]).
#[derive(Default)]
struct Stderr {
    read: Mutex<(String, bool)>,
    changed: Condvar,
}

impl Stderr {
    /// Reads `pipe` to its end, waking the waiters at every chunk.
    fn collect(&self, mut pipe: impl Read) {
        let mut buf = [0u8; 4096];
        loop {
            let n = pipe.read(&mut buf).unwrap_or(0);
            let mut read = self.read.lock().unwrap();
            if n == 0 {
                read.1 = true;
            } else {
                read.0.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
            self.changed.notify_all();
            if n == 0 {
                return;
            }
        }
    }

    /// The text once `done` holds for it (or the stream ended), waiting at most [`TIMEOUT`].
    fn wait_for(&self, what: &str, done: impl Fn(&str, bool) -> bool) -> String {
        let deadline = Instant::now() + TIMEOUT;
        let mut read = self.read.lock().unwrap();
        loop {
            if done(&read.0, read.1) {
                return read.0.clone();
            }
            let now = Instant::now();
            assert!(
                now < deadline && !read.1,
                "the proxy's stderr did not show {what} within {TIMEOUT:?} (ended: {}); stderr: {}",
                read.1,
                read.0
            );
            read = self.changed.wait_timeout(read, deadline - now).unwrap().0;
        }
    }
}

impl Proxy {
    /// `lro proxy --output-dir TMP EXTRA... -- python3 mock_server.py`.
    pub fn start(extra: &[&str], env: &[(&str, &str)]) -> Self {
        Self::start_with(&[], None, extra, env)
    }

    /// [`Proxy::start`] run by `wrapper` (`prlimit --fsize=N`), with the offload files in
    /// `output_dir` when given (else the temp dir [`Proxy::dir`]).
    pub fn start_with(
        wrapper: &[&str],
        output_dir: Option<&Path>,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = match wrapper.split_first() {
            Some((program, args)) => {
                let mut cmd = Command::new(program);
                cmd.args(args).arg(env!("CARGO_BIN_EXE_lro"));
                cmd
            }
            None => Command::new(env!("CARGO_BIN_EXE_lro")),
        };
        cmd.arg("proxy")
            .arg("--output-dir")
            .arg(output_dir.unwrap_or(dir.path()))
            .args(extra)
            .arg("--")
            .arg("python3")
            .arg(mock_server());
        for (k, v) in env {
            cmd.env(k, v);
        }
        Self::spawn(cmd, dir)
    }

    /// `lro proxy --output-dir TMP --url URL`.
    pub fn start_url(url: &str) -> Self {
        Self::start_url_with(url, &[])
    }

    /// `lro proxy --output-dir TMP --url URL EXTRA...`.
    pub fn start_url_with(url: &str, extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lro"));
        cmd.arg("proxy")
            .arg("--output-dir")
            .arg(dir.path())
            .args(["--url", url])
            .args(extra);
        Self::spawn(cmd, dir)
    }

    /// Runs `cmd` (an `lro proxy` command line) with its pipes held, its offload files in
    /// `dir` when it names it.
    pub fn spawn(mut cmd: Command, dir: tempfile::TempDir) -> Self {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Stderr::default());
        let err_pipe = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || sink.collect(err_pipe));
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines,
            stderr,
            dir,
            extract_tool: lro_core::mcp::DEFAULT_EXTRACT_TOOL.to_owned(),
        }
    }

    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `bytes` as they are (no newline added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    pub fn request(&mut self, id: Value, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    /// The next line from the proxy, raw.
    pub fn next_line(&self) -> Option<String> {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) => {
                panic!("no message within {TIMEOUT:?}; stderr: {}", self.stderr())
            }
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The next message from the proxy.
    pub fn next(&self) -> Value {
        let line = self
            .next_line()
            .unwrap_or_else(|| panic!("the proxy closed its stdout; stderr: {}", self.stderr()));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Messages until the response with `id` (returned last).
    pub fn until_response(&self, id: &Value) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let message = self.next();
            if message.get("id") == Some(id) && message.get("method").is_none() {
                return (before, message);
            }
            before.push(message);
        }
    }

    pub fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.request(json!(id), method, params);
        self.until_response(&json!(id)).1
    }

    pub fn tool(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        let response = self.call(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        );
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("no result: {response}"))
    }

    pub fn initialize(&mut self, client_info: Value) -> Value {
        let response = self.call(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client_info}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let server = response
            .pointer("/result/serverInfo/name")
            .and_then(Value::as_str);
        self.extract_tool = lro_mcp::extract_tool_for_server(server);
        response
    }

    /// A call of the proxy's extract tool, by the name it lists.
    pub fn extract(&mut self, id: i64, arguments: Value) -> Value {
        let name = self.extract_tool.clone();
        self.tool(id, &name, arguments)
    }

    /// The proxy's stderr read so far: only for what it must not say, or after waiting for
    /// what it must say (the reader thread may not have read a line printed a moment ago).
    pub fn stderr(&self) -> String {
        self.stderr.read.lock().unwrap().0.clone()
    }

    /// The proxy's stderr once it holds every one of `needles`; fails after [`TIMEOUT`].
    pub fn stderr_containing(&self, needles: &[&str]) -> String {
        self.stderr.wait_for(&format!("{needles:?}"), |text, _| {
            needles.iter().all(|needle| text.contains(needle))
        })
    }

    /// The proxy's stderr once `done` holds for it (`what` names it for the failure message).
    pub fn stderr_when(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        self.stderr.wait_for(what, |text, _| done(text))
    }

    /// All of the proxy's stderr, once it closed it (after the proxy exited).
    pub fn stderr_to_end(&self) -> String {
        self.stderr.wait_for("its end", |_, ended| ended)
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the proxy to exit.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the proxy did not exit within {limit:?}; stderr: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Peak resident memory of the proxy process, in bytes (Linux).
    pub fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether process `pid` is gone and reaped: no entry in /proc (a zombie still has one).
pub fn reaped(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Waits up to `limit` for process `pid` to be gone and reaped.
pub fn wait_reaped(pid: u32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if reaped(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    reaped(pid)
}

/// Every `*.jsonl` in `dir` is a whole offload file (its header's count of records, each
/// a JSON line), and nothing else is there (no temp file).
pub fn only_whole_offload_files(dir: &Path) -> usize {
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.ends_with(".jsonl"), "not an offload file: {name}");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        let records: Vec<Value> = lines.map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(header["count"], records.len(), "{name} is not whole");
        files += 1;
    }
    files
}

/// The text of a CallToolResult's first content item.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {result}"))
}

/// The descriptor an offloaded result holds: its first text block, read as JSON (`Null` when
/// it is not JSON). Offloaded results carry no `structuredContent` by default.
pub fn descriptor(result: &Value) -> Value {
    result["content"][0]["text"]
        .as_str()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or(Value::Null)
}
