//! Signed requests to the store, with bounded timeouts and retries, and answers turned into
//! `io::Error`s whose kinds the core understands (`NotFound` is `not_found`,
//! `AlreadyExists` a name taken).
//!
//! Requests are presigned (AWS Signature V4 in the query string, by rusty-s3), signed again
//! for every attempt, and sent by a blocking `ureq` agent. No error message ever carries a
//! signed URL: messages name the operation and the `s3://` URI only.

use std::io::{self, Read};
use std::thread;
use std::time::Duration;

use lro_core::StoreLimits;
use rusty_s3::actions::{ListObjectsV2, ListObjectsV2Response};
use rusty_s3::{Bucket, Credentials, S3Action};
use ureq::http::Response;
use ureq::{Body, SendBody};

use crate::settings::S3Settings;

/// Lifetime of a presigned URL: it only has to outlive the start of its own request.
const SIGNATURE_TTL: Duration = Duration::from_secs(300);
/// First backoff; each retry doubles it, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(2);
/// Most bytes of an error answer read for its `<Code>`.
const ERROR_BODY_LIMIT: u64 = 64 * 1024;
/// Most bytes of one listing page (1,000 keys take a few hundred KB).
const LIST_BODY_LIMIT: u64 = 16 * 1024 * 1024;

/// One request to the store.
pub(crate) enum Op<'a> {
    /// PutObject that never overwrites (`If-None-Match: *`), body in parts.
    Put { key: &'a str, parts: &'a [&'a [u8]] },
    /// GetObject from byte `from` on; `if_match` pins the version being read.
    Get {
        key: &'a str,
        from: u64,
        if_match: Option<&'a str>,
    },
    /// HeadObject.
    Head { key: &'a str },
    /// DeleteObject.
    Delete { key: &'a str },
    /// One page of ListObjectsV2 under `prefix`, grouped by `/`.
    List {
        prefix: &'a str,
        token: Option<&'a str>,
        max_keys: usize,
    },
}

impl Op<'_> {
    fn verb(&self) -> &'static str {
        match self {
            Self::Put { .. } => "PUT",
            Self::Get { .. } => "GET",
            Self::Head { .. } => "HEAD",
            Self::Delete { .. } => "DELETE",
            Self::List { .. } => "LIST",
        }
    }

    fn key(&self) -> &str {
        match self {
            Self::Put { key, .. }
            | Self::Get { key, .. }
            | Self::Head { key }
            | Self::Delete { key } => key,
            Self::List { prefix, .. } => prefix,
        }
    }
}

/// The signing identity and HTTP agent of one bucket.
pub(crate) struct Client {
    agent: ureq::Agent,
    bucket: Bucket,
    credentials: Credentials,
    limits: StoreLimits,
}

/// A status the request may succeed on if tried again.
fn is_transient_status(status: u16, op: &Op<'_>) -> bool {
    // 409 on a conditional PUT is S3's "a conflicting operation was in progress: retry".
    matches!(status, 408 | 429 | 500 | 502 | 503 | 504)
        || (status == 409 && matches!(op, Op::Put { .. }))
}

/// A transport failure that may pass (everything but malformed requests).
fn is_transient_error(err: &ureq::Error) -> bool {
    matches!(
        err,
        ureq::Error::Timeout(_)
            | ureq::Error::Io(_)
            | ureq::Error::ConnectionFailed
            | ureq::Error::HostNotFound
            | ureq::Error::Protocol(_)
    )
}

/// What went wrong, without the (signed) URL that some ureq errors quote.
fn describe(err: &ureq::Error, limits: &StoreLimits) -> (io::ErrorKind, String) {
    match err {
        ureq::Error::Timeout(which) => (
            io::ErrorKind::TimedOut,
            format!("timed out ({which}, {} ms)", limits.timeout_ms),
        ),
        ureq::Error::Io(e) => (e.kind(), e.to_string()),
        ureq::Error::ConnectionFailed => (
            io::ErrorKind::ConnectionRefused,
            "cannot connect to the store".to_owned(),
        ),
        ureq::Error::HostNotFound => (
            io::ErrorKind::Other,
            "the store's host name does not resolve".to_owned(),
        ),
        ureq::Error::BadUri(_) => (io::ErrorKind::InvalidInput, "invalid URL".to_owned()),
        other => (io::ErrorKind::Other, other.to_string()),
    }
}

/// The `<Code>` of an S3 error answer (`NoSuchKey`, `SlowDown`, ...), if it has one.
fn error_code(response: Response<Body>) -> Option<String> {
    let mut text = String::new();
    response
        .into_body()
        .into_reader()
        .take(ERROR_BODY_LIMIT)
        .read_to_string(&mut text)
        .ok()?;
    let start = text.find("<Code>")? + "<Code>".len();
    let end = start + text[start..].find("</Code>")?;
    Some(text[start..end].to_owned())
}

/// The kind a final, non-success status maps to.
fn status_kind(status: u16, op: &Op<'_>) -> io::ErrorKind {
    match status {
        404 => io::ErrorKind::NotFound,
        412 if matches!(op, Op::Put { .. }) => io::ErrorKind::AlreadyExists,
        401 | 403 => io::ErrorKind::PermissionDenied,
        408 | 504 => io::ErrorKind::TimedOut,
        _ => io::ErrorKind::Other,
    }
}

impl Client {
    pub(crate) fn new(settings: &S3Settings, bucket: &str) -> io::Result<Self> {
        let bucket = Bucket::new(
            settings.endpoint.clone(),
            settings.url_style,
            bucket.to_owned(),
            settings.region.clone(),
        )
        .map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bucket {bucket:?} at {}: {e:?}", settings.endpoint),
            )
        })?;
        let wait = Some(Duration::from_millis(settings.limits.timeout_ms));
        // No single wait on the store outlasts `timeout_ms`; a body is never cut for its
        // total length (extraction has its own deadline and byte budget).
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_resolve(wait)
            .timeout_connect(wait)
            .timeout_send_request(wait)
            .timeout_recv_response(wait)
            .timeout_per_read(wait)
            .timeout_per_write(wait)
            .build()
            .into();
        Ok(Self {
            agent,
            bucket,
            credentials: settings.credentials.clone(),
            limits: settings.limits.clone(),
        })
    }

    pub(crate) fn bucket_name(&self) -> &str {
        self.bucket.name()
    }

    pub(crate) fn limits(&self) -> &StoreLimits {
        &self.limits
    }

    /// An error about `op` on `key`, as `VERB s3://bucket/key: what`.
    pub(crate) fn error(&self, op: &Op<'_>, kind: io::ErrorKind, what: &str) -> io::Error {
        io::Error::new(
            kind,
            format!(
                "{} s3://{}/{}: {what}",
                op.verb(),
                self.bucket.name(),
                op.key()
            ),
        )
    }

    /// Sends `op` once.
    fn send_once(&self, op: &Op<'_>) -> Result<Response<Body>, ureq::Error> {
        let creds = Some(&self.credentials);
        match op {
            Op::Put { key, parts } => {
                let mut action = self.bucket.put_object(creds, key);
                action.headers_mut().insert("if-none-match", "*");
                let url = action.sign(SIGNATURE_TTL);
                let length: usize = parts.iter().map(|p| p.len()).sum();
                let mut body = parts
                    .iter()
                    .fold(Box::new(io::empty()) as Box<dyn Read>, |body, part| {
                        Box::new(body.chain(*part))
                    });
                self.agent
                    .put(url.as_str())
                    .header("if-none-match", "*")
                    .header("content-type", "application/x-ndjson")
                    .header("content-length", length.to_string())
                    .send(SendBody::from_reader(&mut body))
            }
            Op::Get {
                key,
                from,
                if_match,
            } => {
                let mut action = self.bucket.get_object(creds, key);
                let range = format!("bytes={from}-");
                if *from > 0 {
                    action.headers_mut().insert("range", range.clone());
                }
                if let Some(etag) = if_match {
                    action.headers_mut().insert("if-match", *etag);
                }
                let mut request = self.agent.get(action.sign(SIGNATURE_TTL).as_str());
                if *from > 0 {
                    request = request.header("range", &range);
                }
                if let Some(etag) = if_match {
                    request = request.header("if-match", *etag);
                }
                request.call()
            }
            Op::Head { key } => {
                let url = self.bucket.head_object(creds, key).sign(SIGNATURE_TTL);
                self.agent.head(url.as_str()).call()
            }
            Op::Delete { key } => {
                let url = self.bucket.delete_object(creds, key).sign(SIGNATURE_TTL);
                self.agent.delete(url.as_str()).call()
            }
            Op::List {
                prefix,
                token,
                max_keys,
            } => {
                let mut action = self.bucket.list_objects_v2(creds);
                action.with_prefix(*prefix);
                action.with_delimiter("/");
                action.with_max_keys(*max_keys);
                if let Some(token) = token {
                    action.with_continuation_token(*token);
                }
                self.agent.get(action.sign(SIGNATURE_TTL).as_str()).call()
            }
        }
    }

    /// Sends `op`, retrying transient failures within the limits, and returns a response
    /// with a success status, with the number of attempts it took.
    ///
    /// A 412 to a retried PUT means an earlier attempt of ours stored the object (S3 writes
    /// an object whole or not at all, and the name holds a fresh ULID): that is success.
    pub(crate) fn send(&self, op: &Op<'_>) -> io::Result<Response<Body>> {
        let mut backoff = FIRST_BACKOFF;
        let attempts = self.limits.retries + 1;
        for attempt in 1..=attempts {
            let last = attempt == attempts;
            match self.send_once(op) {
                Ok(response) => {
                    let status = response.status().as_u16();
                    if (200..300).contains(&status)
                        || (status == 412 && attempt > 1 && matches!(op, Op::Put { .. }))
                    {
                        return Ok(response);
                    }
                    if last || !is_transient_status(status, op) {
                        let code = error_code(response).unwrap_or_default();
                        let tries = if attempt > 1 {
                            format!(" after {attempt} attempts")
                        } else {
                            String::new()
                        };
                        return Err(self.error(
                            op,
                            status_kind(status, op),
                            format!("the store answered {status} {code}{tries}").trim_end(),
                        ));
                    }
                }
                Err(err) => {
                    if last || !is_transient_error(&err) {
                        let (kind, what) = describe(&err, &self.limits);
                        let tries = if attempt > 1 {
                            format!(" (after {attempt} attempts)")
                        } else {
                            String::new()
                        };
                        return Err(self.error(op, kind, &format!("{what}{tries}")));
                    }
                }
            }
            thread::sleep(backoff);
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
        unreachable!("the last attempt returns")
    }

    /// One page of a listing.
    pub(crate) fn list_page(
        &self,
        prefix: &str,
        token: Option<&str>,
        max_keys: usize,
    ) -> io::Result<ListObjectsV2Response> {
        let op = Op::List {
            prefix,
            token,
            max_keys,
        };
        let response = self.send(&op)?;
        let mut text = String::new();
        response
            .into_body()
            .into_reader()
            .take(LIST_BODY_LIMIT)
            .read_to_string(&mut text)
            .map_err(|e| self.error(&op, e.kind(), &e.to_string()))?;
        ListObjectsV2::parse_response(&text).map_err(|e| {
            self.error(
                &op,
                io::ErrorKind::InvalidData,
                &format!("unreadable listing: {e}"),
            )
        })
    }
}
