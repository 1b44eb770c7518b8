//! `lro proxy`: LRO in front of any MCP server (spec 000, "remote transport proxy" and
//! "native extraction").
//!
//! The proxy speaks MCP (newline-delimited JSON-RPC) over stdio to its client and forwards
//! every message to a server: a child process over stdio (`lro proxy -- COMMAND ARGS...`) or
//! a remote streamable-HTTP endpoint (`lro proxy --url URL`). Everything passes through
//! byte for byte except:
//! - `tools/call` results above the threshold, which become an offload descriptor
//!   ([`lro_mcp::intercept_tool_result`]);
//! - `tools/list`, which gains the extract tool (answered by the proxy itself, named after
//!   the server: `lro_extract_<server>`) and loses every `outputSchema` (the descriptor
//!   would violate it) but those of tools `mcp.never_offload` names;
//! - `initialize`, which announces `clientInfo.proxy: true` to the server;
//! - `resources/*`: every offload file is also an MCP resource, `lro://offloads/{file}`,
//!   listed and read beside the server's own resources; each descriptor names it
//!   (`resource_uri`), and with `--resource-link` the result carries a `resource_link` too.
//!
//! One job per module: [`router`] decides what happens to each message, [`state`] remembers
//! the requests in flight, [`child`] and [`http`] (with [`sse`]) are the two transports,
//! [`extract_tool`] is `lro_extract`, [`output`] writes to the client, [`settings`] builds the
//! offloader and [`cleanup`] runs the hourly TTL cleanup.

mod child;
mod cleanup;
mod extract_tool;
#[cfg(test)]
mod fuzz_checks;
mod gateway;
mod http;
mod jsonrpc;
mod lines;
pub mod oauth;
mod output;
mod router;
mod settings;
mod sse;
mod state;

use std::io::BufReader;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use clap::Args;
use lro_core::{ErrorCode, LroError};

use crate::options::ConfigArgs;
use router::{ClientAction, Router};

/// `lro proxy [OPTIONS] [--listen HOST:PORT] (--url URL | -- COMMAND [ARGS...])`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  lro proxy --output-dir /tmp/lro -- npx -y @modelcontextprotocol/server-memory
  lro proxy --url http://127.0.0.1:8000/mcp --header 'Authorization: Bearer TOKEN'
  lro proxy --listen 127.0.0.1:8080 -- npx -y @modelcontextprotocol/server-memory
  lro proxy --listen 127.0.0.1:8080 --upstream shared --url https://mcp.example/mcp

With --listen the proxy is an MCP server over streamable HTTP (http://HOST:PORT/mcp) for
many clients: each session gets its own MCP server process, started from COMMAND at its
initialize and stopped at its DELETE (or its own session on the --url server), and its own
offload files (OUTPUT_DIR/SESSION_ID), which no other session can list, read or extract.
With --upstream shared, one server serves every session (see --upstream for the cost).
Host and Origin are checked (loopback by default; --allow-host, --allow-origin); SIGTERM
answers what is in flight and exits 0.

The proxy offers an extract tool, named lro_extract_<server> after the server's
serverInfo.name (lro_extract without one; --extract-tool-name NAME to choose), so that two
proxied servers in one agent offer two tools. Descriptors carry the native guidance, which
names that tool, unless --guidance shell (or the config file, or the environment) asks for
the jq template. An offloaded result is one text block, the descriptor (its resource_uri
names the file as an MCP resource), and the tool's own non-text blocks.")]
pub struct ProxyArgs {
    /// URL of a remote streamable-HTTP MCP server (instead of a COMMAND).
    #[arg(
        long,
        value_name = "URL",
        conflicts_with = "command",
        required_unless_present = "command"
    )]
    pub url: Option<String>,
    /// An HTTP header sent to the --url server, "Name: value" (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// Seconds between two TTL cleanups of the output directory while the proxy runs.
    #[arg(long, value_name = "N", default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    pub cleanup_interval: u64,
    /// Seconds the server may take to answer a request before the proxy answers it with an
    /// error (-32001) and tells the server it was cancelled; progress notifications of a
    /// tools/call start its time again. 0 waits forever.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_REQUEST_TIMEOUT)]
    pub request_timeout: u64,
    /// The longest message the client may send, in bytes: a longer one is answered -32600
    /// and dropped, unread (no MCP client request comes near the default, 64 MiB).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_CLIENT_MESSAGE, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_client_message_bytes: u64,
    /// The longest message the server may send, in bytes: a longer answer fails its call
    /// (-32000) and is dropped, unread. The default, 1 GiB, is far above real tool results;
    /// the proxy needs about twice a message's size to offload it.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_SERVER_MESSAGE, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_server_message_bytes: u64,
    /// The stdio MCP server to run, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
    #[command(flatten)]
    pub mcp: settings::McpArgs,
    #[command(flatten)]
    pub listen: gateway::ListenArgs,
    #[command(flatten)]
    pub oauth: oauth::OAuthArgs,
}

