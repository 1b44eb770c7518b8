//! A session's event streams, kept so that a client whose connection dropped can resume.
//!
//! Every message the gateway sends a session's client on an event stream is an event of one
//! of the session's streams: the GET stream ([`GET_STREAM`], as long as the session lives)
//! or a POST's (one per request answered with a stream, ending with its answer). An event's
//! id is `STREAM-SEQ`: SEQ counts up across the session, so an id is unique in its session,
//! names its stream and orders that stream's events.
//!
//! Events outlive the connection that carried them: a stream whose connection was lost
//! goes on collecting its messages (a POST's answer among them), and a GET with
//! `Last-Event-ID` replays what followed that id on that stream, then goes on with the
//! stream's live events. A stream has one reader at a time: the connection writing it. A
//! resumption takes the stream over (the client knows its old connection is gone before
//! the gateway may); a second plain GET while the GET stream has a reader is refused.
//!
//! What is kept is bounded per session: at most [`MAX_EVENTS`] events and [`MAX_BYTES`]
//! bytes of messages. Past either, the events written longest ago go first (a client that
//! resumes later than that is told its id is no longer kept); then, when only unwritten
//! events are left, the oldest of those on a stream nobody reads (notifications for a
//! client that opens no GET stream); then a reader that has not kept up loses its stream
//! (its connection ends; its client may resume) and its stream's oldest unwritten events go.
//! A POST's answer is never dropped unwritten: it waits for its client to resume until the
//! session ends.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The session's GET stream: messages not tied to a request.
pub const GET_STREAM: u64 = 0;

/// Events kept per session, at most.
pub const MAX_EVENTS: usize = 512;

/// Bytes of messages kept per session, at most (an event larger than this is kept until it
/// is written, and no longer).
pub const MAX_BYTES: usize = 4 << 20;

/// An event's id, `STREAM-SEQ`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventId {
    /// The stream the event is on.
    pub stream: u64,
    /// Its place in the session's events.
    pub seq: u64,
}

impl EventId {
    /// Reads a `Last-Event-ID`; `None` for text that is no id of this gateway.
    pub fn parse(text: &str) -> Option<Self> {
        let (stream, seq) = text.trim().split_once('-')?;
        let number = |digits: &str| {
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
        };
        Some(Self {
            stream: number(stream)?,
            seq: number(seq)?,
        })
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.stream, self.seq)
    }
}

/// One message on a stream.
struct Event {
    seq: u64,
    message: Arc<Vec<u8>>,
}

struct Stream {
    /// The events kept, oldest first (those written come first).
    events: VecDeque<Event>,
    /// The seq its ids start after: a resumption from here replays the whole stream.
    base: u64,
    /// The last event written to a connection (or `base`).
    written: u64,
    /// The newest event no longer kept (or `base`): a resumption needs an id past it.
    dropped: u64,
    /// Its last event (a POST's answer) is in.
    ended: bool,
    /// The generation of its reader; 0 for none.
    reader: u64,
}

impl Stream {
    fn new(base: u64) -> Self {
        Self {
            events: VecDeque::new(),
            base,
            written: base,
            dropped: base,
            ended: false,
            reader: 0,
        }
    }
}

#[derive(Default)]
struct State {
    streams: HashMap<u64, Stream>,
    next_stream: u64,
    /// The last seq given out.
    seq: u64,
    next_reader: u64,
    /// The events written, in the order they were: the first to drop past the bounds.
    history: VecDeque<(u64, u64)>,
    count: usize,
    bytes: usize,
    closed: bool,
    /// Whether unwritten events have been dropped (said once).
    dropped_unwritten: bool,
}

/// A session's streams and their events.
pub struct Events {
    state: Mutex<State>,
    changed: Condvar,
}

/// What a reader gets next.
pub enum Next {
    /// An event to write.
    Event {
        id: EventId,
        message: Arc<Vec<u8>>,
        /// It is its stream's last (a POST's answer).
        last: bool,
    },
    /// The stream has ended and every event was read: the response ends here.
    Ended,
    /// Nothing came for the time given.
    Idle,
    /// Another connection took the stream over.
    Replaced,
    /// The session has ended.
    Closed,
}

