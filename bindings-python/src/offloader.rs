//! `lro.Offloader`: one core `Offloader<NativeHost>` (files, or an object store for an
//! `s3://` output directory) with a Python event callback and, optionally,
//! a Python token estimator. Each method converts its arguments, releases the GIL while the
//! core works, and converts the result back.

use std::path::PathBuf;

use lro_core::config::ToolRule;
use lro_core::estimate::estimate_tokens;
use lro_core::offload::from_json_value;
use lro_core::{ErrorCode, ExtractRequest, LroError, OffloadEvent, OffloadRequest, Offloader};
use lro_host_s3::NativeHost;
use lro_mcp::ToolCallContext;
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::{Map, Value};

use crate::config::PyConfig;
use crate::convert::{
    CoreError, Records, invalid_input, records_json, to_py, to_value, to_value_opt,
};

/// The LRO engine: a configuration, the file system, and optional callbacks.
///
/// Reuse one `Offloader` for many calls: it keeps the ULID generator, so files written in
/// the same millisecond still sort in creation order. It is safe to share between threads;
/// the GIL is released while the core writes and reads files.
#[pyclass(frozen, module = "lro", name = "Offloader")]
pub struct PyOffloader {
    inner: Offloader<NativeHost>,
}

/// Calls the Python event callback with the event as a dict. An exception in the callback
/// cannot undo a written file, so it goes to `sys.unraisablehook` instead of propagating.
fn event_sink(callback: Py<PyAny>) -> impl Fn(&OffloadEvent) + Send + Sync + 'static {
    move |event: &OffloadEvent| {
        Python::attach(|py| {
            let outcome = to_py(py, event).and_then(|dict| callback.call1(py, (dict,)));
            if let Err(err) = outcome {
                err.write_unraisable(py, Some(callback.bind(py)));
            }
        });
    }
}

/// Calls a Python `estimator(text) -> int`. On an exception (reported to
/// `sys.unraisablehook`) the built-in heuristic answers, so an estimator bug cannot fail an
/// offload.
fn python_estimator(estimator: Py<PyAny>) -> impl Fn(&str) -> usize + Send + Sync + 'static {
    move |text: &str| {
        Python::attach(|py| {
            match estimator
                .call1(py, (text,))
                .and_then(|n| n.extract::<usize>(py))
            {
                Ok(tokens) => tokens,
                Err(err) => {
                    err.write_unraisable(py, Some(estimator.bind(py)));
                    estimate_tokens(text.as_bytes())
                }
            }
        })
    }
}

/// The core request for `offload` and `offload_inject`, read by the core's own
/// `OffloadRequest::from_json` so that codes (`invalid_detail`, `invalid_argument` for an
/// unknown field or profile) are the same in every binding. `request` is the whole request
/// in JSON form (as a proxy or tool receives it); it excludes the individual arguments.
fn request(
    request: Option<&Bound<'_, PyAny>>,
    arguments: &RequestArguments<'_>,
    default_operation: &str,
) -> PyResult<OffloadRequest> {
    let mut fields = Map::new();
    for (key, value) in arguments.fields() {
        put(&mut fields, key, value)?;
    }
    let value = match to_value_opt(request, "request")? {
        Some(_) if !fields.is_empty() => {
            let err = LroError::new(
                ErrorCode::InvalidArgument,
                "give either request= or the individual arguments, not both",
            );
            return Err(CoreError(err).into());
        }
        Some(whole) => whole,
        None => {
            fields
                .entry("operation")
                .or_insert_with(|| Value::from(default_operation));
            Value::Object(fields)
        }
    };
    Ok(OffloadRequest::from_json(&value).map_err(CoreError)?)
}

/// The individual request arguments of `offload` and `offload_inject`, by the core's field
/// names (each one optional: `None` leaves the core's default).
struct RequestArguments<'py> {
    operation: Option<Bound<'py, PyAny>>,
    detail: Option<Bound<'py, PyAny>>,
    query: Option<Bound<'py, PyAny>>,
    scores: Option<Bound<'py, PyAny>>,
    next_cursor: Option<Bound<'py, PyAny>>,
    descriptor: Option<Bound<'py, PyAny>>,
    context_remaining_tokens: Option<Bound<'py, PyAny>>,
    mode: Option<Bound<'py, PyAny>>,
    threshold: Option<Bound<'py, PyAny>>,
}

