//! The gateway as an OAuth 2.1 resource server (MCP authorization, 2025-11-25): every
//! request to the MCP endpoint carries `Authorization: Bearer TOKEN`, checked against a
//! token file ([`tokens`]) or as a JWT against the authorization server's keys ([`jwt`]).
//! Without a valid one the answer is `401` with `WWW-Authenticate: Bearer
//! resource_metadata="..."` (RFC 6750, RFC 9728), which sends an MCP client to the
//! protected-resource metadata document served here, and from there to the authorization
//! server. Tokens in a query string are refused (RFC 6750 §2.3 is a MAY, MCP forbids it: URLs
//! end up in logs). No token is ever logged or echoed.
//!
//! A valid token names a [`Principal`]: the token file's PRINCIPAL, or a JWT's `iss` and
//! `sub`. Offloads belong to it (see [`session`](super::session)).

mod jwt;
mod tokens;

use std::io::Cursor;
use std::path::Path;

use lro_core::{ErrorCode, LroError};
use ring::digest::{SHA256, digest};
use serde_json::{Value, json};
use tiny_http::Response;

use super::checks::Refusal;
use super::respond;

/// Who a request comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// A name for a person: `token:NAME` or `jwt:ISS SUB`.
    pub name: String,
    /// The directory its offloads go in, below the output directory: `p-` and 32 hex digits
    /// of the SHA-256 of its name, so that no principal's name (a URL, `../x`) becomes a path.
    pub dir: String,
}

impl Principal {
    fn new(name: String) -> Self {
        let dir = hashed_name("p-", &name);
        Self { name, dir }
    }
}

/// A directory name for `text`: `prefix` and 32 hex digits of its SHA-256. The name is a
/// path of one safe component whatever `text` is, and does not give `text` back: a session
/// id, a bearer secret, never shows in the `file_path` of a descriptor (which the model,
/// logs and transcripts see).
pub fn hashed_name(prefix: &str, text: &str) -> String {
    let hash = digest(&SHA256, text.as_bytes());
    let hex: String = hash.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{prefix}{hex}")
}

/// The authentication options, as given.
pub struct Options<'a> {
    /// `--auth-tokens`.
    pub tokens: Option<&'a Path>,
    /// `--auth-jwks`.
    pub jwks: Option<&'a str>,
    /// `--auth-issuer`.
    pub issuer: Option<&'a str>,
    /// The resource URI (`--resource-url` or the default).
    pub resource: &'a str,
    /// `--authorization-server`.
    pub authorization_servers: &'a [String],
}

/// What the gateway checks a request's token with.
pub struct Auth {
    tokens: Option<tokens::Tokens>,
    jwt: Option<jwt::Jwt>,
    /// The paths the metadata document is served at.
    metadata_paths: Vec<String>,
    /// Its URL, as `WWW-Authenticate` gives it.
    metadata_url: String,
    document: Vec<u8>,
}

/// Why a request was not let in.
#[derive(Debug, PartialEq, Eq)]
pub enum Denied {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token that is not valid, and why.
    Invalid(String),
    /// A token in the query string, or a header that is not a bearer token.
    Malformed(&'static str),
}

impl Auth {
    /// The checker the options ask for; `None` without `--auth-tokens` or `--auth-jwks`.
    pub fn new(options: &Options<'_>) -> Result<Option<Self>, LroError> {
        if options.tokens.is_none() && options.jwks.is_none() {
            return Ok(None);
        }
        let usage = |what: String| LroError::new(ErrorCode::InvalidArgument, what);
        let (origin, path) = split_url(options.resource).ok_or_else(|| {
            usage(format!(
                "--resource-url {:?}: not an http(s) URL",
                options.resource
            ))
        })?;
        let tokens = options.tokens.map(tokens::Tokens::load).transpose()?;
        let jwt = match (options.jwks, options.issuer) {
            (Some(jwks), Some(issuer)) => Some(jwt::Jwt::new(jwks, issuer, options.resource)?),
            (Some(_), None) => return Err(usage("--auth-jwks needs --auth-issuer".to_owned())),
            (None, _) => None,
        };
        let mut servers = options.authorization_servers.to_vec();
        if servers.is_empty() {
            servers.extend(options.issuer.map(str::to_owned));
        }
        // RFC 9728 §3.1: the well-known name goes between the host and the resource's path.
        let well_known = "/.well-known/oauth-protected-resource";
        let suffixed = format!("{well_known}{}", path.trim_end_matches('/'));
        let document = json!({
            "resource": options.resource,
            "authorization_servers": servers,
            "bearer_methods_supported": ["header"],
            "resource_name": "lro proxy (MCP gateway)",
        });
        Ok(Some(Self {
            tokens,
            jwt,
            metadata_url: format!("{origin}{suffixed}"),
            metadata_paths: vec![suffixed, well_known.to_owned()],
            document: serde_json::to_vec_pretty(&document).unwrap_or_default(),
        }))
    }

