//! The smaller descriptors an operator or a call may choose (`descriptor = "compact"` or
//! `"pointer"`), built from the same parts as the full one.
//!
//! - **compact**: the summary, the file path, the recipes as one short line each, the
//!   sections and small fields when there are some, and one paragraph of guidance; at most
//!   [`COMPACT_BUDGET_TOKENS`].
//! - **pointer**: `offloaded`, `file_path`, `resource_uri`, `count` and one line of guidance (the paper's
//!   bare pointer, C4); at most [`POINTER_BUDGET_TOKENS`].
//!
//! Both the full and the compact descriptor show the file's first records with
//! `preview_records`, within their budget (see `preview.rs`); the pointer never does.
//!
//! Nothing is lost by choosing less: the file is the same whatever profile described it,
//! and the extract tool's `describe=true` rebuilds the full descriptor from it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{NOMINAL_PATH_BYTES, OffloadSummary, Preview, SectionInfo};
use crate::config::GuidanceMode;
use crate::estimate::TokenEstimator;
use crate::payload::RecordKind;
use crate::recipes::Recipe;
use crate::shape::Format;

/// Most estimated tokens of a compact descriptor, as compact JSON, its file path reckoned as
/// [`NOMINAL_PATH_BYTES`] long.
pub const COMPACT_BUDGET_TOKENS: usize = 350;
/// Most estimated tokens of a pointer descriptor, reckoned the same way: the bare pointer's
/// 80, and 20 for its `resource_uri` (the link travels in the descriptor).
pub const POINTER_BUDGET_TOKENS: usize = 100;

/// Sections a compact descriptor lists at first (the header lists every one).
const COMPACT_SECTIONS: usize = 4;

/// The compact descriptor (`descriptor = "compact"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactDescriptor {
    /// Always `true`.
    pub offloaded: bool,
    /// The full descriptor's summary.
    pub summary: OffloadSummary,
    /// Where the records are.
    pub file_path: String,
    /// The file as an MCP resource (`lro://offloads/{file name}`).
    pub resource_uri: String,
    /// The extract tool's name as listed, with the native guidance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract_tool: Option<String>,
    /// The ten recipes, one line each: `6. Count by namespace: jq -s '...'` (the jq part
    /// only in the shell guidance mode, and only while it fits).
    pub recipes: Vec<String>,
    /// Where each group of records sits, when the result was not one plain array.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionInfo>,
    /// The small fields of an object result, while they fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Map<String, Value>>,
    /// One paragraph: what the file holds and how to query it.
    pub guidance: String,
    /// The threshold applied, when the call gave `context_remaining_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_tokens: Option<usize>,
    /// What the records do not show: keys the result's JSON text named twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The file's first records, with `preview_records` (as many as fit the budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
}

/// The pointer descriptor (`descriptor = "pointer"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointerDescriptor {
    /// Always `true`.
    pub offloaded: bool,
    /// Where the records are.
    pub file_path: String,
    /// The file as an MCP resource (`lro://offloads/{file name}`).
    pub resource_uri: String,
    /// Records in the file.
    pub count: usize,
    /// One line: how to read the file.
    pub guidance: String,
    /// The threshold applied, when the call gave `context_remaining_tokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_tokens: Option<usize>,
    /// What the records do not show: keys the result's JSON text named twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// A descriptor smaller than the full one, as chosen by the profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Brief {
    /// `descriptor = "compact"`.
    Compact(Box<CompactDescriptor>),
    /// `descriptor = "pointer"`.
    Pointer(PointerDescriptor),
}

/// What the compact and pointer descriptors are made from: the parts of the full one
/// before it was fitted to its own budget.
pub(crate) struct Parts<'a> {
    pub mode: GuidanceMode,
    pub kind: RecordKind,
    pub format: Format,
    pub summary: &'a OffloadSummary,
    pub file_path: &'a str,
    pub resource_uri: &'a str,
    /// The extract tool's name, which the native guidance names.
    pub extract_tool: &'a str,
    pub recipes: &'a [Recipe],
    pub sections: &'a [SectionInfo],
    pub envelope: Option<&'a Map<String, Value>>,
    pub threshold_tokens: Option<usize>,
    /// Keys the result's JSON text named twice (0: no warning).
    pub duplicate_keys: usize,
    /// The file's first records, when a preview was asked for (empty otherwise).
    pub preview: &'a [Value],
}

/// The estimated tokens of `value` as compact JSON with `path` reckoned as
/// [`NOMINAL_PATH_BYTES`] long (so a descriptor does not depend on where its file went).
pub(crate) fn nominal_tokens<T: Serialize>(
    estimator: &dyn TokenEstimator,
    value: &T,
    path: &str,
) -> usize {
    nominal_text_tokens(
        estimator,
        &serde_json::to_string(value).unwrap_or_default(),
        path,
    )
}

