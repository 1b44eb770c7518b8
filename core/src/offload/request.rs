//! What a caller asks of an offload: [`OffloadRequest`], read from the bindings' JSON with
//! typed errors.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{DescriptorProfile, OffloadMode, ToolRule, is_safe_name};
use crate::detail::Detail;
use crate::error::{ErrorCode, LroError, Result};

/// What the caller asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OffloadRequest {
    /// The operation (`recall`, `search`, `inject`, `list`, or a tool name); goes into the
    /// file name, so it is limited to `A-Z a-z 0-9 _ - .`.
    pub operation: String,
    /// Detail level for MIF memories; `None` takes the operation's default.
    pub detail: Option<Detail>,
    /// The query string, recorded in the header.
    pub query: Option<String>,
    /// Search scores of the records, for `summary.score_range` (never written to the file).
    pub scores: Option<Vec<f64>>,
    /// A pagination cursor: returned with inline results, dropped when offloaded (the file
    /// holds the complete set).
    pub next_cursor: Option<String>,
    /// The descriptor profile for this call; `None` takes the configuration's.
    pub descriptor: Option<DescriptorProfile>,
    /// The tokens left in the caller's context window: when given, the threshold is
    /// `min(threshold_tokens, adaptive_ratio x context_remaining_tokens)` and the outcome
    /// reports it as `threshold_tokens`.
    pub context_remaining_tokens: Option<u64>,
    /// The extract tool's name as listed to the client, which the native guidance and the
    /// descriptor's `extract_tool` name; `None` takes `mcp.extract_tool_name`, else
    /// `lro_extract`.
    pub extract_tool: Option<String>,
    /// Whether to offload, for this call: `never` returns the result inline whatever its
    /// size, `always` offloads it however small (when LRO is enabled); `None` or `auto`:
    /// past the threshold.
    pub mode: Option<OffloadMode>,
    /// The threshold for this call, in place of `threshold_tokens` (a
    /// `context_remaining_tokens` still lowers it).
    pub threshold: Option<u32>,
}

impl Default for OffloadRequest {
    fn default() -> Self {
        Self {
            operation: "recall".to_owned(),
            detail: None,
            query: None,
            scores: None,
            next_cursor: None,
            descriptor: None,
            context_remaining_tokens: None,
            extract_tool: None,
            mode: None,
            threshold: None,
        }
    }
}

impl OffloadRequest {
    /// Reads a request from JSON (what the bindings receive), with typed errors: an unknown
    /// detail level is `invalid_detail`, any other mistake `invalid_argument`.
    pub fn from_json(value: &Value) -> Result<Self> {
        // The detail and profile names are parsed on their own (case-insensitively, as the
        // configuration reads them, each with its own error); the rest of the request is
        // deserialized without them.
        let mut rest = value.clone();
        let mut take = |key: &str| rest.as_object_mut().and_then(|m| m.remove(key));
        let detail = match take("detail") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.parse::<Detail>()?),
            Some(other) => {
                return Err(LroError::new(
                    ErrorCode::InvalidDetail,
                    format!("detail must be a string, got {other}"),
                ));
            }
        };
        let descriptor = match take("descriptor") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.parse::<DescriptorProfile>()?),
            Some(other) => {
                return Err(LroError::new(
                    ErrorCode::InvalidArgument,
                    format!("descriptor must be a string, got {other}"),
                ));
            }
        };
        let request: Self = from_json_value(&rest, "offload request")?;
        Ok(Self {
            detail,
            descriptor,
            ..request
        })
    }

    /// This request under a tool's rule ([`ToolRule`]): the rule's `mode`, `threshold`,
    /// `descriptor` and `detail` where the request has none (what a call asks is more
    /// specific than any pattern), and its `operation` in place of the one the tool's name
    /// gave.
    #[must_use]
    pub fn with_rule(mut self, rule: &ToolRule) -> Self {
        self.mode = self.mode.or(rule.mode);
        self.threshold = self.threshold.or(rule.threshold);
        self.descriptor = self.descriptor.or(rule.descriptor);
        self.detail = self.detail.or(rule.detail);
        if let Some(operation) = &rule.operation {
            self.operation.clone_from(operation);
        }
        self
    }

    /// A request for `operation` with everything else defaulted.
    pub fn new(operation: impl Into<String>) -> Self {
        Self {
            operation: operation.into(),
            ..Self::default()
        }
    }
}

pub(crate) fn check_operation(operation: &str) -> Result<()> {
    if is_safe_name(operation) {
        Ok(())
    } else {
        Err(LroError::new(
            ErrorCode::InvalidOperation,
            format!("invalid operation {operation:?}: use 1-64 characters from A-Z a-z 0-9 _ - ."),
        ))
    }
}

/// Deserializes `value` as `T`, mapping serde errors to `invalid_argument`.
pub fn from_json_value<T: serde::de::DeserializeOwned>(value: &Value, what: &str) -> Result<T> {
    T::deserialize(value)
        .map_err(|e| LroError::new(ErrorCode::InvalidArgument, format!("invalid {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn request_profile_names_read_as_the_configuration_reads_them() {
        for (given, profile) in [
            ("pointer", DescriptorProfile::Pointer),
            ("Compact", DescriptorProfile::Compact),
            (" FULL ", DescriptorProfile::Full),
        ] {
            let request = OffloadRequest::from_json(&json!({"descriptor": given})).unwrap();
            assert_eq!(request.descriptor, Some(profile), "{given}");
        }
        let none = OffloadRequest::from_json(&json!({"descriptor": null})).unwrap();
        assert_eq!(none.descriptor, None);
        for bad in [json!({"descriptor": "tiny"}), json!({"descriptor": 1})] {
            let err = OffloadRequest::from_json(&bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArgument, "{bad}");
        }
    }
}
