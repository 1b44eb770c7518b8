//! `lro.Config`: the core's `OffloadConfig`, built from keyword arguments, a TOML document or
//! the `ATLATL_PROMPT__OFFLOAD__*` environment. Validation and messages are the core's.

use std::path::PathBuf;

use lro_core::config::{ENV_PREFIX, KEYS};
use lro_core::{ErrorCode, GuidanceMode, LroError, OffloadConfig};
use pyo3::exceptions::{PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping, PyString};
use serde_json::{Map, Value};

use crate::convert::{CoreError, to_py, to_value};

/// Keyword arguments as the core's JSON form of a configuration. `output_dir` also takes
/// an `os.PathLike`; every other value goes to the core as given, which checks it and names
/// the key and value in its `ConfigError`.
fn changes_json(changes: &Bound<'_, PyDict>) -> PyResult<Value> {
    let mut map = Map::new();
    for (key, value) in changes.iter() {
        let key: String = key.extract()?;
        let json = if key == "output_dir" && !value.is_none() && !value.is_instance_of::<PyString>()
        {
            match value.extract::<PathBuf>() {
                Ok(path) => Value::String(path.to_string_lossy().into_owned()),
                Err(_) => to_value(&value, &key)?,
            }
        } else {
            to_value(&value, &key)?
        };
        map.insert(key, json);
    }
    Ok(Value::Object(map))
}

/// LRO configuration (the specification's `[prompt.offload]` section, plus extraction limits).
///
/// Build it from keyword arguments, `Config.from_toml(path_or_text)` or `Config.from_env()`;
/// layer the environment over a file or keyword arguments with `.with_env()`. A `Config` is
/// exactly what was built: the environment counts only through `from_env` / `with_env`
/// (functions given no configuration use `Config.from_env()`). Instances are immutable:
/// `.replace(**changes)` returns a changed copy.
#[pyclass(frozen, eq, module = "lro", name = "Config", skip_from_py_object)]
#[derive(Clone, PartialEq)]
pub struct PyConfig {
    /// The core's configuration this object holds.
    pub inner: OffloadConfig,
}

impl PyConfig {
    /// `base` with the keyword arguments in `changes` applied, then validated by the core.
    fn with_changes(base: OffloadConfig, changes: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut config = base;
        if let Some(changes) = changes {
            config
                .apply_json(&changes_json(changes)?)
                .map_err(CoreError)?;
        }
        config.validate().map_err(CoreError)?;
        Ok(Self { inner: config })
    }

    /// Reads `config=` arguments. A `Config` is used as it is, and so is a dict of keyword
    /// arguments (over the defaults): what the caller built, whatever the environment says.
    /// No configuration (`None`, or a dict whose values are all `None`) is the default
    /// configuration: the defaults with the process environment on top, read now.
    pub fn resolve(config: Option<&Bound<'_, PyAny>>) -> PyResult<OffloadConfig> {
        let Some(config) = config.filter(|c| !c.is_none()) else {
            return default_config();
        };
        if let Ok(c) = config.cast::<PyConfig>() {
            return Ok(c.get().inner.clone());
        }
        if let Ok(d) = config.cast::<PyDict>() {
            if d.values().iter().all(|v| v.is_none()) {
                return default_config();
            }
            return Ok(Self::with_changes(OffloadConfig::default(), Some(d))?.inner);
        }
        let err = LroError::new(
            ErrorCode::InvalidConfig,
            "config must be an lro.Config, a dict or None",
        );
        Err(CoreError(err).into())
    }
}

#[pymethods]
impl PyConfig {
    /// `Config(**keywords)`: each keyword is a key of the table (`threshold_tokens=800`) or a
    /// section of keys as a dict (`extract={"timeout_ms": 500}`); `None` keeps the default.
    /// A keyword the table does not have is a `TypeError` naming it, as Python says it of any
    /// function (the keywords come from the table, not from a signature).
    #[new]
    #[pyo3(signature = (**keywords))]
    fn new(py: Python<'_>, keywords: Option<Bound<'_, PyDict>>) -> PyResult<Self> {
        let changes = PyDict::new(py);
        if let Some(keywords) = keywords {
            let names = keyword_names();
            for name in keywords.keys() {
                let name: String = name.extract()?;
                if !names.contains(&name.as_str()) {
                    return Err(PyTypeError::new_err(format!(
                        "Config.__new__() got an unexpected keyword argument '{name}'"
                    )));
                }
            }
            // In the table's order, as the keyword arguments of a signature were applied.
            for name in names {
                if let Some(value) = keywords.get_item(name)? {
                    if !value.is_none() {
                        changes.set_item(name, value)?;
                    }
                }
            }
        }
        Self::with_changes(OffloadConfig::default(), Some(&changes))
    }

