//! Server-sent events (`text/event-stream`), as streamable HTTP uses them: each `message`
//! event's data is one JSON-RPC message; its `id` and the stream's `retry` are what a client
//! resumes the stream with (MCP 2025-11-25, "Resumability and redelivery").

use std::io::{self, BufRead};
use std::ops::ControlFlow;
use std::time::Duration;

use super::lines::{self, Line};

/// How a stream of events ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The server ended it.
    Done,
    /// An event's data (or one line) grew past the bound: the stream is given up, with the
    /// start of that data, and the caller drops the connection (an endless `data:` line used
    /// to take the proxy's memory until it aborted).
    TooLong(Vec<u8>),
    /// The caller asked to stop reading (what it read the stream for has come).
    Stopped,
}

/// Longest reconnection delay a server's `retry` may ask for: a larger one would hold a call
/// (and the proxy's exit) for as long as the server says.
pub const MAX_RETRY: Duration = Duration::from_secs(60);

/// What a stream said about resuming it, kept across the streams that resume one another.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Resume {
    /// The id of the last event dispatched (the `Last-Event-ID` to reconnect with); `None`
    /// when no event had one, or the last `id` field was empty (it resets the id).
    pub last_event_id: Option<String>,
    /// The reconnection delay of the last `retry` field (at most [`MAX_RETRY`]).
    pub retry: Option<Duration>,
}

