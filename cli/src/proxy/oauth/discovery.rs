//! Where to get a token for an MCP server: its protected-resource metadata (RFC 9728), then
//! its authorization server's metadata (RFC 8414 or OpenID discovery), each tried at the
//! places the MCP authorization specification (2025-11-25) lists, in its order.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use super::challenge::Challenge;
use super::transport::{Fetched, Http};

/// What discovery found.
#[derive(Debug, Clone)]
pub struct Discovered {
    /// The resource tokens are asked for (RFC 8707 `resource`): the protected-resource
    /// metadata's `resource`, or the server's URL when it publishes none.
    pub resource: String,
    /// The metadata document's `scopes_supported`.
    pub scopes_supported: Vec<String>,
    /// Where the metadata document was (`None`: the server publishes none).
    pub metadata_url: Option<String>,
    pub server: AuthServer,
}

/// An authorization server, as its metadata describes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AuthServer {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    /// `token_endpoint_auth_methods_supported` (absent: `client_secret_basic`, RFC 8414).
    pub token_endpoint_auth_methods: Vec<String>,
    pub client_id_metadata_document_supported: bool,
    pub scopes_supported: Vec<String>,
    /// `code_challenge_methods_supported`; `None` when the server published no metadata
    /// (the endpoints are the 2025-03-26 defaults).
    pub code_challenge_methods: Option<Vec<String>>,
}

/// Finds the authorization server of the MCP server at `server`, starting from the
/// challenge of its refusal.
pub fn discover(http: &Http, server: &Url, challenge: &Challenge) -> Result<Discovered, String> {
    let mut tried = Vec::new();
    let Some((metadata_url, metadata)) = protected_resource(http, server, challenge, &mut tried)
    else {
        // A server of the 2025-03-26 specification: no resource metadata; its origin is the
        // authorization server, with the default endpoints when it publishes no metadata.
        let origin = origin_of(server);
        let found = Url::parse(&origin)
            .ok()
            .and_then(|url| authorization_server(http, &url, &mut tried));
        let found = found.unwrap_or_else(|| default_endpoints(&origin));
        check_endpoints(&found)?;
        return Ok(Discovered {
            resource: server.as_str().to_owned(),
            scopes_supported: Vec::new(),
            metadata_url: None,
            server: found,
        });
    };
    let resource = match metadata.get("resource").and_then(Value::as_str) {
        Some(resource) if !resource_matches(resource, server) => {
            return Err(format!(
                "the protected-resource metadata at {metadata_url} is for {resource}, not for {server}: \
                 no token is asked for a resource other than the server's"
            ));
        }
        Some(resource) => resource.to_owned(),
        None => server.as_str().to_owned(),
    };
    let issuer = metadata
        .get("authorization_servers")
        .and_then(Value::as_array)
        .and_then(|servers| servers.iter().find_map(Value::as_str))
        .ok_or_else(|| {
            format!(
                "the protected-resource metadata at {metadata_url} names no authorization server"
            )
        })?;
    let issuer = Url::parse(issuer).map_err(|err| {
        format!("the authorization server {issuer:?} at {metadata_url} is not a URL: {err}")
    })?;
    let server_meta = authorization_server(http, &issuer, &mut tried).ok_or_else(|| {
        format!(
            "no authorization server metadata for {issuer} (tried {})",
            tried.join("; ")
        )
    })?;
    if trim_slash(&server_meta.issuer) != trim_slash(issuer.as_str()) {
        return Err(format!(
            "the metadata of the authorization server {issuer} names another issuer, {} (RFC 8414 §3.3)",
            server_meta.issuer
        ));
    }
    check_endpoints(&server_meta)?;
    Ok(Discovered {
        resource,
        scopes_supported: strings(&metadata, "scopes_supported"),
        metadata_url: Some(metadata_url),
        server: server_meta,
    })
}

