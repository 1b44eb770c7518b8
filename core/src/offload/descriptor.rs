//! The descriptor of a written file: summary, line schema, the ten recipes, guidance, and
//! what LRO adds for results that are more than one array (format, sections, envelope).
//!
//! A descriptor has a budget, whatever the result looked like: at most
//! [`DESCRIPTOR_BUDGET_TOKENS`] estimated tokens as compact JSON, so that an offloaded MCP
//! result, which carries it twice (a text block and `structuredContent`), stays within twice
//! that. What can grow with the data is bounded where it is made (the envelope, recipe
//! examples, field names a recipe reads, sections listed); what is still too large is then
//! given up in this order until the descriptor fits: the line schema's properties beyond 16,
//! their types, the sections listed beyond 4, the long guidance, the schema's remaining
//! properties, long recipe descriptions. With `preview_records`, the file's first records
//! then fill the room left (`descriptor/preview.rs`). The file path appears in every recipe, as the
//! specification requires: the budget is reckoned with a path of [`NOMINAL_PATH_BYTES`], so
//! a descriptor is the same wherever its file went, and holds for paths up to that length.

use serde_json::Value;

use crate::config::DescriptorProfile;
use crate::descriptor::{
    self, Brief, DESCRIPTOR_BUDGET_TOKENS, JqRecipe, MAX_LISTED_SECTIONS, OffloadResponse,
    OffloadSummary, Parts, SectionInfo, labels,
};
use crate::host::Host;
use crate::offload::prepared::{Prepared, score_range};
use crate::offload::request::OffloadRequest;
use crate::offloader::Offloader;
use crate::payload::RecordKind;
use crate::profile::SAMPLE_SIZE;
use crate::recipes::{self, Recipe};
use crate::schema::{self, Shrink};
use crate::tally::Tally;

/// Builds the descriptor of a written file.
pub(crate) fn describe<H: Host>(
    lro: &Offloader<H>,
    prepared: &Prepared<'_>,
    request: &OffloadRequest,
    file_path: String,
) -> OffloadResponse {
    let (body, kind, tokens, count) = (
        &prepared.body,
        prepared.kind,
        prepared.tokens,
        prepared.count(),
    );
    let tally = prepared
        .records
        .as_deref()
        .map_or_else(|| Tally::of(body), Tally::of_values);
    let (line_schema, recipes) = match kind {
        RecordKind::Mif(detail) => (
            schema::mif_schema(detail),
            recipes::mif_recipes(detail, &tally.examples),
        ),
        RecordKind::Raw => {
            let sections = labels::shown(&prepared.all_sections());
            let samples = samples(prepared, &sections);
            (
                schema::for_sections(&sections, &samples),
                recipes::for_sections(&sections, &samples),
            )
        }
    };
    // Section names are the data's keys: shown cut when long (the header keeps them).
    let shown = labels::shown(&prepared.sections);
    let extract_tool = request
        .extract_tool
        .clone()
        .or_else(|| lro.config.mcp.extract_tool_name.clone())
        .unwrap_or_else(|| crate::mcp::DEFAULT_EXTRACT_TOOL.to_owned());
    let resource_uri = crate::files::uri_for_path(&file_path);
    let guidance = descriptor::guidance(
        lro.config.guidance,
        kind,
        prepared.format,
        &shown,
        count,
        tokens,
        &file_path,
        &recipes,
        &extract_tool,
    );
    let summary = OffloadSummary {
        count,
        estimated_tokens: tokens,
        estimate: prepared.estimate.clone(),
        operation: request.operation.clone(),
        top_namespaces: labels::bounded(&tally.top_namespaces),
        score_range: score_range(request.scores.as_deref()),
        detail: kind.detail_name().to_owned(),
    };
    let threshold_tokens = lro.reported_threshold(request);
    // The file's first records, when a preview was asked for.
    let asked = usize::try_from(lro.config.preview_records).unwrap_or(usize::MAX);
    let preview: Vec<Value> = (0..asked.min(count)).map(|i| body.value(i)).collect();
    let parts = Parts {
        mode: lro.config.guidance,
        kind,
        format: prepared.format,
        summary: &summary,
        file_path: &file_path,
        resource_uri: &resource_uri,
        extract_tool: &extract_tool,
        recipes: &recipes,
        sections: &shown,
        envelope: (!prepared.envelope.is_empty()).then_some(&prepared.envelope),
        threshold_tokens,
        duplicate_keys: prepared.duplicate_keys,
        preview: &preview,
    };
    let brief = match request.descriptor.unwrap_or(lro.config.descriptor) {
        DescriptorProfile::Full => None,
        DescriptorProfile::Compact => Some(Brief::Compact(Box::new(descriptor::compact(
            &parts,
            &*lro.estimator,
        )))),
        DescriptorProfile::Pointer => {
            Some(Brief::Pointer(descriptor::pointer(&parts, &*lro.estimator)))
        }
    };
    let response = OffloadResponse {
        offloaded: true,
        summary,
        jq_recipes: recipes
            .iter()
            .map(|r| to_jq_recipe(r, &file_path))
            .collect(),
        file_path,
        resource_uri,
        extract_tool: (lro.config.guidance == crate::config::GuidanceMode::Native)
            .then_some(extract_tool),
        line_schema,
        guidance,
        format: prepared.format,
        sections: shown.iter().take(MAX_LISTED_SECTIONS).cloned().collect(),
        envelope: (!prepared.envelope.is_empty()).then(|| prepared.envelope.clone()),
        threshold_tokens,
        warning: descriptor::duplicate_keys_warning(prepared.duplicate_keys),
        preview: None,
        brief,
    };
    fit(lro, response, kind, &preview)
}

