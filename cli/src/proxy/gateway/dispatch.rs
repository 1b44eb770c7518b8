//! Where a session's messages to the client go. The session's [`Router`](super::super::router)
//! writes every message as one line to a [`ClientOut`]; over HTTP there is no one line to
//! write to, so each line becomes an event of one of the session's [`Events`] streams:
//! - a response goes to the stream of the POST that sent its request, and ends it;
//! - `notifications/progress` goes to the stream of the POST whose request carried its
//!   token, when that POST may answer with an event stream;
//! - what a server sends while working on a request (its own requests, such as sampling or
//!   elicitation, and notifications such as logging) goes to a POST in flight that may
//!   stream (the oldest: a stdio server does not say which request a message is for);
//! - what is tied to no request (`list_changed`, `resources/updated`, `ping`, responses
//!   nobody waits for) goes to the GET stream; without a GET reader, to a POST in flight
//!   that may stream, else it waits on the GET stream.
//!
//! Without a POST in flight that may stream, everything but answers goes to the GET stream.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::events::{Events, GET_STREAM};
use crate::proxy::jsonrpc::{IdKey, Kind, Peek};
use crate::proxy::output::ClientOut;

/// A POST waiting for the answer to its request.
struct Waiter {
    /// The stream its messages go to.
    stream: u64,
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
    next_order: u64,
    closed: bool,
}

/// One session's routes from its router to its event streams.
pub struct Dispatch {
    routes: Mutex<Routes>,
    events: Arc<Events>,
}

/// Why a request cannot wait for its answer.
#[derive(Debug, PartialEq, Eq)]
pub enum WaitError {
    /// A request with this id is in flight in the session.
    InFlight,
    /// The session has ended.
    Closed,
}

impl Dispatch {
    /// Routes into `events`.
    pub fn new(events: Arc<Events>) -> Self {
        Self {
            routes: Mutex::default(),
            events,
        }
    }

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

    /// Registers a POST waiting for the answer to request `id` on `stream`: the answer
    /// ends that stream, and before it come what [`Dispatch`] routes to this POST. The
    /// number names this wait to [`Dispatch::forget`] (a later request may reuse the id).
    pub fn wait_for(
        &self,
        id: &IdKey,
        progress: Option<&Value>,
        streams: bool,
        stream: u64,
    ) -> Result<u64, WaitError> {
        let mut routes = self.routes();
        if routes.closed {
            return Err(WaitError::Closed);
        }
        if routes.waiters.contains_key(id) {
            return Err(WaitError::InFlight);
        }
        let order = routes.next_order;
        routes.next_order += 1;
        routes.waiters.insert(
            id.clone(),
            Waiter {
                stream,
                progress: progress.map(IdKey::of),
                streams,
                order,
            },
        );
        Ok(order)
    }

    /// The POST for request `id` that waited as `order` will not take its answer (its
    /// client went away holding no event id to resume from): its stream goes, and the
    /// answer, when it comes, goes where unclaimed messages go. A later wait for the same
    /// id stays.
    pub fn forget(&self, id: &IdKey, order: u64) {
        let mut routes = self.routes();
        if routes.waiters.get(id).is_some_and(|w| w.order == order) {
            if let Some(waiter) = routes.waiters.remove(id) {
                self.events.forget(waiter.stream);
            }
        }
    }

    /// The session has ended: every stream's reader sees it once it has what is there.
    pub fn close(&self) {
        let mut routes = self.routes();
        routes.closed = true;
        routes.waiters.clear();
        self.events.close();
    }

    /// Routes one message from the router.
    fn deliver(&self, message: Vec<u8>) {
        let mut routes = self.routes();
        if routes.closed {
            return;
        }
        let peek = Peek::parse(&message);
        let kind = peek.as_ref().map(Peek::kind);
        let (stream, last) = match kind {
            Some(Kind::Response(id)) => match routes.waiters.remove(&id) {
                Some(waiter) => (waiter.stream, true),
                None => (self.untied(&routes), false),
            },
            Some(Kind::Notification("notifications/progress")) => {
                let token = serde_json::from_slice::<Value>(&message)
                    .ok()
                    .and_then(|m| m.pointer("/params/progressToken").map(IdKey::of));
                let own = token.and_then(|token| {
                    routes
                        .waiters
                        .values()
                        .find(|w| w.streams && w.progress.as_ref() == Some(&token))
                        .map(|w| w.stream)
                });
                (own.unwrap_or_else(|| tied(&routes)), false)
            }
            Some(Kind::Notification(method)) if is_untied(method) => (self.untied(&routes), false),
            Some(Kind::Request(_, "ping")) => (self.untied(&routes), false),
            _ => (tied(&routes), false),
        };
        drop(peek);
        self.events.append(stream, message, last);
        drop(routes);
    }

    /// Where a message tied to no request goes: the GET stream when a client reads it,
    /// else a POST in flight that may stream, else the GET stream to wait for a reader.
    fn untied(&self, routes: &Routes) -> u64 {
        if self.events.get_is_read() {
            return GET_STREAM;
        }
        tied(routes)
    }
}

