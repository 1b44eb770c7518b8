//! `lro proxy --listen HOST:PORT (-- COMMAND | --url URL)`: the proxy as an MCP server over
//! streamable HTTP, for many clients at once. Each session (begun by an `initialize` POST)
//! gets its own MCP server (started from COMMAND, or a session on the --url server; or one
//! server all sessions share, [`shared`]), its own router (the stdio proxy's: the same offloading,
//! extract tool and resources) and its own offload directory.
//!
//! One job per module: [`handle`] answers each HTTP request, [`checks`] holds what is
//! checked before (Host, Origin, media types, protocol version), [`auth`] the bearer tokens
//! and the principal they name, [`session`] starts and
//! ends sessions, [`dispatch`] routes each session's messages to its event streams,
//! [`events`] keeps those streams' events for the connections that write them and for a
//! client that resumes one, [`respond`] writes the answers, [`upstream`] gives each session
//! its server ([`shared`]: one for all, renumbering ids with [`splice`]). The HTTP server
//! is `tiny_http` (threads, no async runtime, as the rest of the proxy).

mod auth;
mod checks;
mod dispatch;
mod events;
mod handle;
mod respond;
mod session;
mod shared;
mod splice;
mod upstream;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use clap::Args;
use lro_core::{ErrorCode, LroError};

use super::{ProxyArgs, jsonrpc, router, settings};
use crate::signals;

/// The gateway's options (with `--listen`).
#[derive(Debug, Args)]
pub struct ListenArgs {
    /// Serve MCP over streamable HTTP at HOST:PORT instead of stdio; a PORT alone binds
    /// 127.0.0.1 (port 0: any free port; the address is printed on stderr). Each session gets its own MCP server (started
    /// from COMMAND, or a session on the --url server; see --upstream) and its own offload
    /// files (OUTPUT_DIR/SESSION_ID). Bind a loopback
    /// address unless clients come from other machines.
    #[arg(long, value_name = "HOST:PORT")]
    pub listen: Option<String>,
    /// The MCP endpoint's path.
    #[arg(long, value_name = "PATH", default_value = "/mcp", requires = "listen")]
    pub path: String,
    /// A browser origin allowed to call the gateway, e.g. https://app.example (repeatable);
    /// requests without Origin, or from a loopback origin, are always allowed.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "listen")]
    pub allow_origins: Vec<String>,
    /// A host name requests may give in Host besides loopback names and the --listen HOST
    /// (repeatable): the name clients reach the gateway by.
    #[arg(long = "allow-host", value_name = "NAME", requires = "listen")]
    pub allow_hosts: Vec<String>,
    /// The largest request body, in bytes (413 past it).
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20, value_parser = clap::value_parser!(u64).range(1..), requires = "listen")]
    pub max_body_bytes: u64,
    /// Sessions open at once (503 for one more).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..), requires = "listen")]
    pub max_sessions: u64,
    /// Seconds a session may go without a request (and with no request in flight and no
    /// GET stream open) before it ends, its server with it: a client that left without a
    /// DELETE. 0 keeps sessions until DELETE or shutdown.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 3600,
        requires = "listen"
    )]
    pub session_idle_timeout: u64,
    /// Requests being answered at once, across sessions (503 for one more).
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..), requires = "listen")]
    pub max_in_flight: u64,
    /// Require a bearer token listed in FILE: one a line, `TOKEN PRINCIPAL` (# begins a
    /// comment). The file must be its owner's alone (chmod 600). A principal's sessions share
    /// its offload files (OUTPUT_DIR/p-HASH), which no other principal can list or read.
    #[arg(long, value_name = "FILE", requires = "listen")]
    pub auth_tokens: Option<std::path::PathBuf>,
    /// Require a bearer token that is a JWT signed by a key of this JWKS (an http(s) URL or a
    /// file), from --auth-issuer, whose aud names --resource-url; its principal is its iss
    /// and sub. RS*, PS*, ES256/384 and EdDSA; the JWKS is read again for an unknown kid, at
    /// most once every 30 s.
    #[arg(long, value_name = "URL|FILE", requires_all = ["listen", "auth_issuer"])]
    pub auth_jwks: Option<String>,
    /// The issuer (iss) of the JWTs --auth-jwks checks.
    #[arg(long, value_name = "ISS", requires = "auth_jwks")]
    pub auth_issuer: Option<String>,
    /// The gateway's public URL, as clients reach it: the audience its JWTs must name and the
    /// resource of its protected-resource metadata (/.well-known/oauth-protected-resource).
    /// Default: http://HOST:PORT/PATH of --listen (needed when HOST is 0.0.0.0 or ::).
    #[arg(long, value_name = "URL", requires = "listen")]
    pub resource_url: Option<String>,
    /// An OAuth authorization server clients get tokens from, for the metadata document
    /// (repeatable; default: --auth-issuer).
    #[arg(long = "authorization-server", value_name = "URL", requires = "listen")]
    pub authorization_servers: Vec<String>,
    #[command(flatten)]
    pub upstream: upstream::UpstreamArgs,
}