/// The protected-resource metadata: at the challenge's `resource_metadata`, else at the
/// well-known place for the server's path, else at the root's.
fn protected_resource(
    http: &Http,
    server: &Url,
    challenge: &Challenge,
    tried: &mut Vec<String>,
) -> Option<(String, Value)> {
    let origin = origin_of(server);
    let path = trim_slash(server.path());
    let mut places: Vec<String> = challenge.resource_metadata.iter().cloned().collect();
    if !path.is_empty() {
        places.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    places.push(format!("{origin}/.well-known/oauth-protected-resource"));
    places
        .into_iter()
        .find_map(|url| match http.document(&url) {
            Fetched::Document(document) => Some((url, document)),
            Fetched::Missing(why) => {
                tried.push(why);
                None
            }
        })
}

/// The authorization server's metadata (RFC 8414, then OpenID discovery), at the places
/// the specification lists for an issuer with a path and for one without.
fn authorization_server(http: &Http, issuer: &Url, tried: &mut Vec<String>) -> Option<AuthServer> {
    let origin = origin_of(issuer);
    let path = trim_slash(issuer.path());
    let places = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    places
        .into_iter()
        .find_map(|url| match http.document(&url) {
            Fetched::Document(document) => match parse_server(&document) {
                Some(server) => Some(server),
                None => {
                    tried.push(format!("{url}: no issuer or token_endpoint"));
                    None
                }
            },
            Fetched::Missing(why) => {
                tried.push(why);
                None
            }
        })
}

fn parse_server(document: &Value) -> Option<AuthServer> {
    let text = |key: &str| document.get(key).and_then(Value::as_str).map(str::to_owned);
    let methods = strings(document, "token_endpoint_auth_methods_supported");
    Some(AuthServer {
        issuer: text("issuer")?,
        authorization_endpoint: text("authorization_endpoint"),
        token_endpoint: text("token_endpoint")?,
        registration_endpoint: text("registration_endpoint"),
        token_endpoint_auth_methods: if methods.is_empty() {
            vec!["client_secret_basic".to_owned()]
        } else {
            methods
        },
        client_id_metadata_document_supported: document
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        scopes_supported: strings(document, "scopes_supported"),
        code_challenge_methods: Some(strings(document, "code_challenge_methods_supported")),
    })
}

/// Refuses endpoints that are not `https` (or `http` on this machine): the browser is sent
/// to the authorization endpoint (a `file:` or custom-scheme URL there would run whatever
/// handles it), and codes and secrets go to the others.
fn check_endpoints(server: &AuthServer) -> Result<(), String> {
    let endpoints = [
        (
            "authorization_endpoint",
            server.authorization_endpoint.as_deref(),
        ),
        ("token_endpoint", Some(server.token_endpoint.as_str())),
        (
            "registration_endpoint",
            server.registration_endpoint.as_deref(),
        ),
    ];
    for (name, endpoint) in endpoints {
        let Some(endpoint) = endpoint else { continue };
        let safe = Url::parse(endpoint).is_ok_and(|url| match url.scheme() {
            "https" => true,
            "http" => is_loopback(&url),
            _ => false,
        });
        if !safe {
            return Err(format!(
                "the authorization server {} gives {name} {endpoint:?}: only https URLs (or http on \
                 this machine) are used",
                server.issuer
            ));
        }
    }
    Ok(())
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The endpoints a 2025-03-26 client assumes when a server publishes no metadata.
fn default_endpoints(origin: &str) -> AuthServer {
    let at = |path: &str| format!("{origin}{path}");
    AuthServer {
        issuer: origin.to_owned(),
        authorization_endpoint: Some(at("/authorize")),
        token_endpoint: at("/token"),
        registration_endpoint: Some(at("/register")),
        token_endpoint_auth_methods: vec!["client_secret_basic".to_owned(), "none".to_owned()],
        client_id_metadata_document_supported: false,
        scopes_supported: Vec::new(),
        code_challenge_methods: None,
    }
}

/// Whether a protected-resource metadata's `resource` stands for the server at `server`:
/// same origin, and the server's path is the resource's path or below it (RFC 8707: a
/// token for `https://h/mcp` serves `https://h/mcp`, not `https://h/other`).
fn resource_matches(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.scheme() != server.scheme()
        || resource.host_str().map(str::to_ascii_lowercase)
            != server.host_str().map(str::to_ascii_lowercase)
        || resource.port_or_known_default() != server.port_or_known_default()
    {
        return false;
    }
    let base = trim_slash(resource.path());
    let path = trim_slash(server.path());
    path == base || path.starts_with(&format!("{base}/"))
}

/// `scheme://host[:port]`, without a slash at the end.
fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

fn trim_slash(text: &str) -> &str {
    text.trim_end_matches('/')
}

fn strings(document: &Value, key: &str) -> Vec<String> {
    document
        .get(key)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn a_resource_covers_its_path_and_below_only() {
        let server = url("https://mcp.example.com/mcp");
        assert!(resource_matches("https://mcp.example.com/mcp", &server));
        assert!(resource_matches("https://mcp.example.com/", &server));
        assert!(resource_matches("https://MCP.example.com:443", &server));
        assert!(resource_matches(
            "https://mcp.example.com",
            &url("https://mcp.example.com/mcp/v1")
        ));
        assert!(!resource_matches("https://mcp.example.com/mc", &server));
        assert!(!resource_matches("https://evil.example.com/mcp", &server));
        assert!(!resource_matches("http://mcp.example.com/mcp", &server));
        assert!(!resource_matches(
            "https://mcp.example.com:8443/mcp",
            &server
        ));
        assert!(!resource_matches(
            "https://mcp.example.com/mcp/deeper",
            &server
        ));
        assert!(!resource_matches("not a url", &server));
    }

    #[test]
    fn metadata_fields_and_their_defaults() {
        let server = parse_server(&serde_json::json!({
            "issuer": "https://as.example.com",
            "token_endpoint": "https://as.example.com/token",
            "code_challenge_methods_supported": ["S256"],
        }))
        .unwrap();
        assert_eq!(server.token_endpoint_auth_methods, ["client_secret_basic"]);
        assert_eq!(server.code_challenge_methods, Some(vec!["S256".to_owned()]));
        assert!(!server.client_id_metadata_document_supported);
        assert!(parse_server(&serde_json::json!({"issuer": "x"})).is_none());
        let mut hostile = server.clone();
        hostile.authorization_endpoint = Some("file:///etc/passwd".into());
        assert!(
            check_endpoints(&hostile)
                .unwrap_err()
                .contains("authorization_endpoint")
        );
        hostile.authorization_endpoint = Some("http://as.example.com/authorize".into());
        assert!(check_endpoints(&hostile).is_err());
        hostile.authorization_endpoint = Some("http://127.0.0.1:9/authorize".into());
        hostile.token_endpoint = "myapp://token".into();
        assert!(
            check_endpoints(&hostile)
                .unwrap_err()
                .contains("token_endpoint")
        );
        hostile.token_endpoint = "http://[::1]:9/token".into();
        assert!(check_endpoints(&hostile).is_ok());
        assert!(check_endpoints(&server).is_ok());
        let defaults = default_endpoints(&origin_of(&url("http://127.0.0.1:9/mcp")));
        assert_eq!(defaults.token_endpoint, "http://127.0.0.1:9/token");
        assert_eq!(defaults.issuer, "http://127.0.0.1:9");
    }
}
