//! `proxy_jsonrpc`: the proxy's JSON-RPC envelope reader against serde_json (see
//! `cli/src/proxy/fuzz_checks.rs`, compiled in by path: the CLI has no library).
#![no_main]
#![allow(dead_code, unused_imports)]

#[path = "../../cli/src/proxy/extract_tool.rs"]
mod extract_tool;
#[path = "../../cli/src/proxy/fuzz_checks.rs"]
mod fuzz_checks;
#[path = "../../cli/src/proxy/jsonrpc.rs"]
mod jsonrpc;
#[path = "../../cli/src/proxy/output.rs"]
mod output;
#[path = "../../cli/src/proxy/router.rs"]
mod router;
#[path = "../../cli/src/proxy/state.rs"]
mod state;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_jsonrpc(data));
