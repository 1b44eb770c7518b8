//! `lro proxy --url` in front of a server behind OAuth: the MCP authorization specification
//! (2025-11-25) as a client. A `401` (or a `403 insufficient_scope`) from the server starts
//! it: discovery (`discovery`), a client (`client`), a grant (`flow`), and the token is
//! remembered per server (`store`) and sent on every request until it needs refreshing.
//!
//! One [`OAuth`] serves every request to one server: requests run on their own threads,
//! and the first refused one authorizes while the others wait for its token.

mod assertion;
mod challenge;
mod client;
mod discovery;
mod flow;
mod store;
mod transport;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use lro_core::{ErrorCode, LroError};
use url::Url;

use assertion::SigningKey;
use challenge::{Challenge, split_scopes};
use client::{Client, ClientOptions, ClientOrigin};
use discovery::{AuthServer, Discovered};
use flow::{Grant, Opener, Redirect};
use store::{Saved, Store};
use transport::Http;

/// Seconds before its expiry that a token is refreshed.
const REFRESH_MARGIN: u64 = 60;
/// How long a failed authorization is the answer of every request refused meanwhile,
/// instead of each starting one more (a broken authorization server would otherwise get one
/// registration, one browser tab and one wait per queued request).
const FAILURE_MEMORY: Duration = Duration::from_secs(30);
/// The most characters of a server's text quoted in a message.
const QUOTED_MAX_CHARS: usize = 300;

/// The `--oauth-*` options of `lro proxy --url`.
#[derive(Debug, Clone, Default, Args)]
pub struct OAuthArgs {
    /// The client ID of a client registered with the server's authorization server
    /// (otherwise the proxy registers itself, or uses --oauth-client-metadata-url).
    #[arg(long, value_name = "ID", requires = "url")]
    pub oauth_client_id: Option<String>,
    /// That client's secret (or the environment variable LRO_OAUTH_CLIENT_SECRET, which
    /// other users cannot read in the process list).
    #[arg(
        long,
        value_name = "SECRET",
        env = "LRO_OAUTH_CLIENT_SECRET",
        hide_env_values = true,
        requires = "oauth_client_id"
    )]
    pub oauth_client_secret: Option<String>,
    /// A PKCS#8 PEM private key (P-256, P-384, RSA or Ed25519) the client with
    /// --oauth-client-id authenticates with (private_key_jwt), instead of a secret.
    #[arg(
        long,
        value_name = "FILE",
        requires = "oauth_client_id",
        conflicts_with = "oauth_client_secret"
    )]
    pub oauth_client_key: Option<PathBuf>,
    /// The scopes to ask for, space-separated (default: what the server's challenge or its
    /// metadata names).
    #[arg(long, value_name = "SCOPES", requires = "url")]
    pub oauth_scope: Option<String>,
    /// A command that opens the authorization URL, which is appended as its last argument
    /// (default: the URL is printed on stderr for a person to open), e.g. "xdg-open".
    #[arg(long, value_name = "CMD", requires = "url")]
    pub oauth_open: Option<String>,
    /// The URL of this client's ID metadata document, used as its client ID with
    /// authorization servers that accept those (instead of registering).
    #[arg(long, value_name = "URL", requires = "url")]
    pub oauth_client_metadata_url: Option<String>,
    /// The grant: authorization-code (a person approves in a browser) or client-credentials
    /// (machine to machine, with --oauth-client-id and --oauth-client-secret).
    #[arg(long, value_enum, value_name = "GRANT", default_value_t = GrantKind::AuthorizationCode, requires = "url")]
    pub oauth_grant: GrantKind,
    /// The loopback port the authorization server redirects to (default: the port of the
    /// registered client, or any free one).
    #[arg(long, value_name = "PORT", requires = "url")]
    pub oauth_redirect_port: Option<u16>,
    /// Where tokens and client registrations are kept, one 0600 file per server (default:
    /// $XDG_STATE_HOME/lro/oauth, else ~/.local/state/lro/oauth).
    #[arg(long, value_name = "DIR", requires = "url")]
    pub oauth_store: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum GrantKind {
    #[default]
    AuthorizationCode,
    ClientCredentials,
}