impl<'py> RequestArguments<'py> {
    fn fields(&self) -> [(&'static str, Option<&Bound<'py, PyAny>>); 9] {
        [
            ("operation", self.operation.as_ref()),
            ("detail", self.detail.as_ref()),
            ("query", self.query.as_ref()),
            ("scores", self.scores.as_ref()),
            ("next_cursor", self.next_cursor.as_ref()),
            ("descriptor", self.descriptor.as_ref()),
            (
                "context_remaining_tokens",
                self.context_remaining_tokens.as_ref(),
            ),
            ("mode", self.mode.as_ref()),
            ("threshold", self.threshold.as_ref()),
        ]
    }
}

/// Sets `key` in `map` when the Python argument is given.
fn put(map: &mut Map<String, Value>, key: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    if let Some(value) = to_value_opt(obj, key)? {
        map.insert(key.to_owned(), value);
    }
    Ok(())
}

#[pymethods]
impl PyOffloader {
    /// `config`: an `lro.Config` or a dict of `Config` keyword arguments, used as given; `None`
    /// is the defaults with the `ATLATL_PROMPT__OFFLOAD__*` environment on top, read here.
    /// `on_event`: called with each event as a dict (`{"event": "OffloadCreated", ...}`).
    /// `estimator`: `estimator(text) -> int`, an exact tokenizer in place of the heuristic.
    #[new]
    #[pyo3(signature = (config=None, *, on_event=None, estimator=None))]
    fn new(
        py: Python<'_>,
        config: Option<Bound<'_, PyAny>>,
        on_event: Option<Py<PyAny>>,
        estimator: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let config = PyConfig::resolve(config.as_ref())?;
        let host = NativeHost::for_config(&config).map_err(CoreError)?;
        let mut inner = Offloader::new(config, host).map_err(CoreError)?;
        if let Some(callback) = on_event.filter(|c| !c.is_none(py)) {
            inner = inner.with_event_sink(event_sink(callback));
        }
        if let Some(estimator) = estimator.filter(|e| !e.is_none(py)) {
            inner = inner.with_estimator(python_estimator(estimator));
        }
        Ok(Self { inner })
    }

    /// The configuration in use.
    #[getter]
    fn config(&self) -> PyConfig {
        PyConfig {
            inner: self.inner.config().clone(),
        }
    }

    /// The directory files are written to (`lro-<uid>` in the system temporary directory,
    /// private to the user, when `output_dir` is empty).
    #[getter]
    fn output_dir(&self) -> String {
        self.inner.output_dir().to_string_lossy().into_owned()
    }

