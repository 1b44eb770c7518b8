//! Server-sent events (`text/event-stream`), as streamable HTTP uses them: each `message`
//! event's data is one JSON-RPC message.

use std::io::{self, BufRead};

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
}

/// Reads events from `input` and calls `on_message` with the data of each `message` event
/// (the default type), until the stream ends or an event's data grows past `max` bytes.
pub fn read_events(
    input: impl BufRead,
    max: usize,
    mut on_message: impl FnMut(Vec<u8>),
) -> io::Result<End> {
    let mut input = input;
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut event_type = String::new();
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
            // A blank line dispatches the event; so does the end of the stream (lenient).
            if has_data && (event_type.is_empty() || event_type == "message") {
                on_message(std::mem::take(&mut data));
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
            _ => {} // id, retry: resumption is not used
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(stream: &str) -> Vec<String> {
        let mut out = Vec::new();
        let end = read_events(stream.as_bytes(), usize::MAX, |d| {
            out.push(String::from_utf8(d).unwrap())
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

    /// One long `data:` line, or many short ones, past the bound end the stream: the events
    /// before it are delivered, nothing after it is read.
    #[test]
    fn data_past_the_bound_ends_the_stream() {
        for stream in [
            format!("data: {{}}\n\ndata: {}\n\ndata: [1]\n\n", "a".repeat(100)),
            format!("data: {{}}\n\n{}\ndata: [1]\n\n", "data: aaaa\n".repeat(30)),
        ] {
            let mut out = Vec::new();
            let end = read_events(stream.as_bytes(), 64, |d| out.push(d)).unwrap();
            assert!(
                matches!(end, End::TooLong(start) if start.starts_with(b"a")),
                "{stream}"
            );
            assert_eq!(out, vec![b"{}".to_vec()]);
        }
    }
}
