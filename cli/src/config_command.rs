//! `lro config`: the configuration keys, and the configuration the options give.

use std::io::Write;

use clap::Subcommand;
use lro_core::{ErrorCode, LroError};

use crate::options::ConfigArgs;

/// What `lro config` prints.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every configuration key: type and bounds, default, environment variable, JS name
    /// and meaning (a Markdown table; with --json, the core's table as JSON).
    Keys {
        /// Print the keys as a JSON array of objects.
        #[arg(long)]
        json: bool,
    },
    /// Print the configuration the defaults, --config FILE, the environment and the flags
    /// give, as JSON: what `lro offload` would run with.
    Show {
        #[command(flatten)]
        config: ConfigArgs,
    },
}

impl ConfigCommand {
    /// Prints what the command shows on stdout.
    pub fn run(&self) -> Result<(), LroError> {
        let text = match self {
            Self::Keys { json: true } => lro_core::config::keys_json().to_string(),
            Self::Keys { json: false } => lro_core::config::markdown_table(),
            Self::Show { config } => {
                let config = config.load()?;
                serde_json::to_string_pretty(&config).map_err(|e| {
                    LroError::new(ErrorCode::Io, format!("cannot write output: {e}"))
                })?
            }
        };
        let mut out = std::io::stdout().lock();
        crate::written(writeln!(out, "{}", text.trim_end()).and_then(|()| out.flush())).map(drop)
    }
}
