//! Python objects to `serde_json::Value`, the input side of every call.
//!
//! Hand-written rather than serde-driven (pythonize) for one reason that matters: safety.
//! A circular or absurdly deep structure (`a = []; a.append(a)`) must raise, not recurse until
//! the native stack overflows and takes the interpreter down. Nesting is limited to 128
//! levels, the same limit serde_json applies to the `str`/`bytes` fast path, so both paths
//! accept the same inputs. The error names where the bad value is (`records[3]['created']`).
//!
//! The mapping follows `json.dumps`: dict -> object (str keys; int, bool and None keys become
//! their JSON text), list/tuple -> array, str, int, float, bool, None. Non-finite floats become
//! `null` (as serde_json and JavaScript's `JSON.stringify` do). Anything else (datetime,
//! set, a pydantic model, ...) is an `InputError`: convert it first (`model.model_dump()`).

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// Deepest nesting accepted (serde_json's own recursion limit for parsed text).
pub const MAX_DEPTH: usize = 128;

/// Why a value could not be converted, and where (path segments, innermost last).
pub struct ConvertError {
    path: Vec<String>,
    reason: String,
}

impl ConvertError {
    fn new(reason: String) -> Self {
        Self {
            path: Vec::new(),
            reason,
        }
    }

    fn at(mut self, segment: String) -> Self {
        self.path.push(segment);
        self
    }

    /// `records[3]['created']: datetime is not JSON ...`
    pub fn describe(&self, root: &str) -> String {
        let mut out = root.to_owned();
        for segment in self.path.iter().rev() {
            out.push_str(segment);
        }
        format!("{out}: {}", self.reason)
    }
}

type Converted = Result<Value, ConvertError>;

fn py_failure(err: &PyErr, py: Python<'_>) -> ConvertError {
    ConvertError::new(err.value(py).to_string())
}

fn string_of(s: &Bound<'_, PyString>) -> Result<String, ConvertError> {
    s.to_cow()
        .map(|c| c.into_owned())
        .map_err(|e| py_failure(&e, s.py()))
}

/// An object key as `json.dumps` writes it.
fn key_of(key: &Bound<'_, PyAny>) -> Result<String, ConvertError> {
    if let Ok(s) = key.cast::<PyString>() {
        return string_of(s);
    }
    if let Ok(b) = key.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_owned());
    }
    if key.is_none() {
        return Ok("null".to_owned());
    }
    if key.is_instance_of::<PyInt>() {
        return key
            .str()
            .and_then(|s| s.to_cow().map(|c| c.into_owned()))
            .map_err(|e| py_failure(&e, key.py()));
    }
    Err(ConvertError::new(format!(
        "keys must be str, int, bool or None, not {}",
        type_name(key)
    )))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}

fn int_of(obj: &Bound<'_, PyAny>) -> Converted {
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(Value::Number(i.into()));
    }
    if let Ok(u) = obj.extract::<u64>() {
        return Ok(Value::Number(u.into()));
    }
    Err(ConvertError::new(
        "integer out of the 64-bit range JSON numbers are read with".to_owned(),
    ))
}

fn float_of(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn object_of<'py>(
    items: impl Iterator<Item = PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)>>,
    py: Python<'py>,
    depth: usize,
) -> Converted {
    let mut map = Map::new();
    for item in items {
        let (key, value) = item.map_err(|e| py_failure(&e, py))?;
        let key = key_of(&key)?;
        let value = convert(&value, depth + 1).map_err(|e| e.at(format!("[{key:?}]")))?;
        map.insert(key, value);
    }
    Ok(Value::Object(map))
}

fn array_of<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>, depth: usize) -> Converted {
    items
        .enumerate()
        .map(|(i, item)| convert(&item, depth + 1).map_err(|e| e.at(format!("[{i}]"))))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Converts `obj` at nesting level `depth` (0 at the top).
pub fn convert(obj: &Bound<'_, PyAny>, depth: usize) -> Converted {
    let py = obj.py();
    if depth > MAX_DEPTH {
        return Err(ConvertError::new(format!(
            "nested deeper than {MAX_DEPTH} levels (or a circular reference)"
        )));
    }
    // Most common types first, exact checks (cheap pointer compares) before subclass checks.
    if let Ok(d) = obj.cast_exact::<PyDict>() {
        return object_of(d.iter().map(Ok), py, depth);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return string_of(s).map(Value::String);
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_of(obj);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(float_of(f.value()));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return array_of(l.iter(), depth);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return array_of(t.iter(), depth);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return object_of(d.iter().map(Ok), py, depth);
    }
    if let Ok(m) = obj.cast::<PyMapping>() {
        let items = m.items().map_err(|e| py_failure(&e, py))?;
        let pairs = items
            .iter()
            .map(|pair| pair.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>());
        return object_of(pairs, py, depth);
    }
    let hint = if obj.hasattr("model_dump").unwrap_or(false) {
        " (call .model_dump() first)"
    } else {
        ""
    };
    Err(ConvertError::new(format!(
        "{} is not JSON-serializable{hint}",
        type_name(obj)
    )))
}
