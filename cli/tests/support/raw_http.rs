//! One HTTP/1.1 request read off a socket, for the tests whose server is scripted over raw
//! HTTP (so that each can answer, stall or close a stream exactly as it says).

use std::io::BufRead;

/// A request: its first line, its headers and its body (by `Content-Length`).
pub struct RawRequest {
    pub head: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawRequest {
    /// `GET`, `POST`, ...
    pub fn method(&self) -> &str {
        self.head.split(' ').next().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The next request on the connection; `None` once the client has closed it.
pub fn read_request(reader: &mut impl BufRead) -> Option<RawRequest> {
    let mut head = String::new();
    if reader.read_line(&mut head).unwrap_or(0) == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let Some((name, value)) = line.trim_end().split_once(':') else {
            break;
        };
        headers.push((name.to_owned(), value.trim().to_owned()));
    }
    let mut request = RawRequest {
        head,
        headers,
        body: Vec::new(),
    };
    let length = request
        .header("content-length")
        .map_or(0, |v| v.parse().unwrap());
    request.body = vec![0; length];
    reader.read_exact(&mut request.body).unwrap();
    Some(request)
}
