//! What a configuration holds, and the table of its keys: [`OffloadConfig`] with its sections
//! and their defaults, the bounds the keys are held to, and [`KEYS`], one row per field. A
//! new key is its field, its default and its row, all in this file (and, for the JS
//! surfaces' TypeScript types, a field of the binding's option object).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::keys::{Key, Kind, Setting};
use crate::detail::Detail;
use crate::error::{ErrorCode, LroError, Result};
use crate::estimate::EstimatorKind;

/// The specification's default threshold: about 10 records of 155 tokens.
pub const DEFAULT_OFFLOAD_THRESHOLD_TOKENS: u32 = 1600;
/// Default file time-to-live: one hour.
pub const DEFAULT_TTL_SECONDS: u64 = 3600;
/// Default file name prefix (`atlatl-{operation}-{ulid}.jsonl`).
pub const DEFAULT_FILE_PREFIX: &str = "atlatl";

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
    /// `offloaded`, `file_path`, `resource_uri`, `count` and one line of guidance: at most
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
    /// Most bytes of the data that result handles (`{"$lro": ...}` in a tool call's
    /// arguments) put into one call, and of one `lro_extract` output saved as a file
    /// (default 8 MiB). Over it the handle is refused, never cut: a partial value would reach
    /// a tool as if it were whole.
    pub handle_max_bytes: u64,
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
            handle_max_bytes: DEFAULT_HANDLE_MAX_BYTES,
        }
    }
}

/// The default of [`ExtractLimits::answer_max_tokens`]: a tenth of the smaller context
/// windows, about 16 KB of text.
pub const DEFAULT_ANSWER_MAX_TOKENS: u64 = 4_000;

/// The default of [`ExtractLimits::answer_max_bytes`].
pub const DEFAULT_ANSWER_MAX_BYTES: u64 = 16_384;

/// The default of [`ExtractLimits::handle_max_bytes`]: a large file for a tool to write,
/// small beside what the proxy and the extraction hold anyway.
pub const DEFAULT_HANDLE_MAX_BYTES: u64 = 8 << 20;

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

/// The MCP surfaces' options (`[prompt.offload.mcp]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Add a `resource_link` block to the offload file after the descriptor (default off:
    /// LangChain's Chat Completions adapter aborts the run on a link it cannot send, and
    /// other frameworks pass it to the model as a long JSON object; the descriptor carries
    /// the URI as `resource_uri` either way).
    pub resource_link: bool,
    /// Give an offloaded result `structuredContent` (the descriptor) besides its text
    /// (default off: LlamaIndex shows both, so the model reads the descriptor twice).
    pub structured_content: bool,
    /// The extract tool's name, overriding the one derived from the server's name.
    pub extract_tool_name: Option<String>,
    /// How much the extract tool's definition in `tools/list` says (default short: a
    /// client sends the definition with every request).
    pub extract_tool_definition: ToolDefinition,
    /// Tools whose results are never offloaded: they keep their `outputSchema` in
    /// `tools/list` and their results pass untouched.
    pub never_offload: Vec<String>,
}

/// How much the extract tool's definition in `tools/list` says (`mcp.extract_tool_definition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolDefinition {
    /// The arguments an agent needs, with one paragraph of description (at most 400 tokens):
    /// the details are in the `describe: true` answer and in the errors.
    #[default]
    Short,
    /// Every argument, each with its description and an example (about 1,400 tokens).
    Long,
}

impl ToolDefinition {
    /// The form's name, as configured.
    pub fn name(self) -> &'static str {
        match self {
            Self::Short => "short",
            Self::Long => "long",
        }
    }
}

impl McpConfig {
    /// Whether results of the tool `tool_name` are never offloaded.
    pub fn never_offloads(&self, tool_name: &str) -> bool {
        self.never_offload.iter().any(|name| name == tool_name)
    }
}

/// Whether a tool's results are offloaded (`mode` of a tool rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OffloadMode {
    /// Past the threshold, as for any result.
    #[default]
    Auto,
    /// Never: the result passes untouched (byte for byte through the proxy).
    Never,
    /// Always, however small: the result becomes a file, which a later call can take by
    /// reference (a `{"$lro": URI}` handle).
    Always,
}

impl OffloadMode {
    /// The mode's name, as configured.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Never => "never",
            Self::Always => "always",
        }
    }
}

