//! Getting tokens: the authorization code grant with PKCE (S256) through a loopback
//! redirect (RFC 8252), the client credentials grant, and refresh; every token request
//! names the resource (RFC 8707). The `oauth2` crate builds the requests and reads the
//! answers; the proxy brings the redirect listener and the browser.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet,
    EndpointNotSet, EndpointSet, PkceCodeChallenge, RedirectUrl, RefreshToken, RequestTokenError,
    Scope, TokenResponse, TokenUrl,
};

use super::assertion::{ASSERTION_TYPE, SigningKey};
use super::client::{AuthMethod, Client};
use super::discovery::AuthServer;
use super::store::Tokens;
use super::transport::Http;

/// How long the proxy waits for the browser to come back to the redirect listener.
const AUTHORIZATION_WAIT: Duration = Duration::from_secs(300);

type OAuthClient =
    BasicClient<EndpointMaybeSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// Where the authorization URL goes: a command (the URL appended as its last argument), or
/// the proxy's stderr for a person to open.
#[derive(Debug, Clone, Default)]
pub struct Opener(pub Option<String>);

impl Opener {
    fn open(&self, url: &str, server: &str) {
        let Some(command) = &self.0 else {
            note!(
                "lro proxy: {server} needs an authorization: open this address in a browser:\n  {url}"
            );
            return;
        };
        // Through the shell, so that CMD may carry its own arguments and quotes; the URL is a
        // positional parameter, never parsed by the shell. The command's output is not the
        // MCP client's: stdout goes nowhere.
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(format!("{command} \"$1\""))
            .arg("lro-oauth-open")
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn();
        match spawned {
            // Reaped in the background: a browser launcher may outlive the flow.
            Ok(mut child) => {
                std::thread::spawn(move || child.wait());
            }
            Err(err) => note!(
                "lro proxy: cannot run --oauth-open {command:?} ({err}); open this address in a browser:\n  {url}"
            ),
        }
    }
}

/// The loopback listener the authorization server redirects the browser to.
pub struct Redirect {
    server: tiny_http::Server,
    pub uri: String,
}

impl Redirect {
    /// Listens on 127.0.0.1:`port` (0: any free port).
    pub fn listen(port: u16) -> Result<Self, String> {
        let server = tiny_http::Server::http(("127.0.0.1", port)).map_err(|err| {
            format!("cannot listen for the OAuth redirect on 127.0.0.1:{port}: {err}")
        })?;
        let port = server
            .server_addr()
            .to_ip()
            .map_or(port, |address| address.port());
        Ok(Self {
            server,
            uri: format!("http://127.0.0.1:{port}/callback"),
        })
    }

    /// Waits for the redirect that carries `state`, and returns its code. Other requests
    /// (a favicon, a forged or stale redirect) are answered and ignored.
    fn wait(&self, state: &str) -> Result<String, String> {
        let deadline = Instant::now() + AUTHORIZATION_WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let request = match self.server.recv_timeout(left) {
                Ok(Some(request)) => request,
                Ok(None) => {
                    return Err(format!(
                        "no authorization came back to {} within {} s",
                        self.uri,
                        AUTHORIZATION_WAIT.as_secs()
                    ));
                }
                Err(err) => return Err(format!("the OAuth redirect listener failed: {err}")),
            };
            let Some(query) = request
                .url()
                .strip_prefix("/callback")
                .map(|rest| rest.strip_prefix('?').unwrap_or(""))
                .map(|query| {
                    url::form_urlencoded::parse(query.as_bytes())
                        .into_owned()
                        .collect::<Vec<_>>()
                })
            else {
                let _ = request.respond(tiny_http::Response::empty(404));
                continue;
            };
            let get = |key: &str| query.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
            if get("state").as_deref() != Some(state) {
                let _ = request.respond(page(
                    400,
                    "This authorization is not the one the proxy is waiting for.",
                ));
                continue;
            }
            if let Some(error) = get("error") {
                let _ = request.respond(page(
                    400,
                    "The authorization was refused. You can close this window.",
                ));
                let description = get("error_description")
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default();
                return Err(format!(
                    "the authorization server refused the authorization: {error}{description}"
                ));
            }
            let Some(code) = get("code") else {
                let _ = request.respond(page(400, "The redirect carries no code."));
                return Err("the authorization server's redirect carries no code".to_owned());
            };
            let _ = request.respond(page(200, "LRO is authorized. You can close this window."));
            return Ok(code);
        }
    }
}

