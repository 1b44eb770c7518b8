//! Notes on stderr (warnings, errors, `--events` lines) that never stop the process.
//!
//! A failed write is dropped: `eprintln!` would panic when stderr is a pipe nobody reads any
//! more (`2>&1 | head`). A *blocked* write is the proxy's other risk: a client that keeps
//! the proxy's stderr open but never reads it fills the pipe (64 KiB), and a note written
//! from the thread that answers requests would then wait forever, and every call with it.
//! So the proxy hands its notes to a thread of its own ([`in_background`]) through a bounded
//! queue, drops what does not fit (and says how many, once it can write again), and the CLI
//! lets that thread finish for a moment before it exits ([`flush`]).

use std::io::Write as _;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::time::Duration;

/// Notes waiting for the writer thread at most: past them, a note is dropped.
const QUEUED: usize = 1024;

enum Message {
    Line(String),
    /// Answered once every note before it is written.
    Flush(mpsc::Sender<()>),
}

static QUEUE: OnceLock<SyncSender<Message>> = OnceLock::new();
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// From now on, notes go to stderr from a thread of their own (see the module docs).
pub fn in_background() {
    let (queue, notes) = mpsc::sync_channel(QUEUED);
    if QUEUE.set(queue).is_err() {
        return;
    }
    // Without the thread (none could be made), queued notes are dropped once the queue is
    // full: a note is never worth stopping a call for.
    let _ = std::thread::Builder::new()
        .name("lro-stderr".to_owned())
        .spawn(move || {
            for message in notes {
                match message {
                    Message::Line(line) => write_line(&line),
                    Message::Flush(done) => {
                        let _ = done.send(());
                    }
                }
                let dropped = DROPPED.swap(0, Ordering::Relaxed);
                if dropped > 0 {
                    write_line(&format!(
                        "lro: {dropped} note(s) to stderr dropped: stderr was not being read"
                    ));
                }
            }
        });
}

/// Writes one note: queued when [`in_background`] was called, else written now.
pub fn write(args: std::fmt::Arguments<'_>) {
    match QUEUE.get() {
        Some(queue) => {
            if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) =
                queue.try_send(Message::Line(args.to_string()))
            {
                DROPPED.fetch_add(1, Ordering::Relaxed);
            }
        }
        None => write_line(&args.to_string()),
    }
}

/// Waits up to `limit` for the queued notes to be written (a stderr nobody reads gets no
/// more than that).
pub fn flush(limit: Duration) {
    if let Some(queue) = QUEUE.get() {
        let (done, written) = mpsc::channel();
        if queue.try_send(Message::Flush(done)).is_ok() {
            let _ = written.recv_timeout(limit);
        }
    }
}

fn write_line(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}