/// Reads events from `input` and calls `on_message` with the data of each `message` event
/// (the default type), until the stream ends, an event's data grows past `max` bytes or
/// `on_message` breaks. An event without data (a priming event, which only carries an id)
/// is no message. `resume` is updated as the events are dispatched, as an `EventSource`
/// does: the id buffer outlives an event, `retry` takes effect at once.
pub fn read_events(
    input: impl BufRead,
    max: usize,
    resume: &mut Resume,
    mut on_message: impl FnMut(Vec<u8>) -> ControlFlow<()>,
) -> io::Result<End> {
    let mut input = input;
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut event_type = String::new();
    let mut id_buffer = resume.last_event_id.clone();
    let mut line = Vec::new();
    loop {
        // "data: " and the line ending around a message of `max` bytes.
        let read = match lines::read_line(&mut input, &mut line, max.saturating_add(8))? {
            Line::End => 0,
            Line::Read(read) => read,
            Line::NoMemory(size) => {
                return Err(io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    format!("no memory for a line of {size} bytes"),
                ));
            }
            Line::TooLong => {
                // The start of the message: the data so far, or this line's past "data:".
                let start = match line.strip_prefix(b"data:") {
                    _ if !data.is_empty() => data,
                    Some(value) => value.strip_prefix(b" ").unwrap_or(value).to_vec(),
                    None => line,
                };
                return Ok(End::TooLong(start));
            }
        };
        let field_line = super::jsonrpc::trim_line(&line);
        if read == 0 || field_line.is_empty() {
            // A blank line dispatches the event; so does the end of the stream (lenient),
            // but an event cut off there does not move the id: resuming from it would skip
            // what the server meant to send whole.
            if read != 0 {
                resume.last_event_id.clone_from(&id_buffer);
            }
            let message = has_data
                && (event_type.is_empty() || event_type == "message")
                && !data.iter().all(u8::is_ascii_whitespace);
            if message && on_message(std::mem::take(&mut data)).is_break() {
                return Ok(End::Stopped);
            }
            data.clear();
            has_data = false;
            event_type.clear();
            if read == 0 {
                return Ok(End::Done);
            }
            continue;
        }
        if field_line.starts_with(b":") {
            continue; // a comment (keep-alive)
        }
        let (field, value) = match field_line.iter().position(|&b| b == b':') {
            Some(i) => {
                let value = &field_line[i + 1..];
                (&field_line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (field_line, &b""[..]),
        };
        match field {
            b"data" => {
                if data.len() + 1 + value.len() > max {
                    let start = if data.is_empty() {
                        value.to_vec()
                    } else {
                        data
                    };
                    return Ok(End::TooLong(start));
                }
                if has_data {
                    data.push(b'\n');
                }
                data.extend_from_slice(value);
                has_data = true;
            }
            b"event" => event_type = String::from_utf8_lossy(value).into_owned(),
            // An id with a NUL is ignored; an empty one resets it (the HTML standard's rules).
            b"id" if !value.contains(&0) => {
                id_buffer =
                    (!value.is_empty()).then(|| String::from_utf8_lossy(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let millis = std::str::from_utf8(value)
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(u64::MAX);
                resume.retry = Some(Duration::from_millis(millis).min(MAX_RETRY));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(stream: &str) -> Vec<String> {
        events_resuming(stream, &mut Resume::default())
    }

    fn events_resuming(stream: &str, resume: &mut Resume) -> Vec<String> {
        let mut out = Vec::new();
        let end = read_events(stream.as_bytes(), usize::MAX, resume, |d| {
            out.push(String::from_utf8(d).unwrap());
            ControlFlow::Continue(())
        });
        assert_eq!(end.unwrap(), End::Done);
        out
    }

    #[test]
    fn messages_are_split_on_blank_lines() {
        let stream = "event: message\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\n: ping\n\ndata: {\"b\":\ndata: 2}\n\n";
        assert_eq!(events(stream), vec!["{\"a\":1}", "{\"b\":\n2}"]);
    }

    #[test]
    fn other_event_types_and_empty_events_are_skipped() {
        assert_eq!(
            events("event: endpoint\ndata: /x\n\nid: 5\n\ndata:{}\n"),
            vec!["{}"]
        );
    }

    /// A priming event (an id, a retry, empty data) is no message, but its id and retry
    /// are what the stream resumes with; later events move the id, an event without one
    /// keeps it, an empty one clears it.
    #[test]
    fn ids_and_retry_are_reported_and_priming_events_are_no_messages() {
        let mut resume = Resume::default();
        let out = events_resuming("id: e1\nretry: 500\ndata: \n\n", &mut resume);
        assert!(out.is_empty(), "{out:?}");
        let expected = |id: Option<&str>, ms| Resume {
            last_event_id: id.map(str::to_owned),
            retry: Some(Duration::from_millis(ms)),
        };
        assert_eq!(resume, expected(Some("e1"), 500));
        let out = events_resuming("data: {}\n\nid: e2\ndata: [1]\n\nretry: x\n\n", &mut resume);
        assert_eq!(out, vec!["{}", "[1]"]);
        assert_eq!(resume, expected(Some("e2"), 500));
        events_resuming("id: a\0b\nretry: 99999999999999999999\n\n", &mut resume);
        assert_eq!(resume.last_event_id.as_deref(), Some("e2"));
        assert_eq!(resume.retry, Some(MAX_RETRY));
        events_resuming("id\ndata: {}\n\n", &mut resume);
        assert_eq!(resume.last_event_id, None);
        let out = events_resuming("id: e3\ndata: {}\n\nid: e4\ndata: []", &mut resume);
        assert_eq!(out, vec!["{}", "[]"]);
        assert_eq!(
            resume.last_event_id.as_deref(),
            Some("e3"),
            "e4 was cut off"
        );
    }

    /// The caller stops the stream: nothing after the event it stopped at is read.
    #[test]
    fn the_caller_can_stop_reading() {
        let mut seen = Vec::new();
        let end = read_events(
            "id: 1\ndata: {}\n\nid: 2\ndata: []\n\n".as_bytes(),
            usize::MAX,
            &mut Resume::default(),
            |d| {
                seen.push(d);
                ControlFlow::Break(())
            },
        );
        assert_eq!(end.unwrap(), End::Stopped);
        assert_eq!(seen, vec![b"{}".to_vec()]);
    }

    /// One long `data:` line, or many short ones, past the bound end the stream: the events
    /// before it are delivered, nothing after it is read.
    #[test]
    fn data_past_the_bound_ends_the_stream() {
        for stream in [
            format!("data: {{}}\n\ndata: {}\n\ndata: [1]\n\n", "a".repeat(100)),
            format!("data: {{}}\n\n{}\ndata: [1]\n\n", "data: aaaa\n".repeat(30)),
        ] {
            let mut out = Vec::new();
            let end = read_events(stream.as_bytes(), 64, &mut Resume::default(), |d| {
                out.push(d);
                ControlFlow::Continue(())
            })
            .unwrap();
            assert!(
                matches!(end, End::TooLong(start) if start.starts_with(b"a")),
                "{stream}"
            );
            assert_eq!(out, vec![b"{}".to_vec()]);
        }
    }
}
