//! A stdio MCP server run as a child process: its stdin gets the client's messages (from a
//! writer thread of its own), its stdout is read line by line, its stderr goes to ours.
//!
//! The client's reader never writes to the pipe itself: a server that stops reading would
//! block it, and the client's EOF would then never be seen (the proxy outlived its client
//! that way). When the client goes, the server is stopped as MCP's stdio transport says:
//! its stdin closed, then `SIGTERM`, then `SIGKILL`, and reaped, whatever its stdout does.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lro_core::{ErrorCode, LroError};

use crate::signals;

use super::jsonrpc::{self, IdKey};
use super::lines;
use super::{Inbound, Lifecycle, Upstream};

/// How long a server may take to exit once its stdin is closed, before it is asked to stop
/// (`SIGTERM`); it may still answer what is in flight meanwhile.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// How long a server may take to exit after `SIGTERM`, before it is killed.
const TERM_GRACE: Duration = Duration::from_secs(2);

/// How long, once the server has exited, its last answers may take to be forwarded (a
/// process it left behind may hold its stdout open for ever).
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Bytes of client messages waiting for a server that does not read: past this, requests
/// are answered with an error rather than queued (a message is always queued when the queue
/// is empty, however large).
const MAX_QUEUED: usize = 64 << 20;

/// A client message on its way to the server's stdin.
struct Outgoing {
    message: Vec<u8>,
    request: Option<IdKey>,
}

/// The child server.
pub struct ChildUpstream {
    /// The writer thread's queue; `None` once the client is gone (the thread then closes
    /// the server's stdin).
    queue: Mutex<Option<Sender<Outgoing>>>,
    /// Bytes in the queue.
    queued: Arc<AtomicUsize>,
    child: Arc<Mutex<Child>>,
    router: Arc<dyn Inbound>,
    /// Receives once the child's stdout has ended and its exit was handled.
    reader_done: Mutex<Receiver<()>>,
    /// Set when the client has gone: the server is being stopped on purpose.
    closing: Arc<AtomicBool>,
}