/// Why a GET cannot read a stream.
#[derive(Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The GET stream has a reader already.
    Open,
    /// The `Last-Event-ID` names no event of this session.
    Unknown,
    /// The events after that id are no longer kept.
    Gone,
    /// The session has ended.
    Closed,
}

impl Default for Events {
    fn default() -> Self {
        let mut state = State {
            next_stream: GET_STREAM + 1,
            next_reader: 1,
            ..State::default()
        };
        state.streams.insert(GET_STREAM, Stream::new(0));
        Self {
            state: Mutex::new(state),
            changed: Condvar::new(),
        }
    }
}

impl Events {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new POST stream, read by the connection that asks for it; `None` once the session
    /// has ended.
    pub fn open_post(self: &Arc<Self>) -> Option<Reader> {
        let mut state = self.state();
        if state.closed {
            return None;
        }
        let stream = state.next_stream;
        state.next_stream += 1;
        state.seq += 1;
        let base = state.seq;
        let generation = state.take_reader();
        let mut opened = Stream::new(base);
        opened.reader = generation;
        state.streams.insert(stream, opened);
        Some(self.reader(stream, generation, base))
    }

    /// The GET stream for a GET without `Last-Event-ID`: what no connection has written yet
    /// comes first.
    pub fn open_get(self: &Arc<Self>) -> Result<Reader, OpenError> {
        let mut state = self.state();
        if state.closed {
            return Err(OpenError::Closed);
        }
        let generation = state.next_reader;
        let stream = state
            .streams
            .get_mut(&GET_STREAM)
            .ok_or(OpenError::Closed)?;
        if stream.reader != 0 {
            return Err(OpenError::Open);
        }
        stream.reader = generation;
        let cursor = stream.written.max(stream.dropped);
        state.next_reader += 1;
        Ok(self.reader(GET_STREAM, generation, cursor))
    }

    /// The stream `last_event_id` names, from the event after it; its reader, if any, is
    /// replaced.
    pub fn resume(self: &Arc<Self>, last_event_id: &str) -> Result<Reader, OpenError> {
        let id = EventId::parse(last_event_id).ok_or(OpenError::Unknown)?;
        let mut state = self.state();
        if state.closed {
            return Err(OpenError::Closed);
        }
        let issued = state.seq;
        let generation = state.next_reader;
        let stream = state
            .streams
            .get_mut(&id.stream)
            .filter(|s| id.seq >= s.base && id.seq <= issued)
            .ok_or(OpenError::Unknown)?;
        if id.seq < stream.dropped {
            return Err(OpenError::Gone);
        }
        stream.reader = generation;
        state.next_reader += 1;
        drop(state);
        self.changed.notify_all();
        Ok(self.reader(id.stream, generation, id.seq))
    }

    fn reader(self: &Arc<Self>, stream: u64, generation: u64, cursor: u64) -> Reader {
        Reader {
            events: Arc::clone(self),
            stream,
            generation,
            cursor,
        }
    }

    /// Adds a message to `stream` (to the GET stream when that one is gone); `last` ends
    /// the stream.
    pub fn append(&self, stream: u64, message: Vec<u8>, last: bool) {
        let mut state = self.state();
        if state.closed {
            return;
        }
        let stream = if state.streams.contains_key(&stream) {
            stream
        } else {
            GET_STREAM
        };
        state.seq += 1;
        let seq = state.seq;
        state.count += 1;
        state.bytes += message.len();
        if let Some(target) = state.streams.get_mut(&stream) {
            target.events.push_back(Event {
                seq,
                message: Arc::new(message),
            });
            target.ended |= last && stream != GET_STREAM;
        }
        state.bound();
        drop(state);
        self.changed.notify_all();
    }

    /// Removes a POST's stream nobody will read: no reader has it, and its client holds no
    /// id of it to resume from.
    pub fn forget(&self, stream: u64) {
        let mut state = self.state();
        if stream != GET_STREAM && state.streams.get(&stream).is_some_and(|s| s.reader == 0) {
            state.remove_stream(stream);
        }
    }