    /// Reads the `[prompt.offload]` section of a TOML file or TOML text over the defaults.
    ///
    /// A `pathlib.Path` (any `os.PathLike`) is a file. A `str` is TOML text; only when it does
    /// not parse as TOML and names an existing file is that file read instead, so
    /// `Config.from_toml("lro.toml")` works and no TOML text is ever mistaken for a path.
    #[staticmethod]
    fn from_toml(source: Bound<'_, PyAny>) -> PyResult<Self> {
        let py = source.py();
        let text = match source.cast::<PyString>() {
            Ok(s) => {
                let text = s.to_cow()?.into_owned();
                match toml_config(py, &text) {
                    Ok(inner) => return Ok(Self { inner }),
                    Err(err) => {
                        let path = PathBuf::from(&text);
                        if !text.contains('\n') && path.is_file() {
                            read_file(&path)?
                        } else {
                            return Err(err);
                        }
                    }
                }
            }
            Err(_) => {
                let path: PathBuf = source.extract()?;
                read_file(&path)?
            }
        };
        Ok(Self {
            inner: toml_config(py, &text)?,
        })
    }

    /// The defaults with the `ATLATL_PROMPT__OFFLOAD__*` variables of `environ` applied
    /// (this process's environment, which `os.environ` assignments update, when `None`):
    /// the configuration every function uses when given none. An unknown key under the
    /// prefix, or a bad value, is a `ConfigError` naming the variable.
    #[staticmethod]
    #[pyo3(signature = (environ=None))]
    fn from_env(environ: Option<Bound<'_, PyAny>>) -> PyResult<Self> {
        Self {
            inner: OffloadConfig::default(),
        }
        .with_env(environ)
    }

    /// A copy with the environment (this process's when `None`, else the mapping `environ`)
    /// applied over this configuration: `Config.from_toml("lro.toml").with_env()` gives the
    /// specification's precedence, and `Config(threshold_tokens=800).with_env()` lets the
    /// environment override what the code chose.
    #[pyo3(signature = (environ=None))]
    fn with_env(&self, environ: Option<Bound<'_, PyAny>>) -> PyResult<Self> {
        let mut inner = self.inner.clone();
        match environ.filter(|e| !e.is_none()) {
            None => inner.apply_env_os(std::env::vars_os()),
            Some(environ) => inner.apply_env(mapping_vars(&environ)?),
        }
        .map_err(CoreError)?;
        Ok(Self { inner })
    }

    /// A copy with the given keyword arguments changed.
    #[pyo3(signature = (**changes))]
    fn replace(&self, changes: Option<Bound<'_, PyDict>>) -> PyResult<Self> {
        Self::with_changes(self.inner.clone(), changes.as_ref())
    }

    /// The configuration as a dict, in the core's JSON form (the vectors' `config_*` outcome).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner)
    }

    /// Enable or disable offloading.
    #[getter]
    fn enabled(&self) -> bool {
        self.inner.enabled
    }

    /// Offload when the estimated tokens are strictly greater than this.
    #[getter]
    fn threshold_tokens(&self) -> u32 {
        self.inner.threshold_tokens
    }

    /// Seconds before cleanup may delete a file.
    #[getter]
    fn ttl_seconds(&self) -> u64 {
        self.inner.ttl_seconds
    }

    /// Directory for JSONL files; empty means `lro-<uid>` in the system temporary directory,
    /// private to the user.
    #[getter]
    fn output_dir(&self) -> String {
        self.inner.output_dir.clone()
    }

    /// Whether an output directory other users can write is used (else refused).
    #[getter]
    fn allow_shared_dir(&self) -> bool {
        self.inner.allow_shared_dir
    }

    /// File name prefix: `{prefix}-{operation}-{ulid}.jsonl`.
    #[getter]
    fn file_prefix(&self) -> String {
        self.inner.file_prefix.clone()
    }

    /// Which guidance template descriptors carry: `"shell"` or `"native"`.
    #[getter]
    fn guidance(&self) -> &'static str {
        match self.inner.guidance {
            GuidanceMode::Native => "native",
            _ => "shell",
        }
    }

    /// How much of the descriptor an offloaded result returns: `"full"`, `"compact"` or
    /// `"pointer"` (a call's `descriptor=` overrides it).
    #[getter]
    fn descriptor(&self) -> &'static str {
        self.inner.descriptor.name()
    }

    /// With a call's `context_remaining_tokens`, the threshold becomes
    /// `min(threshold_tokens, adaptive_ratio * context_remaining_tokens)`.
    #[getter]
    fn adaptive_ratio(&self) -> f64 {
        self.inner.adaptive_ratio
    }

    /// The full and compact descriptors show the file's first N records, as many as fit
    /// their budget (0: none).
    #[getter]
    fn preview_records(&self) -> u64 {
        self.inner.preview_records
    }

    /// Limits on native extraction, as a dict.
    #[getter]
    fn extract<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.extract)
    }

    /// Bounds on requests to an object store (`output_dir="s3://bucket/prefix"`), as a dict.
    #[getter]
    fn store<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.store)
    }

    /// The MCP helpers' options (`resource_link`, `structured_content`,
    /// `extract_tool_name`, `never_offload`), as a dict.
    #[getter]
    fn mcp<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.mcp)
    }

    /// Per-tool rules by pattern (`{"fs_*": {"mode": "never"}}`), as a dict: the most
    /// specific pattern that matches a tool's name applies.
    #[getter]
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.tools)
    }

    /// Whether results of `tool_name` pass untouched whatever their size:
    /// `mcp.never_offload` names it, or its most specific rule's `mode` is `never`.
    fn never_offloads(&self, tool_name: &str) -> bool {
        self.inner.never_offloads(tool_name)
    }

    /// `Config(enabled=True, threshold_tokens=1600, ..., extract={'max_read_bytes': ...},
    /// ..., tools={...})`: every key of the table, a section as a dict, and the tool rules
    /// when there are any.
    fn __repr__(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut section: Option<(&str, Vec<String>)> = None;
        for key in KEYS {
            let value = py_literal(&key.value(&self.inner));
            match key.name.split_once('.') {
                Some((name, leaf)) => {
                    if section.as_ref().is_some_and(|(open, _)| *open != name) {
                        parts.extend(section.take().map(|(open, items)| dict(open, &items)));
                    }
                    section
                        .get_or_insert_with(|| (name, Vec::new()))
                        .1
                        .push(format!("'{leaf}': {value}"));
                }
                None => parts.push(format!("{}={value}", key.name)),
            }
        }
        parts.extend(section.map(|(open, items)| dict(open, &items)));
        if !self.inner.tools.is_empty() {
            let rules = serde_json::to_value(&self.inner.tools).unwrap_or_default();
            parts.push(format!("tools={}", py_literal(&rules)));
        }
        format!("Config({})", parts.join(", "))
    }
}

