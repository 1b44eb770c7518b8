//! What a configuration holds: [`OffloadConfig`] with its sections, their defaults, and the
//! bounds the keys are held to.

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, LroError, Result};

/// The specification's default threshold: about 10 records of 155 tokens.
pub const DEFAULT_OFFLOAD_THRESHOLD_TOKENS: u32 = 1600;
/// Default file time-to-live: one hour.
pub const DEFAULT_TTL_SECONDS: u64 = 3600;
/// Default file name prefix (`atlatl-{operation}-{ulid}.jsonl`).
pub const DEFAULT_FILE_PREFIX: &str = "atlatl";
/// Prefix of the environment variables that configure LRO.
pub const ENV_PREFIX: &str = "ATLATL_PROMPT__OFFLOAD__";

/// Which guidance template descriptors carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GuidanceMode {
    /// The specification's shell template: `tail -n +2 FILE | jq ...`.
    #[default]
    Shell,
    /// The native template: the host offers the `lro_extract` tool.
    Native,
}

/// How much of the descriptor an offloaded result returns (`descriptor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DescriptorProfile {
    /// The specification's `OffloadResponse`: summary, path, line schema, ten recipes with
    /// their commands, guidance.
    #[default]
    Full,
    /// Summary, path, the recipes as one short line each and one paragraph of guidance: at
    /// most [`COMPACT_BUDGET_TOKENS`](crate::descriptor::COMPACT_BUDGET_TOKENS).
    Compact,
    /// `offloaded`, `file_path`, `count` and one line of guidance: at most
    /// [`POINTER_BUDGET_TOKENS`](crate::descriptor::POINTER_BUDGET_TOKENS).
    Pointer,
}

impl DescriptorProfile {
    /// The profile's name, as configured.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Compact => "compact",
            Self::Pointer => "pointer",
        }
    }
}

impl std::str::FromStr for DescriptorProfile {
    type Err = LroError;

    fn from_str(name: &str) -> Result<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "full" => Ok(Self::Full),
            "compact" => Ok(Self::Compact),
            "pointer" => Ok(Self::Pointer),
            _ => Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!("unknown descriptor profile {name:?}: use full, compact or pointer"),
            )),
        }
    }
}

/// The default share of the context left that a result may take inline when the caller
/// says how much is left (`context_remaining_tokens`).
pub const DEFAULT_ADAPTIVE_RATIO: f64 = 0.10;

/// Bounds on one native extraction (`lro_extract`), so an agent's filter cannot exhaust the
/// host. A result cut by a limit says so; it is never cut silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractLimits {
    /// Most bytes read from the file (default 1 GiB).
    pub max_read_bytes: u64,
    /// Most output values returned (default 10,000).
    pub max_output_records: u64,
    /// Most output bytes, as compact JSON (default 1 MiB).
    pub max_output_bytes: u64,
    /// Most wall time, in milliseconds (default 10,000).
    pub timeout_ms: u64,
    /// Most memory the values a jq filter builds may take, estimated (default 512 MiB);
    /// past it the extraction fails with `resource_limit`.
    pub max_memory_bytes: u64,
    /// Most tokens (estimated as offloading estimates them) of one answer of the extract
    /// tool through MCP (default 4,000): a longer answer is cut at a record boundary, or
    /// inside one huge value at a character boundary, and names the next call. The core's
    /// `extract` API is bounded by the limits above only.
    pub answer_max_tokens: u64,
    /// Most bytes of one answer of the extract tool through MCP (default 16,384); see
    /// `answer_max_tokens`.
    pub answer_max_bytes: u64,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        Self {
            max_read_bytes: 1 << 30,
            max_output_records: 10_000,
            max_output_bytes: 1 << 20,
            timeout_ms: 10_000,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            answer_max_tokens: DEFAULT_ANSWER_MAX_TOKENS,
            answer_max_bytes: DEFAULT_ANSWER_MAX_BYTES,
        }
    }
}

