//! Per-tool rules, read and resolved: `[prompt.offload.tools."PATTERN"]` sections (the
//! [`ToolRule`]s of `settings.rs`, beside the configuration's other structs) that set, for the tools whose
//! name the pattern matches ([`tool_glob`](super::tool_glob)), whether their results are
//! offloaded (`mode`), past which estimate (`threshold`), and the `descriptor`, `detail` and
//! `operation` of their offloads. The one most specific rule that matches a tool applies,
//! whole; the keys it leaves unset come from `[prompt.offload]`.
//!
//! Every source writes rules through [`TOOL_KEYS`]: a TOML file's tables, a JSON object
//! (`{"tools": {"fs_*": {"mode": "never"}}}`, the bindings' options), and rules as text,
//! `PATTERN:KEY=VALUE[,KEY=VALUE...]`, several joined by `;`: the value of an
//! `ATLATL_PROMPT__OFFLOAD__TOOLS__<LABEL>` variable (the label only tells variables apart:
//! a variable's name cannot carry a glob, or a tool name's case) and of `lro proxy --tool`.
//!
//! ```
//! use lro_core::OffloadConfig;
//! use lro_core::config::OffloadMode;
//!
//! let mut config = OffloadConfig::from_toml_str(
//!     "[prompt.offload.tools.\"fs_*\"]\nmode = \"never\"\n[prompt.offload.tools.fs_search]\nthreshold = 50\n",
//! )?;
//! config.apply_env([("ATLATL_PROMPT__OFFLOAD__TOOLS__DB", "db_*:mode=always,descriptor=pointer")])?;
//! assert_eq!(config.tool_rule("fs_read").unwrap().1.mode, Some(OffloadMode::Never));
//! assert_eq!(config.tool_rule("fs_search").unwrap().1.threshold, Some(50));
//! assert_eq!(config.tool_rule("db_rows").unwrap().0, "db_*");
//! assert!(config.tool_rule("git_log").is_none());
//! let err = config.apply_tool_rules_str("fs_*:mode=sometimes").unwrap_err();
//! assert!(err.message().contains("prompt.offload.tools.\"fs_*\".mode"));
//! # Ok::<(), lro_core::LroError>(())
//! ```

use super::keys::{Key, Kind, Setting};
use super::settings::{OffloadConfig, OffloadMode, ToolRule};
use super::toml_doc::TomlValue;
use super::tool_glob::{check_pattern, most_specific};
use super::value::RawValue;
use crate::error::{ErrorCode, LroError, Result};

impl ToolRule {
    /// A rule from a JSON object of its keys (a call's own rule), each read and checked as
    /// the configuration reads it; a mistake is `invalid_argument` naming `rule.KEY`.
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let serde_json::Value::Object(keys) = value else {
            return Err(LroError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "a tool rule must be an object of {}, got {value}",
                    rule_keys()
                ),
            ));
        };
        let mut rule = Self::default();
        for (name, value) in keys.iter().filter(|(_, v)| !v.is_null()) {
            let shown = format!("rule.{name}");
            let set = match TOOL_KEYS.iter().find(|key| key.name == name) {
                Some(key) => key.set_as(&mut rule, &shown, &RawValue::Json(value)),
                None => Err(invalid_config(format!(
                    "unknown key {shown} (value {value}); a tool rule takes {}",
                    rule_keys()
                ))),
            };
            set.map_err(|e| {
                let message = e.message().replacen("prompt.offload.", "", 1);
                LroError::new(ErrorCode::InvalidArgument, message)
            })?;
        }
        Ok(rule)
    }
}

/// Every way serde reads a rule (a call context's, a configuration's) is
/// [`ToolRule::from_json`].
impl TryFrom<serde_json::Value> for ToolRule {
    type Error = LroError;

    fn try_from(value: serde_json::Value) -> Result<Self> {
        Self::from_json(&value)
    }
}

const fn choice(names: &'static [&'static str]) -> Kind {
    Kind::Choice {
        names,
        any_case: true,
    }
}

