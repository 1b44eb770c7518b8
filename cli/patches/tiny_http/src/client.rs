use ascii::AsciiString;

use std::io::Error as IoError;
use std::io::Result as IoResult;
use std::io::{BufReader, BufWriter, ErrorKind, Read};

use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{HTTPVersion, Method};
use crate::util::RefinedTcpStream;
use crate::util::{SequentialReader, SequentialReaderBuilder, SequentialWriterBuilder};
use crate::Request;

/// A ClientConnection is an object that will store a socket to a client
/// and return Request objects.
pub struct ClientConnection {
    // address of the client
    remote_addr: IoResult<Option<SocketAddr>>,

    // sequence of Readers to the stream, so that the data is not read in
    //  the wrong order
    source: SequentialReaderBuilder<BufReader<RefinedTcpStream>>,

    // sequence of Writers to the stream, to avoid writing response #2 before
    //  response #1
    sink: SequentialWriterBuilder<BufWriter<RefinedTcpStream>>,

    // Reader to read the next header from
    next_header_source: SequentialReader<BufReader<RefinedTcpStream>>,

    // set to true if we know that the previous request is the last one
    no_more_requests: bool,

    // LRO: set once the previous request's body was read to its end; until then where the
    // next request starts is unknown, and none is read.
    previous_body: Option<Arc<AtomicBool>>,

    // true if the connection goes through SSL
    secure: bool,
}

/// LRO: the most bytes a request's head (request line and headers) may take.
pub const HEAD_MAX_BYTES: usize = 64 * 1024;
/// LRO: how long a request's head may take to arrive, from its first byte.
pub const HEAD_MAX_TIME: Duration = Duration::from_secs(30);

/// LRO: the bounds of one request's head as it is read.
struct HeadLimits {
    bytes: usize,
    deadline: Option<Instant>,
}

impl HeadLimits {
    fn new() -> Self {
        HeadLimits {
            bytes: 0,
            deadline: None,
        }
    }

    /// Counts one more byte of the head: an error once it is too large or too late (the
    /// clock starts at the first byte, so an idle keep-alive connection is not timed here).
    fn take_byte(&mut self) -> IoResult<()> {
        self.bytes += 1;
        if self.bytes > HEAD_MAX_BYTES {
            return Err(IoError::new(ErrorKind::OutOfMemory, "request head too large"));
        }
        let now = Instant::now();
        match self.deadline {
            None => self.deadline = Some(now + HEAD_MAX_TIME),
            Some(deadline) if now > deadline => {
                return Err(IoError::new(ErrorKind::TimedOut, "request head too slow"))
            }
            Some(_) => {}
        }
        Ok(())
    }
}

/// Error that can happen when reading a request.
#[derive(Debug)]
enum ReadError {
    WrongRequestLine,
    WrongHeader(HTTPVersion),
    /// the client sent an unrecognized `Expect` header
    ExpectationFailed(HTTPVersion),
    ReadIoError(IoError),
}

impl ClientConnection {
    /// Creates a new `ClientConnection` that takes ownership of the `TcpStream`.
    pub fn new(
        write_socket: RefinedTcpStream,
        mut read_socket: RefinedTcpStream,
    ) -> ClientConnection {
        let remote_addr = read_socket.peer_addr();
        let secure = read_socket.secure();

        let mut source = SequentialReaderBuilder::new(BufReader::with_capacity(1024, read_socket));
        let first_header = source.next().unwrap();

        ClientConnection {
            source,
            sink: SequentialWriterBuilder::new(BufWriter::with_capacity(1024, write_socket)),
            remote_addr,
            next_header_source: first_header,
            no_more_requests: false,
            previous_body: None,
            secure,
        }
    }

    /// true if the connection is HTTPS
    pub fn secure(&self) -> bool {
        self.secure
    }

    /// Reads the next line from self.next_header_source.
    ///
    /// Reads until `CRLF` is reached. The next read will start
    ///  at the first byte of the new line.
    fn read_next_line(&mut self, limits: &mut HeadLimits) -> IoResult<AsciiString> {
        let mut buf = Vec::new();
        let mut prev_byte_was_cr = false;

        loop {
            let byte = self.next_header_source.by_ref().bytes().next();

            let byte = match byte {
                Some(b) => b?,
                None => return Err(IoError::new(ErrorKind::ConnectionAborted, "Unexpected EOF")),
            };
            // LRO: a request's head (request line and headers) is bounded in bytes and in
            // time; unbounded, one client could hold gigabytes or a thread for ever.
            limits.take_byte()?;

            if byte == b'\n' && prev_byte_was_cr {
                buf.pop(); // removing the '\r'
                return AsciiString::from_ascii(buf)
                    .map_err(|_| IoError::new(ErrorKind::InvalidInput, "Header is not in ASCII"));
            }

            prev_byte_was_cr = byte == b'\r';

            buf.push(byte);
        }
    }

