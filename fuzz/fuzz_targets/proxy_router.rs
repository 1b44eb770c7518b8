//! `proxy_router`: the proxy's router fed lines from client and server (see
//! `cli/src/proxy/fuzz_checks.rs`). The CLI has no library: its proxy modules are compiled in
//! from their directory.
#![no_main]
#![allow(dead_code, unused_imports)]

#[path = "../../cli/src/proxy"]
mod proxy {
    pub mod extract_tool;
    pub mod fuzz_checks;
    pub mod jsonrpc;
    pub mod output;
    pub mod router;
    pub mod state;
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| proxy::fuzz_checks::check_router(data));