/// Where a message a server sends while working on a request goes: the oldest POST in
/// flight that may stream, else the GET stream.
fn tied(routes: &Routes) -> u64 {
    routes
        .waiters
        .values()
        .filter(|w| w.streams)
        .min_by_key(|w| w.order)
        .map_or(GET_STREAM, |w| w.stream)
}

/// Notifications about the session's state rather than about a request.
fn is_untied(method: &str) -> bool {
    method.ends_with("/list_changed") || method == "notifications/resources/updated"
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
    use crate::proxy::gateway::events::Next;
    use serde_json::json;
    use std::time::Duration;

    fn line(value: &Value) -> Vec<u8> {
        let mut text = serde_json::to_vec(value).unwrap();
        text.push(b'\n');
        text
    }

    fn read(reader: &mut crate::proxy::gateway::events::Reader) -> Option<Value> {
        match reader.next(Duration::ZERO) {
            Next::Event { message, .. } => Some(serde_json::from_slice(&message).unwrap()),
            _ => None,
        }
    }

    fn session() -> (Arc<Events>, Arc<Dispatch>) {
        let events = Arc::new(Events::default());
        let dispatch = Arc::new(Dispatch::new(Arc::clone(&events)));
        (events, dispatch)
    }

    #[test]
    fn answers_go_to_their_post_and_the_rest_to_the_stream() {
        let (events, dispatch) = session();
        let mut out = Lines {
            dispatch: Arc::clone(&dispatch),
            line: Vec::new(),
        };
        let mut one = events.open_post().unwrap();
        dispatch
            .wait_for(&IdKey::of(&json!(1)), None, false, one.stream())
            .unwrap();
        assert_eq!(
            dispatch
                .wait_for(&IdKey::of(&json!(1)), None, false, one.stream())
                .err(),
            Some(WaitError::InFlight)
        );
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        // Written in two pieces, as a buffered writer may.
        let bytes = [line(&note), line(&answer)].concat();
        out.write_all(&bytes[..7]).unwrap();
        out.write_all(&bytes[7..]).unwrap();
        assert_eq!(read(&mut one), Some(answer.clone()));
        // No POST may stream: the notification waits on the GET stream.
        let mut stream = events.open_get().unwrap();
        assert_eq!(read(&mut stream), Some(note));
        // Answered, the id may be used again; the first wait's end leaves the second's.
        let mut again = events.open_post().unwrap();
        let second = dispatch
            .wait_for(&IdKey::of(&json!(1)), None, false, again.stream())
            .unwrap();
        dispatch.forget(&IdKey::of(&json!(1)), second - 1);
        dispatch.deliver(serde_json::to_vec(&answer).unwrap());
        assert_eq!(read(&mut again), Some(answer));
        let mut open = events.open_post().unwrap();
        dispatch.close();
        assert!(matches!(open.next(Duration::ZERO), Next::Closed));
    }

    #[test]
    fn progress_goes_to_the_streaming_post_with_its_token() {
        let (events, dispatch) = session();
        let mut plain = events.open_post().unwrap();
        dispatch
            .wait_for(
                &IdKey::of(&json!("a")),
                Some(&json!(7)),
                false,
                plain.stream(),
            )
            .unwrap();
        let mut streaming = events.open_post().unwrap();
        dispatch
            .wait_for(
                &IdKey::of(&json!("b")),
                Some(&json!(8)),
                true,
                streaming.stream(),
            )
            .unwrap();
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": 8, "progress": 1}});
        dispatch.deliver(serde_json::to_vec(&progress).unwrap());
        assert_eq!(read(&mut streaming), Some(progress));
        assert!(read(&mut plain).is_none());
    }

    #[test]
    fn a_servers_requests_go_to_a_call_in_flight_and_state_changes_to_the_get_stream() {
        let (events, dispatch) = session();
        let mut get = events.open_get().unwrap();
        let mut call = events.open_post().unwrap();
        dispatch
            .wait_for(&IdKey::of(&json!(1)), None, true, call.stream())
            .unwrap();
        let sampling = json!({"jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage",
            "params": {}});
        let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
        let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        for message in [&sampling, &log, &changed] {
            dispatch.deliver(serde_json::to_vec(message).unwrap());
        }
        assert_eq!(read(&mut call), Some(sampling));
        assert_eq!(read(&mut call), Some(log));
        assert!(read(&mut call).is_none());
        assert_eq!(read(&mut get), Some(changed));
    }

    #[test]
    fn a_forgotten_wait_leaves_no_stream_and_its_answer_goes_unclaimed() {
        let (events, dispatch) = session();
        let post = events.open_post().unwrap();
        let primed = post.position().to_string();
        let order = dispatch
            .wait_for(&IdKey::of(&json!(1)), None, true, post.stream())
            .unwrap();
        // Its client left before holding an id: nothing of the stream stays.
        drop(post);
        dispatch.forget(&IdKey::of(&json!(1)), order);
        assert_eq!(
            events.resume(&primed).err(),
            Some(crate::proxy::gateway::events::OpenError::Unknown)
        );
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        dispatch.deliver(serde_json::to_vec(&answer).unwrap());
        let mut get = events.open_get().unwrap();
        assert_eq!(read(&mut get), Some(answer));
    }
}