/// The default of `--request-timeout`: long enough for slow tools (a build, a crawl), short
/// enough that a hung server does not hold a call for ever; the same as gemini-cli's default
/// for MCP calls. SDK clients often give up sooner (60 s) and cancel, which ends the wait too.
const DEFAULT_REQUEST_TIMEOUT: u64 = 600;

/// The default of `--max-client-message-bytes`: a client sends requests, notifications and
/// answers to the server's requests, none of which carries a tool's result; tool arguments
/// of tens of megabytes are already unusual.
const DEFAULT_MAX_CLIENT_MESSAGE: u64 = 64 << 20;

/// The default of `--max-server-message-bytes`: far above the largest real tool result (the
/// issue's FastMCP result was 132 MB on the wire), low enough that the proxy does not
/// exhaust a machine's memory on a server's endless line.
const DEFAULT_MAX_SERVER_MESSAGE: u64 = 1 << 30;

/// The error a request gets when the client closed its input before the server answered.
const CLIENT_GONE: &str = "the client closed its input before the server answered (lro proxy)";

/// How long the answers to requests left in flight at the client's EOF may take to write.
const CLOSE_ANSWER_GRACE: Duration = Duration::from_secs(1);

/// How often requests are checked against their deadlines.
const TIMEOUT_TICK: Duration = Duration::from_millis(100);

/// What ends the proxy.
#[derive(Debug)]
pub(crate) enum Lifecycle {
    /// The client closed our stdin.
    ClientClosed,
    /// The server went away: `Ok` for a clean exit, `Err` with the reason otherwise.
    ServerGone(Result<(), String>),
}

/// A server the proxy forwards to.
pub(crate) trait Upstream: Send + Sync {
    /// Sends one client message (a JSON text without newline). `request` is set for
    /// requests, so the transport can answer them with an error when it fails.
    fn send(&self, message: Vec<u8>, request: Option<jsonrpc::IdKey>);
    /// The client is gone: let the server finish what is in flight, then stop it.
    fn close(&self);
}

/// Where a transport hands what the server sends, and the requests it could not deliver:
/// the router of the one client (stdio, or one gateway session), or the gateway's
/// demultiplexer in front of a server all its sessions share.
pub(crate) trait Inbound: Send + Sync {
    /// The bounds messages are read with.
    fn limits(&self) -> router::MessageLimits;
    /// The protocol version the server chose at `initialize` (sent as a header over HTTP).
    fn protocol_version(&self) -> Option<String>;
    /// One message from the server.
    fn on_server_message(&self, message: Vec<u8>);
    /// One message the server sent on the response stream of request `about` (HTTP): it
    /// concerns that request (a stdio server never says which request a message is for).
    fn on_server_message_about(&self, message: Vec<u8>, about: &jsonrpc::IdKey) {
        let _ = about;
        self.on_server_message(message);
    }
    /// Whether request `id` still waits for its answer: a transport resumes a stream closed
    /// before the answer, and lets it go once answered (or cancelled, or timed out).
    fn awaits(&self, id: &jsonrpc::IdKey) -> bool;
    /// Answers request `id` with an error: the transport failed it.
    fn fail_request(&self, id: &jsonrpc::IdKey, reason: &str);
    /// The server is gone: every request in flight gets an error.
    fn fail_all(&self, reason: &str);

    /// Why a message past `--max-server-message-bytes` is dropped.
    fn server_message_too_long(&self) -> String {
        format!(
            "longer than {} bytes, --max-server-message-bytes",
            self.limits().server
        )
    }

    /// A server message the proxy could not read whole (`why`: longer than the bound, or
    /// no memory to hold it), of which `start` and `end` were seen. The request it answers
    /// gets `-32000` saying why: `request` when the transport knows it (an HTTP POST), else
    /// the id at the start of an answer, or its last member.
    fn server_message_dropped(
        &self,
        start: &[u8],
        end: &[u8],
        request: Option<&jsonrpc::IdKey>,
        why: &str,
    ) {
        let read = jsonrpc::start_of(start);
        let answered = request
            .cloned()
            .or(read.id.filter(|_| !read.method))
            .or_else(|| jsonrpc::id_at_end(end).filter(|_| !read.method));
        note!(
            "lro proxy: dropping a message from the MCP server ({why}){}: {}",
            answered
                .as_ref()
                .map(|id| format!(", the answer to request {}", id.to_value()))
                .unwrap_or_default(),
            jsonrpc::excerpt(&start[..start.len().min(120)])
        );
        if let Some(id) = answered {
            self.fail_request(
                &id,
                &format!("the MCP server's answer is {why} (lro proxy)"),
            );
        }
    }
}

impl Inbound for Router {
    fn limits(&self) -> router::MessageLimits {
        Router::limits(self)
    }

    fn protocol_version(&self) -> Option<String> {
        Router::protocol_version(self)
    }

    fn on_server_message(&self, message: Vec<u8>) {
        Router::on_server_message(self, message);
    }

    fn awaits(&self, id: &jsonrpc::IdKey) -> bool {
        Router::awaits(self, id)
    }

