//! lro-mcp's integration tests, as one test binary: each file beside this one is a module of
//! it, so cargo links the crate and its dependencies once for all of them. A test's name
//! starts with its file's: `cargo test -p lro-mcp --test integration vectors::` runs one
//! file. A new file needs its `mod` line here (`make check-architecture` fails without it).

mod descriptor_budget;
mod duplicate_keys;
mod extract_tool;
mod extract_tool_hostile;
mod handles;
mod intercept;
mod intercept_text;
mod resources;
mod resources_files;
mod support;
mod tool_definition;
mod vectors;
