//! Server-sent events (`text/event-stream`), as streamable HTTP uses them: each `message`
//! event's data is one JSON-RPC message.

use std::io::{self, BufRead};

/// Reads events from `input` and calls `on_message` with the data of each `message` event
/// (the default type), until the stream ends.
pub fn read_events(input: impl BufRead, mut on_message: impl FnMut(Vec<u8>)) -> io::Result<()> {
    let mut input = input;
    let mut data: Vec<u8> = Vec::new();
    let mut has_data = false;
    let mut event_type = String::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input.read_until(b'\n', &mut line)?;
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
                return Ok(());
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
        read_events(stream.as_bytes(), |d| {
            out.push(String::from_utf8(d).unwrap())
        })
        .unwrap();
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
}
