//! A stdio MCP server run as a child process: its stdin gets the client's messages, its
//! stdout is read line by line, its stderr goes to ours.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lro_core::{ErrorCode, LroError};

use crate::allocator;

use super::jsonrpc::IdKey;
use super::router::Router;
use super::{Lifecycle, Upstream};

/// How long a server may take to exit once its stdin is closed, before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// The child server.
pub struct ChildUpstream {
    stdin: Mutex<Option<ChildStdin>>,
    child: Arc<Mutex<Child>>,
    router: Arc<Router>,
    /// Receives once the child's stdout has ended and its exit was handled.
    reader_done: Mutex<Receiver<()>>,
}

impl ChildUpstream {
    /// Starts `program` with `args` and the thread that reads its messages.
    pub fn spawn(
        program: &str,
        args: &[String],
        router: Arc<Router>,
        lifecycle: Sender<Lifecycle>,
    ) -> Result<Arc<Self>, LroError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                LroError::new(
                    ErrorCode::Io,
                    format!("cannot start the MCP server {program:?}: {e}"),
                )
            })?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| LroError::new(ErrorCode::Io, "the MCP server has no stdout"))?;
        let child = Arc::new(Mutex::new(child));
        let (done_tx, done_rx) = mpsc::channel();
        let upstream = Arc::new(Self {
            stdin: Mutex::new(stdin),
            child: Arc::clone(&child),
            router: Arc::clone(&router),
            reader_done: Mutex::new(done_rx),
        });
        let name = program.to_owned();
        std::thread::spawn(move || {
            let mut lines = BufReader::with_capacity(1 << 16, stdout);
            loop {
                let mut line = Vec::new();
                match lines.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if line.len() >= allocator::LARGE_MESSAGE {
                            allocator::release_freed_memory();
                        }
                        router.on_server_message(line);
                    }
                    Err(err) => {
                        eprintln!("lro proxy: cannot read from the MCP server: {err}");
                        break;
                    }
                }
            }
            let status = wait_or_kill(&child, EXIT_GRACE);
            let reason = describe(&name, status);
            router.fail_all(&format!("{reason} before answering (lro proxy)"));
            let outcome = match status {
                Some(s) if s.success() => Ok(()),
                _ => {
                    eprintln!("lro proxy: {reason}");
                    Err(reason)
                }
            };
            let _ = done_tx.send(());
            let _ = lifecycle.send(Lifecycle::ServerGone(outcome));
        });
        Ok(upstream)
    }
}

impl Upstream for ChildUpstream {
    fn send(&self, message: Vec<u8>, request: Option<IdKey>) {
        let mut stdin = self
            .stdin
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let written = match stdin.as_mut() {
            Some(pipe) => pipe
                .write_all(&message)
                .and_then(|()| pipe.write_all(b"\n"))
                .and_then(|()| pipe.flush()),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "closed",
            )),
        };
        drop(stdin);
        if let (Err(err), Some(id)) = (written, request) {
            // The reader thread answers the other requests when the server's stdout ends.
            self.router.fail_request(
                &id,
                &format!("cannot send to the MCP server: {err} (lro proxy)"),
            );
        }
    }

    fn close(&self) {
        // EOF on its stdin is how a stdio MCP server is told to stop; it may still answer
        // what is in flight, which the reader thread forwards.
        self.stdin
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let done = self
            .reader_done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if done
            .recv_timeout(EXIT_GRACE + Duration::from_secs(1))
            .is_err()
        {
            // The server keeps its stdout open: stop it.
            let _ = self
                .child
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .kill();
            let _ = done.recv_timeout(Duration::from_secs(2));
        }
    }
}

/// Waits for the child to exit, killing it after `grace`.
fn wait_or_kill(child: &Mutex<Child>, grace: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + grace;
    loop {
        let mut guard = child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match guard.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = guard.kill();
                return guard.wait().ok();
            }
            Ok(None) => {}
            Err(_) => return None,
        }
        drop(guard);
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn describe(name: &str, status: Option<ExitStatus>) -> String {
    match status {
        Some(s) if s.success() => format!("the MCP server {name:?} exited"),
        Some(s) => format!("the MCP server {name:?} exited ({s})"),
        None => format!("the MCP server {name:?} stopped"),
    }
}