/// The keys of a tool rule, each read and checked as the keys of [`KEYS`](super::KEYS).
pub static TOOL_KEYS: &[Key<ToolRule>] = &[
    Key {
        name: "mode",
        kind: choice(&["auto", "never", "always"]),
        doc: "`never`: results pass untouched (through the proxy byte for byte); `always`: \
              offloaded however small, so a `{\"$lro\": URI}` handle can pass them on; \
              `auto`: past the threshold",
        sample: "\"always\"",
        bad: "\"sometimes\"",
        set: |r, v| {
            r.mode = Some(match v.text().as_str() {
                "never" => OffloadMode::Never,
                "always" => OffloadMode::Always,
                _ => OffloadMode::Auto,
            });
        },
        get: |r| {
            r.mode
                .map_or(Setting::Unset, |m| Setting::Text(m.name().to_owned()))
        },
    },
    Key {
        name: "threshold",
        kind: Kind::Integer {
            min: 0,
            max: u32::MAX as u64,
            unlimited_in_code: false,
        },
        doc: "offload when the estimate is strictly greater (in place of `threshold_tokens`)",
        sample: "200",
        bad: "-1",
        set: |r, v| r.threshold = Some(u32::try_from(v.integer()).unwrap_or(u32::MAX)),
        get: |r| {
            r.threshold
                .map_or(Setting::Unset, |t| Setting::Integer(t.into()))
        },
    },
    Key {
        name: "descriptor",
        kind: choice(&["full", "compact", "pointer"]),
        doc: "the descriptor profile of the tool's offloads",
        sample: "\"pointer\"",
        bad: "\"tiny\"",
        set: |r, v| r.descriptor = v.text().parse().ok(),
        get: |r| {
            r.descriptor
                .map_or(Setting::Unset, |d| Setting::Text(d.name().to_owned()))
        },
    },
    Key {
        name: "detail",
        kind: choice(&["light", "medium", "full"]),
        doc: "the detail of the MIF memories it returns, when the call asks for none",
        sample: "\"full\"",
        bad: "\"most\"",
        set: |r, v| r.detail = v.text().parse().ok(),
        get: |r| {
            r.detail
                .map_or(Setting::Unset, |d| Setting::Text(d.as_str().to_owned()))
        },
    },
    Key {
        name: "operation",
        kind: Kind::FilePrefix,
        doc: "the operation its files are named for, in place of the tool's name",
        sample: "\"rows\"",
        bad: "\"../x\"",
        set: |r, v| r.operation = Some(v.text()),
        get: |r| r.operation.clone().map_or(Setting::Unset, Setting::Text),
    },
];

/// The keys a rule takes, for messages: `mode, threshold, ...`.
fn rule_keys() -> String {
    let names: Vec<&str> = TOOL_KEYS.iter().map(|key| key.name).collect();
    names.join(", ")
}

/// The rule's table in messages: `prompt.offload.tools."fs_*"`.
fn table(pattern: &str) -> String {
    format!("prompt.offload.tools.{pattern:?}")
}

fn invalid_config(message: String) -> LroError {
    LroError::new(ErrorCode::InvalidConfig, message)
}

impl OffloadConfig {
    /// The most specific rule whose pattern matches `tool` (see
    /// [`tool_glob`](super::tool_glob)), with its pattern.
    pub fn tool_rule(&self, tool: &str) -> Option<(&str, &ToolRule)> {
        most_specific(&self.tools, tool).map(|(pattern, rule)| (pattern.as_str(), rule))
    }

    /// Whether results of `tool` pass untouched whatever their size: `mcp.never_offload`
    /// names it, or its rule's `mode` is `never`.
    pub fn never_offloads(&self, tool: &str) -> bool {
        self.mcp.never_offloads(tool)
            || self
                .tool_rule(tool)
                .is_some_and(|(_, rule)| rule.mode == Some(OffloadMode::Never))
    }

    /// Applies rules given as text: `PATTERN:KEY=VALUE[,KEY=VALUE...]`, several joined by
    /// `;` (an `ATLATL_PROMPT__OFFLOAD__TOOLS__*` variable's value, `lro proxy --tool`).
    /// Keys a rule already had from another source keep their value unless given again.
    pub fn apply_tool_rules_str(&mut self, text: &str) -> Result<()> {
        for rule in text.split(';').filter(|rule| !rule.trim().is_empty()) {
            let (pattern, pairs) = rule.split_once(':').ok_or_else(|| {
                invalid_config(format!(
                    "tool rule {rule:?}: expected PATTERN:KEY=VALUE[,KEY=VALUE...] (keys: {})",
                    rule_keys()
                ))
            })?;
            let pattern = check_pattern(pattern.trim(), "a tool rule")?;
            for pair in pairs.split(',') {
                let (key, value) = pair.split_once('=').ok_or_else(|| {
                    invalid_config(format!(
                        "tool rule {rule:?}: expected KEY=VALUE, got {pair:?} (keys: {})",
                        rule_keys()
                    ))
                })?;
                self.set_tool_key(pattern, key.trim(), &RawValue::Text(value.trim()))?;
            }
        }
        Ok(())
    }

    /// Applies `[prompt.offload.tools]` of a TOML document: a table of rules by pattern.
    pub(crate) fn apply_tools_toml(&mut self, value: TomlValue<'_>) -> Result<()> {
        let Some(rules) = value.entries() else {
            return Err(not_a_table("prompt.offload.tools", "rules by tool pattern"));
        };
        for (pattern, rule) in rules {
            let pattern = check_pattern(pattern, "prompt.offload.tools")?;
            let Some(keys) = rule.entries() else {
                return Err(not_a_table(&table(pattern), &rule_keys()));
            };
            for (key, value) in keys {
                self.set_tool_key(pattern, key, &RawValue::Toml(value))?;
            }
        }
        Ok(())
    }

