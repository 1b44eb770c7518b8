//! Python objects to compact JSON text, the input side of every call.
//!
//! Records go to the core as JSON text (its fast path, no `Value` tree on either side of
//! the boundary), written here straight from the Python objects in serde_json's compact
//! spelling. Other arguments (config, context) are read back into a `Value`.
//!
//! Hand-written rather than serde-driven (pythonize) for speed and for safety: a circular
//! or absurdly deep structure (`a = []; a.append(a)`) must raise, not recurse until the
//! native stack overflows and takes the interpreter down. Containers nest at most 127 deep,
//! exactly what serde_json reads back, so objects and `str`/`bytes` accept the same inputs.
//! The error names where the bad value is (`records[3]['created']`).
//!
//! The mapping follows `json.dumps`: dict -> object (str keys; int, bool and None keys become
//! their JSON text), list/tuple -> array, str, int, float, bool, None. Non-finite floats become
//! `null` (as serde_json and JavaScript's `JSON.stringify` do). Anything else (datetime,
//! set, a pydantic model, ...) is an `InputError`: convert it first (`model.model_dump()`).

use std::borrow::Cow;

use lro_core::json::write::{number_from_f64, write_number, write_str};
use lro_core::jsonl::Body;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde_json::{Number, Value};

/// Most containers nested in one another: serde_json's recursion limit (128) rejects more.
pub const MAX_NESTING: usize = 127;

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

type Written = Result<(), ConvertError>;

fn py_failure(err: &PyErr, py: Python<'_>) -> ConvertError {
    ConvertError::new(err.value(py).to_string())
}

