//! A result set made ready to write: its records as lines, their kind (MIF memories or raw
//! records), format, sections and envelope, and its estimated tokens. Every entry point
//! (a `Value`, JSON text, lines a binding wrote, a text layout) ends in a [`Prepared`]; what
//! follows (the decision, the file, the descriptor, the fallback) reads only that.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::config::OffloadMode;
use crate::descriptor::SectionInfo;
use crate::error::Result;
use crate::estimate::EstimateReport;
use crate::host::Host;
use crate::jsonl::Body;
use crate::offload::request::{OffloadRequest, check_operation};
use crate::offloader::Offloader;
use crate::payload::{self, RecordKind};
use crate::profile::SAMPLE_SIZE;
use crate::shape::text_layout::TextLayout;
use crate::shape::{Format, Layout, tree};

/// A finished, serialized result set (shared by offload and the inject rule): everything
/// after this point reads the lines, whichever way the records arrived.
pub(crate) struct Prepared<'a> {
    pub(crate) body: Body,
    pub(crate) tokens: usize,
    /// How `tokens` were counted, when an estimator counted them (not the heuristic).
    pub(crate) estimate: Option<EstimateReport>,
    pub(crate) kind: RecordKind,
    /// How the records were read, when the file has no `sections`.
    pub(crate) format: Format,
    /// Where each group of records sits, when the result was not one plain array (empty
    /// otherwise).
    pub(crate) sections: Vec<SectionInfo>,
    /// The small fields of an object result, kept inline.
    pub(crate) envelope: Map<String, Value>,
    /// The records the body was written from, when they are one section of `Value`s.
    pub(crate) records: Option<Cow<'a, [Value]>>,
    /// Keys the result's JSON text named twice in one object (`crate::json::dupes`): the
    /// records kept the last value of each, the header and the descriptor say so.
    pub(crate) duplicate_keys: usize,
}

impl Prepared<'_> {
    pub(crate) fn count(&self) -> usize {
        self.body.len()
    }

    /// Every section of the body: the listed ones, or the whole body as one.
    pub(crate) fn all_sections(&self) -> Vec<SectionInfo> {
        if self.sections.is_empty() {
            vec![SectionInfo {
                name: None,
                first_line: 2,
                count: self.count(),
                format: self.format,
                tree: None,
                entries: false,
                table: None,
            }]
        } else {
            self.sections.clone()
        }
    }
}

pub(crate) fn prepare<'a, H: Host>(
    lro: &Offloader<H>,
    value: &'a Value,
    request: &OffloadRequest,
) -> Result<Prepared<'a>> {
    check_operation(&request.operation)?;
    let Layout {
        sections,
        envelope,
        duplicate_keys,
    } = Layout::of(value);
    let single_records = sections.len() == 1
        && sections[0].tree.is_none()
        && !sections[0].entries
        && sections[0].format != Format::Text;
    if single_records {
        // One array of records (maybe found in an object): MIF memories may be among them,
        // as the specification describes, so they are classified and projected.
        let section = sections
            .into_iter()
            .next()
            .unwrap_or_else(|| unreachable!());
        let records = section.records;
        let (kind, body) = Body::of_values(&records).classify_as(
            payload::is_mif(&records),
            &request.operation,
            request.detail,
        );
        let listed = section.name.map(|name| SectionInfo {
            name: Some(name),
            first_line: 2,
            count: body.len(),
            format: section.format,
            tree: None,
            entries: false,
            table: section.table,
        });
        let tokens = lro.estimator.estimate_utf8(&body.bytes);
        return Ok(Prepared {
            estimate: lro.estimate_report(&body.bytes),
            body,
            tokens,
            kind,
            format: if listed.is_some() {
                Format::Json
            } else {
                section.format
            },
            sections: listed.into_iter().collect(),
            envelope,
            records: Some(records),
            duplicate_keys,
        });
    }
    let mut body = Body::default();
    let mut infos = Vec::with_capacity(sections.len());
    for section in sections {
        let part = Body::of_values(&section.records);
        infos.push(SectionInfo {
            name: section.name,
            first_line: 2 + body.len(),
            count: part.len(),
            format: section.format,
            tree: section.tree,
            entries: section.entries,
            table: section.table,
        });
        body.append(part);
    }
    // One section that is only text, say: its format is the file's, no list needed.
    let mut format = Format::Json;
    if let [only] = infos.as_slice() {
        if only.name.is_none() && only.tree.is_none() && !only.entries {
            format = only.format;
            infos.clear();
        }
    }
    let tokens = lro.estimator.estimate_utf8(&body.bytes);
    Ok(Prepared {
        estimate: lro.estimate_report(&body.bytes),
        body,
        tokens,
        kind: RecordKind::Raw,
        format,
        sections: infos,
        envelope,
        records: None,
        duplicate_keys,
    })
}

