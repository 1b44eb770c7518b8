//! What an offload returns: the descriptor of the written file, or the result inline.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::descriptor::OffloadResponse;
use crate::estimate::EstimateReport;

/// A result returned inline (below the threshold, LRO disabled, or the write failed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InlineResult {
    /// Always `false`.
    pub offloaded: bool,
    /// Estimated tokens of the whole result set.
    pub estimated_tokens: usize,
    /// How `estimated_tokens` were counted, when an estimator counted them (`o200k`,
    /// `cl100k`: exactly, or on a sample); absent for the heuristic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<EstimateReport>,
    /// Records in `results`.
    pub count: usize,
    /// The records (MIF memories at the detail level; other data as given).
    pub results: Value,
    /// The pagination cursor of the request, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Set when the write failed and `results` were cut to fit the threshold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Records in the full result set, when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_count: Option<usize>,
    /// Why the result is truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The threshold applied, when the call gave `context_remaining_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_tokens: Option<usize>,
}

/// The outcome of an offload decision. As JSON (what every binding returns), an offloaded
/// outcome is the descriptor of the chosen profile.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    /// Written to a file; here is the descriptor.
    Offloaded(Box<OffloadResponse>),
    /// Returned inline.
    Inline(InlineResult),
}

impl Outcome {
    /// The descriptor, when offloaded.
    pub fn offloaded(&self) -> Option<&OffloadResponse> {
        match self {
            Self::Offloaded(r) => Some(r),
            Self::Inline(_) => None,
        }
    }

    /// The JSON form every binding returns.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for Outcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Offloaded(response) => match &response.brief {
                Some(brief) => brief.serialize(serializer),
                None => response.serialize(serializer),
            },
            Self::Inline(inline) => inline.serialize(serializer),
        }
    }
}