    /// Whether some connection reads one of the session's streams.
    pub fn has_readers(&self) -> bool {
        self.state().streams.values().any(|s| s.reader != 0)
    }

    /// Whether the GET stream has a reader.
    pub fn get_is_read(&self) -> bool {
        self.state()
            .streams
            .get(&GET_STREAM)
            .is_some_and(|s| s.reader != 0)
    }

    /// The session has ended: nothing more is added or opened, and every reader, once it
    /// has what its stream holds (the errors that answered its calls), gets [`Next::Closed`].
    pub fn close(&self) {
        self.state().closed = true;
        self.changed.notify_all();
    }
}

impl State {
    fn take_reader(&mut self) -> u64 {
        let generation = self.next_reader;
        self.next_reader += 1;
        generation
    }

    fn over(&self) -> bool {
        self.count > MAX_EVENTS || self.bytes > MAX_BYTES
    }

    /// Drops events until the session is within its bounds (see the module's comment).
    fn bound(&mut self) {
        while self.over() {
            if let Some((stream, seq)) = self.history.pop_front() {
                self.drop_event(stream, seq);
                continue;
            }
            let Some((stream, seq)) = self.oldest_unread().or_else(|| self.evict_slowest()) else {
                return;
            };
            if !self.dropped_unwritten {
                self.dropped_unwritten = true;
                note!(
                    "lro proxy: a session's client does not read its streams (or too slowly): \
                     the oldest messages kept for it are being dropped ({MAX_EVENTS} events, {MAX_BYTES} \
                     bytes at most)"
                );
            }
            self.drop_event(stream, seq);
        }
    }

    /// A reader that keeps the session over its bounds with events it has not written (its
    /// client reads slower than the server sends, or not at all) loses its stream: its
    /// connection ends ([`Next::Replaced`]), the client may resume from its last id, and the
    /// stream's oldest unwritten event, other than an answer, can go. Without this, a
    /// connected client that stops reading would have the gateway keep everything the
    /// server sends it.
    fn evict_slowest(&mut self) -> Option<(u64, u64)> {
        let (&id, stream) = self
            .streams
            .iter_mut()
            .filter(|(_, s)| s.reader != 0)
            .filter(|(_, s)| {
                let unwritten = s.events.iter().filter(|e| e.seq > s.written).count();
                unwritten > usize::from(s.ended)
            })
            .max_by_key(|(_, s)| {
                s.events
                    .iter()
                    .filter(|e| e.seq > s.written)
                    .map(|e| e.message.len())
                    .sum::<usize>()
            })?;
        stream.reader = 0;
        let first = stream.events.iter().position(|e| e.seq > stream.written)?;
        Some((id, stream.events[first].seq))
    }

    /// The oldest unwritten event, other than an answer, of a stream no connection reads.
    fn oldest_unread(&self) -> Option<(u64, u64)> {
        self.streams
            .iter()
            .filter(|(_, s)| s.reader == 0)
            .filter_map(|(&id, s)| {
                let unwritten = s.events.iter().position(|e| e.seq > s.written)?;
                let answer = s.ended && unwritten + 1 == s.events.len();
                (!answer).then(|| (id, s.events[unwritten].seq))
            })
            .min_by_key(|&(_, seq)| seq)
    }

    fn remove_stream(&mut self, id: u64) {
        if let Some(stream) = self.streams.remove(&id) {
            self.count -= stream.events.len();
            self.bytes -= stream.events.iter().map(|e| e.message.len()).sum::<usize>();
            self.history.retain(|&(stream, _)| stream != id);
        }
    }

    fn drop_event(&mut self, stream: u64, seq: u64) {
        let Some(kept) = self.streams.get_mut(&stream) else {
            return;
        };
        let Some(at) = kept.events.iter().position(|e| e.seq == seq) else {
            return;
        };
        if let Some(event) = kept.events.remove(at) {
            self.count -= 1;
            self.bytes -= event.message.len();
        }
        kept.dropped = kept.dropped.max(seq);
        if kept.ended && kept.events.is_empty() && kept.reader == 0 {
            self.streams.remove(&stream);
        }
    }
}