/// [`prepare`] for a JSON array given as text, without a `Value` tree;
/// `None` when the text needs the `Value` path (not an array, invalid, unusual).
pub(crate) fn prepare_json<H: Host>(
    lro: &Offloader<H>,
    json: &[u8],
    request: &OffloadRequest,
) -> Result<Option<Prepared<'static>>> {
    check_operation(&request.operation)?;
    let Some((kind, body)) = Body::from_json_classified(json, &request.operation, request.detail)
    else {
        return Ok(None);
    };
    if kind == RecordKind::Raw && is_tree(&body) {
        // Trees are flattened on the `Value` path.
        return Ok(None);
    }
    Ok(Some(prepared_lines(lro, kind, body)))
}

pub(crate) fn prepare_lines<H: Host>(
    lro: &Offloader<H>,
    body: Body,
    request: &OffloadRequest,
) -> Result<Prepared<'static>> {
    check_operation(&request.operation)?;
    let (kind, body) = body.classify(&request.operation, request.detail);
    Ok(prepared_lines(lro, kind, body))
}

/// The preparation of records already written as lines, read as JSON records.
pub(crate) fn prepared_lines<H: Host>(
    lro: &Offloader<H>,
    kind: RecordKind,
    body: Body,
) -> Prepared<'static> {
    let tokens = lro.estimator.estimate_utf8(&body.bytes);
    Prepared {
        estimate: lro.estimate_report(&body.bytes),
        body,
        tokens,
        kind,
        format: Format::Json,
        sections: Vec::new(),
        envelope: Map::new(),
        records: None,
        duplicate_keys: 0,
    }
}

/// What [`Offloader::offload`]'s preparation makes of the same sections: one plain
/// section of records is classified (MIF memories are projected), several are listed.
pub(crate) fn prepared_layout<H: Host>(
    lro: &Offloader<H>,
    layout: TextLayout,
    request: &OffloadRequest,
) -> Prepared<'static> {
    // The keys named twice in the parts the layout parsed (crate::json::dupes).
    let (body, mut written, envelope, duplicate_keys) = layout.into_parts();
    let single_records = matches!(written.as_slice(), [only]
        if only.tree.is_none() && !only.entries && only.format != Format::Text);
    if single_records {
        let section = written.remove(0);
        let (kind, body) = body.classify(&request.operation, request.detail);
        let count = body.len();
        let mut prepared = prepared_lines(lro, kind, body);
        prepared.format = section.format;
        if let Some(name) = section.name {
            prepared.format = Format::Json;
            prepared.sections = vec![SectionInfo {
                name: Some(name),
                first_line: 2,
                count,
                format: section.format,
                tree: None,
                entries: false,
                table: section.table,
            }];
        }
        prepared.envelope = envelope;
        prepared.duplicate_keys = duplicate_keys;
        return prepared;
    }
    let mut first_line = 2;
    let mut sections: Vec<SectionInfo> = written
        .into_iter()
        .map(|section| {
            let info = SectionInfo {
                name: section.name,
                first_line,
                count: section.count,
                format: section.format,
                tree: section.tree,
                entries: section.entries,
                table: section.table,
            };
            first_line += section.count;
            info
        })
        .collect();
    // One section that is only text, say: its format is the file's, no list needed.
    let mut format = Format::Json;
    if let [only] = sections.as_slice() {
        if only.name.is_none() && only.tree.is_none() && !only.entries {
            format = only.format;
            sections.clear();
        }
    }
    let mut prepared = prepared_lines(lro, RecordKind::Raw, body);
    prepared.format = format;
    prepared.sections = sections;
    prepared.envelope = envelope;
    prepared.duplicate_keys = duplicate_keys;
    prepared
}
/// Whether `prepared` goes to a file: LRO is on and its tokens exceed the threshold.
pub(crate) fn offloads<H: Host>(
    lro: &Offloader<H>,
    prepared: &Prepared<'_>,
    request: &OffloadRequest,
) -> bool {
    lro.config.enabled
        && match request.mode {
            Some(OffloadMode::Never) => false,
            Some(OffloadMode::Always) => true,
            Some(OffloadMode::Auto) | None => prepared.tokens > lro.threshold(request),
        }
}

/// The records recipes' examples are drawn from: the first [`SAMPLE_SIZE`] (native
/// extraction rebuilds the recipes from the file the same way, cheaply).
pub fn sample(records: &[Value]) -> &[Value] {
    &records[..records.len().min(SAMPLE_SIZE)]
}

/// Whether raw records written as `body` form a tree (judged on the first records), which
/// only the `Value` path flattens.
pub(crate) fn is_tree(body: &Body) -> bool {
    let sample: Vec<Value> = (0..body.len().min(SAMPLE_SIZE))
        .map(|i| body.value(i))
        .collect();
    tree::detect(&sample).is_some()
}

/// `(min, max)` of the finite scores, if any.
pub fn score_range(scores: Option<&[f64]>) -> Option<(f64, f64)> {
    scores?
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .fold(None, |acc, s| match acc {
            None => Some((s, s)),
            Some((lo, hi)) => Some((lo.min(s), hi.max(s))),
        })
}
