//! The table of configuration keys: every key of `[prompt.offload]` once, with what it takes,
//! what it does, and how each source names it. The TOML, JSON, environment and command-line
//! readers and [`OffloadConfig::validate`] set and check keys through it; the bindings export
//! it, their tests set every key through it, and `docs/configuration.md` is written from it.
//!
//! ```
//! use lro_core::config::{Kind, key};
//!
//! let limit = key("extract.max_output_bytes").unwrap();
//! assert_eq!(limit.env_var(), "ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_OUTPUT_BYTES");
//! assert_eq!(limit.camel_case(), "extract.maxOutputBytes");
//! assert_eq!(limit.toml_table(), "prompt.offload.extract");
//! assert!(matches!(limit.kind, Kind::Integer { .. }));
//! assert_eq!(limit.default_json(), serde_json::json!(1 << 20));
//! ```

use super::mcp::check_tool_name;
use super::settings::{
    DescriptorProfile, ENV_PREFIX, GuidanceMode, MAX_SETTING, MAX_STORE_RETRIES, OffloadConfig,
};
use super::value::{
    RawValue, as_bool, as_names, as_ratio, as_string, as_u64, invalid, is_safe_name,
};
use crate::error::Result;

/// What values a key takes, and the bounds every source is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// `true` or `false` (as text also `1`/`0`, `yes`/`no`, `on`/`off`).
    Bool,
    /// A whole number from `min` to `max`. With `unlimited_in_code`, a configuration built
    /// in code may hold `u64::MAX`, which is no limit (the readers still stop at `max`).
    Integer {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
        /// Whether [`OffloadConfig::validate`] lets any value through.
        unlimited_in_code: bool,
    },
    /// A number above 0 and at most 1.
    Ratio,
    /// Any text.
    Text,
    /// One of these names; with `any_case`, also in another case and with spaces around.
    Choice {
        /// The names, the default first.
        names: &'static [&'static str],
        /// Whether case and surrounding spaces are forgiven.
        any_case: bool,
    },
    /// 1-64 characters from `A-Z a-z 0-9 _ - .`, not starting with `.`.
    FilePrefix,
    /// A tool name: a letter or `_`, then up to 63 letters, digits or `_`.
    ToolName,
    /// A list of names (as text: comma-separated).
    Names,
}

impl Kind {
    /// The JSON type of the key's values: `boolean`, `integer`, `number`, `string` or
    /// `array` (of strings).
    pub fn json_type(self) -> &'static str {
        match self {
            Self::Bool => "boolean",
            Self::Integer { .. } => "integer",
            Self::Ratio => "number",
            Self::Text | Self::Choice { .. } | Self::FilePrefix | Self::ToolName => "string",
            Self::Names => "array",
        }
    }

    /// The value's bounds in words, as the docs show them (empty when there are none).
    pub fn bounds(self) -> String {
        match self {
            Self::Integer { min, max, .. } => format!("{min} to {max}"),
            Self::Ratio => "above 0, at most 1".to_owned(),
            Self::Choice { names, .. } => one_of(names),
            Self::FilePrefix => "1-64 characters from A-Z a-z 0-9 _ - .".to_owned(),
            Self::ToolName => "a letter or _, then up to 63 letters, digits or _".to_owned(),
            Self::Bool | Self::Text | Self::Names => String::new(),
        }
    }

    /// Reads `value` for the key `name`, or says what was expected.
    fn parse(self, name: &str, value: &RawValue<'_>) -> Result<Setting> {
        Ok(match self {
            Self::Bool => Setting::Bool(as_bool(name, value)?),
            Self::Integer { min, max, .. } => {
                let n = as_u64(name, value, max)?;
                if n < min {
                    return Err(invalid(name, value, &format!("an integer from {min}")));
                }
                Setting::Integer(n)
            }
            Self::Ratio => Setting::Number(as_ratio(name, value)?),
            Self::Text => Setting::Text(as_string(name, value)?.to_owned()),
            Self::Choice { names, any_case } => {
                let given = as_string(name, value)?;
                let folded = any_case.then(|| given.trim().to_ascii_lowercase());
                let wanted = folded.as_deref().unwrap_or(given);
                match names.iter().find(|choice| **choice == wanted) {
                    Some(choice) => Setting::Text((*choice).to_owned()),
                    None => return Err(invalid(name, value, &one_of(names))),
                }
            }
            Self::FilePrefix => {
                let prefix = as_string(name, value)?;
                if !is_safe_name(prefix) {
                    return Err(invalid(name, value, &Self::FilePrefix.bounds()));
                }
                Setting::Text(prefix.to_owned())
            }
            Self::ToolName => Setting::Text(check_tool_name(as_string(name, value)?)?.to_owned()),
            Self::Names => Setting::Names(as_names(name, value)?),
        })
    }
}

/// `"a", "b" or "c"`.
fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("{name:?}")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// A key's value, typed as its [`Kind`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Setting {
    Bool(bool),
    Integer(u64),
    Number(f64),
    Text(String),
    Names(Vec<String>),
    /// An optional text that is not set (the extract tool's name).
    Unset,
}