    /// Offloads `records` when their estimated tokens exceed the threshold; returns the
    /// descriptor (`{"offloaded": True, ...}`) or the inline result (`{"offloaded": False,
    /// "results": ...}`). `records` is any JSON-like object, or JSON text as `str`/`bytes`
    /// (the fast path: no Python-object conversion).
    ///
    /// `descriptor` (`"full"`, `"compact"`, `"pointer"`) chooses this call's descriptor
    /// profile over the configured one; `context_remaining_tokens` (the tokens left in the
    /// caller's context) lowers the threshold to `adaptive_ratio` of it when that is less,
    /// and the outcome then reports the threshold applied as `threshold_tokens`. `mode`
    /// (`"never"`: inline whatever the size; `"always"`: offloaded however small; `"auto"`)
    /// and `threshold` (in place of `threshold_tokens`) decide for this call alone.
    ///
    /// `request` instead takes the whole `OffloadRequest` in JSON form (`{"operation": ...,
    /// "detail": ...}`), checked by the core; then leave the other arguments out.
    #[pyo3(signature = (
        records, operation=None, detail=None, query=None, scores=None, *, next_cursor=None,
        descriptor=None, context_remaining_tokens=None, mode=None, threshold=None, request=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn offload<'py>(
        &self,
        py: Python<'py>,
        records: Bound<'py, PyAny>,
        operation: Option<Bound<'py, PyAny>>,
        detail: Option<Bound<'py, PyAny>>,
        query: Option<Bound<'py, PyAny>>,
        scores: Option<Bound<'py, PyAny>>,
        next_cursor: Option<Bound<'py, PyAny>>,
        descriptor: Option<Bound<'py, PyAny>>,
        context_remaining_tokens: Option<Bound<'py, PyAny>>,
        mode: Option<Bound<'py, PyAny>>,
        threshold: Option<Bound<'py, PyAny>>,
        request: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = RequestArguments {
            operation,
            detail,
            query,
            scores,
            next_cursor,
            descriptor,
            context_remaining_tokens,
            mode,
            threshold,
        };
        let request = self::request(request.as_ref(), &arguments, "recall")?;
        let records = Records::from_py(&records)?;
        let outcome = py.detach(|| match records {
            Records::Json(text) => self.inner.offload_json(&text, &request),
            Records::Lines(lines) => self.inner.offload_lines(lines, &request),
        });
        to_py(py, &outcome.map_err(CoreError)?)
    }

    /// The `inject_context` rule: the pre-budget result set decides. Above the threshold it
    /// is offloaded (and `formatted` discarded); otherwise `formatted` is returned inline.
    /// `descriptor`, `context_remaining_tokens`, `mode` and `threshold` as for `offload`.
    #[pyo3(signature = (
        formatted, pre_budget, operation=None, detail=None, query=None, scores=None, *,
        next_cursor=None, descriptor=None, context_remaining_tokens=None, mode=None, threshold=None, request=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn offload_inject<'py>(
        &self,
        py: Python<'py>,
        formatted: &str,
        pre_budget: Bound<'py, PyAny>,
        operation: Option<Bound<'py, PyAny>>,
        detail: Option<Bound<'py, PyAny>>,
        query: Option<Bound<'py, PyAny>>,
        scores: Option<Bound<'py, PyAny>>,
        next_cursor: Option<Bound<'py, PyAny>>,
        descriptor: Option<Bound<'py, PyAny>>,
        context_remaining_tokens: Option<Bound<'py, PyAny>>,
        mode: Option<Bound<'py, PyAny>>,
        threshold: Option<Bound<'py, PyAny>>,
        request: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = RequestArguments {
            operation,
            detail,
            query,
            scores,
            next_cursor,
            descriptor,
            context_remaining_tokens,
            mode,
            threshold,
        };
        let request = self::request(request.as_ref(), &arguments, "inject")?;
        let pre_budget: Value =
            serde_json::from_slice(&records_json(&pre_budget, "pre_budget")?)
                .map_err(|e| invalid_input(format!("pre_budget is not valid JSON: {e}")))?;
        let outcome = py.detach(|| self.inner.offload_inject(formatted, &pre_budget, &request));
        to_py(py, &outcome.map_err(CoreError)?)
    }

    /// Decides on an MCP `tools/call` result (a `CallToolResult` as a dict) and returns
    /// `{"result": CallToolResult, "action": "offloaded"|"inline"|"bypassed"|"truncated",
    /// "response": descriptor?}`. `context` instead takes the whole `ToolCallContext` in
    /// JSON form (`{"tool_name": ..., "arguments": ...}`), checked by the core.
    /// `extract_tool` is the extract tool's name as the server lists it, which the
    /// descriptor names. `rule` (`{"mode": "never"}`, `{"threshold": 200, "descriptor":
    /// "pointer"}`) is this call's rule, in place of the configuration's rule for the tool.
    #[pyo3(signature = (result, tool_name=String::new(), *, arguments=None, client_is_proxy=false, output_schema_declared=false, context=None, extract_tool=None, rule=None))]
    #[allow(clippy::too_many_arguments)]
    fn intercept_tool_result<'py>(
        &self,
        py: Python<'py>,
        result: Bound<'py, PyAny>,
        tool_name: String,
        arguments: Option<Bound<'py, PyAny>>,
        client_is_proxy: bool,
        output_schema_declared: bool,
        context: Option<Bound<'py, PyAny>>,
        extract_tool: Option<String>,
        rule: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let result = to_value(&result, "result")?;
        let rule = match to_value_opt(rule.as_ref(), "rule")? {
            Some(rule) => Some(ToolRule::from_json(&rule).map_err(CoreError)?),
            None => None,
        };
        let context = match to_value_opt(context.as_ref(), "context")? {
            Some(whole) => ToolCallContext::from_json(&whole).map_err(CoreError)?,
            None => ToolCallContext {
                tool_name,
                operation: None,
                arguments: to_value_opt(arguments.as_ref(), "arguments")?,
                client_is_proxy,
                output_schema_declared,
                extract_tool,
                rule,
            },
        };
        let intercepted =
            py.detach(|| lro_mcp::intercept_tool_result(&self.inner, &result, &context));
        to_py(py, &intercepted.map_err(CoreError)?)
    }

    /// Native extraction from an offloaded file: exactly one of `recipe` (1-10, with
    /// `params`), `query` (a jq filter, `params` bound as `$name`), `lines`
    /// (`{"start", "end", "unit"}`), `search` (`{"pattern", "ignore_case", "max_results"}`), a
    /// structured query: `where` (a MongoDB filter document) shaped by `fields`, `sort`,
    /// `skip`, `limit`, or summarized by one of `count`, `group_by`, `distinct`, `stats`; or
    /// `describe=True`, the file's full descriptor (line schema, the ten recipes with their
    /// commands) rebuilt from the file, for a result a `compact` or `pointer` profile
    /// described. `section` (a name from the descriptor's `sections`) scopes a query, a
    /// structured query, lines or search. `request` takes the whole request as JSON instead
    /// (what an `lro_extract` tool receives). Returns `{"results": [...], "count",
    /// "truncated", "limit"?, "returned"?, "total"?, "hint"?, "bytes_read", "records_read",
    /// "jq"?, "warnings"?}`.
    #[pyo3(signature = (
        file_path, recipe=None, query=None, params=None, *, lines=None, search=None,
        section=None, r#where=None, fields=None, sort=None, skip=None, limit=None, count=None,
        group_by=None, distinct=None, stats=None, describe=None, request=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn extract<'py>(
        &self,
        py: Python<'py>,
        file_path: PathBuf,
        recipe: Option<Bound<'py, PyAny>>,
        query: Option<Bound<'py, PyAny>>,
        params: Option<Bound<'py, PyAny>>,
        lines: Option<Bound<'py, PyAny>>,
        search: Option<Bound<'py, PyAny>>,
        section: Option<Bound<'py, PyAny>>,
        r#where: Option<Bound<'py, PyAny>>,
        fields: Option<Bound<'py, PyAny>>,
        sort: Option<Bound<'py, PyAny>>,
        skip: Option<Bound<'py, PyAny>>,
        limit: Option<Bound<'py, PyAny>>,
        count: Option<Bound<'py, PyAny>>,
        group_by: Option<Bound<'py, PyAny>>,
        distinct: Option<Bound<'py, PyAny>>,
        stats: Option<Bound<'py, PyAny>>,
        describe: Option<Bound<'py, PyAny>>,
        request: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // Built as JSON and read with the core's own (strict) deserializer, so the argument
        // rules are the core's and `lro_extract` tool arguments pass straight through.
        let mut parts = Map::new();
        for (key, value) in [
            ("recipe", &recipe),
            ("query", &query),
            ("params", &params),
            ("lines", &lines),
            ("search", &search),
            ("section", &section),
            ("where", &r#where),
            ("fields", &fields),
            ("sort", &sort),
            ("skip", &skip),
            ("limit", &limit),
            ("count", &count),
            ("group_by", &group_by),
            ("distinct", &distinct),
            ("stats", &stats),
            ("describe", &describe),
        ] {
            put(&mut parts, key, value.as_ref())?;
        }
        let value = match to_value_opt(request.as_ref(), "request")? {
            Some(_) if !parts.is_empty() => {
                let err = LroError::new(
                    ErrorCode::InvalidArgument,
                    "give either request= or the individual arguments, not both",
                );
                return Err(CoreError(err).into());
            }
            Some(whole) => whole,
            None => Value::Object(parts),
        };
        let request: ExtractRequest =
            from_json_value(&value, "extraction request").map_err(CoreError)?;
        let file_path = file_path.to_string_lossy().into_owned();
        let response = py.detach(|| self.inner.extract(&file_path, &request));
        to_py(py, &response.map_err(CoreError)?)
    }

    /// Answers one call of the extract tool as every LRO surface answers it (the core's
    /// `call_result`): `arguments` are the tool call's arguments as the client sent them (a
    /// dict; `None` values are absent). Returns a `CallToolResult` as a dict: one text block
    /// holding the answer alone, bounded by `extract.answer_max_bytes` and
    /// `extract.answer_max_tokens`, and `isError` (an error's text starts with
    /// `error[code]: `). With `save: true`, the output as a new offload file, answered as an
    /// offloaded tool result is. Never raises for a bad call: the model reads the error.
    #[pyo3(signature = (arguments=None))]
    fn extract_tool_call<'py>(
        &self,
        py: Python<'py>,
        arguments: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arguments = to_value_opt(arguments.as_ref(), "arguments")?;
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let result = py.detach(|| {
            lro_mcp::extract_tool::call_result(&self.inner, arguments.as_ref(), &cancel)
        });
        to_py(py, &result)
    }

    /// Resolves the result handles in one `tools/call`'s arguments before the tool runs, as
    /// every LRO surface does (`lro_mcp::handles`): `None` when they hold no handle (call the
    /// tool with the arguments as given); `{"arguments": ...}`, the arguments with every
    /// handle replaced by its data; or, when one cannot be resolved, `{"result": ...}`, the
    /// `isError` `CallToolResult` to answer instead of calling the tool, with `"code"` and
    /// `"argument"` (the handle's place, a JSON pointer without its `/`). Never raises for a
    /// bad handle: the model reads the error.
    #[pyo3(signature = (arguments=None))]
    fn resolve_tool_call<'py>(
        &self,
        py: Python<'py>,
        arguments: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Some(arguments) = to_value_opt(arguments.as_ref(), "arguments")? else {
            return Ok(py.None().into_bound(py));
        };
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let resolved = py.detach(|| {
            match lro_mcp::handles::resolve(&self.inner, &arguments, &cancel) {
                Ok(None) => Value::Null,
                Ok(Some(resolved)) => serde_json::json!({ "arguments": resolved }),
                // The answer every surface gives (`resolve_call`'s), with the code and the
                // argument beside it for callers that branch on them.
                Err(err) => serde_json::json!({
                    "result": err.to_call_result(),
                    "code": err.code().as_str(),
                    "argument": err.path,
                }),
            }
        });
        to_py(py, &resolved)
    }

    /// Deletes expired offload files in the output directory; returns the report
    /// (`{"removed": [...], "kept": N, "errors": [...]}`).
    fn cleanup<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let report = py.detach(|| self.inner.cleanup());
        to_py(py, &report.map_err(CoreError)?)
    }

    /// One page of the offload files as MCP resources (`lro://offloads/{file}`), newest
    /// first: `{"resources": [{"uri", "name", "title", "description", "mimeType", "size"}],
    /// "nextCursor"?}`. `cursor` is the previous page's `nextCursor`.
    #[pyo3(signature = (cursor=None))]
    fn list_resources<'py>(
        &self,
        py: Python<'py>,
        cursor: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let page = py.detach(|| lro_mcp::list_resources(&self.inner, cursor.as_deref()));
        to_py(py, &page.map_err(CoreError)?)
    }

    /// Reads the resource `uri` (`lro://offloads/{file}`: the file as written;
    /// `.../records`: without its header line): `{"contents": [{"uri", "mimeType", "text"}]}`.
    /// A URI outside `lro://offloads/` raises `ExtractionError` (`invalid_argument`), one
    /// that names no offload file `PathError` (`path_denied`), a missing or expired file
    /// `PathError` (`not_found`).
    fn read_resource<'py>(&self, py: Python<'py>, uri: String) -> PyResult<Bound<'py, PyAny>> {
        let read = py.detach(|| lro_mcp::read_resource(&self.inner, &uri));
        to_py(py, &read.map_err(CoreError)?)
    }

    /// Estimated tokens of `text` with this offloader's estimator.
    fn estimate_tokens(&self, py: Python<'_>, text: Bound<'_, PyString>) -> PyResult<usize> {
        let text = text.to_cow()?.into_owned();
        Ok(py.detach(|| self.inner.estimate(&text)))
    }

    fn __repr__(&self) -> String {
        format!("Offloader(output_dir={:?})", self.output_dir())
    }
}