/// [`nominal_tokens`] of a text: one copy for every type of descriptor.
fn nominal_text_tokens(estimator: &dyn TokenEstimator, text: &str, path: &str) -> usize {
    let nominal = "p".repeat(NOMINAL_PATH_BYTES);
    let mut text = text.replace(path, &nominal);
    // The file's name is in the resource URI too, and ends with its ULID, which an exact
    // tokenizer counts differently each time (the heuristic sees 26 characters whatever they
    // are): reckon one ULID for every file, so the descriptor never depends on the draw.
    if let Some(ulid) = file_ulid(path) {
        text = text.replace(ulid, NOMINAL_ULID);
    }
    estimator.estimate(&text)
}

/// The ULID every file name is reckoned with: 26 characters, as every ULID.
const NOMINAL_ULID: &str = "00000000000000000000000000";

/// The ULID that ends the name of the file at `path` (`{prefix}-{operation}-{ulid}.jsonl`).
fn file_ulid(path: &str) -> Option<&str> {
    let stem = path.strip_suffix(".jsonl")?;
    let ulid = stem.get(stem.len().checked_sub(NOMINAL_ULID.len())?..)?;
    ulid.bytes()
        .all(|b| b.is_ascii_alphanumeric())
        .then_some(ulid)
}

/// The compact descriptor of `parts`, fitted to [`COMPACT_BUDGET_TOKENS`].
pub(crate) fn compact(parts: &Parts<'_>, estimator: &dyn TokenEstimator) -> CompactDescriptor {
    let with_commands = parts.mode == GuidanceMode::Shell;
    let mut commands: Vec<Option<String>> = parts
        .recipes
        .iter()
        .map(|r| with_commands.then(|| jq_part(r)))
        .collect();
    let mut descriptor = CompactDescriptor {
        offloaded: true,
        summary: parts.summary.clone(),
        file_path: parts.file_path.to_owned(),
        resource_uri: parts.resource_uri.to_owned(),
        extract_tool: (parts.mode == GuidanceMode::Native).then(|| parts.extract_tool.to_owned()),
        recipes: Vec::new(),
        sections: parts
            .sections
            .iter()
            .take(COMPACT_SECTIONS)
            .cloned()
            .collect(),
        envelope: parts.envelope.cloned(),
        guidance: compact_guidance(parts),
        threshold_tokens: parts.threshold_tokens,
        warning: super::duplicate_keys_warning(parts.duplicate_keys),
        // As many of the records asked for as a compact budget could hold at all.
        preview: (!parts.preview.is_empty()).then(|| {
            Preview::first(
                parts.preview,
                super::preview::may_fit(parts.preview, COMPACT_BUDGET_TOKENS),
            )
        }),
    };
    let mut describe_width = usize::MAX;
    // The warning holds whatever count fits any budget (a test widens it to the largest);
    // a preview, which fills what room is left, leaves it that room.
    let slack = match &descriptor.warning {
        Some(warning) if descriptor.preview.is_some() => {
            let widest = super::duplicate_keys_warning(usize::MAX).unwrap_or_default();
            estimator
                .estimate(&widest)
                .saturating_sub(estimator.estimate(warning))
        }
        _ => 0,
    };
    let over = |d: &CompactDescriptor| {
        nominal_tokens(estimator, d, parts.file_path) + slack > COMPACT_BUDGET_TOKENS
    };
    // Give up what matters least first: the longest commands one by one (each still runs as
    // recipe N natively, and the full descriptor has them all), the preview's records from
    // the last (its note says how many are left), the envelope, sections beyond two, long
    // descriptions, namespaces beyond three.
    for step in 0.. {
        descriptor.recipes = recipe_lines(parts.recipes, &commands, describe_width);
        if !over(&descriptor) {
            break;
        }
        let longest = (0..commands.len())
            .filter(|&i| commands[i].is_some())
            .max_by_key(|&i| commands[i].as_ref().map_or(0, String::len));
        if let Some(i) = longest {
            commands[i] = None;
            continue;
        }
        match step {
            _ if descriptor
                .preview
                .as_ref()
                .is_some_and(|p| !p.records.is_empty()) =>
            {
                let shown = descriptor.preview.as_ref().map_or(0, |p| p.records.len());
                descriptor.preview = Some(Preview::first(parts.preview, shown - 1));
            }
            _ if descriptor.envelope.is_some() => descriptor.envelope = None,
            _ if descriptor.sections.len() > 2 => descriptor.sections.truncate(2),
            _ if describe_width > 32 => describe_width = 32,
            _ if descriptor.summary.top_namespaces.len() > 3 => {
                descriptor.summary.top_namespaces.truncate(3);
            }
            _ => break,
        }
    }
    descriptor
}

