//! The [`Offloader`]: what it holds (configuration, host, estimator, event sink, the ULID
//! generator, the output directory once resolved) and what every step of its work asks of
//! it (the threshold, the estimate, the directory, events).
//!
//! Its public API, the entry points that offload, read back and clean up, is in
//! [`crate::offload`] (offloading and cleanup) and [`crate::extract`] (extraction); the steps
//! in between are functions of their own modules that take `&Offloader`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::config::OffloadConfig;
use crate::error::Result;
use crate::estimate::{EstimateReport, EstimatorKind, HeuristicEstimator, TokenEstimator};
use crate::events::{EventSink, OffloadEvent};
use crate::files::{FUTURE_SKEW_MS, file_time};
use crate::host::Host;
use crate::offload::request::OffloadRequest;
use crate::output_dir;
use crate::ulid_gen::UlidGenerator;

/// `Send + Sync` on native targets; nothing on wasm, where JS callbacks are single-threaded.
#[cfg(not(target_family = "wasm"))]
pub trait MaybeShared: Send + Sync {}
#[cfg(not(target_family = "wasm"))]
impl<T: Send + Sync + ?Sized> MaybeShared for T {}
/// `Send + Sync` on native targets; nothing on wasm, where JS callbacks are single-threaded.
#[cfg(target_family = "wasm")]
pub trait MaybeShared {}
#[cfg(target_family = "wasm")]
impl<T: ?Sized> MaybeShared for T {}

/// A token estimator the offloader can hold.
pub trait SharedEstimator: TokenEstimator + MaybeShared {}
impl<T: TokenEstimator + MaybeShared> SharedEstimator for T {}
/// An event sink the offloader can hold.
pub trait SharedEventSink: EventSink + MaybeShared {}
impl<T: EventSink + MaybeShared> SharedEventSink for T {}

/// The LRO engine: configuration, host, estimator and event sink.
pub struct Offloader<H: Host> {
    pub(crate) config: OffloadConfig,
    pub(crate) host: H,
    pub(crate) estimator: Box<dyn SharedEstimator>,
    events: Option<Box<dyn SharedEventSink>>,
    pub(crate) ulids: Mutex<UlidGenerator>,
    /// The output directory as last made and resolved: `(as configured, real path)`.
    pub(crate) resolved_dir: Mutex<Option<(PathBuf, PathBuf)>>,
}