/// What a rule sets for the tools it matches; unset keys take `[prompt.offload]`'s.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub struct ToolRule {
    /// Whether the tool's results are offloaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<OffloadMode>,
    /// Offload when the estimate is strictly greater than this (in place of
    /// `threshold_tokens`; a call's `context_remaining_tokens` still lowers it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
    /// The descriptor profile of the tool's offloads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub descriptor: Option<DescriptorProfile>,
    /// The detail level of MIF memories the tool returns, when its call does not ask for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Detail>,
    /// The operation of the tool's offloads (the file is `{prefix}-{operation}-{ulid}.jsonl`),
    /// in place of the one its name gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

/// The per-tool rules, by pattern (in byte order: the order that settles ties); read and
/// resolved in `tool_rules.rs`.
pub type ToolRules = BTreeMap<String, ToolRule>;

/// Most retries a configuration may ask for: every retry can wait `timeout_ms` again.
pub const MAX_STORE_RETRIES: u64 = 10;

/// Largest value of a 64-bit setting (seconds, bytes, milliseconds): what fits a signed
/// 64-bit integer, so every host's arithmetic on it stays in range.
pub const MAX_SETTING: u64 = u64::MAX >> 1;

/// Most records a descriptor's preview may ask for: more never fit a budget of 1,000 tokens.
pub const MAX_PREVIEW_RECORDS: u64 = 1000;

/// LRO configuration (`[prompt.offload]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OffloadConfig {
    /// Enable or disable LRO globally.
    pub enabled: bool,
    /// Offload when the estimated tokens are strictly greater than this.
    pub threshold_tokens: u32,
    /// What counts the tokens: the specification's heuristic (`chars4`, the default) or a
    /// BPE vocabulary (`o200k`, `cl100k`: native builds only).
    pub estimator: EstimatorKind,
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
    /// The first records of the file shown in the full and compact descriptors, as many of
    /// them as fit the budget (0: none).
    pub preview_records: u64,
    /// Limits on native extraction.
    pub extract: ExtractLimits,
    /// Bounds on requests to an object store.
    pub store: StoreLimits,
    /// The MCP surfaces' options: result shape, extract tool name, tools never offloaded.
    pub mcp: McpConfig,
    /// Per-tool rules (`[prompt.offload.tools."PATTERN"]`), by pattern: see
    /// [`OffloadConfig::tool_rule`].
    #[serde(skip_serializing_if = "ToolRules::is_empty")]
    pub tools: ToolRules,
}

impl Default for OffloadConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            threshold_tokens: DEFAULT_OFFLOAD_THRESHOLD_TOKENS,
            estimator: EstimatorKind::Chars4,
            ttl_seconds: DEFAULT_TTL_SECONDS,
            output_dir: String::new(),
            allow_shared_dir: false,
            file_prefix: DEFAULT_FILE_PREFIX.to_owned(),
            guidance: GuidanceMode::Shell,
            descriptor: DescriptorProfile::Full,
            adaptive_ratio: DEFAULT_ADAPTIVE_RATIO,
            preview_records: 0,
            extract: ExtractLimits::default(),
            store: StoreLimits::default(),
            mcp: McpConfig::default(),
            tools: ToolRules::new(),
        }
    }
}

/// The key named `name` (dotted: `extract.timeout_ms`), if there is one.
pub fn key(name: &str) -> Option<&'static Key<OffloadConfig>> {
    KEYS.iter().find(|key| key.name == name)
}

/// Whether `name` is a section of keys (`extract`, `store`, `mcp`).
pub(crate) fn is_section(name: &str) -> bool {
    KEYS.iter().any(|key| key.section() == Some(name))
}

/// A time or size setting: any integer a signed 64-bit host can do arithmetic on.
const SETTING: Kind = Kind::Integer {
    min: 0,
    max: MAX_SETTING,
    unlimited_in_code: false,
};

/// A byte or record limit: as [`SETTING`], and `u64::MAX` in code is no limit.
const LIMIT: Kind = Kind::Integer {
    min: 0,
    max: MAX_SETTING,
    unlimited_in_code: true,
};