/// The pointer descriptor of `parts`.
pub(crate) fn pointer(parts: &Parts<'_>, estimator: &dyn TokenEstimator) -> PointerDescriptor {
    let guidance = match parts.mode {
        GuidanceMode::Shell => {
            let read = read_records(parts.file_path);
            format!(
                "JSON lines; line 1 is a header{}: {read} | jq 'select(...)', FILE being file_path.",
                if parts.sections.is_empty() {
                    ""
                } else {
                    " listing sections"
                }
            )
        }
        GuidanceMode::Native => format!(
            "Query with {}(file_path, where={{...}} or recipe=1-10); describe=true gives the \
             schema and recipes.",
            parts.extract_tool
        ),
    };
    let mut descriptor = PointerDescriptor {
        offloaded: true,
        file_path: parts.file_path.to_owned(),
        resource_uri: parts.resource_uri.to_owned(),
        count: parts.summary.count,
        guidance,
        threshold_tokens: parts.threshold_tokens,
        warning: super::duplicate_keys_note(parts.duplicate_keys),
    };
    if parts.mode == GuidanceMode::Native {
        // How to pass the result on, when it fits: a pointer that must also carry a warning
        // keeps the warning instead.
        let guidance = descriptor.guidance.clone();
        descriptor.guidance.push_str(POINTER_PASS_ON);
        if nominal_tokens(estimator, &descriptor, parts.file_path) > POINTER_BUDGET_TOKENS {
            descriptor.guidance = guidance;
        }
    }
    descriptor
}

/// The pointer's sentence on passing the result on (a result handle in a tool's arguments).
const POINTER_PASS_ON: &str = " Pass on as a tool argument: {\"$lro\": resource_uri}.";

/// `N. Description: jq part`, or `N. Description` when there is no command to show.
fn recipe_lines(recipes: &[Recipe], commands: &[Option<String>], width: usize) -> Vec<String> {
    recipes
        .iter()
        .zip(commands)
        .map(|(recipe, command)| {
            let mut description = recipe.description.clone();
            if let Some((cut, _)) = description.char_indices().nth(width) {
                description.truncate(cut);
                description.push('…');
            }
            match command {
                Some(command) => format!("{}. {description}: {command}", recipe.number),
                None => format!("{}. {description}", recipe.number),
            }
        })
        .collect()
}

/// The part of a recipe's shell command after the records are read: `jq -s '...'` for a
/// recipe over every record; a recipe over one section keeps its `sed -n 'A,Bp' FILE`.
fn jq_part(recipe: &Recipe) -> String {
    let command = recipe.shell_command("FILE");
    match command.strip_prefix("tail -n +2 FILE | ") {
        Some(jq) => jq.to_owned(),
        None => command,
    }
}

/// How a shell reads the records of the file (named `FILE` in the guidance).
fn read_records(path: &str) -> &'static str {
    if path.starts_with("s3://") {
        "aws s3 cp FILE - | tail -n +2"
    } else {
        "tail -n +2 FILE"
    }
}

/// One paragraph: what was offloaded, how the file is laid out, how to run a recipe.
fn compact_guidance(parts: &Parts<'_>) -> String {
    let count = parts.summary.count;
    let noun = match (parts.kind, parts.format) {
        (RecordKind::Mif(_), _) => "memories",
        (RecordKind::Raw, Format::Text) => "lines",
        (RecordKind::Raw, _) => "records",
    };
    let tokens = parts.summary.estimated_tokens;
    let opening = format!("{count} {noun} offloaded to JSONL (~{tokens} tokens saved).");
    match parts.mode {
        GuidanceMode::Shell => {
            let read = read_records(parts.file_path);
            format!(
                "{opening} Line 1 of the file is a header; records start at line 2. FILE is \
                 file_path: run a recipe as {read} | <its jq>."
            )
        }
        GuidanceMode::Native => format!(
            "{opening} Query with the {tool} tool{note}: {tool}(file_path=..., recipe=N), a \
             MongoDB filter where={{...}} or a jq query; describe=true returns the line schema \
             and each recipe's command. To pass the records to another tool, give its argument \
             as {{\"$lro\": resource_uri, \"where\": {{...}}, \"as\": \"jsonl\"}}.",
            tool = parts.extract_tool,
            note = super::guidance::PREFIX_NOTE,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_ulid_is_reckoned_the_same_whatever_it_is() {
        // An estimator that, like a BPE tokenizer, sees which characters a ULID has.
        let zs = |text: &str| text.matches('Z').count();
        let count = |name: &str| {
            let path = format!("/tmp/lro/{name}");
            let value = serde_json::json!({"file_path": path, "resource_uri": format!("lro://offloads/{name}")});
            nominal_tokens(&zs, &value, &path)
        };
        assert_eq!(
            count("atlatl-recall-01ZZZZZZZZZZZZZZZZZZZZZZZZ.jsonl"),
            count("atlatl-recall-01J0000000000000000000000A.jsonl")
        );
        assert_eq!(
            file_ulid("/d/atlatl-a-b-01J0000000000000000000000A.jsonl"),
            Some("01J0000000000000000000000A")
        );
        assert_eq!(file_ulid("/d/short.jsonl"), None);
    }
}
