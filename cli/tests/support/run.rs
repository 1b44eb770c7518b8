//! The `lro` binary run as a command: arguments, stdin and environment in, its output back,
//! and a hang turned into a failed test instead of a suite that never ends.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};

use serde_json::Value;

use super::TIMEOUT;

/// `lro ARGS` with `stdin` written to it and `envs` added to its environment (see [`command`]
/// and [`output`]).
pub fn lro(args: &[&str], stdin: impl AsRef<[u8]>, envs: &[(&str, &str)]) -> Output {
    let mut command = command(args);
    command.envs(envs.iter().copied());
    output(&mut command, stdin.as_ref())
}

/// The `lro` binary under test with `args`, without the `ATLATL_PROMPT__OFFLOAD__*` variables
/// of the environment the tests run in: only what a test sets configures its run.
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lro"));
    for (name, _) in std::env::vars_os() {
        if name
            .to_string_lossy()
            .starts_with("ATLATL_PROMPT__OFFLOAD__")
        {
            command.env_remove(name);
        }
    }
    command.args(args);
    command
}

/// Runs `command` with `stdin` written to it; its status, stdout and stderr. Killed, and the
/// test failed, if it has not ended within [`TIMEOUT`] (a FIFO waited on, a loop).
pub fn output(command: &mut Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin_pipe = child.stdin.take().unwrap();
    finish(
        child,
        &format!("{command:?}"),
        |mut pipe| {
            // A process that rejects its configuration exits before reading stdin: a broken
            // pipe is then part of the outcome under test, not a failure of the harness.
            match pipe.write_all(stdin) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                written => written.unwrap(),
            }
        },
        stdin_pipe,
    )
}

/// Waits for `child` after `feed(input)`, and returns what it wrote to the pipes still
/// held. Killed, and the test failed, if it has not ended within [`TIMEOUT`].
pub fn finish<T>(child: Child, what: &str, feed: impl FnOnce(T), input: T) -> Output {
    let pid = child.id();
    let (ended, end) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let hung = end.recv_timeout(TIMEOUT) == Err(RecvTimeoutError::Timeout);
        if hung {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
        hung
    });
    feed(input);
    let out = child.wait_with_output().unwrap();
    let _ = ended.send(());
    assert!(!watchdog.join().unwrap(), "{what} hung past {TIMEOUT:?}");
    out
}

/// What the run wrote to stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// What the run wrote to stdout, read as JSON; fails the test if the run failed.
pub fn stdout_json(out: &Output) -> Value {
    assert!(out.status.success(), "lro failed: {}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Offloads `records` with `lro offload --threshold 10 --output-dir DIR`; the offload file's
/// path (the hostile suites extract from it).
pub fn offload_records(dir: &Path, records: Vec<Value>) -> PathBuf {
    let dir = dir.to_str().unwrap();
    let out = lro(
        &["offload", "--threshold", "10", "--output-dir", dir],
        Value::Array(records).to_string(),
        &[],
    );
    PathBuf::from(stdout_json(&out)["file_path"].as_str().unwrap())
}
