//! Streaming an object: one GET read as it arrives, resumed with a ranged GET when the
//! connection breaks, so memory stays bounded by the transport's buffers whatever the
//! object's size, and a long read survives a dropped connection.

use std::io::{self, Read};

use ureq::BodyReader;

use crate::client::{Client, Op};

/// Reads one object from a position on, pinned to the version first read (`If-Match` on its
/// ETag), so a resumed read can never splice two versions together.
pub(crate) struct ObjectReader<'c> {
    client: &'c Client,
    key: String,
    etag: Option<String>,
    /// The object's size, from the first GET's `Content-Length`.
    size: Option<u64>,
    /// Bytes delivered so far: where a resumed GET starts.
    position: u64,
    body: Option<BodyReader<'static>>,
    /// Resumes left that made no progress: a resume that delivers data restores the
    /// allowance, so a long read survives occasional drops and a dead link still ends.
    idle_resumes_left: u32,
}

impl<'c> ObjectReader<'c> {
    /// Starts reading `key`: the first GET happens here, so a missing object is a
    /// `NotFound` error before any byte is read.
    pub(crate) fn open(client: &'c Client, key: &str) -> io::Result<Self> {
        let mut reader = Self {
            client,
            key: key.to_owned(),
            etag: None,
            size: None,
            position: 0,
            body: None,
            idle_resumes_left: client.limits().retries,
        };
        reader.request()?;
        Ok(reader)
    }

    /// The object's size, when the store said it.
    pub(crate) fn size(&self) -> Option<u64> {
        self.size
    }

    /// A GET from the current position; sets the body (and, the first time, the ETag).
    fn request(&mut self) -> io::Result<()> {
        let pinned = self.etag.clone();
        let op = Op::Get {
            key: &self.key,
            from: self.position,
            if_match: pinned.as_deref(),
        };
        let response = self.client.send(&op)?;
        let status = response.status().as_u16();
        if self.etag.is_none() {
            self.size = response
                .headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok()?.parse().ok());
            self.etag = response
                .headers()
                .get("etag")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
        }
        let mut body = response.into_body().into_reader();
        if status == 200 && self.position > 0 {
            // A server that ignores `Range` sends the whole object again: skip what we have.
            let skipped = io::copy(&mut (&mut body).take(self.position), &mut io::sink())?;
            if skipped != self.position {
                return Err(self.client.error(
                    &op,
                    io::ErrorKind::UnexpectedEof,
                    "the object is shorter than what was already read",
                ));
            }
        }
        self.body = Some(body);
        Ok(())
    }
}

impl Read for ObjectReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.body.is_none() {
                self.request()?;
            }
            let Some(body) = self.body.as_mut() else {
                continue;
            };
            match body.read(buf) {
                Ok(n) => {
                    if n > 0 {
                        self.position += n as u64;
                        self.idle_resumes_left = self.client.limits().retries;
                    }
                    return Ok(n);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) if self.idle_resumes_left > 0 => {
                    // The connection broke (reset, timeout, early end): resume from here.
                    self.idle_resumes_left -= 1;
                    self.body = None;
                }
                Err(err) => {
                    let op = Op::Get {
                        key: &self.key,
                        from: self.position,
                        if_match: None,
                    };
                    return Err(self.client.error(
                        &op,
                        err.kind(),
                        &format!(
                            "reading the object broke off at byte {}: {err}",
                            self.position
                        ),
                    ));
                }
            }
        }
    }
}
