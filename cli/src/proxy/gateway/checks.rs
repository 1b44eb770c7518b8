//! What the gateway checks of a request before any session sees it: `Host` and `Origin`
//! (DNS-rebinding protection, which MCP's streamable HTTP transport requires of a server),
//! the media types it accepts and sends, the protocol version it names, and headers that
//! frame the message ambiguously.

/// A request refused, with its HTTP status and the JSON-RPC error of its body.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC error code of the body.
    pub code: i64,
    /// What went wrong, for a person.
    pub message: String,
}

impl Refusal {
    /// A refusal with JSON-RPC's "Invalid request" (-32600) or "Server error" (-32000).
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        let code = if status >= 500 {
            crate::proxy::jsonrpc::UPSTREAM_ERROR
        } else {
            crate::proxy::jsonrpc::INVALID_REQUEST
        };
        Self {
            status,
            code,
            message: format!("{} (lro proxy)", message.into()),
        }
    }
}

/// The protocol versions the gateway passes on (`MCP-Protocol-Version`): those of the MCP
/// specification's releases with the streamable HTTP transport, and the one before it.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The hosts and origins a request may name.
#[derive(Debug)]
pub struct Guard {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Guard {
    /// Loopback names are always allowed in `Host`; so is `bind_host` when it names one
    /// interface (not `0.0.0.0` or `::`), and every `allow_hosts`. `Origin` may be absent
    /// (no browser), a loopback origin, or one of `allow_origins`, compared exactly.
    pub fn new(bind_host: &str, allow_hosts: &[String], allow_origins: &[String]) -> Self {
        let mut hosts: Vec<String> = allow_hosts.iter().map(|h| h.to_ascii_lowercase()).collect();
        let bind = unbracket(bind_host).to_ascii_lowercase();
        if !matches!(bind.as_str(), "0.0.0.0" | "::" | "") {
            hosts.push(bind);
        }
        Self {
            hosts,
            origins: allow_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
        }
    }

    /// `Host` names this gateway (a page on another site that rebinds its name to
    /// 127.0.0.1 sends its own name here).
    pub fn check_host(&self, host: Option<&str>) -> Result<(), Refusal> {
        let Some(host) = host else {
            return Err(Refusal::new(400, "the request has no Host header"));
        };
        let name = hostname(host);
        if is_loopback(&name) || self.hosts.contains(&name) {
            Ok(())
        } else {
            Err(Refusal::new(
                403,
                format!("Host {host:?} is not allowed (--allow-host NAME allows one)"),
            ))
        }
    }

    /// `Origin`, when a browser sends one, is a loopback page or one allowed by name.
    pub fn check_origin(&self, origin: Option<&str>) -> Result<(), Refusal> {
        let Some(origin) = origin else {
            return Ok(());
        };
        let lowered = origin.trim_end_matches('/').to_ascii_lowercase();
        let loopback = lowered
            .strip_prefix("http://")
            .or_else(|| lowered.strip_prefix("https://"))
            .is_some_and(|authority| is_loopback(&hostname(authority)));
        if loopback || self.origins.contains(&lowered) {
            Ok(())
        } else {
            Err(Refusal::new(
                403,
                format!("Origin {origin:?} is not allowed (--allow-origin ORIGIN allows one)"),
            ))
        }
    }
}

/// The host of an authority (`host`, `host:port`, `[v6]:port`), lowercase, without port
/// or brackets.
fn hostname(authority: &str) -> String {
    let authority = authority.trim();
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        authority.split(':').next().unwrap_or_default()
    };
    host.to_ascii_lowercase()
}

