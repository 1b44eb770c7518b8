//! `lro`: Large Result Offloading from the command line.
//!
//! - `lro offload`: read a tool result on stdin, print the descriptor (or the inline result);
//! - `lro extract`: run a recipe, a jq filter, a line range or a regex search on an offload file;
//! - `lro cleanup`: delete expired offload files;
//! - `lro config`: the configuration keys, and the configuration the options give;
//! - `lro demo`: the main job, end to end, on an embedded corpus.
// Denied, and allowed in `signals` and `allocator` only (one foreign call each, see there).
#![deny(unsafe_code)]

/// A line on stderr that cannot stop the process: see [`notes`].
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::notes::write(format_args!($($arg)*))
    };
}

mod allocator;
mod config_command;
mod demo;
mod notes;
mod options;
mod proxy;
mod signals;

use std::io::{self, Read, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lro_core::{ErrorCode, LroError};
use serde_json::Value;

use config_command::ConfigCommand;
use options::{ConfigArgs, ExtractArgs, Input, InputFormat};

/// Large Result Offloading: large tool results become a JSONL file plus a compact descriptor.
#[derive(Debug, Parser)]
#[command(name = "lro", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Read a tool result on stdin; print the descriptor when offloaded, the inline result otherwise.
    Offload {
        /// The operation (recall, search, inject, list, or a tool name); names the file.
        #[arg(long, default_value = "recall")]
        operation: String,
        /// Detail level for MIF memories: light, medium or full (default: the operation's).
        #[arg(long)]
        detail: Option<String>,
        /// The query that produced the results (recorded in the header).
        #[arg(long)]
        query: Option<String>,
        /// How to read stdin: auto (a tool's text: JSON, a Python literal, a table, or lines)
        /// or json (strict).
        #[arg(long, value_enum, default_value_t = InputFormat::Auto)]
        input: InputFormat,
        /// Tokens left in the agent's context: the threshold becomes
        /// min(threshold, adaptive_ratio x N), and the output reports it as threshold_tokens.
        #[arg(long, value_name = "N")]
        context_remaining_tokens: Option<u64>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Extract from an offload file without a shell: a recipe, a jq filter, a line range or a search.
    #[command(after_help = EXTRACT_EXIT_CODES)]
    Extract(Box<ExtractArgs>),
    /// Delete offload files whose time-to-live has passed; print what was removed.
    Cleanup {
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// List the configuration keys, or show the configuration the options give.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Offload a 500-memory recall from an embedded corpus, show the descriptor, run two recipes.
    Demo {
        /// Where to write the file (default: the system temp dir).
        #[arg(long)]
        output_dir: Option<String>,
    },
    /// Put LRO in front of an MCP server (stdio child or remote streamable HTTP)
    Proxy(Box<proxy::ProxyArgs>),
}

/// How a successful run ends.
enum Exit {
    Done,
    /// `lro extract` printed a result cut by an output cap (or the time limit): exit 3.
    Capped,
}

/// The exit codes of `lro extract`, as its `--help` lists them (see [`exit_code`]).
const EXTRACT_EXIT_CODES: &str = "Exit codes:
  0   the whole result was printed, or the reader stopped early (| head)
  3   a capped result (--max-output-bytes, --max-output-records, the time limit): what fits was printed
  4   the filter went past a bound of the sandbox (resource_limit): values nested more than 1024
      levels, more memory than --max-memory-bytes (extract.max_memory_bytes, 512 MiB)
  5   the jq filter failed on a record (query_failed)
  65  bad arguments or data: invalid_argument, invalid_query, invalid_input
  66  no such offload file (not_found)
  74  an I/O failure (io_error)
  77  the path is refused (path_denied): not an offload file directly inside the output directory,
      or a file that is not this user's plain file
  78  bad configuration (invalid_config), e.g. an output directory other users can write
  1   any other error
A relative FILE with a directory part (out/NAME, ./NAME) is relative to the current directory;\na bare NAME is a file of the output directory.";

/// Exit code of a capped `lro extract`: what fits was printed, but not everything.
const EXIT_CAPPED: u8 = 3;

/// Exit codes: 65 for bad input data or arguments, 78 for bad configuration, 4 for an
/// extraction stopped at a bound of the sandbox (`resource_limit`: memory, nesting,
/// recursion), 1 for anything else; `lro extract` tells its failures apart further (see
/// [`extract_exit_code`]). (3 is a capped `lro extract`, which is not an error.)
fn exit_code(err: &LroError) -> u8 {
    match err.code() {
        ErrorCode::InvalidConfig => 78,
        ErrorCode::InvalidInput
        | ErrorCode::InvalidDetail
        | ErrorCode::InvalidOperation
        | ErrorCode::InvalidArgument
        | ErrorCode::InvalidQuery => 65,
        ErrorCode::ResourceLimit => 4,
        _ => 1,
    }
}

/// Exit codes of `lro extract`, from `sysexits.h` where one fits (as 65 and 78 already are;
/// its `--help` and the README list them): 66 no such offload file, 74 an I/O failure, 77 a
/// path refused, 5 a jq filter that failed on a record (jq's own code for it); the rest as
/// [`exit_code`]. A script can so tell a typo in the path from a refused file from a query
/// that does not fit the data.
fn extract_exit_code(err: &LroError) -> u8 {
    match err.code() {
        ErrorCode::QueryFailed => 5,
        ErrorCode::NotFound => 66,
        ErrorCode::Io => 74,
        ErrorCode::PathDenied => 77,
        _ => exit_code(err),
    }
}

fn print_json(value: &impl serde::Serialize) -> Result<(), LroError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| LroError::new(ErrorCode::Io, format!("cannot write output: {e}")))?;
    let mut out = io::stdout().lock();
    written(writeln!(out, "{text}").and_then(|()| out.flush())).map(drop)
}

