//! lro-core's integration tests, as one test binary: each file beside this one is a module
//! of it, so cargo links the core and its dependencies once for all of them. A test's name
//! starts with its file's: `cargo test -p lro-core --test integration extract_jq::` runs one
//! file. A new file needs its `mod` line here (`make check-architecture` fails without it).

mod describe_file;
mod extract_batches;
mod extract_bounds;
mod extract_faults;
mod extract_fuzz;
mod extract_jq;
mod extract_loops;
mod extract_safety;
mod extract_where;
mod extract_where_jq;
mod jq_recipes;
mod nothing_lost;
mod offload_chunks;
mod prefixes_share_a_directory;
mod replicas_share_a_directory;
mod std_host_files;
mod support;
mod time_zones;