impl<H: Host> std::fmt::Debug for Offloader<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offloader")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<H: Host> Offloader<H> {
    /// An offloader over `host`; fails on an invalid configuration, and on an `estimator`
    /// this build does not have (`invalid_config`: the wasm builds count with `chars4` only).
    pub fn new(config: OffloadConfig, host: H) -> Result<Self> {
        config.validate()?;
        let estimator = estimator(config.estimator)?;
        Ok(Self {
            config,
            host,
            estimator,
            events: None,
            ulids: Mutex::new(UlidGenerator::new()),
            resolved_dir: Mutex::new(None),
        })
    }

    /// Replaces the token estimator (e.g. with an exact tokenizer).
    #[must_use]
    pub fn with_estimator(mut self, estimator: impl SharedEstimator + 'static) -> Self {
        self.estimator = Box::new(estimator);
        self
    }

    /// Sends events to `sink`.
    #[must_use]
    pub fn with_event_sink(mut self, sink: impl SharedEventSink + 'static) -> Self {
        self.events = Some(Box::new(sink));
        self
    }

    /// The configuration.
    pub fn config(&self) -> &OffloadConfig {
        &self.config
    }

    /// The host.
    pub fn host(&self) -> &H {
        &self.host
    }

    pub(crate) fn emit(&self, event: OffloadEvent) {
        if let Some(sink) = &self.events {
            sink.emit(&event);
        }
    }

    /// The configured output directory, or the host's default (private to the user, see
    /// [`Host::temp_dir`]) when it is empty.
    pub fn output_dir(&self) -> PathBuf {
        if self.config.output_dir.is_empty() {
            self.host.temp_dir()
        } else {
            PathBuf::from(&self.config.output_dir)
        }
    }

    /// Checks `dir` (this offloader's output directory) before it is used: a missing
    /// directory passes; one shared with other users (unless `allow_shared_dir`) or, for the
    /// default directory, a symbolic link is `invalid_config`.
    pub fn check_output_dir(&self, dir: &Path) -> Result<()> {
        output_dir::check(&self.config, &self.host, dir)
    }

    /// Estimated tokens of a text, with this offloader's estimator.
    pub fn estimate(&self, text: &str) -> usize {
        self.estimator.estimate(text)
    }

    /// How the estimator counts `text`, for the outcome (`None` for the heuristic).
    pub(crate) fn estimate_report(&self, text: &[u8]) -> Option<EstimateReport> {
        self.estimator.report(text)
    }

    /// The threshold for `request`: its own (a tool rule's) or the configured one, or less when the call says how
    /// much of its context is left (`min(threshold_tokens, adaptive_ratio x left)`).
    pub fn threshold(&self, request: &OffloadRequest) -> usize {
        let configured = request.threshold.unwrap_or(self.config.threshold_tokens) as usize;
        match request.context_remaining_tokens {
            // A ratio in (0, 1] of a u64 is a finite, non-negative float: the cast saturates.
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss,
                reason = "a share of a token count, rounded down; saturates, never wraps"
            )]
            Some(left) => configured.min((self.config.adaptive_ratio * left as f64) as usize),
            None => configured,
        }
    }

    /// The threshold to report in the outcome: only when it adapted to the context left.
    pub(crate) fn reported_threshold(&self, request: &OffloadRequest) -> Option<usize> {
        request
            .context_remaining_tokens
            .map(|_| self.threshold(request))
    }

    /// The [`file_time`] of the file `name` in `dir` named with `ulid`: its modification
    /// time is asked of the host only when the name is dated ahead of the clock (one `stat`
    /// for such a file, none for the others).
    #[doc(hidden)]
    pub fn created_at(&self, dir: &Path, name: &str, ulid: ulid::Ulid, now: u64) -> Option<u64> {
        let named = ulid.timestamp_ms();
        let modified = if named > now.saturating_add(FUTURE_SKEW_MS) {
            self.host.modified_millis(&dir.join(name)).ok().flatten()
        } else {
            None
        };
        file_time(named, modified, now)
    }
}

/// The estimator `kind` names; `invalid_config` for one this build does not have (the BPE
/// vocabularies are behind the `tokenizers` feature, which the wasm builds leave out).
fn estimator(kind: EstimatorKind) -> Result<Box<dyn SharedEstimator>> {
    match kind {
        EstimatorKind::Chars4 => Ok(Box::new(HeuristicEstimator)),
        #[cfg(feature = "tokenizers")]
        kind => Ok(Box::new(crate::estimate::bpe::BpeEstimator::new(kind))),
        #[cfg(not(feature = "tokenizers"))]
        kind => Err(crate::error::LroError::new(
            crate::error::ErrorCode::InvalidConfig,
            format!(
                "invalid value for prompt.offload.estimator: {:?} (this build counts with chars4 \
                 only: the BPE vocabularies are in the native builds, not the wasm ones)",
                kind.name()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimator_is_made_exactly_when_the_build_has_it() {
        for name in EstimatorKind::NAMES {
            let kind: EstimatorKind = name.parse().unwrap();
            match estimator(kind) {
                Ok(_) => assert!(kind.available(), "{name}"),
                Err(err) => {
                    assert!(!kind.available(), "{name}");
                    assert_eq!(err.code(), crate::error::ErrorCode::InvalidConfig);
                    assert!(err.message().contains("chars4 only"), "{err}");
                }
            }
        }
    }
}
