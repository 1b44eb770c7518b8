//! The proxy's offloader: the shared options, with the native guidance by default.

use lro_core::{GuidanceMode, LroError, OffloadConfig, OffloadEvent, Offloader};
use lro_host_s3::NativeHost;

use crate::options::ConfigArgs;

/// The configuration the options describe, except that the guidance template defaults to
/// native: the proxy offers `lro_extract`, so its descriptors point there (spec 000, "native
/// extraction": the tool that provides extraction owns the prompt). `--guidance shell`, or
/// `guidance = "shell"` in the config file or the environment, picks the jq template.
pub fn config(args: &ConfigArgs) -> Result<OffloadConfig, LroError> {
    let mut config = args.load()?;
    if args.guidance.is_none() {
        // Same sources as `load`, over a native default: what they say about guidance wins.
        let mut probe = OffloadConfig {
            guidance: GuidanceMode::Native,
            ..OffloadConfig::default()
        };
        if let Some(path) = &args.config {
            // `load` has read and checked this file already.
            probe.apply_toml_str(&std::fs::read_to_string(path).unwrap_or_default())?;
        }
        probe.apply_env_os(std::env::vars_os())?;
        config.guidance = probe.guidance;
    }
    Ok(config)
}

/// An offloader over the host the output directory names (files, or an object store);
/// events go to stderr as JSON lines with `--events`.
pub fn offloader(args: &ConfigArgs) -> Result<Offloader<NativeHost>, LroError> {
    let config = config(args)?;
    let host = NativeHost::for_config(&config)?;
    let lro = Offloader::new(config, host)?;
    Ok(if args.events {
        lro.with_event_sink(|event: &OffloadEvent| {
            if let Ok(line) = serde_json::to_string(event) {
                eprintln!("{line}");
            }
        })
    } else {
        lro
    })
}