/// `name={'a': 1, 'b': 2}`: a section in `Config`'s repr.
fn dict(name: &str, items: &[String]) -> String {
    format!("{name}={{{}}}", items.join(", "))
}

/// A key's value as the repr shows it: Python's `True`, `False` and `None`, numbers as they
/// are, text in double quotes.
fn py_literal(value: &Value) -> String {
    match value {
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Null => "None".to_owned(),
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(whole), _) => whole.to_string(),
            (None, Some(float)) => format!("{float:?}"),
            (None, None) => n.to_string(),
        },
        Value::String(text) => format!("{text:?}"),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(py_literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(_) => value.to_string(),
    }
}

/// The keyword arguments of `Config`, in the table's order: every key without a section,
/// and every section once; then `tools`, the per-tool rules (a dict of rules by pattern).
fn keyword_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for key in KEYS {
        let name = key.section().unwrap_or(key.name);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.push("tools");
    names
}

/// Every configuration key, as a list of dicts (the core's table: `name`, `env`, `type`,
/// `bounds`, `default`, `doc`, ...). A key `section.name` is the keyword argument `section`'s
/// dict key `name`; any other key is a keyword argument of its own.
#[pyfunction]
pub fn config_keys(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, &lro_core::config::keys_json())
}

/// The configuration of a call given none: the defaults with this process's
/// `ATLATL_PROMPT__OFFLOAD__*` variables on top, as the CLI reads them. Read from the process
/// environment (not `os.environ`, which mirrors it) because it costs a microsecond or two, so every
/// call can afford it and a variable set after import is honoured.
pub fn default_config() -> PyResult<OffloadConfig> {
    let mut config = OffloadConfig::default();
    config
        .apply_env_os(std::env::vars_os())
        .map_err(CoreError)?;
    Ok(config)
}

/// The `ATLATL_PROMPT__OFFLOAD__*` items of a mapping of variables. Other items are not read,
/// so an unrelated value that is not text (`os.environ` holds bytes that are not UTF-8 as
/// lone surrogates) is no obstacle; such a value under the prefix is a `ConfigError`.
fn mapping_vars(environ: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let mapping = environ.cast::<PyMapping>()?;
    let mut vars = Vec::new();
    for item in mapping.items()?.iter() {
        let (name, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let Ok(name) = name.extract::<String>() else {
            continue;
        };
        if !name.starts_with(ENV_PREFIX) {
            continue;
        }
        let Ok(value) = value.extract::<String>() else {
            let err = LroError::new(
                ErrorCode::InvalidConfig,
                format!("{name}: the variable's value is not UTF-8 text"),
            );
            return Err(CoreError(err).into());
        };
        vars.push((name, value));
    }
    Ok(vars)
}

/// Reads a configuration file; a missing file is `not_found` (a `PathError`), like every path.
fn read_file(path: &std::path::Path) -> PyResult<String> {
    // The core's reader: a regular file of at most 1 MiB, never a FIFO or a device.
    lro_core::config_file::read_config_file(path).map_err(|e| CoreError(e).into())
}

/// The `[prompt.offload]` section of TOML text over the defaults; sections that look like it
/// but are not (`[Prompt.Offload]`) are named with `warnings.warn` (a `UserWarning`).
fn toml_config(py: Python<'_>, text: &str) -> PyResult<OffloadConfig> {
    let mut config = OffloadConfig::default();
    let warnings = config.apply_toml_checked(text).map_err(CoreError)?;
    for warning in warnings {
        let message = std::ffi::CString::new(warning).unwrap_or_default();
        PyErr::warn(py, py.get_type::<PyUserWarning>().as_any(), &message, 1)?;
    }
    Ok(config)
}
