//! The offloader: decide inline vs offload, write the JSONL file, build the descriptor,
//! fall back to an inline truncated result when the write fails.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::config::{DescriptorProfile, OffloadConfig, is_safe_name};
use crate::descriptor::{
    self, MIF_SCHEMA_VERSION, OffloadHeader, OffloadResponse, RAW_SCHEMA_VERSION, SectionInfo,
};
use crate::detail::Detail;
use crate::error::{ErrorCode, LroError, Result};
use crate::estimate::{HeuristicEstimator, TokenEstimator};
use crate::events::{EventSink, OffloadEvent};
use crate::host::Host;
use crate::json::fields;
use crate::jsonl::{self, Body, MifChunks};
use crate::payload::{self, RecordKind};
use crate::profile::SAMPLE_SIZE;
use crate::shape::{Format, Layout, tree};
use crate::time::iso8601;
use crate::ulid_gen::UlidGenerator;

/// `Send + Sync` on native targets; nothing on wasm, where JS callbacks are single-threaded.
#[cfg(not(target_family = "wasm"))]
pub trait MaybeShared: Send + Sync {}
#[cfg(not(target_family = "wasm"))]
impl<T: Send + Sync + ?Sized> MaybeShared for T {}
/// `Send + Sync` on native targets; nothing on wasm, where JS callbacks are single-threaded.
#[cfg(target_family = "wasm")]
pub trait MaybeShared {}
#[cfg(target_family = "wasm")]
impl<T: ?Sized> MaybeShared for T {}

/// A token estimator the offloader can hold.
pub trait SharedEstimator: TokenEstimator + MaybeShared {}
impl<T: TokenEstimator + MaybeShared> SharedEstimator for T {}
/// An event sink the offloader can hold.
pub trait SharedEventSink: EventSink + MaybeShared {}
impl<T: EventSink + MaybeShared> SharedEventSink for T {}

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

    /// A request for `operation` with everything else defaulted.
    pub fn new(operation: impl Into<String>) -> Self {
        Self {
            operation: operation.into(),
            ..Self::default()
        }
    }
}

/// A result returned inline (below the threshold, LRO disabled, or the write failed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InlineResult {
    /// Always `false`.
    pub offloaded: bool,
    /// Estimated tokens of the whole result set.
    pub estimated_tokens: usize,
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

/// The LRO engine: configuration, host, estimator and event sink.
pub struct Offloader<H: Host> {
    pub(crate) config: OffloadConfig,
    pub(crate) host: H,
    pub(crate) estimator: Box<dyn SharedEstimator>,
    events: Option<Box<dyn SharedEventSink>>,
    ulids: Mutex<UlidGenerator>,
    /// The output directory as last made and resolved: `(as configured, real path)`.
    resolved_dir: Mutex<Option<(PathBuf, PathBuf)>>,
}

impl<H: Host> std::fmt::Debug for Offloader<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Offloader")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A finished, serialized result set (shared by offload and the inject rule): everything
/// after this point reads the lines, whichever way the records arrived.
pub(crate) struct Prepared<'a> {
    pub(crate) body: Body,
    pub(crate) tokens: usize,
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
            }]
        } else {
            self.sections.clone()
        }
    }
}

impl<H: Host> Offloader<H> {
    /// An offloader over `host`; fails on an invalid configuration.
    pub fn new(config: OffloadConfig, host: H) -> Result<Self> {
        config.validate()?;
        Ok(Self {
            config,
            host,
            estimator: Box::new(HeuristicEstimator),
            events: None,
            ulids: Mutex::new(UlidGenerator::new()),
            resolved_dir: Mutex::new(None),
        })
    }

    /// Replaces the token estimator (e.g. with an exact tokenizer).
    #[must_use]
    pub fn with_estimator(mut self, estimator: impl SharedEstimator + 'static) -> Self {
        self.estimator = Box::new(estimator);
        self
    }

    /// Sends events to `sink`.
    #[must_use]
    pub fn with_event_sink(mut self, sink: impl SharedEventSink + 'static) -> Self {
        self.events = Some(Box::new(sink));
        self
    }

    /// The configuration.
    pub fn config(&self) -> &OffloadConfig {
        &self.config
    }

    /// The host.
    pub fn host(&self) -> &H {
        &self.host
    }

    pub(crate) fn emit(&self, event: OffloadEvent) {
        if let Some(sink) = &self.events {
            sink.emit(&event);
        }
    }

    /// The configured output directory, or the host's default (private to the user, see
    /// [`Host::temp_dir`]) when it is empty.
    pub fn output_dir(&self) -> PathBuf {
        if self.config.output_dir.is_empty() {
            self.host.temp_dir()
        } else {
            PathBuf::from(&self.config.output_dir)
        }
    }