/// A connection's hold on a stream: it reads the events after its cursor. Dropped, the
/// stream has no reader (unless another took it over).
pub struct Reader {
    events: Arc<Events>,
    stream: u64,
    generation: u64,
    cursor: u64,
}

impl Reader {
    /// The stream read.
    pub fn stream(&self) -> u64 {
        self.stream
    }

    /// The id of the last event read (or of the stream's start): a priming event's.
    pub fn position(&self) -> EventId {
        EventId {
            stream: self.stream,
            seq: self.cursor,
        }
    }

    /// The next event after the cursor, waiting for one at most `wait`.
    pub fn next(&mut self, wait: Duration) -> Next {
        let deadline = Instant::now() + wait;
        let mut state = self.events.state();
        loop {
            let Some(stream) = state.streams.get(&self.stream) else {
                return Next::Closed;
            };
            if stream.reader != self.generation {
                return Next::Replaced;
            }
            let after = stream.events.partition_point(|e| e.seq <= self.cursor);
            if let Some(event) = stream.events.get(after) {
                self.cursor = event.seq;
                return Next::Event {
                    id: EventId {
                        stream: self.stream,
                        seq: event.seq,
                    },
                    message: Arc::clone(&event.message),
                    last: stream.ended && after + 1 == stream.events.len(),
                };
            }
            if stream.ended {
                return Next::Ended;
            }
            if state.closed {
                return Next::Closed;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Next::Idle;
            }
            state = self
                .events
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The events up to `seq` have been written to the connection: they are kept now only
    /// for a resumption, within the session's bounds.
    pub fn written(&self, seq: u64) {
        let mut state = self.events.state();
        let Some(stream) = state.streams.get_mut(&self.stream) else {
            return;
        };
        if seq <= stream.written {
            return;
        }
        let from = stream.written;
        stream.written = seq;
        let newly: Vec<(u64, u64)> = stream
            .events
            .iter()
            .filter(|e| e.seq > from && e.seq <= seq)
            .map(|e| (self.stream, e.seq))
            .collect();
        state.history.extend(newly);
        state.bound();
    }

    /// The stream's answer went out as plain JSON, with no id: nothing of it is kept.
    pub fn discard(self) {
        self.events.state().remove_stream(self.stream);
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let mut state = self.events.state();
        let Some(stream) = state.streams.get_mut(&self.stream) else {
            return;
        };
        if stream.reader == self.generation {
            stream.reader = 0;
            if stream.ended && stream.events.is_empty() {
                state.streams.remove(&self.stream);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Duration = Duration::ZERO;

    fn message(next: Next) -> (EventId, String, bool) {
        match next {
            Next::Event { id, message, last } => {
                (id, String::from_utf8(message.to_vec()).unwrap(), last)
            }
            _ => panic!("no event"),
        }
    }

    #[test]
    fn ids_name_their_stream_and_count_up_across_the_session() {
        let events = Arc::new(Events::default());
        let mut one = events.open_post().unwrap();
        let mut two = events.open_post().unwrap();
        assert_ne!(one.stream(), two.stream());
        events.append(two.stream(), b"b".to_vec(), false);
        events.append(one.stream(), b"a".to_vec(), true);
        let (a, text, last) = message(one.next(NOW));
        assert_eq!((text.as_str(), last), ("a", true));
        let (b, _, last) = message(two.next(NOW));
        assert!(!last);
        assert_eq!(a.stream, one.stream());
        assert!(b.seq < a.seq && one.position().seq == a.seq);
        assert_eq!(EventId::parse(&a.to_string()), Some(a));
        assert!(matches!(one.next(NOW), Next::Ended));
        assert!(matches!(two.next(NOW), Next::Idle));
        for bad in ["", "1", "1-", "-1", "a-1", "1-2-3", "1-+2"] {
            assert_eq!(EventId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_resumption_replays_what_followed_and_takes_the_stream_over() {
        let events = Arc::new(Events::default());
        let mut post = events.open_post().unwrap();
        let primed = post.position();
        events.append(post.stream(), b"note".to_vec(), false);
        let (id, _, _) = message(post.next(NOW));
        post.written(id.seq);
        // The connection drops; a progress note comes meanwhile.
        drop(post);
        events.append(primed.stream, b"progress".to_vec(), false);
        assert!(!events.has_readers());
        // Resumed from the priming id: what followed it, then what comes live.
        let mut resumed = events.resume(&primed.to_string()).unwrap();
        assert_eq!(message(resumed.next(NOW)).1, "note");
        assert_eq!(message(resumed.next(NOW)).1, "progress");
        assert!(matches!(resumed.next(NOW), Next::Idle));
        events.append(primed.stream, b"answer".to_vec(), true);
        let (_, answer, last) = message(resumed.next(NOW));
        assert_eq!((answer.as_str(), last), ("answer", true));
        // A second resumption replaces the first reader.
        let mut again = events.resume(&id.to_string()).unwrap();
        assert!(matches!(resumed.next(NOW), Next::Replaced));
        assert_eq!(message(again.next(NOW)).1, "progress");
        assert_eq!(message(again.next(NOW)).1, "answer");
        for unknown in ["nonsense", "99-1", &format!("{}-999", primed.stream)] {
            assert_eq!(
                events.resume(unknown).err(),
                Some(OpenError::Unknown),
                "{unknown}"
            );
        }
        let mut open = events.open_post().unwrap();
        events.close();
        assert!(matches!(again.next(NOW), Next::Ended));
        assert!(matches!(open.next(NOW), Next::Closed));
        assert!(events.open_post().is_none());
    }

    #[test]
    fn the_get_stream_is_read_once_and_keeps_what_waits_for_it() {
        let events = Arc::new(Events::default());
        events.append(GET_STREAM, b"early".to_vec(), false);
        let mut get = events.open_get().unwrap();
        assert_eq!(events.open_get().err(), Some(OpenError::Open));
        assert!(events.get_is_read());
        assert_eq!(message(get.next(NOW)).1, "early");
        drop(get);
        assert!(events.open_get().is_ok());
    }

    #[test]
    fn the_bounds_drop_written_events_first_and_never_an_answer() {
        let events = Arc::new(Events::default());
        let mut post = events.open_post().unwrap();
        let primed = post.position();
        for _ in 0..MAX_EVENTS {
            events.append(post.stream(), b"x".to_vec(), false);
            let (id, _, _) = message(post.next(NOW));
            post.written(id.seq);
        }
        let stream = post.stream();
        drop(post);
        events.append(stream, b"answer".to_vec(), true);
        // The first event written is no longer kept: a resumption before it is refused.
        assert_eq!(
            events.resume(&primed.to_string()).err(),
            Some(OpenError::Gone)
        );
        // Unread notifications beyond the bounds drop; the answer stays.
        for _ in 0..2 * MAX_EVENTS {
            events.append(GET_STREAM, b"n".to_vec(), false);
        }
        assert!(events.state().count <= MAX_EVENTS);
        let last = EventId {
            stream,
            seq: primed.seq + MAX_EVENTS as u64,
        };
        let mut resumed = events.resume(&last.to_string()).unwrap();
        assert_eq!(message(resumed.next(NOW)).1, "answer");
    }
    #[test]
    fn a_reader_that_does_not_keep_up_loses_its_stream_and_the_bounds_hold() {
        let events = Arc::new(Events::default());
        let mut get = events.open_get().unwrap();
        let first_id = {
            events.append(GET_STREAM, b"n".to_vec(), false);
            message(get.next(NOW)).0
        };
        // The client takes the first event and then nothing more: the server goes on.
        for _ in 0..4 * MAX_EVENTS {
            events.append(GET_STREAM, vec![b'n'; 4096], false);
        }
        {
            let state = events.state();
            assert!(state.count <= MAX_EVENTS && state.bytes <= MAX_BYTES);
        }
        assert!(matches!(get.next(NOW), Next::Replaced));
        drop(get);
        // It may open the stream again and read what is kept.
        let mut again = events.open_get().unwrap();
        assert!(matches!(again.next(NOW), Next::Event { .. }));
        assert!(first_id.seq > 0);
    }
}