/// How long, at shutdown, the requests in flight may take to be answered once their
/// sessions ended.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The gateway.
pub(super) struct Gateway {
    guard: checks::Guard,
    /// Bearer tokens, when the gateway asks for them.
    auth: Option<auth::Auth>,
    path: String,
    sessions: Arc<session::Sessions>,
    max_body: usize,
    in_flight: Slots,
    stopping: AtomicBool,
    /// The HTTP server, for its count of open connections.
    server: Arc<tiny_http::Server>,
}

/// A count of things under a bound, that can be waited on to reach zero.
struct Slots {
    taken: Mutex<usize>,
    freed: Condvar,
    max: usize,
}

/// One slot, given back when dropped.
struct Slot<'a>(&'a Slots);

impl Slots {
    fn new(max: usize) -> Self {
        Self {
            taken: Mutex::new(0),
            freed: Condvar::new(),
            max,
        }
    }

    fn max(&self) -> usize {
        self.max
    }

    /// How many are taken now.
    fn taken(&self) -> usize {
        *self.taken.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn take(&self) -> Option<Slot<'_>> {
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        if *taken >= self.max {
            return None;
        }
        *taken += 1;
        Some(Slot(self))
    }

    /// Waits until no slot is taken, at most `limit`; whether none is.
    fn wait_idle(&self, limit: Duration) -> bool {
        let taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        let (taken, _) = self
            .freed
            .wait_timeout_while(taken, limit, |n| *n > 0)
            .unwrap_or_else(PoisonError::into_inner);
        *taken == 0
    }
}

/// A request being handled, counted until dropped (however many there are).
struct Handling(Arc<Slots>);

impl Drop for Handling {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(PoisonError::into_inner);
        *taken = taken.saturating_sub(1);
        self.0.freed.notify_all();
    }
}

/// Counts one more request being handled, whatever the bound.
fn handling(slots: &Arc<Slots>) -> Handling {
    *slots.taken.lock().unwrap_or_else(PoisonError::into_inner) += 1;
    Handling(Arc::clone(slots))
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut taken = self.0.taken.lock().unwrap_or_else(PoisonError::into_inner);
        *taken = taken.saturating_sub(1);
        self.0.freed.notify_all();
    }
}

