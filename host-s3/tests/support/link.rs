//! A faulty network link on loopback between an S3 host and the real server: each accepted
//! connection follows the next step of a script (answer an error status, stall, forward and
//! cut after some bytes), then connections are forwarded as they are. It records what the
//! client sent, so a test can see the requests (a `Range` header, say).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What the link does with one connection.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// Read the request, answer this status with an S3 error body, close.
    Answer(u16),
    /// Read the request and never answer (the connection stays open).
    Stall,
    /// Forward both ways, but end the connection after this many bytes from the server.
    CutAfter(usize),
    /// Forward both ways.
    Forward,
}

struct Shared {
    upstream: String,
    script: Mutex<VecDeque<Step>>,
    connections: AtomicUsize,
    sent: Mutex<Vec<u8>>,
    stalled: Mutex<Vec<TcpStream>>,
    closed: AtomicBool,
}

/// A running link; it stops accepting when dropped.
pub struct Link {
    shared: Arc<Shared>,
    port: u16,
}

impl Link {
    /// A link to `upstream` (`http://host:port`) that follows `script`, then forwards.
    pub fn start(upstream: &str, script: &[Step]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            upstream: upstream
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .to_owned(),
            script: Mutex::new(script.iter().copied().collect()),
            connections: AtomicUsize::new(0),
            sent: Mutex::new(Vec::new()),
            stalled: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        });
        let accepting = Arc::clone(&shared);
        thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.closed.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                accepting.connections.fetch_add(1, Ordering::SeqCst);
                let step = accepting
                    .script
                    .lock()
                    .unwrap()
                    .pop_front()
                    .unwrap_or(Step::Forward);
                let shared = Arc::clone(&accepting);
                thread::spawn(move || serve(&shared, stream, step));
            }
        });
        Self { shared, port }
    }

    /// The endpoint to give the host.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    /// Everything clients sent, lowercased (request lines and headers are ASCII).
    pub fn sent(&self) -> String {
        String::from_utf8_lossy(&self.shared.sent.lock().unwrap()).to_ascii_lowercase()
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees `closed`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        for stream in self.shared.stalled.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }
}

/// Reads one request (head and `Content-Length` body) and returns its bytes.
fn read_request(reader: &mut BufReader<TcpStream>) -> Vec<u8> {
    let mut request = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return request;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        request.extend_from_slice(line.as_bytes());
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    request.extend_from_slice(&body);
    request
}

fn serve(shared: &Arc<Shared>, client: TcpStream, step: Step) {
    match step {
        Step::Answer(status) => {
            let mut reader = BufReader::new(client.try_clone().unwrap());
            let request = read_request(&mut reader);
            shared.sent.lock().unwrap().extend_from_slice(&request);
            let body = "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>injected</Message></Error>";
            let mut client = client;
            let _ = write!(
                client,
                "HTTP/1.1 {status} Injected\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = client.shutdown(Shutdown::Both);
        }
        Step::Stall => {
            let mut reader = BufReader::new(client.try_clone().unwrap());
            let request = read_request(&mut reader);
            shared.sent.lock().unwrap().extend_from_slice(&request);
            shared.stalled.lock().unwrap().push(client);
        }
        Step::CutAfter(limit) => forward(shared, client, Some(limit)),
        Step::Forward => forward(shared, client, None),
    }
}

fn forward(shared: &Arc<Shared>, client: TcpStream, cut_after: Option<usize>) {
    let Ok(server) = TcpStream::connect(&shared.upstream) else {
        return;
    };
    let (mut client_in, mut server_out) =
        (client.try_clone().unwrap(), server.try_clone().unwrap());
    let recorder = Arc::clone(shared);
    let upward = thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = client_in.read(&mut buf) {
            if n == 0 || server_out.write_all(&buf[..n]).is_err() {
                break;
            }
            recorder.sent.lock().unwrap().extend_from_slice(&buf[..n]);
        }
        let _ = server_out.shutdown(Shutdown::Write);
    });
    let (mut server_in, mut client_out) = (server, client);
    let mut buf = [0u8; 16 * 1024];
    let mut passed = 0usize;
    loop {
        let n = match server_in.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let n = cut_after.map_or(n, |limit| n.min(limit - passed));
        if client_out.write_all(&buf[..n]).is_err() {
            break;
        }
        passed += n;
        if cut_after.is_some_and(|limit| passed >= limit) {
            // A connection reset in the middle of a body.
            thread::sleep(Duration::from_millis(20));
            break;
        }
    }
    let _ = client_out.shutdown(Shutdown::Both);
    let _ = server_in.shutdown(Shutdown::Both);
    let _ = upward.join();
}