fn unbracket(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

/// `localhost`, `127.0.0.0/8` or `::1`.
pub fn is_loopback(host: &str) -> bool {
    let host = unbracket(host);
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A request whose head is ambiguous ([`tiny_http::framing_conflict`]: a framing or
/// addressing header given twice or in conflict) is refused with 400 before any body is
/// read; the patched tiny_http reads no further request on its connection.
pub fn check_framing<'h>(
    headers: impl IntoIterator<Item = (&'h str, &'h str)>,
) -> Result<(), Refusal> {
    tiny_http::framing_conflict(headers).map_or(Ok(()), |what| Err(Refusal::new(400, what)))
}

/// What a POST's `Accept` allows: a JSON answer, an event stream, or both. No header at all
/// is taken as JSON.
pub fn accepts(accept: Option<&str>) -> (bool, bool) {
    let Some(accept) = accept else {
        return (true, false);
    };
    let (mut json, mut stream) = (false, false);
    for range in accept.split(',') {
        let media = range
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        match media.as_str() {
            "application/json" | "application/*" => json = true,
            "text/event-stream" | "text/*" => stream = true,
            "*/*" => (json, stream) = (true, true),
            _ => {}
        }
    }
    (json, stream)
}

/// A POST's `Content-Type` is JSON.
pub fn is_json(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|t| {
        t.split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .eq_ignore_ascii_case("application/json")
    })
}

/// `MCP-Protocol-Version`, when given, is one the gateway knows (MCP: 400 otherwise; absent,
/// the server assumes 2025-03-26).
pub fn check_protocol_version(version: Option<&str>) -> Result<(), Refusal> {
    match version {
        Some(v) if !PROTOCOL_VERSIONS.contains(&v.trim()) => Err(Refusal::new(
            400,
            format!(
                "unsupported MCP-Protocol-Version {v:?} (supported: {})",
                PROTOCOL_VERSIONS.join(", ")
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let guard = Guard::new("127.0.0.1", &[], &[]);
        for ok in [
            "localhost",
            "127.0.0.1:8080",
            "[::1]:9",
            "LOCALHOST:1",
            "127.1.2.3",
        ] {
            assert_eq!(guard.check_host(Some(ok)), Ok(()), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "10.0.0.1",
        ] {
            assert_eq!(
                guard.check_host(Some(bad)).unwrap_err().status,
                403,
                "{bad}"
            );
        }
        assert_eq!(guard.check_host(None).unwrap_err().status, 400);
        let wide = Guard::new("0.0.0.0", &["gw.internal".into()], &[]);
        assert_eq!(wide.check_host(Some("gw.internal:80")), Ok(()));
        assert_eq!(wide.check_host(Some("0.0.0.0")).unwrap_err().status, 403);
        assert_eq!(
            Guard::new("10.1.2.3", &[], &[]).check_host(Some("10.1.2.3:9")),
            Ok(())
        );
    }

    #[test]
    fn origins() {
        let guard = Guard::new("127.0.0.1", &[], &["https://app.example".into()]);
        for ok in [
            None,
            Some("http://localhost:3000"),
            Some("https://127.0.0.1"),
            Some("http://[::1]:1"),
            Some("https://APP.example/"),
        ] {
            assert_eq!(guard.check_origin(ok), Ok(()), "{ok:?}");
        }
        for bad in [
            "null",
            "https://evil.example",
            "http://localhost.evil.example",
            "file://localhost",
            "https://app.example:444",
        ] {
            assert_eq!(
                guard.check_origin(Some(bad)).unwrap_err().status,
                403,
                "{bad}"
            );
        }
    }

    #[test]
    fn framing() {
        let status = |headers: &[(&str, &str)]| {
            check_framing(headers.iter().copied()).map_err(|refused| refused.status)
        };
        for ok in [
            &[("Host", "a"), ("Content-Length", "12")][..],
            &[("host", "a"), ("transfer-encoding", "Chunked")],
            &[("Host", "a"), ("Authorization", "Bearer x")],
            &[],
        ] {
            assert_eq!(status(ok), Ok(()), "{ok:?}");
        }
        for bad in [
            &[("Content-Length", "12"), ("content-length", "13")][..],
            &[("Content-Length", "12"), ("Content-Length", "12")],
            &[("Content-Length", "12, 12")],
            &[("Content-Length", "+12")],
            &[("Content-Length", "12"), ("Transfer-Encoding", "chunked")],
            &[
                ("Transfer-Encoding", "chunked"),
                ("Transfer-Encoding", "chunked"),
            ],
            &[("Transfer-Encoding", "gzip, chunked")],
            &[("Host", "a"), ("HOST", "b")],
            &[("Authorization", "Bearer x"), ("Authorization", "Bearer y")],
        ] {
            assert_eq!(status(bad), Err(400), "{bad:?}");
        }
    }

    #[test]
    fn media_and_versions() {
        assert_eq!(
            accepts(Some("application/json, text/event-stream")),
            (true, true)
        );
        assert_eq!(accepts(Some("text/event-stream")), (false, true));
        assert_eq!(accepts(Some("application/json;q=0.9")), (true, false));
        assert_eq!(accepts(Some("*/*")), (true, true));
        assert_eq!(accepts(Some("text/html")), (false, false));
        assert_eq!(accepts(None), (true, false));
        assert!(is_json(Some("application/json; charset=utf-8")));
        assert!(!is_json(Some("text/plain")));
        assert!(!is_json(None));
        assert_eq!(check_protocol_version(Some("2025-11-25")), Ok(()));
        assert_eq!(check_protocol_version(None), Ok(()));
        assert_eq!(
            check_protocol_version(Some("1999-01-01"))
                .unwrap_err()
                .status,
            400
        );
    }
}
