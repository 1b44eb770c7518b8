//! Conversions between Python objects and the core's serde types, and core errors to
//! Python exceptions. Nothing here decides anything about offloading: it only translates.

use lro_core::{ErrorCode, LroError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString, PyType};
use serde::Serialize;
use serde_json::Value;

/// A core error on its way to Python. `?` turns it into the `lro` exception of its code
/// (`.map_err(CoreError)?`): this `From` is the one way an [`LroError`] becomes a `PyErr`.
pub struct CoreError(pub LroError);

impl From<CoreError> for PyErr {
    fn from(CoreError(err): CoreError) -> Self {
        // Every caller holds the GIL (errors are converted after `detach` returns), so this
        // only finds the thread's existing attachment.
        Python::attach(|py| exception(py, err.code().as_str(), err.message()))
    }
}

/// An `InputError` (`invalid_input`): a value that cannot cross the boundary as JSON.
pub fn invalid_input(message: String) -> PyErr {
    CoreError(LroError::new(ErrorCode::InvalidInput, message)).into()
}

/// The exception classes of `lro._errors`, read at the first error and kept: `CODE_CLASSES`
/// there is the one table of which code raises which class.
struct ErrorClasses {
    /// `CODE_CLASSES` as it was read: (code, class).
    by_code: Vec<(String, Py<PyType>)>,
    /// `LroError`, raised for a code `CODE_CLASSES` does not list (the core's code enum is
    /// non-exhaustive: a code added later still surfaces).
    base: Py<PyType>,
}

static ERROR_CLASSES: PyOnceLock<ErrorClasses> = PyOnceLock::new();

fn error_classes(py: Python<'_>) -> PyResult<&'static ErrorClasses> {
    ERROR_CLASSES.get_or_try_init(py, || {
        let module = py.import("lro._errors")?;
        let base = module.getattr("LroError")?.cast_into::<PyType>()?.unbind();
        let table = module.getattr("CODE_CLASSES")?.cast_into::<PyDict>()?;
        let by_code = table
            .iter()
            .map(|(code, class)| Ok((code.extract()?, class.cast_into::<PyType>()?.unbind())))
            .collect::<PyResult<_>>()?;
        Ok(ErrorClasses { by_code, base })
    })
}

/// The exception for an error `code` (any string) and `message`: an instance of the class
/// `CODE_CLASSES` gives the code, `LroError` for one it does not list, with `.code` set.
pub fn exception(py: Python<'_>, code: &str, message: &str) -> PyErr {
    let built = error_classes(py).and_then(|classes| {
        let class = classes
            .by_code
            .iter()
            .find(|(known, _)| known == code)
            .map_or(&classes.base, |(_, class)| class);
        class.bind(py).call1((message, code))
    });
    match built {
        Ok(exception) => PyErr::from_value(exception),
        // Only reachable when the package is broken (lro._errors missing): say so.
        Err(err) => err,
    }
}

/// A Python object (dict, list, str, int, float, bool, None, nested) as a JSON value.
pub fn to_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    crate::tojson::convert(obj).map_err(|e| invalid_input(e.describe(what)))
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
/// the JSON every other binding returns. A result that cannot be serialized raises an
/// `InputError` (`invalid_input`); it never comes back as `None`.
pub fn to_py<'py, T: Serialize>(py: Python<'py>, result: &T) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(result).map_err(result_err)?;
    value_to_py(py, &value)
}

/// A JSON value as plain Python objects.
pub fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(result_err)
}

fn result_err(err: impl std::fmt::Display) -> PyErr {
    invalid_input(format!(
        "the result cannot be converted to Python objects: {err}"
    ))
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
    ///
    /// Keys that collide in a dict (`{1: .., "1": ..}`) are merged by JSON: the text as
    /// written goes to the core then, which merges them as it merges a JSON text's keys
    /// named twice and says how many (`duplicate_keys`), as for that dict's `json.dumps`.
    pub fn from_py(records: &Bound<'_, PyAny>) -> PyResult<Self> {
        let unsettled = |records| {
            crate::tojson::to_json_unsettled(records)
                .map(Self::Json)
                .map_err(|e| invalid_input(e.describe("records")))
        };
        match crate::tojson::to_lines(records) {
            Some(Ok((lines, false))) => Ok(Self::Lines(lines)),
            Some(Ok((_, true))) => unsettled(records),
            Some(Err(e)) => Err(invalid_input(e.describe("records"))),
            None if records.cast::<PyString>().is_ok()
                || records.cast::<PyBytes>().is_ok()
                || records.cast::<PyByteArray>().is_ok() =>
            {
                records_json(records, "records").map(Self::Json)
            }
            None => unsettled(records),
        }
    }
}

/// Records as JSON text, the way the core takes them fastest: `str`, `bytes` and
/// `bytearray` as given (already JSON), any other object written as compact JSON here.
pub fn records_json(records: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(text) = records.cast::<PyString>() {
        // A `str` with lone surrogates has no UTF-8 form: bad input, like any other.
        return crate::pystr::utf8(text)
            .map(|text| text.as_bytes().to_vec())
            .map_err(|e| invalid_input(format!("{what}: {}", e.value(records.py()))));
    }
    if let Ok(bytes) = records.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(bytes) = records.cast::<PyByteArray>() {
        return Ok(bytes.to_vec());
    }
    crate::tojson::to_json(records).map_err(|e| invalid_input(e.describe(what)))
}