    /// Applies `tools` of a JSON configuration: an object of rules by pattern (`null`
    /// values keep what was there).
    pub(crate) fn apply_tools_json(&mut self, value: &serde_json::Value) -> Result<()> {
        let serde_json::Value::Object(rules) = value else {
            return Err(not_a_table("prompt.offload.tools", "rules by tool pattern"));
        };
        for (pattern, rule) in rules {
            let pattern = check_pattern(pattern, "prompt.offload.tools")?;
            let serde_json::Value::Object(keys) = rule else {
                return Err(not_a_table(&table(pattern), &rule_keys()));
            };
            for (key, value) in keys.iter().filter(|(_, v)| !v.is_null()) {
                self.set_tool_key(pattern, key, &RawValue::Json(value))?;
            }
        }
        Ok(())
    }

    fn set_tool_key(&mut self, pattern: &str, name: &str, value: &RawValue<'_>) -> Result<()> {
        let shown = format!("tools.{pattern:?}.{name}");
        let Some(key) = TOOL_KEYS.iter().find(|key| key.name == name) else {
            return Err(invalid_config(format!(
                "unknown key {}.{name} (value {}); a tool rule takes {}",
                table(pattern),
                value.display(),
                rule_keys()
            )));
        };
        let rule = self.tools.entry(pattern.to_owned()).or_default();
        key.set_as(rule, &shown, value)
    }

    /// Checks rules built in code as the readers check theirs.
    pub(crate) fn validate_tools(&self) -> Result<()> {
        for (pattern, rule) in &self.tools {
            check_pattern(pattern, "prompt.offload.tools")?;
            for key in TOOL_KEYS {
                key.check_as(rule, &format!("tools.{pattern:?}.{}", key.name))?;
            }
        }
        Ok(())
    }
}