    /// Estimated tokens of a text, with this offloader's estimator.
    pub fn estimate(&self, text: &str) -> usize {
        self.estimator.estimate(text)
    }

    fn prepare<'a>(&self, value: &'a Value, request: &OffloadRequest) -> Result<Prepared<'a>> {
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
            });
            let tokens = self.estimator.estimate_utf8(&body.bytes);
            return Ok(Prepared {
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
        let tokens = self.estimator.estimate_utf8(&body.bytes);
        Ok(Prepared {
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

    /// [`Offloader::prepare`] for a JSON array given as text, without a `Value` tree;
    /// `None` when the text needs the `Value` path (not an array, invalid, unusual).
    fn prepare_json(
        &self,
        json: &[u8],
        request: &OffloadRequest,
    ) -> Result<Option<Prepared<'static>>> {
        check_operation(&request.operation)?;
        let Some((kind, body)) =
            Body::from_json_classified(json, &request.operation, request.detail)
        else {
            return Ok(None);
        };
        if kind == RecordKind::Raw && is_tree(&body) {
            // Trees are flattened on the `Value` path.
            return Ok(None);
        }
        Ok(Some(self.prepared_lines(kind, body)))
    }

    fn prepare_lines(&self, body: Body, request: &OffloadRequest) -> Result<Prepared<'static>> {
        check_operation(&request.operation)?;
        let (kind, body) = body.classify(&request.operation, request.detail);
        Ok(self.prepared_lines(kind, body))
    }

    pub(crate) fn prepared_lines(&self, kind: RecordKind, body: Body) -> Prepared<'static> {
        let tokens = self.estimator.estimate_utf8(&body.bytes);
        Prepared {
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

    /// Offloads `value` (an array, an object holding an array, text, ...) when its estimated
    /// tokens exceed the threshold; otherwise returns it inline.
    pub fn offload(&self, value: &Value, request: &OffloadRequest) -> Result<Outcome> {
        self.offload_read(value, request, 0)
    }

    /// [`Offloader::offload`] of a value read from a JSON text that named `duplicate_keys`
    /// keys twice (merged in `value`: the outcome says so).
    pub(crate) fn offload_read(
        &self,
        value: &Value,
        request: &OffloadRequest,
        duplicate_keys: usize,
    ) -> Result<Outcome> {
        let mut prepared = self.prepare(value, request)?;
        prepared.duplicate_keys += duplicate_keys;
        if !self.offloads(&prepared, request) {
            return Ok(Outcome::Inline(self.inline(value, &prepared, request)));
        }
        Ok(self.materialize(prepared, request))
    }

    pub(crate) fn offloads(&self, prepared: &Prepared<'_>, request: &OffloadRequest) -> bool {
        self.config.enabled && prepared.tokens > self.threshold(request)
    }

    /// The threshold for `request`: the configured one, or less when the call says how
    /// much of its context is left (`min(threshold_tokens, adaptive_ratio x left)`).
    pub fn threshold(&self, request: &OffloadRequest) -> usize {
        let configured = self.config.threshold_tokens as usize;
        match request.context_remaining_tokens {
            // A ratio in (0, 1] of a u64 is a finite, non-negative float: the cast saturates.
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss,
                reason = "a share of a token count, rounded down; saturates, never wraps"
            )]
            Some(left) => configured.min((self.config.adaptive_ratio * left as f64) as usize),
            None => configured,
        }
    }

    /// The threshold to report in the outcome: only when it adapted to the context left.
    pub(crate) fn reported_threshold(&self, request: &OffloadRequest) -> Option<usize> {
        request
            .context_remaining_tokens
            .map(|_| self.threshold(request))
    }

    /// [`Offloader::offload`] on serialized JSON: the fast path for results that arrive as
    /// text (MCP tool results, Python `str`/`bytes`, JS strings). A JSON array is turned
    /// into lines without building a `Value` tree, and so are the large parts of an object
    /// ([`crate::shape::raw`]); the result is the same as parsing the text and calling
    /// [`Offloader::offload`].
    pub fn offload_json(&self, json: &[u8], request: &OffloadRequest) -> Result<Outcome> {
        // A leading byte-order mark is an encoding's signature, not content (RFC 8259 lets
        // a reader ignore it).
        let json = json.strip_prefix("\u{feff}".as_bytes()).unwrap_or(json);
        // The canonical scan declines on a key named twice: when it vouched for the text
        // there is none; the object's text layout counts those of the parts it parses. The
        // `Value` read here keeps the last value of such a key: they are counted (those of
        // JSON inside strings by the layout), to be reported (crate::json::dupes).
        let mut duplicate_keys = 0;
        if self.config.enabled {
            if let Some(prepared) = self.prepare_json(json, request)? {
                if self.offloads(&prepared, request) {
                    return Ok(self.materialize(prepared, request));
                }
            } else {
                if let Some(outcome) = self.offload_object_text(json, request)? {
                    return Ok(outcome);
                }
                duplicate_keys = crate::json::dupes::count(json);
            }
        }
        // Inline results (small by definition), other shapes and unusual text: the tree.
        let value: Value = match serde_json::from_slice(json) {
            Ok(value) => value,
            // An array one of whose elements has a lone surrogate: that element becomes a
            // text record, the others stay records (crate::shape::odd).
            Err(e) => std::str::from_utf8(json)
                .ok()
                .and_then(|text| crate::shape::odd_array(crate::json::read::trim(text)))
                .ok_or_else(|| {
                    LroError::new(
                        ErrorCode::InvalidInput,
                        format!("input is not valid JSON: {e}"),
                    )
                })?,
        };
        self.offload_read(&value, request, duplicate_keys)
    }

    /// [`Offloader::offload_json`] on a JSON array of MIF memories given in pieces (see
    /// [`MifChunks`], made for this request's operation and detail); `None` when the pieces
    /// did not hold MIF memories only: the caller then offloads the records whole.
    pub fn offload_chunks(
        &self,
        chunks: MifChunks,
        request: &OffloadRequest,
    ) -> Result<Option<Outcome>> {
        check_operation(&request.operation)?;
        let detail = chunks.detail();
        let Some(body) = chunks.finish() else {
            return Ok(None);
        };
        let prepared = self.prepared_lines(RecordKind::Mif(detail), body);
        if self.offloads(&prepared, request) {
            return Ok(Some(self.materialize(prepared, request)));
        }
        Ok(Some(self.inline_lines(&prepared, request)))
    }

    /// [`Offloader::offload`] on records a binding already wrote one per line, in the
    /// form [`Body::of_values`] writes (compact, serde_json's spelling, unique keys): a
    /// binding that serializes its own objects (Python dicts, say) skips the text scan.
    pub fn offload_lines(&self, lines: Body, request: &OffloadRequest) -> Result<Outcome> {
        let prepared = self.prepare_lines(lines, request)?;
        if prepared.kind == RecordKind::Raw && is_tree(&prepared.body) {
            // Trees are flattened on the `Value` path.
            let records: Vec<Value> = (0..prepared.count())
                .map(|i| prepared.body.value(i))
                .collect();
            return self.offload(&Value::Array(records), request);
        }
        if self.offloads(&prepared, request) {
            return Ok(self.materialize(prepared, request));
        }
        Ok(self.inline_lines(&prepared, request))
    }

    /// The inline result of records known only as lines. Raw lines are the records as
    /// given; MIF lines are projected, which is what an inline MIF result returns anyway.
    fn inline_lines(&self, prepared: &Prepared<'_>, request: &OffloadRequest) -> Outcome {
        let records = Value::Array(
            (0..prepared.count())
                .map(|i| prepared.body.value(i))
                .collect(),
        );
        Outcome::Inline(self.inline(&records, prepared, request))
    }

    /// The `inject_context` rule: the *pre-budget* result set decides. Above the threshold
    /// the full set is offloaded and `formatted` is discarded; otherwise `formatted` (the
    /// budgeted prompt text) is returned inline as `results`.
    pub fn offload_inject(
        &self,
        formatted: &str,
        pre_budget: &Value,
        request: &OffloadRequest,
    ) -> Result<Outcome> {
        let prepared = self.prepare(pre_budget, request)?;
        if !self.offloads(&prepared, request) {
            return Ok(Outcome::Inline(InlineResult {
                offloaded: false,
                estimated_tokens: prepared.tokens,
                count: prepared.count(),
                results: Value::from(formatted),
                next_cursor: request.next_cursor.clone(),
                truncated: false,
                total_count: None,
                warning: None,
                threshold_tokens: self.reported_threshold(request),
            }));
        }
        Ok(self.materialize(prepared, request))
    }

    pub(crate) fn inline(
        &self,
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
            count: prepared.count(),
            results,
            next_cursor: request.next_cursor.clone(),
            truncated: false,
            total_count: None,
            warning: crate::descriptor::duplicate_keys_warning(prepared.duplicate_keys),
            threshold_tokens: self.reported_threshold(request),
        }
    }

    /// Writes the file and builds the descriptor; on a write failure, the truncated fallback.
    pub(crate) fn materialize(&self, prepared: Prepared<'_>, request: &OffloadRequest) -> Outcome {
        let (tokens, count) = (prepared.tokens, prepared.count());
        let now = self.host.now_millis();
        let ulid = self
            .ulids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .next(&self.host);
        let dir = self.output_dir();
        let file_name = format!(
            "{}-{}-{}.jsonl",
            self.config.file_prefix, request.operation, ulid
        );
        let header = OffloadHeader {
            header_type: descriptor::HEADER_TYPE.to_owned(),
            operation: request.operation.clone(),
            query: request.query.clone(),
            count,
            schema_version: match prepared.kind {
                RecordKind::Mif(_) => MIF_SCHEMA_VERSION,
                RecordKind::Raw => RAW_SCHEMA_VERSION,
            }
            .to_owned(),
            timestamp: iso8601(now),
            estimated_tokens: tokens,
            detail: prepared.kind.detail_name().to_owned(),
            format: prepared.format,
            sections: prepared.sections.clone(),
            envelope: (!prepared.envelope.is_empty()).then(|| prepared.envelope.clone()),
            duplicate_keys: prepared.duplicate_keys,
        };
        let header_bytes = jsonl::header_line(&header);
        let written = self.write_file(&dir, &file_name, &[&header_bytes, &prepared.body.bytes]);
        match written {
            Ok(path) => {
                let file_path = path_string(&path);
                self.emit(OffloadEvent::OffloadCreated {
                    file_path: file_path.clone(),
                    operation: request.operation.clone(),
                    count,
                    estimated_tokens: tokens,
                    bytes: header_bytes.len() + prepared.body.bytes.len(),
                    created_at: header.timestamp.clone(),
                });
                Outcome::Offloaded(Box::new(self.describe(&prepared, request, file_path)))
            }
            Err(err) => {
                let file_path = path_string(&dir.join(&file_name));
                let fallback = self.truncated(&prepared, request, &err.to_string());
                self.emit(OffloadEvent::OffloadWriteFailed {
                    file_path,
                    operation: request.operation.clone(),
                    error: err.to_string(),
                    count,
                    returned: fallback.count,
                });
                Outcome::Inline(fallback)
            }
        }
    }

    /// Writes `parts` as the file `name` in `dir`, made if missing; returns the file's path
    /// with symlinks in `dir` resolved, so the descriptor names the real file.
    ///
    /// The directory is checked before every write, not only when first used: a long-running
    /// proxy outlives any one look at it, and the check (a `stat` of the directory and of each
    /// ancestor) costs microseconds against the file written. A directory that fails it
    /// fails the write, so the offload falls back inline, saying why. The directory is made
    /// and resolved once and then reused; should it disappear, it is made and resolved again.
    fn write_file(&self, dir: &Path, name: &str, parts: &[&[u8]]) -> std::io::Result<PathBuf> {
        let lock = || {
            self.resolved_dir
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let check = || {
            self.check_output_dir(dir).map_err(|e| {
                std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.message().to_owned())
            })
        };
        let known = lock()
            .as_ref()
            .filter(|(configured, _)| configured == dir)
            .map(|(_, resolved)| resolved.join(name));
        if let Some(path) = known {
            check()?;
            match self.host.write_atomic(&path, parts) {
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                written => return written.map(|()| path),
            }
        }
        self.host.create_dir_all(dir)?;
        check()?;
        let resolved = self
            .host
            .canonicalize(dir)
            .unwrap_or_else(|_| dir.to_path_buf());
        let path = resolved.join(name);
        self.host.write_atomic(&path, parts)?;
        *lock() = Some((dir.to_path_buf(), resolved));
        Ok(path)
    }

    /// The inline fallback: as many leading records as fit within the threshold.
    fn truncated(
        &self,
        prepared: &Prepared<'_>,
        request: &OffloadRequest,
        error: &str,
    ) -> InlineResult {
        let body = &prepared.body;
        let budget = self.threshold(request);
        let mut used = 0;
        let mut kept = 0;
        for i in 0..body.line_ends.len() {
            used += self.estimator.estimate(body.line(i));
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
            count: kept,
            results,
            next_cursor: request.next_cursor.clone(),
            truncated: true,
            total_count: Some(prepared.count()),
            warning: Some(format!(
                "LRO could not write the offload file ({error}); returning the first {kept} of {} records, truncated to fit {budget} tokens.",
                prepared.count()
            )),
            threshold_tokens: self.reported_threshold(request),
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

/// The records recipes' examples are drawn from: the first [`SAMPLE_SIZE`] (native
/// extraction rebuilds the recipes from the file the same way, cheaply).
pub fn sample(records: &[Value]) -> &[Value] {
    &records[..records.len().min(SAMPLE_SIZE)]
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

/// Whether raw records written as `body` form a tree (judged on the first records), which
/// only the `Value` path flattens.
fn is_tree(body: &Body) -> bool {
    let sample: Vec<Value> = (0..body.len().min(SAMPLE_SIZE))
        .map(|i| body.value(i))
        .collect();
    tree::detect(&sample).is_some()
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
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