impl Setting {
    fn bool(self) -> bool {
        matches!(self, Self::Bool(true))
    }

    fn integer(self) -> u64 {
        match self {
            Self::Integer(n) => n,
            _ => 0,
        }
    }

    fn number(self) -> f64 {
        match self {
            Self::Number(n) => n,
            _ => 0.0,
        }
    }

    fn text(self) -> String {
        match self {
            Self::Text(text) => text,
            _ => String::new(),
        }
    }

    fn names(self) -> Vec<String> {
        match self {
            Self::Names(names) => names,
            _ => Vec::new(),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        match self {
            Self::Bool(b) => (*b).into(),
            Self::Integer(n) => (*n).into(),
            Self::Number(n) => (*n).into(),
            Self::Text(text) => text.as_str().into(),
            Self::Names(names) => names.as_slice().into(),
            Self::Unset => serde_json::Value::Null,
        }
    }
}

/// One configuration key: its dotted name under `[prompt.offload]`, what it takes, what it
/// does, and the one place that reads and writes it in an [`OffloadConfig`].
#[derive(Debug)]
pub struct Key {
    /// The dotted name under `[prompt.offload]`: `threshold_tokens`, `extract.timeout_ms`.
    pub name: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// What it does, in one line.
    pub doc: &'static str,
    /// A valid value other than the default, as JSON text: what the tests of every surface
    /// set.
    pub sample: &'static str,
    /// A value of the right shape for no surface, as JSON text: what the tests of every
    /// surface see refused.
    pub bad: &'static str,
    set: fn(&mut OffloadConfig, Setting),
    get: fn(&OffloadConfig) -> Setting,
}

impl Key {
    /// The section the key is in (`extract` for `extract.timeout_ms`), if any.
    pub fn section(&self) -> Option<&'static str> {
        self.name.split_once('.').map(|(section, _)| section)
    }

    /// The environment variable that sets it: `ATLATL_PROMPT__OFFLOAD__EXTRACT__TIMEOUT_MS`.
    pub fn env_var(&self) -> String {
        format!(
            "{ENV_PREFIX}{}",
            self.name.to_ascii_uppercase().replace('.', "__")
        )
    }

    /// The TOML table that holds it: `prompt.offload`, or `prompt.offload.extract`.
    pub fn toml_table(&self) -> String {
        match self.section() {
            Some(section) => format!("prompt.offload.{section}"),
            None => "prompt.offload".to_owned(),
        }
    }

    /// Its name in the JS option objects: each part in camelCase (`extract.timeoutMs`).
    pub fn camel_case(&self) -> String {
        let mut out = String::with_capacity(self.name.len());
        let mut upper = false;
        for c in self.name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    }

    /// Its value in `config`, in the JSON form of [`OffloadConfig`] (`null` when unset).
    pub fn value(&self, config: &OffloadConfig) -> serde_json::Value {
        (self.get)(config).to_json()
    }

    /// Its default value, in JSON.
    pub fn default_json(&self) -> serde_json::Value {
        self.value(&OffloadConfig::default())
    }

    /// Sets it in `config` from `value`, or says why not (`invalid_config`, naming the key
    /// and the value).
    pub(crate) fn set(&self, config: &mut OffloadConfig, value: &RawValue<'_>) -> Result<()> {
        let setting = self.kind.parse(self.name, value)?;
        (self.set)(config, setting);
        Ok(())
    }

    /// Checks its value in a configuration built in code against the bounds the readers
    /// enforce, with their messages.
    pub(crate) fn check(&self, config: &OffloadConfig) -> Result<()> {
        if let Kind::Integer {
            unlimited_in_code: true,
            ..
        } = self.kind
        {
            return Ok(());
        }
        match (self.get)(config) {
            Setting::Integer(n) => {
                let shown = serde_json::Value::from(n);
                self.kind
                    .parse(self.name, &RawValue::Json(&shown))
                    .map(drop)
            }
            Setting::Number(n) => {
                let shown = serde_json::Value::from(n);
                self.kind
                    .parse(self.name, &RawValue::Json(&shown))
                    .map(drop)
            }
            Setting::Text(text) => self.kind.parse(self.name, &RawValue::Text(&text)).map(drop),
            Setting::Bool(_) | Setting::Names(_) | Setting::Unset => Ok(()),
        }
    }
}

/// The key named `name` (dotted: `extract.timeout_ms`), if there is one.
pub fn key(name: &str) -> Option<&'static Key> {
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

/// Every configuration key, in the order the docs list them.
pub static KEYS: &[Key] = &[
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

    #[test]
    fn choices_are_listed_as_the_messages_always_listed_them() {
        assert_eq!(one_of(&["shell", "native"]), "\"shell\" or \"native\"");
        assert_eq!(
            one_of(&["full", "compact", "pointer"]),
            "\"full\", \"compact\" or \"pointer\""
        );
    }
}