fn not_a_table(what: &str, holds: &str) -> LroError {
    invalid_config(format!("{what} must be a table of {holds}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DescriptorProfile;
    use crate::detail::Detail;

    fn rule_of(config: &OffloadConfig, tool: &str) -> Option<(String, ToolRule)> {
        config
            .tool_rule(tool)
            .map(|(pattern, rule)| (pattern.to_owned(), rule.clone()))
    }

    #[test]
    fn every_source_writes_the_same_rule() {
        let wanted = ToolRule {
            mode: Some(OffloadMode::Always),
            threshold: Some(10),
            descriptor: Some(DescriptorProfile::Pointer),
            detail: Some(Detail::Full),
            operation: Some("rows".to_owned()),
        };
        let toml = OffloadConfig::from_toml_str(
            "[prompt.offload.tools.\"db_*\"]\nmode = \"always\"\nthreshold = 10\n\
             descriptor = \"pointer\"\ndetail = \"full\"\noperation = \"rows\"\n",
        )
        .unwrap();
        let json = OffloadConfig::from_json(&serde_json::json!({"tools": {"db_*": {
            "mode": "always", "threshold": 10, "descriptor": "pointer", "detail": "full",
            "operation": "rows"}}}))
        .unwrap();
        let mut env = OffloadConfig::default();
        env.apply_env([(
            "ATLATL_PROMPT__OFFLOAD__TOOLS__DB",
            "db_*:mode=always,threshold=10,descriptor=pointer,detail=full,operation=rows",
        )])
        .unwrap();
        let mut text = OffloadConfig::default();
        text.apply_tool_rules_str(
            "db_*:mode=Always, threshold=10;db_*:descriptor=pointer,detail=full,operation=rows",
        )
        .unwrap();
        for config in [&toml, &json, &env, &text] {
            assert_eq!(
                rule_of(config, "db_list"),
                Some(("db_*".to_owned(), wanted.clone()))
            );
            assert!(config.validate().is_ok());
        }
        let round: OffloadConfig =
            serde_json::from_value(serde_json::to_value(&toml).unwrap()).unwrap();
        assert_eq!(round, toml);
    }

    #[test]
    fn later_sources_change_the_keys_they_give() {
        let mut config = OffloadConfig::from_toml_str(
            "[prompt.offload.tools.search]\nmode = \"never\"\ndescriptor = \"compact\"\n",
        )
        .unwrap();
        config.apply_tool_rules_str("search:mode=auto").unwrap();
        let (_, rule) = rule_of(&config, "search").unwrap();
        assert_eq!(
            (rule.mode, rule.descriptor),
            (Some(OffloadMode::Auto), Some(DescriptorProfile::Compact))
        );
        assert!(!config.never_offloads("search"));
        config.apply_tool_rules_str("search:mode=never").unwrap();
        assert!(config.never_offloads("search") && !config.never_offloads("other"));
    }

    #[test]
    fn mistakes_are_invalid_config_naming_where_they_are() {
        let toml_cases = [
            (
                "[prompt.offload.tools.\"a b\"]\nmode = \"never\"\n",
                "invalid tool pattern \"a b\" in prompt.offload.tools",
            ),
            (
                "[prompt.offload.tools.x]\nmood = \"never\"\n",
                "unknown key prompt.offload.tools.\"x\".mood",
            ),
            (
                "[prompt.offload.tools.x]\nmode = \"sometimes\"\n",
                "invalid value for prompt.offload.tools.\"x\".mode: \"sometimes\" (expected \"auto\", \"never\" or \"always\")",
            ),
            (
                "[prompt.offload.tools.x]\nthreshold = -1\n",
                "invalid value for prompt.offload.tools.\"x\".threshold",
            ),
            (
                "[prompt.offload.tools.x]\noperation = \"../x\"\n",
                "invalid value for prompt.offload.tools.\"x\".operation",
            ),
            (
                "[prompt.offload]\ntools = 5\n",
                "prompt.offload.tools must be a table",
            ),
            (
                "[prompt.offload.tools]\nx = 5\n",
                "prompt.offload.tools.\"x\" must be a table of mode, threshold",
            ),
        ];
        for (text, says) in toml_cases {
            let err = OffloadConfig::from_toml_str(text).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{text}");
            assert!(err.message().starts_with(says), "{text}: {err}");
        }
        let env_cases = [
            (
                "fs_*",
                "ATLATL_PROMPT__OFFLOAD__TOOLS__FS: tool rule \"fs_*\": expected PATTERN:KEY=VALUE",
            ),
            (
                "fs_*:never",
                "ATLATL_PROMPT__OFFLOAD__TOOLS__FS: tool rule \"fs_*:never\": expected KEY=VALUE",
            ),
            (
                "f s:mode=never",
                "ATLATL_PROMPT__OFFLOAD__TOOLS__FS: invalid tool pattern \"f s\" in a tool rule",
            ),
            (
                "fs_*:detail=most",
                "ATLATL_PROMPT__OFFLOAD__TOOLS__FS: invalid value for prompt.offload.tools.\"fs_*\".detail: \"most\"",
            ),
        ];
        for (value, says) in env_cases {
            let mut config = OffloadConfig::default();
            let err = config
                .apply_env([("ATLATL_PROMPT__OFFLOAD__TOOLS__FS", value)])
                .unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidConfig, "{value}");
            assert!(err.message().starts_with(says), "{value}: {err}");
        }
        let mut built = OffloadConfig::default();
        built.tools.insert("a b".to_owned(), ToolRule::default());
        assert!(built.validate().is_err());
        let mut built = OffloadConfig::default();
        built.tools.insert(
            "x".to_owned(),
            ToolRule {
                operation: Some("../x".to_owned()),
                ..ToolRule::default()
            },
        );
        let err = built.validate().unwrap_err();
        assert!(err.message().contains("tools.\"x\".operation"), "{err}");
    }

    #[test]
    fn a_calls_rule_is_read_as_the_configuration_reads_rules() {
        let rule =
            ToolRule::from_json(&serde_json::json!({"mode": "Never", "threshold": null})).unwrap();
        assert_eq!(rule.mode, Some(OffloadMode::Never));
        let via_serde: ToolRule = serde_json::from_str(r#"{"threshold": 5}"#).unwrap();
        assert_eq!(via_serde.threshold, Some(5));
        for (bad, says) in [
            (
                serde_json::json!({"mode": "sometimes"}),
                "invalid value for rule.mode",
            ),
            (
                serde_json::json!({"mood": "never"}),
                "unknown key rule.mood",
            ),
            (serde_json::json!(5), "a tool rule must be an object"),
        ] {
            let err = ToolRule::from_json(&bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArgument);
            assert!(err.message().starts_with(says), "{err}");
        }
    }

    #[test]
    fn every_rule_key_takes_its_sample_and_refuses_its_bad_value() {
        for key in TOOL_KEYS {
            let sample: serde_json::Value = serde_json::from_str(key.sample).unwrap();
            let mut rule = ToolRule::default();
            key.set_as(&mut rule, key.name, &RawValue::Json(&sample))
                .unwrap();
            assert_eq!(key.value(&rule), sample, "{}", key.name);
            let bad: serde_json::Value = serde_json::from_str(key.bad).unwrap();
            assert!(
                key.set_as(&mut rule, key.name, &RawValue::Json(&bad))
                    .is_err()
            );
        }
    }
}