impl ChildUpstream {
    /// Starts `program` with `args` and the thread that reads its messages.
    pub fn spawn(
        program: &str,
        args: &[String],
        router: Arc<dyn Inbound>,
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
        let (queue, outgoing) = mpsc::channel();
        let queued = Arc::new(AtomicUsize::new(0));
        spawn_writer(stdin, outgoing, Arc::clone(&queued), Arc::clone(&router));
        let closing = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&closing);
        let upstream = Arc::new(Self {
            closing,
            queue: Mutex::new(Some(queue)),
            queued,
            child: Arc::clone(&child),
            router: Arc::clone(&router),
            reader_done: Mutex::new(done_rx),
        });
        let name = program.to_owned();
        std::thread::spawn(move || {
            let mut lines = BufReader::with_capacity(1 << 16, stdout);
            let max = router.limits().server;
            loop {
                let mut line = Vec::new();
                match lines::read_line(&mut lines, &mut line, max) {
                    Ok(lines::Line::End) => break,
                    Ok(lines::Line::Read(_)) => router.on_server_message(line),
                    Ok(lines::Line::TooLong) => {
                        let why = router.server_message_too_long();
                        let start = jsonrpc::start_of(&line);
                        let mut end = Vec::new();
                        let skipped = if start.id.is_some() && !start.method {
                            // Its call fails now, not once an endless line ends.
                            router.server_message_dropped(&line, &[], None, &why);
                            lines::skip_line(&mut lines, &mut end)
                        } else {
                            // Read over; its end may hold the id (TypeScript SDK order).
                            let skipped = lines::skip_line(&mut lines, &mut end);
                            router.server_message_dropped(&line, &end, None, &why);
                            skipped
                        };
                        if let Err(err) = skipped {
                            note!("lro proxy: cannot read from the MCP server: {err}");
                            break;
                        }
                    }
                    Ok(lines::Line::NoMemory(size)) => {
                        let why = format!("{size} bytes, more than the memory left to read it");
                        router.server_message_dropped(&line, &[], None, &why);
                    }
                    Err(err) => {
                        note!("lro proxy: cannot read from the MCP server: {err}");
                        break;
                    }
                }
            }
            let status = wait_or_kill(&child, EXIT_GRACE);
            let reason = describe(&name, status);
            if stopped.load(Ordering::SeqCst) {
                // Stopped because the client went: that is what its calls are told.
                router.fail_all(super::CLIENT_GONE);
            } else {
                router.fail_all(&format!("{reason} before answering (lro proxy)"));
            }
            let outcome = match status {
                Some(s) if s.success() => Ok(()),
                _ => {
                    note!("lro proxy: {reason}");
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
        let size = message.len();
        let queue = self
            .queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let waiting = self.queued.load(Ordering::SeqCst);
        let refused = if waiting > 0 && waiting + size > MAX_QUEUED {
            Some("the MCP server is not reading its input")
        } else if let Some(queue) = queue.as_ref() {
            self.queued.fetch_add(size, Ordering::SeqCst);
            match queue.send(Outgoing { message, request }) {
                Ok(()) => return,
                Err(mpsc::SendError(lost)) => {
                    self.queued.fetch_sub(size, Ordering::SeqCst);
                    return self.fail(lost.request.as_ref(), "the MCP server's input is closed");
                }
            }
        } else {
            Some("the MCP server's input is closed")
        };
        drop(queue);
        if let Some(reason) = refused {
            self.fail(request.as_ref(), reason);
        }
    }

    fn close(&self) {
        // EOF on its stdin is how a stdio MCP server is told to stop (once the writer has
        // sent what is queued); it may still answer what is in flight, which the reader
        // thread forwards.
        self.closing.store(true, Ordering::SeqCst);
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if !wait_exit(&self.child, EXIT_GRACE) {
            note!("lro proxy: the MCP server did not exit once its input closed: SIGTERM");
            signal(&self.child, Stop::Term);
            if !wait_exit(&self.child, TERM_GRACE) {
                note!("lro proxy: the MCP server did not exit on SIGTERM: SIGKILL");
                signal(&self.child, Stop::Kill);
            }
        }
        // Reaped here, whatever the reader thread is doing: no zombie is left behind.
        let _ = self
            .child
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .wait();
        let _ = self
            .reader_done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv_timeout(DRAIN_GRACE);
    }
}

impl ChildUpstream {
    fn fail(&self, request: Option<&IdKey>, reason: &str) {
        match request {
            Some(id) => self.router.fail_request(
                id,
                &format!("cannot send to the MCP server: {reason} (lro proxy)"),
            ),
            None => note!("lro proxy: a message from the client was dropped: {reason}"),
        }
    }
}

/// Writes the queued messages to the server's stdin, one per line; closes it when the
/// queue is dropped. A request that cannot be written is answered with an error.
fn spawn_writer(
    stdin: Option<ChildStdin>,
    outgoing: Receiver<Outgoing>,
    queued: Arc<AtomicUsize>,
    router: Arc<dyn Inbound>,
) {
    std::thread::spawn(move || {
        let mut stdin = stdin;
        for Outgoing { message, request } in outgoing {
            queued.fetch_sub(message.len(), Ordering::SeqCst);
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
            if let Err(err) = written {
                stdin = None;
                if let Some(id) = request {
                    // The reader thread answers the other requests when the server's stdout ends.
                    router.fail_request(
                        &id,
                        &format!("cannot send to the MCP server: {err} (lro proxy)"),
                    );
                }
            }
        }
    });
}

/// How to stop a server.
enum Stop {
    Term,
    Kill,
}

/// Signals the child unless it has exited (its pid is then not yet reused: it is not reaped
/// until [`Child::wait`], under the same lock).
fn signal(child: &Mutex<Child>, stop: Stop) {
    let mut guard = child
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Ok(None) = guard.try_wait() {
        match stop {
            Stop::Term => signals::terminate(guard.id()),
            Stop::Kill => {
                let _ = guard.kill();
            }
        }
    }
}

/// Whether the child exits within `limit`.
fn wait_exit(child: &Mutex<Child>, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        let exited = !matches!(
            child
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .try_wait(),
            Ok(None)
        );
        if exited || Instant::now() >= deadline {
            return exited;
        }
        std::thread::sleep(Duration::from_millis(10));
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
