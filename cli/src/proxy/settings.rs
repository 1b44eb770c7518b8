//! The proxy's offloader: the shared options, with the native guidance by default.

use lro_core::{GuidanceMode, LroError, OffloadConfig, OffloadEvent, Offloader};
use lro_host_s3::NativeHost;

use crate::options::ConfigArgs;

/// The configuration the options describe, except that the guidance template defaults to
/// native: the proxy offers `lro_extract`, so its descriptors point there (spec 000, "native
/// extraction": the tool that provides extraction owns the prompt). `--guidance shell`, or
/// `guidance = "shell"` in the config file or the environment, picks the jq template.
pub fn config(args: &ConfigArgs) -> Result<OffloadConfig, LroError> {
    // Same sources as `load`, over a native default: what they say about guidance wins.
    args.load_over(OffloadConfig {
        guidance: GuidanceMode::Native,
        ..OffloadConfig::default()
    })
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