fn page(status: u16, text: &str) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let html = format!("<!doctype html><meta charset=utf-8><title>lro proxy</title><p>{text}</p>");
    tiny_http::Response::from_string(html)
        .with_status_code(status)
        .with_header(
            tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"text/html; charset=utf-8"[..])
                .expect("a valid header"),
        )
}

/// What a grant needs to know about where it happens.
pub struct Grant<'a> {
    pub http: &'a Http,
    pub server: &'a AuthServer,
    pub client: &'a Client,
    pub resource: &'a str,
    pub scopes: &'a [String],
    /// The key of a `private_key_jwt` client.
    pub key: Option<&'a SigningKey>,
}

impl Grant<'_> {
    fn oauth_client(&self, redirect: Option<&str>) -> Result<OAuthClient, String> {
        let bad = |what: &str, err: &dyn std::fmt::Display| {
            format!("the {what} of {} is not a URL: {err}", self.server.issuer)
        };
        let authorize = self
            .server
            .authorization_endpoint
            .clone()
            .map(AuthUrl::new)
            .transpose()
            .map_err(|err| bad("authorization endpoint", &err))?;
        let mut client = BasicClient::new(ClientId::new(self.client.id.clone()))
            .set_auth_uri_option(authorize)
            .set_token_uri(
                TokenUrl::new(self.server.token_endpoint.clone())
                    .map_err(|err| bad("token endpoint", &err))?,
            )
            .set_auth_type(match self.client.auth_method {
                AuthMethod::ClientSecretBasic => AuthType::BasicAuth,
                _ => AuthType::RequestBody,
            });
        let sends_secret = matches!(
            self.client.auth_method,
            AuthMethod::ClientSecretBasic | AuthMethod::ClientSecretPost
        );
        if let (Some(secret), true) = (&self.client.secret, sends_secret) {
            client = client.set_client_secret(ClientSecret::new(secret.clone()));
        }
        if let Some(redirect) = redirect {
            client = client.set_redirect_uri(
                RedirectUrl::new(redirect.to_owned())
                    .map_err(|err| format!("redirect URI: {err}"))?,
            );
        }
        Ok(client)
    }

    /// The form parameters a token request adds for the client's authentication: the
    /// assertion of a `private_key_jwt` client; the client id under `client_secret_basic`,
    /// where the `oauth2` crate sends it in the header only (RFC 6749 lets a client send it in
    /// the body as well, and the official Python SDK's authorization server, `mcp.server.auth`,
    /// refuses a token request without it: "Missing client_id"). Under the other methods the
    /// crate puts the id in the body itself, and a parameter must not come twice.
    fn authentication(&self) -> Result<Vec<(&'static str, String)>, String> {
        match (self.client.auth_method, self.key) {
            (AuthMethod::PrivateKeyJwt, Some(key)) => Ok(vec![
                ("client_assertion_type", ASSERTION_TYPE.to_owned()),
                (
                    "client_assertion",
                    key.assertion(&self.client.id, &self.server.issuer, now())?,
                ),
            ]),
            (AuthMethod::PrivateKeyJwt, None) => {
                Err("private_key_jwt without --oauth-client-key".to_owned())
            }
            (AuthMethod::ClientSecretBasic, _) => Ok(vec![("client_id", self.client.id.clone())]),
            _ => Ok(Vec::new()),
        }
    }

    fn scopes(&self) -> impl Iterator<Item = Scope> + '_ {
        self.scopes.iter().cloned().map(Scope::new)
    }

    /// The authorization code grant: the browser (or `--oauth-open`) is sent to the
    /// authorization endpoint; its redirect to `redirect` carries the code.
    pub fn authorization_code(
        &self,
        redirect: &Redirect,
        opener: &Opener,
        server_name: &str,
    ) -> Result<Tokens, String> {
        if let Some(methods) = &self.server.code_challenge_methods {
            if !methods.iter().any(|m| m == "S256") {
                return Err(format!(
                    "the authorization server {} does not say it supports PKCE with S256 \
                     (code_challenge_methods_supported), which MCP clients must require",
                    self.server.issuer
                ));
            }
        }
        let client = self.oauth_client(Some(&redirect.uri))?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state) = client
            .authorize_url(CsrfToken::new_random)
            .map_err(|_| {
                format!(
                    "the authorization server {} names no authorization endpoint",
                    self.server.issuer
                )
            })?
            .add_scopes(self.scopes())
            .add_extra_param("resource", self.resource)
            .set_pkce_challenge(challenge)
            .url();
        opener.open(url.as_str(), server_name);
        let code = redirect.wait(state.secret())?;
        let mut request = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .add_extra_param("resource", self.resource);
        for (name, value) in self.authentication()? {
            request = request.add_extra_param(name, value);
        }
        let answer = request.request(&|request| self.http.exchange(request));
        self.tokens(answer)
    }

    /// The client credentials grant (machine to machine: no person, no browser).
    pub fn client_credentials(&self) -> Result<Tokens, String> {
        let client = self.oauth_client(None)?;
        let mut request = client
            .exchange_client_credentials()
            .add_scopes(self.scopes())
            .add_extra_param("resource", self.resource);
        for (name, value) in self.authentication()? {
            request = request.add_extra_param(name, value);
        }
        let answer = request.request(&|request| self.http.exchange(request));
        self.tokens(answer)
    }

    /// A new access token from a refresh token.
    pub fn refresh(&self, refresh_token: &str) -> Result<Tokens, String> {
        let token = RefreshToken::new(refresh_token.to_owned());
        let client = self.oauth_client(None)?;
        let mut request = client
            .exchange_refresh_token(&token)
            .add_extra_param("resource", self.resource);
        for (name, value) in self.authentication()? {
            request = request.add_extra_param(name, value);
        }
        let answer = request.request(&|request| self.http.exchange(request));
        let mut tokens = self.tokens(answer)?;
        // A server that does not rotate refresh tokens sends none back: the old one stays good.
        tokens
            .refresh_token
            .get_or_insert_with(|| refresh_token.to_owned());
        Ok(tokens)
    }

    fn tokens(
        &self,
        answer: Result<BasicTokenResponse, RequestTokenError<ureq::Error, BasicErrorResponse>>,
    ) -> Result<Tokens, String> {
        let endpoint = &self.server.token_endpoint;
        let answer = answer.map_err(|err| match err {
            RequestTokenError::ServerResponse(refusal) => {
                let description = refusal
                    .error_description()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default();
                format!(
                    "the token endpoint {endpoint} refused: {}{description}",
                    refusal.error()
                )
            }
            RequestTokenError::Request(err) => {
                format!("cannot reach the token endpoint {endpoint}: {err}")
            }
            RequestTokenError::Parse(err, _) => {
                format!("the token endpoint {endpoint} answered no token: {err}")
            }
            RequestTokenError::Other(err) => format!("the token endpoint {endpoint}: {err}"),
        })?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(Tokens {
            access_token: answer.access_token().secret().clone(),
            refresh_token: answer.refresh_token().map(|t| t.secret().clone()),
            expires_at: answer
                .expires_in()
                .map(|left| now.saturating_add(left.as_secs())),
            scopes: answer.scopes().map_or_else(
                || self.scopes.to_vec(),
                |granted| granted.iter().map(|s| s.to_string()).collect(),
            ),
        })
    }
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