/// Runs the gateway until `SIGTERM` or `SIGINT`.
pub fn run(args: ProxyArgs, listen: &str) -> Result<(), LroError> {
    // Before any thread: only the signal thread below receives these.
    signals::hold_termination();
    crate::notes::in_background();
    let usage = |what: String| LroError::new(ErrorCode::InvalidArgument, what);
    if !args.listen.path.starts_with('/') {
        return Err(usage(format!(
            "--path {:?}: a path starts with /",
            args.listen.path
        )));
    }
    let (bind_host, listen) = bind_address(listen).map_err(usage)?;
    let listen = listen.as_str();
    let lro = settings::offloader(&args.config, &args.mcp)?;
    let limits = router::MessageLimits {
        client: usize::try_from(args.max_client_message_bytes).unwrap_or(usize::MAX),
        server: usize::try_from(args.max_server_message_bytes).unwrap_or(usize::MAX),
    };
    let upstreams = Arc::new(upstream::Upstreams::from_args(&args, limits)?);
    let blueprint = session::Blueprint {
        config: lro.config().clone(),
        base_dir: lro.output_dir(),
        events: args.config.events,
        upstreams: Arc::clone(&upstreams),
        request_timeout: (args.request_timeout > 0)
            .then(|| Duration::from_secs(args.request_timeout)),
        limits,
    };
    let timeouts = blueprint.request_timeout.is_some();
    let max_sessions = usize::try_from(args.listen.max_sessions).unwrap_or(usize::MAX);
    let cannot_listen = |e: &dyn std::fmt::Display| {
        LroError::new(ErrorCode::Io, format!("cannot listen on {listen}: {e}"))
    };
    let listener = std::net::TcpListener::bind(listen).map_err(|e| cannot_listen(&e))?;
    no_delay(&listener).map_err(|e| cannot_listen(&e))?;
    let server = tiny_http::Server::from_listener(listener, None).map_err(|e| cannot_listen(&e))?;
    let resource = match &args.listen.resource_url {
        Some(url) => url.clone(),
        None if matches!(bind_host, "0.0.0.0" | "[::]" | "::") => String::new(),
        None => format!("http://{}{}", server.server_addr(), args.listen.path),
    };
    let auth = authentication(&args.listen, &resource)?;
    let server = Arc::new(server);
    let gateway = Arc::new(Gateway {
        auth,
        guard: checks::Guard::new(
            bind_host,
            &args.listen.allow_hosts,
            &args.listen.allow_origins,
        ),
        path: args.listen.path.clone(),
        sessions: Arc::new(session::Sessions::new(blueprint, max_sessions)),
        max_body: usize::try_from(args.listen.max_body_bytes).unwrap_or(usize::MAX),
        in_flight: Slots::new(usize::try_from(args.listen.max_in_flight).unwrap_or(usize::MAX)),
        stopping: AtomicBool::new(false),
        server: Arc::clone(&server),
    });
    let sessions = Arc::clone(&gateway.sessions);
    let interval = Duration::from_secs(args.cleanup_interval);
    std::thread::spawn(move || {
        loop {
            sessions.clean();
            std::thread::sleep(interval);
        }
    });
    let idle = (args.listen.session_idle_timeout > 0)
        .then(|| Duration::from_secs(args.listen.session_idle_timeout));
    spawn_timeouts(Arc::clone(&gateway.sessions), timeouts, idle);
    let stopper = (Arc::clone(&gateway), Arc::clone(&server));
    std::thread::spawn(move || {
        let signal = signals::wait_for_termination();
        note!("lro proxy: {signal}: stopping");
        stopper.0.stopping.store(true, Ordering::SeqCst);
        stopper.1.unblock();
    });
    note!(
        "lro proxy: listening on http://{}{}",
        server.server_addr(),
        gateway.path
    );
    let handlers = Arc::new(Slots::new(usize::MAX));
    let outcome = loop {
        match server.recv() {
            Ok(request) => {
                let gateway = Arc::clone(&gateway);
                let counted = handling(&handlers);
                let spawned = std::thread::Builder::new()
                    .name("lro-gateway".to_owned())
                    .spawn(move || {
                        gateway.handle(request);
                        drop(counted);
                    });
                // The request is dropped with the closure: its connection closes unanswered.
                if let Err(err) = spawned {
                    note!("lro proxy: cannot start a thread for an HTTP request: {err}");
                }
            }
            Err(_) if gateway.stopping.load(Ordering::SeqCst) => break Ok(()),
            Err(err) => {
                break Err(LroError::new(
                    ErrorCode::Io,
                    format!("the gateway cannot accept connections any more: {err}"),
                ));
            }
        }
    };
    gateway.stopping.store(true, Ordering::SeqCst);
    // Stop accepting; answer what is in flight (an error), end every server.
    drop(server);
    end_all(&gateway.sessions);
    if !handlers.wait_idle(SHUTDOWN_GRACE) {
        note!("lro proxy: requests still unanswered at exit");
    }
    // A session an initialize was starting meanwhile.
    end_all(&gateway.sessions);
    // The server sessions shared, if any: no session's end stops it.
    upstreams.close();
    outcome
}

