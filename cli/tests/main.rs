//! The `lro` binary's tests, as one test binary: each file beside this one is a module of
//! it, so cargo links them once. A test's name starts with its file's: `cargo test -p lro-cli
//! --test integration proxy_faults::` runs one file, `cargo test -p lro-cli hostile_` the
//! hostile suites. A new file needs its `mod` line here (`make check-architecture` fails
//! without it). `e2e/` holds the Python end-to-end suites (`make test-proxy`).

mod cli;
mod cli_queries;
mod config_keys;
mod gateway;
mod gateway_auth;
mod gateway_upstream;
mod hostile_bounds;
mod hostile_config;
mod hostile_dirs;
mod hostile_extra;
mod hostile_files;
mod hostile_headers;
mod hostile_jsonrpc;
mod hostile_numbers;
mod hostile_oauth;
mod proxy_faults;
mod proxy_offload;
mod proxy_passthrough;
mod proxy_resources;
mod proxy_resume;
mod proxy_robustness;
mod proxy_tool_rules;
mod support;
