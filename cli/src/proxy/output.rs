//! The client side of stdio: one message per line, never two interleaved.

use std::io::{self, BufWriter, Write};
use std::sync::Mutex;

/// Where messages to the client go.
pub struct ClientOut {
    sink: Mutex<Box<dyn Write + Send>>,
}

impl ClientOut {
    /// The process's stdout.
    pub fn stdout() -> Self {
        Self::new(Box::new(io::stdout()))
    }

    /// Any writer (tests).
    pub fn new(sink: Box<dyn Write + Send>) -> Self {
        Self {
            sink: Mutex::new(sink),
        }
    }

    /// Writes one message given as JSON text (it must hold no raw newline).
    pub fn send_raw(&self, message: &[u8]) {
        let mut sink = self
            .sink
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let written = sink
            .write_all(message)
            .and_then(|()| sink.write_all(b"\n"))
            .and_then(|()| sink.flush());
        report(written);
    }

    /// Serializes one message straight to the client (no intermediate string for large
    /// results; any serializable message, so a large one need not be copied into a `Value`).
    pub fn send<M: serde::Serialize + ?Sized>(&self, message: &M) {
        let mut sink = self
            .sink
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut buffered = BufWriter::with_capacity(1 << 16, &mut *sink);
        let written = serde_json::to_writer(&mut buffered, message)
            .map_err(io::Error::other)
            .and_then(|()| buffered.write_all(b"\n"))
            .and_then(|()| buffered.flush());
        drop(buffered);
        report(written.and_then(|()| sink.flush()));
    }
}

fn report(written: io::Result<()>) {
    // The client closing its end is how sessions end; anything else is worth a line.
    match written {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
            note!("lro proxy: cannot write to the client: {err}")
        }
        _ => {}
    }
}
