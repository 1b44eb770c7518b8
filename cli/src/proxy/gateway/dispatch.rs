//! Where a session's messages to the client go. The session's [`Router`](super::super::router)
//! writes every message as one line to a [`ClientOut`]; over HTTP there is no one line to
//! write to, so the line is handed to the HTTP request waiting for it:
//! - a response goes to the POST that sent its request;
//! - `notifications/progress` goes to the POST whose request carried its token, when that
//!   POST may answer with an event stream;
//! - anything else (notifications, the server's own requests, responses nobody waits for)
//!   goes to the session's GET stream; without one, to a POST in flight that may stream (the
//!   oldest); without either, it waits for the GET stream in a bounded backlog.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use crate::proxy::jsonrpc::{IdKey, Kind, Peek};
use crate::proxy::output::ClientOut;

/// Messages kept for a GET stream that is not open yet; past this, the oldest is dropped.
const BACKLOG: usize = 1024;

/// A POST waiting for the answer to its request.
struct Waiter {
    to: Sender<Vec<u8>>,
    /// The request's `_meta.progressToken`, when it has one.
    progress: Option<IdKey>,
    /// Whether the POST may answer with an event stream (the client accepts one).
    streams: bool,
    /// Order of arrival: the oldest streaming POST takes the messages no one else does.
    order: u64,
}

#[derive(Default)]
struct Routes {
    waiters: HashMap<IdKey, Waiter>,
    stream: Option<Sender<Vec<u8>>>,
    backlog: VecDeque<Vec<u8>>,
    next_order: u64,
    closed: bool,
    /// Whether the backlog has overflowed (said once).
    dropped: bool,
}

/// One session's routes from its router to the HTTP requests.
#[derive(Default)]
pub struct Dispatch {
    routes: Mutex<Routes>,
}

/// Why a request cannot wait for its answer.
#[derive(Debug, PartialEq, Eq)]
pub enum WaitError {
    /// A request with this id is in flight in the session.
    InFlight,
    /// The session has ended.
    Closed,
}

/// Why a GET stream cannot open.
#[derive(Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The session has one open already.
    Open,
    /// The session has ended.
    Closed,
}

impl Dispatch {
    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.routes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer the session's router writes its lines to.
    pub fn client_out(self: &Arc<Self>) -> ClientOut {
        ClientOut::new(Box::new(Lines {
            dispatch: Arc::clone(self),
            line: Vec::new(),
        }))
    }

    /// Registers a POST waiting for the answer to request `id`; the receiver gets that
    /// answer, last, and before it what [`Dispatch`] routes to this POST. The number names
    /// this wait to [`Dispatch::forget`] (a later request may reuse the id).
    pub fn wait_for(
        &self,
        id: &IdKey,
        progress: Option<&Value>,
        streams: bool,
    ) -> Result<(Receiver<Vec<u8>>, u64), WaitError> {
        let mut routes = self.routes();
        if routes.closed {
            return Err(WaitError::Closed);
        }
        if routes.waiters.contains_key(id) {
            return Err(WaitError::InFlight);
        }
        let (to, from) = mpsc::channel();
        let order = routes.next_order;
        routes.next_order += 1;
        routes.waiters.insert(
            id.clone(),
            Waiter {
                to,
                progress: progress.map(IdKey::of),
                streams,
                order,
            },
        );
        Ok((from, order))
    }

    /// The POST for request `id` that waited as `order` is done (answered, or its client
    /// went away); a later wait for the same id stays.
    pub fn forget(&self, id: &IdKey, order: u64) {
        let mut routes = self.routes();
        if routes.waiters.get(id).is_some_and(|w| w.order == order) {
            routes.waiters.remove(id);
        }
    }

    /// Opens the session's GET stream; what waited in the backlog comes first.
    pub fn open_stream(&self) -> Result<Receiver<Vec<u8>>, StreamError> {
        let mut routes = self.routes();
        if routes.closed {
            return Err(StreamError::Closed);
        }
        if routes.stream.as_ref().is_some_and(stream_is_open) {
            return Err(StreamError::Open);
        }
        let (to, from) = mpsc::channel();
        for message in routes.backlog.drain(..) {
            let _ = to.send(message);
        }
        routes.stream = Some(to);
        Ok(from)
    }

    /// Whether no POST waits for an answer and no GET stream is open.
    pub fn is_idle(&self) -> bool {
        let mut routes = self.routes();
        if routes.stream.as_ref().is_some_and(|s| !stream_is_open(s)) {
            routes.stream = None;
        }
        routes.waiters.is_empty() && routes.stream.is_none()
    }

    /// The session has ended: every stream and waiting POST sees its channel close (after
    /// the answers already routed to it).
    pub fn close(&self) {
        let mut routes = self.routes();
        routes.closed = true;
        routes.waiters.clear();
        routes.stream = None;
        routes.backlog.clear();
    }

