//! The proxy's offloader: the shared options, with the native guidance by default.

use clap::Args;
use lro_core::{GuidanceMode, LroError, OffloadConfig, OffloadEvent, Offloader};
use lro_host_s3::NativeHost;

use crate::options::ConfigArgs;

/// The proxy's MCP options (`[prompt.offload.mcp]`), over the config file and environment.
#[derive(Debug, Default, Args)]
pub struct McpArgs {
    /// Name of the extract tool (default: lro_extract_<server>, from the server's
    /// serverInfo.name; lro_extract when it has none). A letter or _, then up to 63 letters,
    /// digits or _.
    #[arg(long, value_name = "NAME")]
    pub extract_tool_name: Option<String>,
    /// How much the extract tool's definition says: short (the default, at most 400
    /// tokens; describe: true and the errors give the details) or long (every argument
    /// described, about 1,400 tokens).
    #[arg(long, value_name = "FORM")]
    pub extract_tool_definition: Option<String>,
    /// Add a resource_link block (lro://offloads/FILE) to each offloaded result. Off by
    /// default: the descriptor's resource_uri names the file, and some clients choke on links
    /// (LangChain's Chat Completions adapter).
    #[arg(long)]
    pub resource_link: bool,
    /// Give each offloaded result structuredContent (the descriptor) beside its text. Off
    /// by default: some clients show the model both (LlamaIndex).
    #[arg(long)]
    pub structured_content: bool,
    /// Never offload this tool's results; it keeps its outputSchema (repeatable).
    #[arg(long = "never-offload", value_name = "NAME")]
    pub never_offload: Vec<String>,
    /// A rule for the tools whose name matches PATTERN (a glob: * any characters, ? one),
    /// KEY=VALUE[,KEY=VALUE...] with KEY one of mode (auto, never, always), threshold,
    /// descriptor, detail, operation; e.g. --tool 'fs_*:mode=never'. Repeatable; over the
    /// config file's and the environment's rules; the most specific pattern wins.
    #[arg(long = "tool", value_name = "PATTERN:KEY=VALUE")]
    pub tool: Vec<String>,
}

impl McpArgs {
    /// These flags over `config` (a flag given wins; `--never-offload` replaces the list;
    /// `--tool` sets the keys it gives in its pattern's rule).
    pub fn apply(&self, config: &mut OffloadConfig) -> Result<(), LroError> {
        if let Some(name) = &self.extract_tool_name {
            config.set_str("mcp.extract_tool_name", name)?;
        }
        if let Some(form) = &self.extract_tool_definition {
            config.set_str("mcp.extract_tool_definition", form)?;
        }
        config.mcp.resource_link |= self.resource_link;
        config.mcp.structured_content |= self.structured_content;
        if !self.never_offload.is_empty() {
            config.mcp.never_offload = self.never_offload.clone();
        }
        for rule in &self.tool {
            config.apply_tool_rules_str(rule).map_err(|e| {
                LroError::new(e.code(), format!("--tool {rule:?}: {}", e.message()))
            })?;
        }
        Ok(())
    }
}

/// The configuration the options describe, except that the guidance template defaults to
/// native: the proxy offers `lro_extract`, so its descriptors point there (spec 000, "native
/// extraction": the tool that provides extraction owns the prompt). `--guidance shell`, or
/// `guidance = "shell"` in the config file or the environment, picks the jq template.
pub fn config(args: &ConfigArgs, mcp: &McpArgs) -> Result<OffloadConfig, LroError> {
    // Same sources as `load`, over a native default: what they say about guidance wins.
    let mut config = args.load_over(OffloadConfig {
        guidance: GuidanceMode::Native,
        ..OffloadConfig::default()
    })?;
    mcp.apply(&mut config)?;
    Ok(config)
}

/// An offloader over the host the output directory names (files, or an object store);
/// events go to stderr as JSON lines with `--events`.
pub fn offloader(args: &ConfigArgs, mcp: &McpArgs) -> Result<Offloader<NativeHost>, LroError> {
    offloader_with(config(args, mcp)?, args.events)
}

/// An offloader over the host `config`'s output directory names; events go to stderr as
/// JSON lines when `events` is set.
pub fn offloader_with(
    config: OffloadConfig,
    events: bool,
) -> Result<Offloader<NativeHost>, LroError> {
    let host = NativeHost::for_config(&config)?;
    let lro = Offloader::new(config, host)?;
    Ok(if events {
        lro.with_event_sink(|event: &OffloadEvent| {
            if let Ok(line) = serde_json::to_string(event) {
                note!("{line}");
            }
        })
    } else {
        lro
    })
}
