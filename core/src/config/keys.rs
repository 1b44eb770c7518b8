//! What a configuration key is: its [`Kind`] (type and bounds), how a raw value of each
//! kind is read and checked, and [`Key`], one row of the table. The table itself, [`KEYS`],
//! sits beside the fields it describes, in `settings.rs`. The TOML, JSON, environment and
//! command-line readers and [`OffloadConfig::validate`] set and check keys through it; the
//! bindings export it, their tests set every key through it, and `docs/configuration.md` is
//! written from it.
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
//!
//! [`KEYS`]: super::KEYS
//! [`OffloadConfig::validate`]: super::OffloadConfig::validate

use super::tool_name::check_tool_name;
use super::value::{
    RawValue, as_bool, as_names, as_ratio, as_string, as_u64, invalid, is_safe_name,
};
use crate::error::Result;

/// Prefix of the environment variables that configure LRO.
pub const ENV_PREFIX: &str = "ATLATL_PROMPT__OFFLOAD__";

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
        /// Whether [`OffloadConfig::validate`](super::OffloadConfig::validate) lets any value
        /// through.
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
    pub(crate) fn bool(self) -> bool {
        matches!(self, Self::Bool(true))
    }

    pub(crate) fn integer(self) -> u64 {
        match self {
            Self::Integer(n) => n,
            _ => 0,
        }
    }

    pub(crate) fn number(self) -> f64 {
        match self {
            Self::Number(n) => n,
            _ => 0.0,
        }
    }

    pub(crate) fn text(self) -> String {
        match self {
            Self::Text(text) => text,
            _ => String::new(),
        }
    }

    pub(crate) fn names(self) -> Vec<String> {
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
/// does, and the one place that reads and writes it in a configuration `C`.
///
/// `C` is always [`OffloadConfig`](super::OffloadConfig): the key is generic over it only so
/// that this file, which reads and checks values, does not depend on the structs the table
/// describes, and the table can sit beside them.
#[derive(Debug)]
pub struct Key<C: 'static> {
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
    /// Writes a value its kind has read into the configuration.
    pub(crate) set: fn(&mut C, Setting),
    /// Reads the value back.
    pub(crate) get: fn(&C) -> Setting,
}

impl<C> Key<C> {
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

    /// Its value in `config`, in the JSON form of the configuration (`null` when unset).
    pub fn value(&self, config: &C) -> serde_json::Value {
        (self.get)(config).to_json()
    }

    /// Its default value, in JSON.
    pub fn default_json(&self) -> serde_json::Value
    where
        C: Default,
    {
        self.value(&C::default())
    }

    /// Sets it in `config` from `value`, or says why not (`invalid_config`, naming the key
    /// and the value).
    pub(crate) fn set(&self, config: &mut C, value: &RawValue<'_>) -> Result<()> {
        self.set_as(config, self.name, value)
    }

    /// [`Key::set`], errors naming the key `shown` (a tool rule's key names its pattern).
    pub(crate) fn set_as(&self, config: &mut C, shown: &str, value: &RawValue<'_>) -> Result<()> {
        let setting = self.kind.parse(shown, value)?;
        (self.set)(config, setting);
        Ok(())
    }

    /// Checks its value in a configuration built in code against the bounds the readers
    /// enforce, with their messages.
    pub(crate) fn check(&self, config: &C) -> Result<()> {
        self.check_as(config, self.name)
    }

    /// [`Key::check`], errors naming the key `shown`.
    pub(crate) fn check_as(&self, config: &C, shown: &str) -> Result<()> {
        if let Kind::Integer {
            unlimited_in_code: true,
            ..
        } = self.kind
        {
            return Ok(());
        }
        match (self.get)(config) {
            Setting::Integer(n) => {
                let number = serde_json::Value::from(n);
                self.kind.parse(shown, &RawValue::Json(&number)).map(drop)
            }
            Setting::Number(n) => {
                let number = serde_json::Value::from(n);
                self.kind.parse(shown, &RawValue::Json(&number)).map(drop)
            }
            Setting::Text(text) => self.kind.parse(shown, &RawValue::Text(&text)).map(drop),
            Setting::Bool(_) | Setting::Names(_) | Setting::Unset => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_listed_as_the_messages_always_listed_them() {
        assert_eq!(one_of(&["shell", "native"]), "\"shell\" or \"native\"");
        assert_eq!(
            one_of(&["full", "compact", "pointer"]),
            "\"full\", \"compact\" or \"pointer\""
        );
    }
}