/// The token sent with a request, and which token it was (see [`OAuth::refused`]).
pub struct Bearer {
    pub header: String,
    generation: u64,
}

/// What to do with a refused request.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A new token is there: send the request again.
    Retry,
    /// Not an authorization matter (a 403 without `insufficient_scope`, a 401 without a
    /// Bearer challenge): the refusal is the answer.
    NotOurs,
}

/// The authorization of one MCP server.
pub struct OAuth {
    server: Url,
    args: OAuthArgs,
    http: Http,
    key: Option<SigningKey>,
    store: Store,
    state: Mutex<State>,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("server", &self.server.as_str())
            .finish_non_exhaustive()
    }
}

struct State {
    saved: Saved,
    discovered: Option<Discovered>,
    /// Bumped with every new token: a request refused with an older one just retries.
    generation: u64,
    /// The last authorization that failed, when, and why.
    failed: Option<(Instant, String)>,
}

impl OAuth {
    /// The authorization of the server at `server_url`, with what was saved for it.
    pub fn new(server_url: &str, args: &OAuthArgs) -> Result<Self, LroError> {
        let server = Url::parse(server_url).map_err(|err| {
            LroError::new(
                ErrorCode::InvalidArgument,
                format!("--url {server_url:?}: {err}"),
            )
        })?;
        if args.oauth_grant == GrantKind::ClientCredentials
            && (args.oauth_client_id.is_none()
                || (args.oauth_client_secret.is_none() && args.oauth_client_key.is_none()))
        {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                "--oauth-grant client-credentials needs --oauth-client-id, and --oauth-client-secret or --oauth-client-key",
            ));
        }
        let key = args
            .oauth_client_key
            .as_deref()
            .map(SigningKey::read)
            .transpose()
            .map_err(|err| LroError::new(ErrorCode::InvalidArgument, err))?;
        let store = Store::new(args.oauth_store.as_deref(), server.as_str());
        let mut saved = store.load(server.as_str());
        // A pre-registered client's secret is never saved: it comes from the command line.
        if let Some(client) = saved
            .client
            .as_mut()
            .filter(|c| c.origin == ClientOrigin::PreRegistered)
        {
            if args.oauth_client_id.as_ref() == Some(&client.id) {
                client.secret.clone_from(&args.oauth_client_secret);
            } else {
                saved.client = None;
            }
        }
        Ok(Self {
            server,
            args: args.clone(),
            http: Http::new(),
            key,
            store,
            state: Mutex::new(State {
                saved,
                discovered: None,
                generation: 0,
                failed: None,
            }),
        })
    }

    /// The `Authorization` header for the next request, if there is a token; one about to
    /// expire is refreshed first.
    pub fn bearer(&self) -> Option<Bearer> {
        let mut state = self.lock();
        let expiring = state.saved.tokens.as_ref().is_some_and(|t| {
            t.refresh_token.is_some()
                && t.expires_at
                    .is_some_and(|at| at <= flow::now() + REFRESH_MARGIN)
        });
        if expiring {
            // A failed refresh keeps the old token: the server's 401 then starts over.
            if let Err(err) = self.refresh(&mut state) {
                note!(
                    "lro proxy: cannot refresh the token for {}: {err}",
                    self.server
                );
            }
        }
        let tokens = state.saved.tokens.as_ref()?;
        Some(Bearer {
            header: format!("Bearer {}", tokens.access_token),
            generation: state.generation,
        })
    }

    /// The server refused a request sent with `sent` (`None`: without a token), with
    /// `status` and the `WWW-Authenticate` values `challenges`: gets a token that should
    /// pass, or says why not.
    pub fn refused(
        &self,
        status: u16,
        challenges: &[&str],
        sent: Option<&Bearer>,
    ) -> Result<Refusal, String> {
        let Some(challenge) = Challenge::parse(challenges.iter().copied()) else {
            return Ok(Refusal::NotOurs);
        };
        if status == 403 && !challenge.insufficient_scope() {
            return Ok(Refusal::NotOurs);
        }
        let mut state = self.lock();
        let current = state.saved.tokens.is_some().then_some(state.generation);
        if current.is_some() && current != sent.map(|b| b.generation) {
            // Another request got a new token meanwhile.
            return Ok(Refusal::Retry);
        }
        let had = state
            .saved
            .tokens
            .as_ref()
            .map(|t| t.scopes.clone())
            .unwrap_or_default();
        let needed = challenge.scopes();
        if challenge.insufficient_scope()
            && sent.is_some()
            && needed.iter().all(|s| had.contains(s))
        {
            return Err(format!(
                "{} refused the request for want of scope {:?}, which the token was granted for: \
                 asking again would not help",
                self.server,
                challenge.scope.as_deref().unwrap_or_default()
            ));
        }
        if !challenge.insufficient_scope() && sent.is_some() && self.refresh(&mut state).is_ok() {
            return Ok(Refusal::Retry);
        }
        if let Some((at, why)) = state
            .failed
            .as_ref()
            .filter(|(at, _)| at.elapsed() < FAILURE_MEMORY)
        {
            return Err(format!(
                "{why} (an authorization failed {} s ago; the next is tried {} s after it)",
                at.elapsed().as_secs(),
                FAILURE_MEMORY.as_secs()
            ));
        }
        let stepping_up = challenge.insufficient_scope();
        let had = if stepping_up { had } else { Vec::new() };
        match self.authorize(&mut state, &challenge, had) {
            Ok(()) => {
                state.failed = None;
                Ok(Refusal::Retry)
            }
            Err(why) => {
                state.failed = Some((Instant::now(), why.clone()));
                Err(why)
            }
        }
    }

    /// The whole dance: discovery, a client, a grant; the tokens are saved.
    fn authorize(
        &self,
        state: &mut State,
        challenge: &Challenge,
        had: Vec<String>,
    ) -> Result<(), String> {
        let rediscover = state.discovered.as_ref().is_none_or(|d| {
            challenge.resource_metadata.is_some() && d.metadata_url != challenge.resource_metadata
        });
        if rediscover {
            state.discovered = Some(discovery::discover(&self.http, &self.server, challenge)?);
        }
        let discovered = state.discovered.clone().ok_or("no authorization server")?;
        let scopes = self.scopes(challenge, &discovered, had);
        let client_options = ClientOptions {
            id: self.args.oauth_client_id.clone(),
            secret: self.args.oauth_client_secret.clone(),
            metadata_url: self.args.oauth_client_metadata_url.clone(),
            signs: self.key.is_some(),
        };
        // A registration made with another authorization server is of no use here.
        let remembered = state.saved.client.as_ref().filter(|_| {
            state
                .saved
                .auth_server
                .as_ref()
                .is_some_and(|s| s.issuer == discovered.server.issuer)
        });
        let tokens = match self.args.oauth_grant {
            GrantKind::ClientCredentials => {
                let client = client::choose(
                    &self.http,
                    &client_options,
                    None,
                    &discovered.server,
                    None,
                    &["client_credentials"],
                )?;
                let grant = self.grant(&discovered.server, &client, &discovered.resource, &scopes);
                let tokens = grant.client_credentials()?;
                state.saved.client = Some(client);
                tokens
            }
            GrantKind::AuthorizationCode => {
                let port = self.args.oauth_redirect_port.or_else(|| {
                    remembered
                        .and_then(|c| c.redirect_uri.as_deref())
                        .and_then(|uri| Url::parse(uri).ok())
                        .and_then(|uri| uri.port())
                });
                // A remembered port taken by another program: any free one, and a new registration.
                let redirect = match port.map(Redirect::listen) {
                    Some(Ok(redirect)) => redirect,
                    Some(Err(err)) if self.args.oauth_redirect_port.is_some() => return Err(err),
                    _ => Redirect::listen(0)?,
                };
                let client = client::choose(
                    &self.http,
                    &client_options,
                    remembered,
                    &discovered.server,
                    Some(&redirect.uri),
                    &["authorization_code", "refresh_token"],
                )?;
                let grant = self.grant(&discovered.server, &client, &discovered.resource, &scopes);
                let tokens = grant.authorization_code(
                    &redirect,
                    &Opener(self.args.oauth_open.clone()),
                    self.server.as_str(),
                )?;
                state.saved.client = Some(client);
                tokens
            }
        };
        state.saved.auth_server = Some(discovered.server.clone());
        state.saved.resource = Some(discovered.resource.clone());
        state.saved.tokens = Some(tokens);
        state.generation += 1;
        self.save(state);
        note!(
            "lro proxy: authorized with {} for {}{}",
            clean(&discovered.server.issuer),
            self.server,
            match scopes.is_empty() {
                true => String::new(),
                false => format!(" (scope {})", scopes.join(" ")),
            }
        );
        Ok(())
    }

    /// The scopes to ask for: --oauth-scope, else the challenge's, else the resource
    /// metadata's `scopes_supported`, else none (the parameter is left out); when stepping
    /// up, together with those the token had.
    fn scopes(
        &self,
        challenge: &Challenge,
        discovered: &Discovered,
        had: Vec<String>,
    ) -> Vec<String> {
        let base = match (&self.args.oauth_scope, challenge.scopes()) {
            (Some(scope), _) => split_scopes(scope),
            (None, from_challenge) if !from_challenge.is_empty() => from_challenge,
            (None, _) => discovered.scopes_supported.clone(),
        };
        // A token that outlives this run needs a refresh token: `offline_access` where the
        // authorization server offers it (and the choice is the proxy's). Not alone: a
        // request for `offline_access` only may get a token for nothing else.
        let offline = (self.args.oauth_scope.is_none()
            && !base.is_empty()
            && self.args.oauth_grant == GrantKind::AuthorizationCode
            && discovered
                .server
                .scopes_supported
                .iter()
                .any(|s| s == "offline_access"))
        .then(|| "offline_access".to_owned());
        let mut scopes = had;
        for scope in base.into_iter().chain(challenge.scopes()).chain(offline) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        scopes
    }

    /// Trades the refresh token for a new access token.
    fn refresh(&self, state: &mut State) -> Result<(), String> {
        let (Some(tokens), Some(server), Some(client), Some(resource)) = (
            state.saved.tokens.as_ref(),
            state.saved.auth_server.as_ref(),
            state.saved.client.as_ref(),
            state.saved.resource.as_ref(),
        ) else {
            return Err("nothing to refresh with".to_owned());
        };
        let refresh_token = tokens.refresh_token.as_deref().ok_or("no refresh token")?;
        let grant = self.grant(server, client, resource, &tokens.scopes);
        let fresh = grant.refresh(refresh_token)?;
        state.saved.tokens = Some(fresh);
        state.generation += 1;
        self.save(state);
        Ok(())
    }

    /// A grant of `client` at `server`, for `resource` and `scopes`.
    fn grant<'a>(
        &'a self,
        server: &'a AuthServer,
        client: &'a Client,
        resource: &'a str,
        scopes: &'a [String],
    ) -> Grant<'a> {
        Grant {
            http: &self.http,
            server,
            client,
            resource,
            scopes,
            key: self.key.as_ref(),
        }
    }

    fn save(&self, state: &State) {
        let mut saved = state.saved.clone();
        if let Some(client) = saved
            .client
            .as_mut()
            .filter(|c| c.origin == ClientOrigin::PreRegistered)
        {
            client.secret = None;
        }
        if let Err(err) = self.store.save(&saved) {
            let path = self
                .store
                .path()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            note!(
                "lro proxy: cannot save the OAuth tokens in {path}: {err} (they last as long as this proxy)"
            );
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A server's text fit to quote in a message: control characters escaped (an ANSI escape or
/// a newline in an `error_description` must not reach a terminal, nor forge a log line), and
/// cut to [`QUOTED_MAX_CHARS`].
pub(super) fn clean(text: &str) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == QUOTED_MAX_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn quoted_text_is_tamed() {
        assert_eq!(
            clean("bad\nlro proxy: authorized\u{1b}[31m"),
            "bad\\nlro proxy: authorized\\u{1b}[31m"
        );
        assert_eq!(clean(&"x".repeat(400)).chars().count(), 301);
        assert_eq!(clean("été 東京"), "été 東京");
    }
}
