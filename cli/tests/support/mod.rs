//! What the `lro` binary's tests share: running it as a command ([`run`]), driving it as an
//! MCP proxy in front of the mock server ([`proxy`]) or as a gateway over HTTP ([`gateway`]),
//! the tokens, keys and JWKS its authentication is tested with ([`auth`]), a request read
//! off a raw socket ([`raw_http`]), and the names
//! and kinds of files the hostile suites plant beside offload files ([`files`]).

pub mod auth;
pub mod files;
pub mod gateway;
pub mod proxy;
pub mod raw_http;
pub mod run;

use std::time::Duration;

/// How long one run of `lro`, or one wait for the proxy, may take before the test calls it a
/// hang and fails. Generous: the 50 MB cases run a debug build on a shared 2-core machine.
pub const TIMEOUT: Duration = Duration::from_secs(180);