    /// The metadata document's answer, when `path` is one of its paths.
    pub fn metadata(&self, path: &str) -> Option<Response<Cursor<Vec<u8>>>> {
        self.metadata_paths
            .iter()
            .any(|p| p == path)
            .then(|| respond::json(200, self.document.clone(), None))
    }

    /// The principal of a request to the MCP endpoint: its `url` (with its query) and its
    /// `Authorization` header.
    pub fn authenticate(
        &self,
        url: &str,
        authorization: Option<&str>,
    ) -> Result<Principal, Denied> {
        let query = url
            .split_once('?')
            .map(|(_, query)| query)
            .unwrap_or_default();
        if query
            .split('&')
            .any(|pair| pair.split('=').next() == Some("access_token"))
        {
            return Err(Denied::Malformed(
                "a token in the query string is refused: send it in the Authorization header",
            ));
        }
        let Some(authorization) = authorization else {
            return Err(Denied::Missing);
        };
        let (scheme, token) = authorization
            .trim()
            .split_once(' ')
            .unwrap_or((authorization, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(Denied::Missing);
        }
        let token = token.trim();
        if !tokens::is_b64token(token) {
            return Err(Denied::Malformed(
                "the Authorization header holds no bearer token",
            ));
        }
        if let Some(principal) = self.tokens.as_ref().and_then(|t| t.principal(token)) {
            return Ok(Principal::new(format!("token:{principal}")));
        }
        let Some(jwt) = &self.jwt else {
            return Err(Denied::Invalid("the token is not known".to_owned()));
        };
        let (iss, sub) = jwt.verify(token).map_err(Denied::Invalid)?;
        Ok(Principal::new(format!("jwt:{iss} {sub}")))
    }

    /// The answer to a request that was not let in: `401` (`400` for a malformed one) with
    /// its challenge, and a JSON-RPC error body.
    pub fn challenge(&self, denied: &Denied, id: Value) -> Response<Cursor<Vec<u8>>> {
        let metadata = format!("resource_metadata=\"{}\"", self.metadata_url);
        let (status, challenge, message) = match denied {
            Denied::Missing => (
                401,
                format!("Bearer {metadata}"),
                "authentication required: send Authorization: Bearer TOKEN".to_owned(),
            ),
            Denied::Invalid(why) => (
                401,
                format!(
                    "Bearer {metadata}, error=\"invalid_token\", error_description=\"{}\"",
                    quoted(why)
                ),
                format!("invalid token: {why}"),
            ),
            Denied::Malformed(why) => (
                400,
                format!(
                    "Bearer {metadata}, error=\"invalid_request\", error_description=\"{}\"",
                    quoted(why)
                ),
                (*why).to_owned(),
            ),
        };
        let mut response = respond::refusal(&Refusal::new(status, message), id);
        if let Some(header) = respond::header("WWW-Authenticate", &challenge) {
            response.add_header(header);
        }
        response
    }
}

/// Text fit for a quoted-string of a header (RFC 9110): no quote, backslash or control.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == '"' || c == '\\' || c.is_control() {
                '\''
            } else {
                c
            }
        })
        .collect()
}

/// `scheme://authority` and the path of an http(s) URL.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if authority_end == 0 {
        return None;
    }
    let origin_end = url.len() - rest.len() + authority_end;
    let path = url[origin_end..]
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    Some((&url[..origin_end], path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_get_directories_that_are_no_paths() {
        let alice = Principal::new("token:alice".to_owned());
        let evil = Principal::new("token:../alice".to_owned());
        assert_ne!(alice.dir, evil.dir);
        for p in [&alice, &evil] {
            assert_eq!(p.dir.len(), 34, "{p:?}");
            assert!(p.dir[2..].bytes().all(|b| b.is_ascii_hexdigit()), "{p:?}");
        }
    }

    #[test]
    fn urls_split_into_origin_and_path() {
        assert_eq!(
            split_url("https://gw.example:8443/mcp?x#y"),
            Some(("https://gw.example:8443", "/mcp"))
        );
        assert_eq!(split_url("http://h"), Some(("http://h", "")));
        assert_eq!(split_url("ftp://h/x"), None);
        assert_eq!(split_url("http:///x"), None);
    }
}