    /// Reads a request from the stream.
    /// Blocks until the header has been read.
    fn read(&mut self) -> Result<Request, ReadError> {
        let mut limits = HeadLimits::new();
        let (method, path, version, headers) = {
            // reading the request line
            let (method, path, version) = {
                let line = self.read_next_line(&mut limits).map_err(ReadError::ReadIoError)?;
                // LRO: the line is read only once the previous request's reader is gone,
                // so its body is known by now to be complete, or never to be: the bytes
                // after a body left unread (or that did not decode) are not a request.
                if let Some(body) = &self.previous_body {
                    if !body.load(Ordering::Acquire) {
                        let unread = "the previous request's body was not read to its end";
                        return Err(ReadError::ReadIoError(IoError::new(
                            ErrorKind::ConnectionAborted,
                            unread,
                        )));
                    }
                }

                parse_request_line(
                    line.as_str().trim(), // TODO: remove this conversion
                )?
            };

            // getting all headers
            let headers = {
                let mut headers = Vec::new();
                loop {
                    let line = self.read_next_line(&mut limits).map_err(ReadError::ReadIoError)?;

                    if line.is_empty() {
                        break;
                    };
                    headers.push(match FromStr::from_str(line.as_str().trim()) {
                        // TODO: remove this conversion
                        Ok(h) => h,
                        _ => return Err(ReadError::WrongHeader(version)),
                    });
                }

                headers
            };

            (method, path, version, headers)
        };

        // building the writer for the request
        let writer = self.sink.next().unwrap();

        // follow-up for next potential request
        let mut data_source = self.source.next().unwrap();
        std::mem::swap(&mut self.next_header_source, &mut data_source);

        // building the next reader
        let complete = Arc::new(AtomicBool::new(false));
        self.previous_body = Some(complete.clone());
        let request = crate::request::new_request(
            self.secure,
            method,
            path,
            version.clone(),
            headers,
            *self.remote_addr.as_ref().unwrap(),
            data_source,
            writer,
            complete,
        )
        .map_err(|e| {
            use crate::request;
            match e {
                request::RequestCreationError::CreationIoError(e) => ReadError::ReadIoError(e),
                request::RequestCreationError::ExpectationFailed => {
                    ReadError::ExpectationFailed(version)
                }
            }
        })?;

        // return the request
        Ok(request)
    }
}

impl Iterator for ClientConnection {
    type Item = Request;

    /// Blocks until the next Request is available.
    /// Returns None when no new Requests will come from the client.
    fn next(&mut self) -> Option<Request> {
        use crate::{Response, StatusCode};

        // the client sent a "connection: close" header in this previous request
        //  or is using HTTP 1.0, meaning that no new request will come
        if self.no_more_requests {
            return None;
        }

        loop {
            let rq = match self.read() {
                Err(ReadError::WrongRequestLine) => {
                    let writer = self.sink.next().unwrap();
                    let response = Response::new_empty(StatusCode(400));
                    response
                        .raw_print(writer, HTTPVersion(1, 1), &[], false, None)
                        .ok();
                    return None; // we don't know where the next request would start,
                                 // se we have to close
                }

                Err(ReadError::WrongHeader(ver)) => {
                    let writer = self.sink.next().unwrap();
                    let response = Response::new_empty(StatusCode(400));
                    response.raw_print(writer, ver, &[], false, None).ok();
                    return None; // we don't know where the next request would start,
                                 // se we have to close
                }

                Err(ReadError::ReadIoError(ref err)) if err.kind() == ErrorKind::TimedOut => {
                    // request timeout
                    let writer = self.sink.next().unwrap();
                    let response = Response::new_empty(StatusCode(408));
                    response
                        .raw_print(writer, HTTPVersion(1, 1), &[], false, None)
                        .ok();
                    return None; // closing the connection
                }

                Err(ReadError::ReadIoError(ref err)) if err.kind() == ErrorKind::OutOfMemory => {
                    // LRO: a head larger than HEAD_MAX_BYTES
                    let writer = self.sink.next().unwrap();
                    let response = Response::new_empty(StatusCode(431));
                    response
                        .raw_print(writer, HTTPVersion(1, 1), &[], false, None)
                        .ok();
                    return None; // closing the connection
                }

                Err(ReadError::ExpectationFailed(ver)) => {
                    let writer = self.sink.next().unwrap();
                    let response = Response::new_empty(StatusCode(417));
                    response.raw_print(writer, ver, &[], true, None).ok();
                    return None; // TODO: should be recoverable, but needs handling in case of body
                }

                Err(ReadError::ReadIoError(_)) => return None,

                Ok(rq) => rq,
            };

            // checking HTTP version
            if *rq.http_version() > (1, 1) {
                let writer = self.sink.next().unwrap();
                let response = Response::from_string(
                    "This server only supports HTTP versions 1.0 and 1.1".to_owned(),
                )
                .with_status_code(StatusCode(505));
                response
                    .raw_print(writer, HTTPVersion(1, 1), &[], false, None)
                    .ok();
                continue;
            }

            // LRO: a head whose framing or addressing is ambiguous is the connection's last.
            // Its answer (the gateway's 400) says `Connection: close`; reading on would take
            // the bytes another reader of the framing took for this body as the next request.
            // A chunked body in HTTP/1.0, which has none (RFC 9112 §6.1), ends it too.
            let chunked_in_1_0 = *rq.http_version() == HTTPVersion(1, 0)
                && rq.headers().iter().any(|h| h.field.equiv("Transfer-Encoding"));
            if chunked_in_1_0
                || framing_conflict(
                    rq.headers()
                        .iter()
                        .map(|h| (h.field.as_str().as_str(), h.value.as_str())),
                )
                .is_some()
            {
                self.no_more_requests = true;
            }

            // updating the status of the connection
            let connection_header = rq
                .headers()
                .iter()
                .find(|h| h.field.equiv("Connection"))
                .map(|h| h.value.as_str());

            let lowercase = connection_header.map(|h| h.to_ascii_lowercase());

            match lowercase {
                Some(ref val) if val.contains("close") => self.no_more_requests = true,
                Some(ref val) if val.contains("upgrade") => self.no_more_requests = true,
                Some(ref val)
                    if !val.contains("keep-alive") && *rq.http_version() == HTTPVersion(1, 0) =>
                {
                    self.no_more_requests = true
                }
                None if *rq.http_version() == HTTPVersion(1, 0) => self.no_more_requests = true,
                _ => (),
            };

            // returning the request
            return Some(rq);
        }
    }
}

