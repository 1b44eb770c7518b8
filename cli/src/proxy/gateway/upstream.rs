//! The MCP server behind each gateway session: a child process started from COMMAND, or
//! the remote streamable-HTTP server of `--url` (the stdio proxy's own transports,
//! [`child`] and [`http`]); one per session (the default), or one for all of them
//! (`--upstream shared`, see [`shared`]).

use std::sync::Arc;
use std::sync::mpsc::Sender;

use clap::{Args, ValueEnum};
use lro_core::{ErrorCode, LroError};

use super::shared::{self, Shared};
use crate::proxy::router::{MessageLimits, Router};
use crate::proxy::{Inbound, Lifecycle, ProxyArgs, Upstream, child, http};

/// `--upstream`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Sharing {
    /// Each session gets its own server.
    PerSession,
    /// One server for every session.
    Shared,
}

/// How sessions reach their MCP server (with `--listen`).
#[derive(Debug, Args)]
pub struct UpstreamArgs {
    /// per-session: each session gets its own MCP server (a COMMAND process, or a session
    /// of its own on the --url server), isolated from the others. shared: one server (one
    /// process, or one remote session) for all sessions, started with the first: one
    /// process instead of N, but the server's state is shared by every client, its
    /// requests and notifications reach the session whose request they concern only when
    /// that can be told (an answer, progress, and over --url what comes on a call's own
    /// stream; else the session with the oldest call in flight, or every session for
    /// notifications), and it sees the first session's initialize (client capabilities,
    /// clientInfo, protocol version) for all. Request ids, progress tokens and
    /// cancellations are renumbered between sessions and the server; offloads stay per
    /// session.
    #[arg(
        long = "upstream",
        value_enum,
        value_name = "MODE",
        default_value = "per-session",
        requires = "listen"
    )]
    pub sharing: Sharing,
}

/// The server sessions talk to.
#[derive(Debug, Clone)]
pub enum Target {
    /// A stdio server: the program and its arguments.
    Command(Vec<String>),
    /// A remote streamable-HTTP server, and the headers sent to it.
    Url {
        url: String,
        headers: Vec<(String, String)>,
        /// One authorization for every session: the gateway's own identity at that server.
        oauth: Arc<crate::proxy::oauth::OAuth>,
    },
}

/// Gives each session its server.
pub struct Upstreams {
    target: Target,
    /// The server all sessions share, with `--upstream shared`.
    shared: Option<Arc<Shared>>,
}

impl Upstreams {
    /// From the proxy's options: `--url` (with `--header`) or COMMAND, and `--upstream`.
    pub fn from_args(args: &ProxyArgs, limits: MessageLimits) -> Result<Self, LroError> {
        let target = match &args.url {
            Some(url) => Target::Url {
                url: url.clone(),
                headers: http::parse_headers(&args.headers)?,
                oauth: Arc::new(crate::proxy::oauth::OAuth::new(url, &args.oauth)?),
            },
            None if !args.command.is_empty() => Target::Command(args.command.clone()),
            None => {
                return Err(LroError::new(
                    ErrorCode::InvalidArgument,
                    "give --url URL or -- COMMAND [ARGS...]",
                ));
            }
        };
        let shared = (args.listen.upstream.sharing == Sharing::Shared).then(|| {
            let target = target.clone();
            let start: shared::Start =
                Box::new(move |inbound, lifecycle| start(&target, inbound, lifecycle));
            Shared::new(start, limits)
        });
        Ok(Self { target, shared })
    }

    /// Session `session`'s server, delivering to its `router`; `lifecycle` hears when that
    /// server goes away.
    pub fn connect(
        &self,
        session: &str,
        router: Arc<Router>,
        lifecycle: Sender<Lifecycle>,
    ) -> Result<Arc<dyn Upstream>, LroError> {
        match &self.shared {
            Some(shared) => shared.attach(session, router, lifecycle),
            None => start(&self.target, router, lifecycle),
        }
    }

    /// At shutdown, once every session has ended: stops the shared server.
    pub fn close(&self) {
        if let Some(shared) = &self.shared {
            shared.close();
        }
    }
}

/// Starts a server whose messages go to `inbound`.
pub fn start(
    target: &Target,
    inbound: Arc<dyn Inbound>,
    lifecycle: Sender<Lifecycle>,
) -> Result<Arc<dyn Upstream>, LroError> {
    match target {
        Target::Command(command) => {
            let (program, args) = command
                .split_first()
                .ok_or_else(|| LroError::new(ErrorCode::InvalidArgument, "no COMMAND to start"))?;
            Ok(child::ChildUpstream::spawn(
                program, args, inbound, lifecycle,
            )?)
        }
        // A remote server never exits on us: `lifecycle` is dropped (its session ends by
        // DELETE or idleness; a remote session that expired fails its calls with 404).
        Target::Url {
            url,
            headers,
            oauth,
        } => Ok(Arc::new(RemoteSession(http::HttpUpstream::new(
            url,
            headers.clone(),
            Some(Arc::clone(oauth)),
            inbound,
        )))),
    }
}

/// A session on the remote server, ended at once when its gateway session (or the gateway)
/// ends: every call in flight was answered then, and the stdio proxy's wait for their
/// answers (up to 30 s) held a DELETE, an idle session's end and shutdown.
struct RemoteSession(http::HttpUpstream);

impl Upstream for RemoteSession {
    fn send(&self, message: Vec<u8>, request: Option<crate::proxy::jsonrpc::IdKey>) {
        self.0.send(message, request);
    }

    fn close(&self) {
        self.0.end_now();
    }
}
