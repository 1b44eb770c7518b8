//! Results returned inline: below the threshold as they came, and, when the file could not
//! be written, the fallback that offloading promises: as many leading records as fit the
//! threshold, marked `truncated`, with the reason. Offloading never fails a tool call.

use serde_json::Value;

use crate::host::Host;
use crate::json::fields;
use crate::jsonl::Body;
use crate::offload::outcome::{InlineResult, Outcome};
use crate::offload::prepared::Prepared;
use crate::offload::request::OffloadRequest;
use crate::offloader::Offloader;
use crate::payload::RecordKind;
use crate::shape::Format;

/// The inline result of records known only as lines. Raw lines are the records as
/// given; MIF lines are projected, which is what an inline MIF result returns anyway.
pub(crate) fn inline_lines<H: Host>(
    lro: &Offloader<H>,
    prepared: &Prepared<'_>,
    request: &OffloadRequest,
) -> Outcome {
    let records = Value::Array(
        (0..prepared.count())
            .map(|i| prepared.body.value(i))
            .collect(),
    );
    Outcome::Inline(inline(lro, &records, prepared, request))
}

/// The inline result of `original`, which stays inline as it came (MIF memories
/// projected at the request's detail level).
pub(crate) fn inline<H: Host>(
    lro: &Offloader<H>,
    original: &Value,
    prepared: &Prepared<'_>,
    request: &OffloadRequest,
) -> InlineResult {
    let results = match prepared.kind {
        RecordKind::Mif(_) if original.is_array() => Value::Array(
            (0..prepared.count())
                .map(|i| prepared.body.value(i))
                .collect(),
        ),
        _ => original.clone(),
    };
    InlineResult {
        offloaded: false,
        estimated_tokens: prepared.tokens,
        estimate: prepared.estimate.clone(),
        count: prepared.count(),
        results,
        next_cursor: request.next_cursor.clone(),
        truncated: false,
        total_count: None,
        warning: crate::descriptor::duplicate_keys_warning(prepared.duplicate_keys),
        threshold_tokens: lro.reported_threshold(request),
    }
}

/// The inline fallback: as many leading records as fit within the threshold.
pub(crate) fn truncated<H: Host>(
    lro: &Offloader<H>,
    prepared: &Prepared<'_>,
    request: &OffloadRequest,
    error: &str,
) -> InlineResult {
    let body = &prepared.body;
    let budget = lro.threshold(request);
    let mut used = 0;
    let mut kept = 0;
    for i in 0..body.line_ends.len() {
        used += lro.estimator.estimate(body.line(i));
        if used > budget {
            break;
        }
        kept += 1;
    }
    let results = if prepared.sections.is_empty() {
        section_results(body, prepared.format, 0, kept)
    } else {
        // Each section under its name, cut where the kept records end; the envelope too.
        let mut object = prepared.envelope.clone();
        for section in &prepared.sections {
            let start = section.first_line - 2;
            let end = (start + section.count).min(kept.max(start));
            object.insert(
                section.label().to_owned(),
                section_results(body, section.format, start, end),
            );
        }
        Value::Object(object)
    };
    InlineResult {
        offloaded: false,
        estimated_tokens: prepared.tokens,
        estimate: prepared.estimate.clone(),
        count: kept,
        results,
        next_cursor: request.next_cursor.clone(),
        truncated: true,
        total_count: Some(prepared.count()),
        warning: Some(format!(
            "LRO could not write the offload file ({error}); returning the first {kept} of {} records, truncated to fit {budget} tokens.",
            prepared.count()
        )),
        threshold_tokens: lro.reported_threshold(request),
    }
}

/// Records `start..end` of the body as a result: the lines' text joined back for text,
/// else an array of the records.
fn section_results(body: &Body, format: Format, start: usize, end: usize) -> Value {
    if format == Format::Text {
        let text: Vec<String> = (start..end)
            .map(|i| {
                fields::get(body.line(i).as_bytes(), "text")
                    .and_then(fields::as_str)
                    .unwrap_or_default()
                    .into_owned()
            })
            .collect();
        return Value::from(text.join("\n"));
    }
    Value::Array((start..end).map(|i| body.value(i)).collect())
}