/// LRO: what makes a request's head ambiguous, if anything: the headers that frame a
/// message, and those that say who it is for and from, each given at most once and without
/// conflict. Behind a reverse proxy that reads the framing otherwise (the other of two
/// `Content-Length`s, the length rather than `chunked`), the bytes one of them takes for the
/// body the other takes for the next request: request smuggling (RFC 9112 §6.3: refuse, and
/// close the connection). [`ClientConnection`] reads no request after such a one; the
/// application answers it (LRO's gateway: 400 with this message).
pub fn framing_conflict<'h>(headers: impl IntoIterator<Item = (&'h str, &'h str)>) -> Option<String> {
    let (mut lengths, mut encodings) = (Vec::new(), Vec::new());
    let (mut hosts, mut authorizations) = (0, 0);
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("Content-Length") {
            lengths.push(value);
        } else if name.eq_ignore_ascii_case("Transfer-Encoding") {
            encodings.push(value);
        } else if name.eq_ignore_ascii_case("Host") {
            hosts += 1;
        } else if name.eq_ignore_ascii_case("Authorization") {
            authorizations += 1;
        }
    }
    if lengths.len() > 1 {
        return Some(format!("several Content-Length headers ({})", lengths.join(", ")));
    }
    if let Some(length) = lengths.first() {
        if length.is_empty() || !length.bytes().all(|b| b.is_ascii_digit()) {
            return Some(format!("Content-Length {:?} is not a number", length));
        }
        // Read as no length at all, its body would be taken for the next request.
        if length.parse::<usize>().is_err() {
            return Some(format!("Content-Length {} is too large", length));
        }
    }
    if encodings.len() > 1 {
        return Some("several Transfer-Encoding headers".to_owned());
    }
    if let Some(encoding) = encodings.first() {
        if !encoding.trim().eq_ignore_ascii_case("chunked") {
            return Some(format!("Transfer-Encoding {:?}: only chunked is understood", encoding));
        }
        if !lengths.is_empty() {
            return Some("both Content-Length and Transfer-Encoding".to_owned());
        }
    }
    if hosts > 1 {
        return Some("several Host headers".to_owned());
    }
    if authorizations > 1 {
        return Some("several Authorization headers".to_owned());
    }
    None
}

/// Parses a "HTTP/1.1" string.
fn parse_http_version(version: &str) -> Result<HTTPVersion, ReadError> {
    let (major, minor) = match version {
        "HTTP/0.9" => (0, 9),
        "HTTP/1.0" => (1, 0),
        "HTTP/1.1" => (1, 1),
        "HTTP/2.0" => (2, 0),
        "HTTP/3.0" => (3, 0),
        _ => return Err(ReadError::WrongRequestLine),
    };

    Ok(HTTPVersion(major, minor))
}

/// Parses the request line of the request.
/// eg. GET / HTTP/1.1
fn parse_request_line(line: &str) -> Result<(Method, String, HTTPVersion), ReadError> {
    let mut parts = line.split(' ');

    let method = parts.next().and_then(|w| w.parse().ok());
    let path = parts.next().map(ToOwned::to_owned);
    let version = parts.next().and_then(|w| parse_http_version(w).ok());

    method
        .and_then(|method| Some((method, path?, version?)))
        .ok_or(ReadError::WrongRequestLine)
}

#[cfg(test)]
mod test {
    #[test]
    fn test_parse_request_line() {
        let (method, path, ver) = super::parse_request_line("GET /hello HTTP/1.1").unwrap();

        assert!(method == crate::Method::Get);
        assert!(path == "/hello");
        assert!(ver == crate::common::HTTPVersion(1, 1));

        assert!(super::parse_request_line("GET /hello").is_err());
        assert!(super::parse_request_line("qsd qsd qsd").is_err());
    }
}