/// Every configuration key, in the order the docs list them: the top-level keys, then the
/// sections `extract`, `store` and `mcp`. A row names the field it sets and reads; the
/// field's default is its struct's `Default`.
pub static KEYS: &[Key<OffloadConfig>] = &[
    Key {
        name: "enabled",
        kind: Kind::Bool,
        doc: "LRO on or off",
        sample: "false",
        bad: "\"maybe\"",
        set: |c, v| c.enabled = v.bool(),
        get: |c| Setting::Bool(c.enabled),
    },
    Key {
        name: "threshold_tokens",
        kind: Kind::Integer {
            min: 0,
            max: u32::MAX as u64,
            unlimited_in_code: false,
        },
        doc: "offload when the estimate is strictly greater",
        sample: "800",
        bad: "-1",
        set: |c, v| c.threshold_tokens = u32::try_from(v.integer()).unwrap_or(u32::MAX),
        get: |c| Setting::Integer(c.threshold_tokens.into()),
    },
    Key {
        name: "estimator",
        kind: Kind::Choice {
            names: &EstimatorKind::NAMES,
            any_case: true,
        },
        doc: "what counts tokens: `chars4` (characters / 4, wide scripts one a character), or \
              the exact `o200k` or `cl100k` BPE counts (native builds; the wasm builds refuse \
              them with `invalid_config`); texts over 256 KiB are counted on a sample, and \
              the outcome's `estimate` says how",
        sample: "\"o200k\"",
        bad: "\"gpt5\"",
        set: |c, v| c.estimator = v.text().parse().unwrap_or_default(),
        get: |c| Setting::Text(c.estimator.name().to_owned()),
    },
    Key {
        name: "ttl_seconds",
        kind: SETTING,
        doc: "age in seconds after which cleanup deletes a file",
        sample: "60",
        bad: "\"soon\"",
        set: |c, v| c.ttl_seconds = v.integer(),
        get: |c| Setting::Integer(c.ttl_seconds),
    },
    Key {
        name: "output_dir",
        kind: Kind::Text,
        doc: "where files go: a directory, or `s3://bucket/prefix` (native builds); empty is \
              `lro-<uid>` in the system temp dir, made 0700",
        sample: "\"/tmp/lro-elsewhere\"",
        bad: "5",
        set: |c, v| c.output_dir = v.text(),
        get: |c| Setting::Text(c.output_dir.clone()),
    },
    Key {
        name: "allow_shared_dir",
        kind: Kind::Bool,
        doc: "use an output directory other users can write or swap (owned by another user, or \
              group/other-writable and not a sticky directory of yours; or under a parent \
              directory that is another user's, or group/other-writable and not sticky, as \
              OpenSSH's `StrictModes` checks); refused otherwise, checked before every offload \
              (`invalid_config`; an offload falls back inline, saying why)",
        sample: "true",
        bad: "\"maybe\"",
        set: |c, v| c.allow_shared_dir = v.bool(),
        get: |c| Setting::Bool(c.allow_shared_dir),
    },
    Key {
        name: "file_prefix",
        kind: Kind::FilePrefix,
        doc: "file names are `{prefix}-{operation}-{ulid}.jsonl`",
        sample: "\"sample\"",
        bad: "\"../x\"",
        set: |c, v| c.file_prefix = v.text(),
        get: |c| Setting::Text(c.file_prefix.clone()),
    },
    Key {
        name: "guidance",
        kind: Kind::Choice {
            names: &["shell", "native"],
            any_case: false,
        },
        doc: "`native` points agents at the extract tool (`lro_extract`, or the name an MCP \
              surface lists) instead of jq commands",
        sample: "\"native\"",
        bad: "\"loud\"",
        set: |c, v| {
            c.guidance = match v.text().as_str() {
                "native" => GuidanceMode::Native,
                _ => GuidanceMode::Shell,
            }
        },
        get: |c| {
            Setting::Text(
                match c.guidance {
                    GuidanceMode::Shell => "shell",
                    GuidanceMode::Native => "native",
                }
                .to_owned(),
            )
        },
    },
    Key {
        name: "descriptor",
        kind: Kind::Choice {
            names: &["full", "compact", "pointer"],
            any_case: true,
        },
        doc: "`compact` or `pointer` return less of the descriptor (see \"What an agent \
              receives\"); a call may ask for another",
        sample: "\"compact\"",
        bad: "\"tiny\"",
        set: |c, v| c.descriptor = v.text().parse().unwrap_or(DescriptorProfile::Full),
        get: |c| Setting::Text(c.descriptor.name().to_owned()),
    },
    Key {
        name: "adaptive_ratio",
        kind: Kind::Ratio,
        doc: "with a call's `context_remaining_tokens`, the threshold is \
              `min(threshold_tokens, ratio x context left)`",
        sample: "0.5",
        bad: "2",
        set: |c, v| c.adaptive_ratio = v.number(),
        get: |c| Setting::Number(c.adaptive_ratio),
    },
    Key {
        name: "preview_records",
        kind: Kind::Integer {
            min: 0,
            max: MAX_PREVIEW_RECORDS,
            unlimited_in_code: false,
        },
        doc: "the full and compact descriptors show the file's first N records, as many as fit               their budget (a `note` says how many when fewer); 0 shows none",
        sample: "3",
        bad: "-1",
        set: |c, v| c.preview_records = v.integer(),
        get: |c| Setting::Integer(c.preview_records),
    },
    Key {
        name: "extract.max_read_bytes",
        kind: LIMIT,
        doc: "most bytes native extraction reads from a file (1 GiB)",
        sample: "4096",
        bad: "\"lots\"",
        set: |c, v| c.extract.max_read_bytes = v.integer(),
        get: |c| Setting::Integer(c.extract.max_read_bytes),
    },
    Key {
        name: "extract.max_output_records",
        kind: LIMIT,
        doc: "most values native extraction returns; a cut result returns what fits, with \
              `returned`, `total` and a `hint` (the `lro extract` command line caps output only \
              with its `--max-output-*` flags)",
        sample: "50",
        bad: "\"lots\"",
        set: |c, v| c.extract.max_output_records = v.integer(),
        get: |c| Setting::Integer(c.extract.max_output_records),
    },
    Key {
        name: "extract.max_output_bytes",
        kind: LIMIT,
        doc: "most bytes of output native extraction returns, as compact JSON (1 MiB)",
        sample: "2048",
        bad: "\"lots\"",
        set: |c, v| c.extract.max_output_bytes = v.integer(),
        get: |c| Setting::Integer(c.extract.max_output_bytes),
    },
    Key {
        name: "extract.timeout_ms",
        kind: SETTING,
        doc: "most wall time of one native extraction, in milliseconds",
        sample: "500",
        bad: "\"soon\"",
        set: |c, v| c.extract.timeout_ms = v.integer(),
        get: |c| Setting::Integer(c.extract.timeout_ms),
    },
    Key {
        name: "extract.max_memory_bytes",
        kind: LIMIT,
        doc: "most memory a jq filter's values may take, estimated (512 MiB); past it, or past \
              1024 levels of nesting, the extraction fails with `resource_limit`",
        sample: "1048576",
        bad: "\"lots\"",
        set: |c, v| c.extract.max_memory_bytes = v.integer(),
        get: |c| Setting::Integer(c.extract.max_memory_bytes),
    },
    Key {
        name: "extract.answer_max_tokens",
        kind: LIMIT,
        doc: "most tokens of one answer of the extract tool through MCP (proxy, Python and \
              Node helpers): cut at a record, or inside one huge record at a character, ending \
              with a `[truncated]` line that names the next call",
        sample: "1000",
        bad: "\"lots\"",
        set: |c, v| c.extract.answer_max_tokens = v.integer(),
        get: |c| Setting::Integer(c.extract.answer_max_tokens),
    },
    Key {
        name: "extract.answer_max_bytes",
        kind: LIMIT,
        doc: "most bytes of one answer of the extract tool through MCP, cut as \
              `extract.answer_max_tokens` says",
        sample: "8192",
        bad: "\"lots\"",
        set: |c, v| c.extract.answer_max_bytes = v.integer(),
        get: |c| Setting::Integer(c.extract.answer_max_bytes),
    },
    Key {
        name: "extract.handle_max_bytes",
        kind: LIMIT,
        doc: "most bytes that result handles ({\"$lro\": URI} in tool arguments) put into one \
              call, and of one saved `lro_extract` output; more is refused, never cut",
        sample: "65536",
        bad: "\"lots\"",
        set: |c, v| c.extract.handle_max_bytes = v.integer(),
        get: |c| Setting::Integer(c.extract.handle_max_bytes),
    },
    Key {
        name: "store.timeout_ms",
        kind: Kind::Integer {
            // Zero would time every request out before it starts.
            min: 1,
            max: MAX_SETTING,
            unlimited_in_code: false,
        },
        doc: "longest wait on an object store in milliseconds (connect, first byte, each read \
              or write)",
        sample: "250",
        bad: "0",
        set: |c, v| c.store.timeout_ms = v.integer(),
        get: |c| Setting::Integer(c.store.timeout_ms),
    },
    Key {
        name: "store.retries",
        kind: Kind::Integer {
            min: 0,
            max: MAX_STORE_RETRIES,
            unlimited_in_code: false,
        },
        doc: "retries of an object store request after a connection error, a timeout or a \
              5xx/429 answer",
        sample: "4",
        bad: "11",
        set: |c, v| c.store.retries = u32::try_from(v.integer()).unwrap_or(u32::MAX),
        get: |c| Setting::Integer(c.store.retries.into()),
    },
    Key {
        name: "mcp.resource_link",
        kind: Kind::Bool,
        doc: "an offloaded MCP result also carries a `resource_link` block (proxy: \
              `--resource-link`)",
        sample: "true",
        bad: "\"maybe\"",
        set: |c, v| c.mcp.resource_link = v.bool(),
        get: |c| Setting::Bool(c.mcp.resource_link),
    },
    Key {
        name: "mcp.structured_content",
        kind: Kind::Bool,
        doc: "an offloaded MCP result also carries the descriptor as `structuredContent` \
              (proxy: `--structured-content`)",
        sample: "true",
        bad: "\"maybe\"",
        set: |c, v| c.mcp.structured_content = v.bool(),
        get: |c| Setting::Bool(c.mcp.structured_content),
    },
    Key {
        name: "mcp.extract_tool_name",
        kind: Kind::ToolName,
        doc: "the extract tool's name; unset, `lro_extract_<server name>` (proxy: \
              `--extract-tool-name`)",
        sample: "\"my_extract\"",
        bad: "\"1bad\"",
        set: |c, v| c.mcp.extract_tool_name = Some(v.text()),
        get: |c| match &c.mcp.extract_tool_name {
            Some(name) => Setting::Text(name.clone()),
            None => Setting::Unset,
        },
    },
    Key {
        name: "mcp.extract_tool_definition",
        kind: Kind::Choice {
            names: &["short", "long"],
            any_case: false,
        },
        doc: "`long` lists the extract tool with every argument described (about 1,400 tokens); \
              `short` (at most 400 tokens) leaves the details to its `describe: true` answer \
              and its errors (proxy: `--extract-tool-definition`)",
        sample: "\"long\"",
        bad: "\"tiny\"",
        set: |c, v| {
            c.mcp.extract_tool_definition = match v.text().as_str() {
                "long" => ToolDefinition::Long,
                _ => ToolDefinition::Short,
            }
        },
        get: |c| Setting::Text(c.mcp.extract_tool_definition.name().to_owned()),
    },
    Key {
        name: "mcp.never_offload",
        kind: Kind::Names,
        doc: "tools whose results pass untouched and which keep their `outputSchema` \
              (environment: comma-separated; proxy: `--never-offload NAME`, repeatable)",
        sample: "[\"get_weather\", \"echo\"]",
        bad: "5",
        set: |c, v| c.mcp.never_offload = v.names(),
        get: |c| Setting::Names(c.mcp.never_offload.clone()),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::value::RawValue;

    #[test]
    fn every_key_takes_its_sample_and_refuses_its_bad_value() {
        for key in KEYS {
            let sample: serde_json::Value = serde_json::from_str(key.sample).unwrap();
            assert_ne!(
                sample,
                key.default_json(),
                "{}: the sample is the default",
                key.name
            );
            let mut config = OffloadConfig::default();
            key.set(&mut config, &RawValue::Json(&sample)).unwrap();
            assert_eq!(key.value(&config), sample, "{}", key.name);
            assert!(key.check(&config).is_ok(), "{}", key.name);
            let bad: serde_json::Value = serde_json::from_str(key.bad).unwrap();
            let err = key.set(&mut config, &RawValue::Json(&bad)).unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidConfig, "{}", key.name);
            assert!(err.message().contains(key.name), "{err}");
        }
    }

    #[test]
    fn names_are_unique_and_spelled_alike_everywhere() {
        for (i, key) in KEYS.iter().enumerate() {
            assert!(KEYS[..i].iter().all(|other| other.name != key.name));
            assert!(
                key.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'.')
            );
            assert_eq!(
                key.camel_case().to_ascii_lowercase(),
                key.name.replace('_', "")
            );
        }
        assert!(is_section("store") && !is_section("store.retries") && !is_section("enabled"));
    }
}
