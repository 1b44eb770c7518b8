//! # lro-unify: one feature set for what the shipped artifacts share
//!
//! No code. The `lro` binary, the Python wheel and the Node addon are built by three cargo
//! commands, and cargo picks each dependency's features per command: where they differ, the
//! dependency and everything above it are compiled again. Each of the three depends on this
//! crate, whose `Cargo.toml` asks for the union of those features.
#![forbid(unsafe_code)]