/// The outcome of writing a command's output to stdout: `Ok(true)` when it was written,
/// `Ok(false)` when the reader closed the pipe first. A reader that stops early
/// (`lro extract F | head -1`) has what it wanted, so the command ends there as a success
/// and says nothing, as Unix tools do: Rust ignores SIGPIPE, so the write fails with EPIPE
/// instead of ending the process. Any other failure is an `io_error`.
pub(crate) fn written(result: io::Result<()>) -> Result<bool, LroError> {
    match result {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(err) => Err(LroError::from_io(&err, "cannot write output")),
    }
}

fn read_stdin() -> Result<Vec<u8>, LroError> {
    let mut buf = Vec::new();
    io::stdin()
        .read_to_end(&mut buf)
        .map_err(|e| LroError::from_io(&e, "cannot read stdin"))?;
    Ok(buf)
}

fn run(cli: Cli) -> Result<Exit, LroError> {
    match cli.command {
        Command::Offload {
            operation,
            detail,
            query,
            input,
            context_remaining_tokens,
            config,
        } => {
            let lro = config.offloader()?;
            let request = lro_core::OffloadRequest::from_json(&serde_json::json!({
                "operation": operation, "detail": detail, "query": query,
                "context_remaining_tokens": context_remaining_tokens,
            }))?;
            let stdin = read_stdin()?;
            let outcome = match input.read(&stdin)? {
                Input::Json(json) => lro.offload_json(json, &request)?,
                Input::Text(text) => lro.offload_text(text, &request)?,
            };
            print_json(&outcome).map(|()| Exit::Done)
        }
        Command::Extract(args) => {
            let lro = args.config.offloader_with(args.load_config()?)?;
            let response = lro.extract(&args.file_path()?, &args.request()?)?;
            let mut out = io::stdout().lock();
            let lines = response.results.iter().try_for_each(|value| match value {
                Value::String(s) if args.raw_strings() => writeln!(out, "{s}"),
                other => writeln!(out, "{other}"),
            });
            if !written(lines.and_then(|()| out.flush()))? {
                return Ok(Exit::Done);
            }
            for warning in &response.warnings {
                note!("lro: warning: {warning}");
            }
            if let Some(limit) = &response.limit {
                match &response.hint {
                    // A configured cap (or the time limit): what fits was printed.
                    Some(hint) => {
                        note!("lro: output capped: {hint}");
                        return Ok(Exit::Capped);
                    }
                    None => note!("lro: output truncated: {limit}"),
                }
            }
            Ok(Exit::Done)
        }
        Command::Cleanup { config } => {
            let lro = config.offloader()?;
            print_json(&lro.cleanup()?).map(|()| Exit::Done)
        }
        Command::Config { command } => command.run().map(|()| Exit::Done),
        Command::Demo { output_dir } => demo::run(output_dir).map(|()| Exit::Done),
        Command::Proxy(args) => proxy::run(*args).map(|()| Exit::Done),
    }
}

fn main() -> ExitCode {
    signals::survive_file_size_limit();
    let cli = Cli::parse();
    let code_of = if matches!(cli.command, Command::Extract(_)) {
        extract_exit_code
    } else {
        exit_code
    };
    let code = match run(cli) {
        Ok(Exit::Done) => ExitCode::SUCCESS,
        Ok(Exit::Capped) => ExitCode::from(EXIT_CAPPED),
        Err(err) => {
            note!("lro: error[{}]: {}", err.code(), err.message());
            ExitCode::from(code_of(&err))
        }
    };
    // The proxy's notes are written by a thread of their own: let it finish, for a moment.
    notes::flush(std::time::Duration::from_secs(2));
    code
}
