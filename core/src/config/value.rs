//! A configuration value as a source gives it (TOML, JSON, or the text of an environment
//! variable or a command-line flag), read as one of the types a key takes. Every bad value is
//! an `invalid_config` error that names the key, the value and what was expected.

use toml::de::DeValue;

use super::toml_doc::{TomlValue, float, integer};
use crate::error::{ErrorCode, LroError, Result};

/// A raw configuration value, from TOML (typed, with its text), JSON (typed) or the
/// environment (text).
pub(crate) enum RawValue<'a> {
    Toml(TomlValue<'a>),
    Json(&'a serde_json::Value),
    Text(&'a str),
}

impl RawValue<'_> {
    pub(crate) fn display(&self) -> String {
        match self {
            Self::Toml(v) => v.shown(),
            Self::Json(v) => v.to_string(),
            Self::Text(s) => format!("{s:?}"),
        }
    }
}

/// The error for a bad value of `key`: `invalid value for prompt.offload.KEY: VALUE
/// (expected EXPECTED)`.
pub(crate) fn invalid(key: &str, value: &RawValue<'_>, expected: &str) -> LroError {
    LroError::new(
        ErrorCode::InvalidConfig,
        format!(
            "invalid value for prompt.offload.{key}: {} (expected {expected})",
            value.display()
        ),
    )
}

/// The error for a key the table does not hold, with the nearest known key as a hint.
pub(crate) fn unknown(key: &str, value: &RawValue<'_>, nearest: Option<&str>) -> LroError {
    let hint = nearest
        .map(|known| format!("; did you mean prompt.offload.{known}?"))
        .unwrap_or_default();
    LroError::new(
        ErrorCode::InvalidConfig,
        format!(
            "unknown configuration key prompt.offload.{key} (value {}){hint}",
            value.display()
        ),
    )
}

/// The error for a value given to a section (`extract = 5`): a section holds keys.
pub(crate) fn section_as_key(section: &str, value: &RawValue<'_>) -> LroError {
    let keys: Vec<&str> = super::KEYS
        .iter()
        .filter(|key| key.section() == Some(section))
        .map(|key| key.name)
        .collect();
    LroError::new(
        ErrorCode::InvalidConfig,
        format!(
            "prompt.offload.{section} is a section, not a key (value {}); its keys: {}",
            value.display(),
            keys.join(", ")
        ),
    )
}

pub(crate) fn as_bool(key: &str, value: &RawValue<'_>) -> Result<bool> {
    match value {
        RawValue::Toml(v) => v
            .get()
            .as_bool()
            .ok_or_else(|| invalid(key, value, "true or false")),
        RawValue::Json(v) => v
            .as_bool()
            .ok_or_else(|| invalid(key, value, "true or false")),
        RawValue::Text(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(true),
            "false" | "0" | "no" | "off" => Ok(false),
            _ => Err(invalid(key, value, "true or false")),
        },
    }
}

pub(crate) fn as_u64(key: &str, value: &RawValue<'_>, max: u64) -> Result<u64> {
    let parsed = match value {
        RawValue::Toml(v) => match v.get() {
            DeValue::Integer(i) => integer(i).and_then(|n| u64::try_from(n).ok()),
            _ => None,
        },
        RawValue::Json(v) => v.as_u64(),
        RawValue::Text(s) => s.trim().parse::<u64>().ok(),
    };
    parsed
        .filter(|n| *n <= max)
        .ok_or_else(|| invalid(key, value, &format!("an integer from 0 to {max}")))
}

pub(crate) fn as_ratio(key: &str, value: &RawValue<'_>) -> Result<f64> {
    let parsed = match value {
        RawValue::Toml(v) => match v.get() {
            DeValue::Float(f) => float(f),
            DeValue::Integer(i) => integer(i).map(|n| n as f64),
            _ => None,
        },
        RawValue::Json(v) => v.as_f64(),
        RawValue::Text(s) => s.trim().parse::<f64>().ok(),
    };
    parsed
        .filter(|r| r.is_finite() && *r > 0.0 && *r <= 1.0)
        .ok_or_else(|| invalid(key, value, "a number above 0 and at most 1"))
}

pub(crate) fn as_string<'a>(key: &str, value: &'a RawValue<'a>) -> Result<&'a str> {
    let text = match value {
        RawValue::Toml(v) => v.get().as_str(),
        RawValue::Json(v) => v.as_str(),
        RawValue::Text(s) => Some(*s),
    };
    text.ok_or_else(|| invalid(key, value, "a string"))
}

/// A list of names: a TOML or JSON array of strings, or comma-separated text (the
/// environment's form, also taken from TOML and JSON).
pub(crate) fn as_names(key: &str, value: &RawValue<'_>) -> Result<Vec<String>> {
    let split = |text: &str| -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let expected = "a list of tool names";
    match value {
        RawValue::Text(s) => Ok(split(s)),
        RawValue::Toml(v) => match v.get() {
            DeValue::String(s) => Ok(split(s)),
            DeValue::Array(items) => items
                .iter()
                .map(|item| item.get_ref().as_str().map(str::to_owned))
                .collect::<Option<_>>()
                .ok_or_else(|| invalid(key, value, expected)),
            _ => Err(invalid(key, value, expected)),
        },
        RawValue::Json(serde_json::Value::String(s)) => Ok(split(s)),
        RawValue::Json(serde_json::Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| invalid(key, value, expected)),
        RawValue::Json(_) => Err(invalid(key, value, expected)),
    }
}

/// A file prefix goes into file names and the cleanup pattern: keep it to a safe alphabet.
pub(crate) fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
        && !name.starts_with('.')
}
