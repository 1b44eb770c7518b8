//! Empty: cargo resolves build dependencies (here `syn`, for its features) only for a crate
//! with a build script.
fn main() {}