    /// Routes one message from the router.
    fn deliver(&self, message: Vec<u8>) {
        let mut routes = self.routes();
        let target = match Peek::parse(&message).as_ref().map(Peek::kind) {
            Some(Kind::Response(id)) => routes.waiters.remove(&id).map(|w| w.to),
            Some(Kind::Notification("notifications/progress")) => {
                let token = serde_json::from_slice::<Value>(&message)
                    .ok()
                    .and_then(|m| m.pointer("/params/progressToken").map(IdKey::of));
                token.and_then(|token| {
                    routes
                        .waiters
                        .values()
                        .find(|w| w.streams && w.progress.as_ref() == Some(&token))
                        .map(|w| w.to.clone())
                })
            }
            _ => None,
        };
        let message = match target {
            Some(to) => match to.send(message) {
                Ok(()) => return,
                // Its POST has gone: the message goes where unclaimed ones go.
                Err(mpsc::SendError(message)) => message,
            },
            None => message,
        };
        if let Some(stream) = &routes.stream {
            match stream.send(message) {
                Ok(()) => return,
                Err(mpsc::SendError(unsent)) => {
                    routes.stream = None;
                    return self.unclaimed(&mut routes, unsent);
                }
            }
        }
        self.unclaimed(&mut routes, message);
    }

    /// A message with no GET stream to go to: the oldest POST that may stream takes it,
    /// else the backlog keeps it for the GET stream.
    fn unclaimed(&self, routes: &mut Routes, message: Vec<u8>) {
        if routes.closed {
            return;
        }
        let oldest = routes
            .waiters
            .values()
            .filter(|w| w.streams)
            .min_by_key(|w| w.order);
        let message = match oldest {
            Some(waiter) => match waiter.to.send(message) {
                Ok(()) => return,
                Err(mpsc::SendError(message)) => message,
            },
            None => message,
        };
        if routes.backlog.len() == BACKLOG {
            routes.backlog.pop_front();
            if !routes.dropped {
                routes.dropped = true;
                note!(
                    "lro proxy: a session's client opens no GET stream: the oldest of the \
                     {BACKLOG} messages kept for it are being dropped"
                );
            }
        }
        routes.backlog.push_back(message);
    }
}

/// Whether the GET stream's reader is still there (its request has not ended).
fn stream_is_open(stream: &Sender<Vec<u8>>) -> bool {
    // An empty probe is skipped by the stream's writer.
    stream.send(Vec::new()).is_ok()
}

/// The router's client output: bytes up to each newline are one message.
struct Lines {
    dispatch: Arc<Dispatch>,
    line: Vec<u8>,
}

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..end]);
            let message = std::mem::take(&mut self.line);
            if !message.is_empty() {
                self.dispatch.deliver(message);
            }
            rest = &rest[end + 1..];
        }
        self.line.extend_from_slice(rest);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(value: &Value) -> Vec<u8> {
        let mut text = serde_json::to_vec(value).unwrap();
        text.push(b'\n');
        text
    }

    #[test]
    fn answers_go_to_their_post_and_the_rest_to_the_stream() {
        let dispatch = Arc::new(Dispatch::default());
        let mut out = Lines {
            dispatch: Arc::clone(&dispatch),
            line: Vec::new(),
        };
        let (one, _) = dispatch
            .wait_for(&IdKey::of(&json!(1)), None, false)
            .unwrap();
        assert_eq!(
            dispatch.wait_for(&IdKey::of(&json!(1)), None, false).err(),
            Some(WaitError::InFlight)
        );
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
        // Written in two pieces, as a buffered writer may.
        let bytes = [
            line(&note),
            line(&json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        ]
        .concat();
        out.write_all(&bytes[..7]).unwrap();
        out.write_all(&bytes[7..]).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert_eq!(one.recv().unwrap(), serde_json::to_vec(&answer).unwrap());
        // The notification had no stream: it waited in the backlog.
        let stream = dispatch.open_stream().unwrap();
        assert_eq!(stream.recv().unwrap(), serde_json::to_vec(&note).unwrap());
        assert_eq!(dispatch.open_stream().err(), Some(StreamError::Open));
        // Answered, the id may be used again; the first wait's end leaves the second's.
        let (again, second) = dispatch
            .wait_for(&IdKey::of(&json!(1)), None, false)
            .unwrap();
        dispatch.forget(&IdKey::of(&json!(1)), second - 1);
        dispatch.deliver(serde_json::to_vec(&answer).unwrap());
        assert_eq!(again.recv().unwrap(), serde_json::to_vec(&answer).unwrap());
        dispatch.close();
        assert!(one.recv().is_err());
    }

    #[test]
    fn progress_goes_to_the_streaming_post_with_its_token() {
        let dispatch = Arc::new(Dispatch::default());
        let (plain, _) = dispatch
            .wait_for(&IdKey::of(&json!("a")), Some(&json!(7)), false)
            .unwrap();
        let (streaming, _) = dispatch
            .wait_for(&IdKey::of(&json!("b")), Some(&json!(8)), true)
            .unwrap();
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 8, "progress": 1}});
        dispatch.deliver(serde_json::to_vec(&progress).unwrap());
        assert_eq!(
            streaming.recv().unwrap(),
            serde_json::to_vec(&progress).unwrap()
        );
        assert!(plain.try_recv().is_err());
    }
}