    fn fail_request(&self, id: &jsonrpc::IdKey, reason: &str) {
        Router::fail_request(self, id, reason);
    }

    fn fail_all(&self, reason: &str) {
        Router::fail_all(self, reason);
    }
}

/// Runs the proxy until the client or the server goes away.
pub fn run(args: ProxyArgs) -> Result<(), LroError> {
    if let Some(listen) = args.listen.listen.clone() {
        return gateway::run(args, &listen);
    }
    // A client that never reads the proxy's stderr must not stop the calls (see `notes`).
    crate::notes::in_background();
    let lro = Arc::new(settings::offloader(&args.config, &args.mcp)?);
    let timeout = (args.request_timeout > 0).then(|| Duration::from_secs(args.request_timeout));
    let limits = router::MessageLimits {
        client: usize::try_from(args.max_client_message_bytes).unwrap_or(usize::MAX),
        server: usize::try_from(args.max_server_message_bytes).unwrap_or(usize::MAX),
    };
    let router = Arc::new(
        Router::new(Arc::clone(&lro), output::ClientOut::stdout())
            .with_request_timeout(timeout)
            .with_limits(limits),
    );
    let notified = Arc::clone(&router);
    cleanup::spawn(lro, Duration::from_secs(args.cleanup_interval), move || {
        notified.resources_changed()
    });
    let (lifecycle, ended) = mpsc::channel();
    let inbound: Arc<dyn Inbound> = Arc::<Router>::clone(&router);
    let upstream: Arc<dyn Upstream> = match (&args.url, args.command.split_first()) {
        (Some(url), _) => {
            let headers = http::parse_headers(&args.headers)?;
            let oauth = Arc::new(oauth::OAuth::new(url, &args.oauth)?);
            Arc::new(http::HttpUpstream::new(url, headers, Some(oauth), inbound))
        }
        (None, Some((program, rest))) => {
            child::ChildUpstream::spawn(program, rest, inbound, lifecycle.clone())?
        }
        (None, None) => {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                "give --url URL or -- COMMAND [ARGS...]",
            ));
        }
    };
    if timeout.is_some() {
        spawn_timeouts(Arc::clone(&router), Arc::clone(&upstream));
    }
    spawn_client_reader(Arc::clone(&router), Arc::clone(&upstream), lifecycle);
    let router = Arc::clone(&router);
    match ended.recv() {
        Ok(Lifecycle::ClientClosed) | Err(_) => {
            upstream.close();
            // What the server left unanswered gets an answer, if the client still reads;
            // one that does not must not keep the proxy alive.
            let (answered, done) = mpsc::channel();
            std::thread::spawn(move || {
                router
                    .fail_all("the client closed its input before the server answered (lro proxy)");
                let _ = answered.send(());
            });
            let _ = done.recv_timeout(CLOSE_ANSWER_GRACE);
            Ok(())
        }
        Ok(Lifecycle::ServerGone(Ok(()))) => Ok(()),
        Ok(Lifecycle::ServerGone(Err(reason))) => Err(LroError::new(ErrorCode::Io, reason)),
    }
}

/// Reads the client's messages, one per line, and hands each to the router.
fn spawn_client_reader(
    router: Arc<Router>,
    upstream: Arc<dyn Upstream>,
    lifecycle: mpsc::Sender<Lifecycle>,
) {
    std::thread::spawn(move || {
        let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
        let mut line = Vec::new();
        let max = router.limits().client;
        loop {
            match lines::read_line(&mut input, &mut line, max) {
                Ok(lines::Line::End) => break,
                Ok(lines::Line::Read(_)) => {}
                Ok(lines::Line::TooLong) => {
                    router.client_message_too_long(&line);
                    if let Err(err) = lines::skip_line(&mut input, &mut line) {
                        note!("lro proxy: cannot read from the client: {err}");
                        break;
                    }
                    line = Vec::new(); // the bound's worth of memory goes back
                    continue;
                }
                Ok(lines::Line::NoMemory(size)) => {
                    router.client_message_unread(
                        &line,
                        &format!("{size} bytes, more than the memory left to read it"),
                    );
                    line = Vec::new();
                    continue;
                }
                Err(err) => {
                    note!("lro proxy: cannot read from the client: {err}");
                    break;
                }
            }
            match router.from_client(jsonrpc::trim_line(&line)) {
                ClientAction::Forward { message, request } => upstream.send(message, request),
                ClientAction::Done => {}
            }
        }
        let _ = lifecycle.send(Lifecycle::ClientClosed);
    });
}

/// Answers the requests whose time is up and tells the server they are cancelled.
fn spawn_timeouts(router: Arc<Router>, upstream: Arc<dyn Upstream>) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(TIMEOUT_TICK);
            for id in router.expire_requests() {
                let cancel = jsonrpc::cancelled(&id, "lro proxy: the request timed out");
                upstream.send(serde_json::to_vec(&cancel).unwrap_or_default(), None);
            }
        }
    });
}