/// Gives up parts of `response` until it fits [`DESCRIPTOR_BUDGET_TOKENS`], then adds the
/// `preview` records that fit in the room left (a preview asked for keeps room for its note).
fn fit<H: Host>(
    lro: &Offloader<H>,
    mut response: OffloadResponse,
    kind: RecordKind,
    preview: &[Value],
) -> OffloadResponse {
    let steps: [&dyn Fn(&mut OffloadResponse); 6] = [
        &|r| schema::shrink(&mut r.line_schema, Shrink::FewerProperties),
        &|r| schema::shrink(&mut r.line_schema, Shrink::NamesOnly),
        &|r| r.sections.truncate(4),
        &|r| {
            r.guidance = descriptor::short_guidance(
                lro.config.guidance,
                kind,
                r.summary.count,
                r.summary.estimated_tokens,
                &r.file_path,
                r.extract_tool
                    .as_deref()
                    .unwrap_or(crate::mcp::DEFAULT_EXTRACT_TOOL),
            );
        },
        &|r| schema::shrink(&mut r.line_schema, Shrink::TitleOnly),
        &|r| {
            for recipe in &mut r.jq_recipes {
                if let Some((cut, _)) = recipe.description.char_indices().nth(48) {
                    recipe.description.truncate(cut);
                    recipe.description.push('…');
                }
            }
        },
    ];
    // An offloaded MCP result carries the descriptor once, twice with
    // `mcp.structured_content`, and with `mcp.resource_link` a resource link too: then
    // half the link's cost (reckoned for a file name of NOMINAL_PATH_BYTES) is set
    // aside, so the whole result stays within twice DESCRIPTOR_BUDGET_TOKENS.
    let link = if lro.config.mcp.resource_link {
        lro.estimate(&crate::files::nominal_link_text()).div_ceil(2)
    } else {
        0
    };
    let budget = DESCRIPTOR_BUDGET_TOKENS.saturating_sub(link);
    let reserve = if preview.is_empty() {
        0
    } else {
        descriptor::NOTE_RESERVE_TOKENS
    };
    for step in steps {
        if budget_tokens(lro, &response) + reserve <= budget {
            break;
        }
        step(&mut response);
    }
    response.preview = descriptor::fitted_preview(preview, budget, |shown| {
        response.preview = Some(shown.clone());
        budget_tokens(lro, &response) <= budget
    });
    response
}

/// The estimated tokens of `response` as compact JSON, its file path counted as
/// [`NOMINAL_PATH_BYTES`] long: what a descriptor gives up then depends on the data only,
/// not on where the file went, so every build (and every test directory) gives the same.
fn budget_tokens<H: Host>(lro: &Offloader<H>, response: &OffloadResponse) -> usize {
    descriptor::nominal_tokens(&*lro.estimator, response, &response.file_path)
}

/// The first records of each section (at most [`SAMPLE_SIZE`]), which recipes and schemas
/// are inferred from (native extraction samples the file the same way).
fn samples(prepared: &Prepared<'_>, sections: &[SectionInfo]) -> Vec<Vec<Value>> {
    sections
        .iter()
        .map(|section| {
            let first = section.first_line - 2;
            (first..first + section.count.min(SAMPLE_SIZE))
                .map(|i| prepared.body.value(i))
                .collect()
        })
        .collect()
}

fn to_jq_recipe(recipe: &Recipe, file_path: &str) -> JqRecipe {
    JqRecipe {
        description: recipe.description.clone(),
        command: recipe.shell_command(file_path),
    }
}