/// The default of [`ExtractLimits::answer_max_tokens`]: a tenth of the smaller context
/// windows, about 16 KB of text.
pub const DEFAULT_ANSWER_MAX_TOKENS: u64 = 4_000;

/// The default of [`ExtractLimits::answer_max_bytes`].
pub const DEFAULT_ANSWER_MAX_BYTES: u64 = 16_384;

/// The default of [`ExtractLimits::max_memory_bytes`]: far above what a filter over a
/// result needs, far below what takes a host down.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 512 << 20;

/// Bounds on the requests to an object store (`output_dir = "s3://bucket/prefix"`), so a store
/// that is down or slow costs a tool call a bounded delay before the write-failure fallback.
/// Hosts without a network ignore them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StoreLimits {
    /// Longest wait on the store, in milliseconds: to connect, for the answer to start, and
    /// for each read or write after that (default 5,000).
    pub timeout_ms: u64,
    /// Retries of a request that failed with a connection error, a timeout or a 5xx/429
    /// answer, after short backoffs (default 2, at most 10).
    pub retries: u32,
}

impl Default for StoreLimits {
    fn default() -> Self {
        Self {
            timeout_ms: 5_000,
            retries: 2,
        }
    }
}

/// Most retries a configuration may ask for: every retry can wait `timeout_ms` again.
pub const MAX_STORE_RETRIES: u64 = 10;

/// Largest value of a 64-bit setting (seconds, bytes, milliseconds): what fits a signed
/// 64-bit integer, so every host's arithmetic on it stays in range.
pub const MAX_SETTING: u64 = u64::MAX >> 1;

/// LRO configuration (`[prompt.offload]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OffloadConfig {
    /// Enable or disable LRO globally.
    pub enabled: bool,
    /// Offload when the estimated tokens are strictly greater than this.
    pub threshold_tokens: u32,
    /// Seconds before cleanup may delete a file.
    pub ttl_seconds: u64,
    /// Directory for JSONL files; empty means the host's default, private to the user
    /// (`StdHost`: `<temp dir>/lro-<uid>`, made 0700).
    pub output_dir: String,
    /// Use an output directory other users can write (owned by another user, or group- or
    /// other-writable without being a sticky directory of this user) or swap (a parent
    /// directory another user's, or group- or other-writable and not sticky), which is
    /// refused otherwise: there, another user could plant or replace the files LRO reads
    /// back, or rename the directory away and have LRO write into theirs.
    pub allow_shared_dir: bool,
    /// File name prefix: `{prefix}-{operation}-{ulid}.jsonl`.
    pub file_prefix: String,
    /// Which guidance template descriptors carry.
    pub guidance: GuidanceMode,
    /// How much of the descriptor an offloaded result returns (a call may ask for another).
    pub descriptor: DescriptorProfile,
    /// With a call's `context_remaining_tokens`, the threshold becomes
    /// `min(threshold_tokens, adaptive_ratio x context_remaining_tokens)`; from 0 to 1.
    pub adaptive_ratio: f64,
    /// Limits on native extraction.
    pub extract: ExtractLimits,
    /// Bounds on requests to an object store.
    pub store: StoreLimits,
    /// The MCP surfaces' options: result shape, extract tool name, tools never offloaded.
    pub mcp: super::mcp::McpConfig,
}

impl Default for OffloadConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            threshold_tokens: DEFAULT_OFFLOAD_THRESHOLD_TOKENS,
            ttl_seconds: DEFAULT_TTL_SECONDS,
            output_dir: String::new(),
            allow_shared_dir: false,
            file_prefix: DEFAULT_FILE_PREFIX.to_owned(),
            guidance: GuidanceMode::Shell,
            descriptor: DescriptorProfile::Full,
            adaptive_ratio: DEFAULT_ADAPTIVE_RATIO,
            extract: ExtractLimits::default(),
            store: StoreLimits::default(),
            mcp: super::mcp::McpConfig::default(),
        }
    }
}