/// A key that is not a `str` as `json.dumps` writes it.
fn key_of(key: &Bound<'_, PyAny>) -> Result<String, ConvertError> {
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

/// Writes Python objects as compact JSON.
#[derive(Default)]
pub struct Writer {
    /// The text written so far.
    pub out: Vec<u8>,
    /// A key that was not a `str` (int, bool, None) was written: it may collide with a
    /// `str` key of the same object (`{1: .., "1": ..}`), which only a rewrite resolves.
    non_str_keys: bool,
}

impl Writer {
    fn int(&mut self, obj: &Bound<'_, PyAny>) -> Written {
        if let Ok(i) = obj.extract::<i64>() {
            write_number(&mut self.out, &Number::from(i));
        } else {
            // An int of any size, its digits exactly, as `json.dumps` writes it (serde_json's
            // `arbitrary_precision` keeps them in a `Value` alike). Through `__index__`, so a
            // subclass's own `__str__` (an `IntEnum`'s name) is not taken for its digits.
            let digits = obj
                .call_method0("__index__")
                .and_then(|int| int.str())
                .map_err(|e| ConvertError::new(format!("an int without digits: {e}")))?;
            let digits = digits
                .to_cow()
                .map_err(|e| ConvertError::new(e.to_string()))?;
            let digits = digits.as_bytes();
            let magnitude = digits.strip_prefix(b"-").unwrap_or(digits);
            if magnitude.is_empty() || !magnitude.iter().all(u8::is_ascii_digit) {
                return Err(ConvertError::new("an int without digits".to_owned()));
            }
            self.out.extend_from_slice(digits);
        }
        Ok(())
    }

    /// Non-finite floats become `null`, as serde_json and `JSON.stringify` write them.
    fn float(&mut self, f: f64) {
        match number_from_f64(f) {
            Some(n) => write_number(&mut self.out, &n),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    fn object<'py>(
        &mut self,
        items: impl Iterator<Item = PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)>>,
        py: Python<'py>,
        depth: usize,
    ) -> Written {
        self.out.push(b'{');
        for (i, item) in items.enumerate() {
            let (key, value) = item.map_err(|e| py_failure(&e, py))?;
            if i > 0 {
                self.out.push(b',');
            }
            let name = if let Ok(s) = key.cast::<PyString>() {
                Cow::Borrowed(crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?)
            } else {
                self.non_str_keys = true;
                Cow::Owned(key_of(&key)?)
            };
            write_str(&mut self.out, &name);
            self.out.push(b':');
            self.value(&value, depth + 1)
                .map_err(|e| e.at(format!("[{name:?}]")))?;
        }
        self.out.push(b'}');
        Ok(())
    }

    fn array<'py>(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        depth: usize,
    ) -> Written {
        self.out.push(b'[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.value(&item, depth + 1)
                .map_err(|e| e.at(format!("[{i}]")))?;
        }
        self.out.push(b']');
        Ok(())
    }

    /// Writes `obj`, at nesting level `depth` (0 at the top).
    pub fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Written {
        let py = obj.py();
        // Most common types first, exact checks (cheap pointer compares) before subclass checks.
        if let Ok(s) = obj.cast_exact::<PyString>() {
            write_str(
                &mut self.out,
                crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?,
            );
            return Ok(());
        }
        if let Ok(d) = obj.cast_exact::<PyDict>() {
            nesting(depth)?;
            return self.object(d.iter().map(Ok), py, depth);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            write_str(
                &mut self.out,
                crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?,
            );
            return Ok(());
        }
        if obj.is_none() {
            self.out.extend_from_slice(b"null");
            return Ok(());
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            self.out
                .extend_from_slice(if b.is_true() { b"true" } else { b"false" });
            return Ok(());
        }
        if obj.is_instance_of::<PyInt>() {
            return self.int(obj);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            self.float(f.value());
            return Ok(());
        }
        if let Ok(l) = obj.cast::<PyList>() {
            nesting(depth)?;
            return self.array(l.iter(), depth);
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            nesting(depth)?;
            return self.array(t.iter(), depth);
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            nesting(depth)?;
            return self.object(d.iter().map(Ok), py, depth);
        }
        if let Ok(m) = obj.cast::<PyMapping>() {
            nesting(depth)?;
            let items = m.items().map_err(|e| py_failure(&e, py))?;
            let pairs = items
                .iter()
                .map(|pair| pair.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>());
            return self.object(pairs, py, depth);
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

    /// Writes `text` again through a `Value` when it may hold duplicate keys, so they
    /// resolve exactly as serde_json resolves them (last value, first position). Whether
    /// it did.
    fn settle(&mut self, start: usize) -> Result<bool, ConvertError> {
        if !std::mem::take(&mut self.non_str_keys) {
            return Ok(false);
        }
        let value: Value = serde_json::from_slice(&self.out[start..])
            .map_err(|e| ConvertError::new(e.to_string()))?;
        self.out.truncate(start);
        lro_core::json::write::write_value(&mut self.out, &value);
        Ok(true)
    }
}

fn nesting(depth: usize) -> Written {
    if depth >= MAX_NESTING {
        return Err(ConvertError::new(format!(
            "nested deeper than {MAX_NESTING} levels (or a circular reference)"
        )));
    }
    Ok(())
}

/// `obj` as compact JSON text.
pub fn to_json(obj: &Bound<'_, PyAny>) -> Result<Vec<u8>, ConvertError> {
    let mut writer = Writer::default();
    writer.value(obj, 0)?;
    writer.settle(0)?;
    Ok(writer.out)
}

/// `obj` as JSON text as written, keys that collide (`{1: .., "1": ..}` is
/// `{"1":..,"1":..}`) left for the reader: the core merges them as serde_json does and says
/// how many it merged.
pub fn to_json_unsettled(obj: &Bound<'_, PyAny>) -> Result<Vec<u8>, ConvertError> {
    let mut writer = Writer::default();
    writer.value(obj, 0)?;
    Ok(writer.out)
}

/// A list or tuple of records as JSONL lines in the core's form (compact, serde_json's
/// spelling, unique keys), and whether keys collided (then merged); `None` for other
/// objects.
pub fn to_lines(obj: &Bound<'_, PyAny>) -> Option<Result<(Body, bool), ConvertError>> {
    let items: Box<dyn Iterator<Item = Bound<'_, PyAny>>> = if let Ok(l) = obj.cast::<PyList>() {
        Box::new(l.iter())
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        Box::new(t.iter())
    } else {
        return None;
    };
    let mut writer = Writer::default();
    let mut line_ends = Vec::with_capacity(items.size_hint().0);
    let mut collided = false;
    let lines = items.enumerate().try_for_each(|(i, item)| {
        let start = writer.out.len();
        writer.value(&item, 1).map_err(|e| e.at(format!("[{i}]")))?;
        collided |= writer.settle(start)?;
        writer.out.push(b'\n');
        line_ends.push(writer.out.len());
        Ok(())
    });
    Some(lines.map(|()| (Body::new(writer.out, line_ends), collided)))
}

/// `obj` as a JSON value (through its text: one walker for both).
pub fn convert(obj: &Bound<'_, PyAny>) -> Result<Value, ConvertError> {
    let text = to_json(obj)?;
    serde_json::from_slice(&text).map_err(|e| ConvertError::new(e.to_string()))
}