/// The token checker the options ask for (none without --auth-tokens or --auth-jwks).
fn authentication(listen: &ListenArgs, resource: &str) -> Result<Option<auth::Auth>, LroError> {
    let asked = listen.auth_tokens.is_some() || listen.auth_jwks.is_some();
    if asked && resource.is_empty() {
        return Err(LroError::new(
            ErrorCode::InvalidArgument,
            "--resource-url is needed with --auth-tokens or --auth-jwks when --listen binds \
             every interface: the gateway's public URL is the audience its tokens name",
        ));
    }
    auth::Auth::new(&auth::Options {
        tokens: listen.auth_tokens.as_deref(),
        jwks: listen.auth_jwks.as_deref(),
        issuer: listen.auth_issuer.as_deref(),
        resource,
        authorization_servers: &listen.authorization_servers,
    })
}

/// Ends every session at once (each stops its server, which may take seconds).
fn end_all(sessions: &Arc<session::Sessions>) {
    let ending: Vec<_> = sessions
        .all()
        .into_iter()
        .map(|session| {
            let sessions = Arc::clone(sessions);
            std::thread::spawn(move || {
                sessions.end(&session.id, "the gateway is shutting down (lro proxy)");
            })
        })
        .collect();
    for ended in ending {
        let _ = ended.join();
    }
}

/// The host and the address to bind for `--listen`: `HOST:PORT` as given, or a port alone
/// (`8080`, `:8080`) on loopback.
fn bind_address(listen: &str) -> Result<(&str, String), String> {
    if let Some(port) = port_of(port_or(listen)) {
        return Ok(("127.0.0.1", format!("127.0.0.1:{port}")));
    }
    match listen.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port_of(port).is_some() => {
            Ok((host, listen.to_owned()))
        }
        _ => Err(format!("--listen {listen:?}: expected HOST:PORT or PORT")),
    }
}

/// The port after a leading `:`, or the text itself.
fn port_or(listen: &str) -> &str {
    listen.strip_prefix(':').unwrap_or(listen)
}

fn port_of(text: &str) -> Option<u16> {
    text.parse().ok()
}

/// Answers the requests whose time is up, in every session, and tells their servers (when
/// `requests` time out); ends the sessions idle for `idle`.
fn spawn_timeouts(sessions: Arc<session::Sessions>, requests: bool, idle: Option<Duration>) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(super::TIMEOUT_TICK);
            if let Some(limit) = idle {
                sessions.end_idle(limit);
            }
            if !requests {
                continue;
            }
            for session in sessions.all() {
                for id in session.router.expire_requests() {
                    let cancel = jsonrpc::cancelled(&id, "lro proxy: the request timed out");
                    session
                        .upstream
                        .send(serde_json::to_vec(&cancel).unwrap_or_default(), None);
                }
            }
        }
    });
}

/// Turns Nagle's algorithm off on the listening socket, which the connections it accepts
/// inherit (Linux, the BSDs): an SSE answer leaves in several small writes, and with Nagle
/// each small one after the first waits for the client's delayed ACK, 40 ms on Linux.
/// tiny_http sets no socket option of its own; std has no setter on a listener.
#[cfg(unix)]
#[allow(unsafe_code)] // one setsockopt call on a socket this function borrows
fn no_delay(listener: &std::net::TcpListener) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let on: libc::c_int = 1;
    // SAFETY: a valid socket descriptor, and a c_int option value of the size given.
    let set = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            std::ptr::addr_of!(on).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if set == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Elsewhere accepted sockets need not inherit the option: left as the system sets it.
#[cfg(not(unix))]
fn no_delay(_listener: &std::net::TcpListener) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::bind_address;

    #[test]
    fn a_port_alone_binds_loopback() {
        assert_eq!(
            bind_address("8080"),
            Ok(("127.0.0.1", "127.0.0.1:8080".to_owned()))
        );
        assert_eq!(
            bind_address(":0"),
            Ok(("127.0.0.1", "127.0.0.1:0".to_owned()))
        );
        assert_eq!(
            bind_address("0.0.0.0:80"),
            Ok(("0.0.0.0", "0.0.0.0:80".to_owned()))
        );
        assert_eq!(bind_address("[::1]:9"), Ok(("[::1]", "[::1]:9".to_owned())));
        for bad in ["", "host", "host:", "host:http", ":x", "99999"] {
            assert!(bind_address(bad).is_err(), "{bad}");
        }
    }
}
