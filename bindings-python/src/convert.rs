//! Conversions between Python objects and the core's serde types, and core errors to
//! Python exceptions. Nothing here decides anything about offloading: it only translates.

use lro_core::{ErrorCode, LroError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use serde::Serialize;
use serde_json::Value;

/// The Python class (defined in `lro/_errors.py`) that carries a core error code.
///
/// Several codes share a class so that callers can catch a family (`except lro.PathError`)
/// and still branch on the exact `.code`.
pub fn class_for(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::InvalidConfig => "ConfigError",
        ErrorCode::InvalidInput | ErrorCode::InvalidDetail | ErrorCode::InvalidOperation => {
            "InputError"
        }
        ErrorCode::InvalidArgument | ErrorCode::InvalidQuery | ErrorCode::QueryFailed => {
            "ExtractionError"
        }
        ErrorCode::PathDenied | ErrorCode::NotFound => "PathError",
        ErrorCode::Io => "StorageError",
        // The enum is non-exhaustive: a code added to the core later still surfaces, as the base class.
        _ => "LroError",
    }
}

/// Builds the Python exception for a code string and message.
pub fn error_from_parts(py: Python<'_>, class_name: &str, code: &str, message: &str) -> PyErr {
    let built = py
        .import("lro._errors")
        .and_then(|module| module.getattr(class_name))
        .and_then(|class| class.call1((message, code)));
    match built {
        Ok(exception) => PyErr::from_value(exception),
        // Only reachable when the package is broken (lro._errors missing): say so.
        Err(err) => err,
    }
}

/// The Python exception for a core error: the class of its code, `.code` set to the code string.
pub fn lro_err(py: Python<'_>, err: &LroError) -> PyErr {
    error_from_parts(
        py,
        class_for(err.code()),
        err.code().as_str(),
        err.message(),
    )
}

/// An `InputError` (`invalid_input`) for a Python value that cannot become JSON.
pub fn input_err(py: Python<'_>, what: &str, err: impl std::fmt::Display) -> PyErr {
    let code = ErrorCode::InvalidInput;
    error_from_parts(
        py,
        class_for(code),
        code.as_str(),
        &format!("{what} cannot be converted to JSON: {err}"),
    )
}

/// A Python object (dict, list, str, int, float, bool, None, nested) as a JSON value.
pub fn to_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    crate::tojson::convert(obj).map_err(|e| conversion_err(obj.py(), &e, what))
}

fn conversion_err(py: Python<'_>, err: &crate::tojson::ConvertError, what: &str) -> PyErr {
    let code = ErrorCode::InvalidInput;
    error_from_parts(py, class_for(code), code.as_str(), &err.describe(what))
}

/// Optional object to optional JSON value (`None` stays absent).
pub fn to_value_opt(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Value>> {
    match obj {
        Some(o) if !o.is_none() => to_value(o, what).map(Some),
        _ => Ok(None),
    }
}

/// A serializable core result as plain Python objects (dicts, lists, str, int, float, bool, None).
///
/// Goes through `serde_json::Value` so that tuples (`score_range`) become lists, exactly as
/// the JSON every other binding returns.
pub fn to_py<'py, T: Serialize>(py: Python<'py>, result: &T) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(result).map_err(|e| input_err(py, "result", e))?;
    value_to_py(py, &value)
}

/// A JSON value as plain Python objects.
pub fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| input_err(py, "result", e))
}

/// Records as the core takes them fastest.
pub enum Records {
    /// JSON text (`str`, `bytes`, `bytearray`, or a non-list object written here).
    Json(Vec<u8>),
    /// A list or tuple, written here one record per line.
    Lines(lro_core::jsonl::Body),
}

impl Records {
    /// Reads `records` (see [`records_json`]); lists and tuples become lines directly.
    pub fn from_py(records: &Bound<'_, PyAny>) -> PyResult<Self> {
        match crate::tojson::to_lines(records) {
            Some(lines) => lines
                .map(Self::Lines)
                .map_err(|e| conversion_err(records.py(), &e, "records")),
            None => records_json(records, "records").map(Self::Json),
        }
    }
}

/// Records as JSON text, the way the core takes them fastest: `str`, `bytes` and
/// `bytearray` as given (already JSON), any other object written as compact JSON here.
pub fn records_json(records: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(text) = records.cast::<PyString>() {
        return Ok(crate::pystr::utf8(text)?.as_bytes().to_vec());
    }
    if let Ok(bytes) = records.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(bytes) = records.cast::<PyByteArray>() {
        return Ok(bytes.to_vec());
    }
    crate::tojson::to_json(records).map_err(|e| conversion_err(records.py(), &e, what))
}
