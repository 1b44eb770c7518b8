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
//! `null` (as serde_json and JavaScript's `JSON.stringify` do). `datetime`, dataclasses and
//! pydantic models are converted as `crate::objects` says. Anything else (a set, bytes, ...)
//! is an `InputError`.
//!
//! Exact dicts and lists are walked by `crate::plain`, which writes their plain items without
//! a reference count each; repeated keys are escaped once per call (`KeyCache`).

use std::borrow::Cow;

use lro_core::json::write::{number_from_f64, write_number, write_str};
use lro_core::jsonl::Body;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};

use crate::objects::Kind;
use crate::plain::{Plain, Sink};
use serde_json::Value;

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

/// Object keys already written, by the address of their `str`: records repeat the same key
/// objects (literals, `json.loads`'s memo, field names), so each is escaped once per call.
/// The cache holds a reference to every key it maps, so an address cannot be reused by
/// another string while the entry stands.
struct KeyCache {
    /// Per slot: the key's address, and its `"key":` text in `text`.
    slots: [(usize, u32, u32); KEY_SLOTS],
    text: Vec<u8>,
    held: Vec<Py<PyAny>>,
}

const KEY_SLOTS: usize = 64;
/// Keys longer than this are not cached (rare, and they would crowd the text).
const KEY_MAX_CACHED: usize = 64;
/// At most this many keys held per call: a call with endless distinct keys stops caching.
const KEYS_HELD: usize = 1024;

impl Default for KeyCache {
    fn default() -> Self {
        Self {
            slots: [(0, 0, 0); KEY_SLOTS],
            text: Vec::new(),
            held: Vec::new(),
        }
    }
}

impl KeyCache {
    fn slot(address: usize) -> usize {
        (address >> 4) % KEY_SLOTS
    }

    fn get(&self, address: usize) -> Option<&[u8]> {
        let (cached, start, end) = self.slots[Self::slot(address)];
        (cached == address).then(|| &self.text[start as usize..end as usize])
    }

    fn put(&mut self, key: &Bound<'_, PyAny>, written: &[u8]) {
        if written.len() > KEY_MAX_CACHED || self.held.len() >= KEYS_HELD {
            return;
        }
        let address = key.as_ptr() as usize;
        let (Ok(start), Ok(end)) = (
            u32::try_from(self.text.len()),
            u32::try_from(self.text.len() + written.len()),
        ) else {
            return;
        };
        self.text.extend_from_slice(written);
        self.held.push(key.clone().unbind());
        self.slots[Self::slot(address)] = (address, start, end);
    }
}

/// Writes Python objects as compact JSON.
#[derive(Default)]
pub struct Writer {
    /// The text written so far.
    pub out: Vec<u8>,
    /// A key that was not a `str` (int, bool, None) was written: it may collide with a
    /// `str` key of the same object (`{1: .., "1": ..}`), which only a rewrite resolves.
    non_str_keys: bool,
    keys: KeyCache,
}

/// The path segment of a member (`["created"]`), for an error inside its value.
fn segment(key: &Bound<'_, PyAny>) -> String {
    let name = match key.cast::<PyString>() {
        Ok(s) => crate::pystr::utf8(s).map(str::to_owned).ok(),
        Err(_) => key_of(key).ok(),
    };
    format!("[{:?}]", name.unwrap_or_default())
}

impl Writer {
    /// Writes a plain value. Runs no Python code (crate::plain relies on it) but when a `str`
    /// has no UTF-8 form, and then raises.
    fn write_plain(&mut self, value: Plain<'_, '_>) -> Written {
        match value {
            Plain::Str(s) => {
                let py = s.py();
                let s = s
                    .cast::<PyString>()
                    .map_err(|e| py_failure(&e.into(), py))?;
                write_str(
                    &mut self.out,
                    crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?,
                );
            }
            Plain::Int(i) => self
                .out
                .extend_from_slice(itoa::Buffer::new().format(i).as_bytes()),
            Plain::Float(f) => self.float(f),
            Plain::Bool(b) => self
                .out
                .extend_from_slice(if b { b"true" } else { b"false" }),
            Plain::Null => self.out.extend_from_slice(b"null"),
        }
        Ok(())
    }

    fn int(&mut self, obj: &Bound<'_, PyAny>) -> Written {
        if let Ok(i) = obj.extract::<i64>() {
            self.out
                .extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
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

    /// An exact `dict`.
    fn dict(&mut self, dict: &Bound<'_, PyDict>, depth: usize) -> Written {
        self.out.push(b'{');
        crate::plain::dict_members(dict, self, |writer, key, value| {
            writer.key(&key)?;
            writer
                .value(&value, depth + 1)
                .map_err(|e| e.at(segment(&key)))
        })?;
        self.out.push(b'}');
        Ok(())
    }

    /// An exact `list`.
    fn list(&mut self, list: &Bound<'_, PyList>, depth: usize) -> Written {
        self.out.push(b'[');
        crate::plain::list_items(list, self, |writer, i, item| {
            writer
                .value(&item, depth + 1)
                .map_err(|e| e.at(format!("[{i}]")))
        })?;
        self.out.push(b']');
        Ok(())
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
            self.key(&key)?;
            self.value(&value, depth + 1)
                .map_err(|e| e.at(segment(&key)))?;
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
        if let Ok(d) = obj.cast_exact::<PyDict>() {
            nesting(depth)?;
            return self.dict(d, depth);
        }
        if let Some(plain) = crate::plain::plain(obj) {
            return self.write_plain(plain);
        }
        if let Ok(l) = obj.cast_exact::<PyList>() {
            nesting(depth)?;
            return self.list(l, depth);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            write_str(
                &mut self.out,
                crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?,
            );
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
        self.other(obj, depth)
    }

    /// The types users pass beside JSON's own: `datetime`, `date` and `time` as their
    /// `isoformat()`, dataclass instances as objects of their fields, pydantic models as
    /// their `model_dump(mode="json")`.
    fn other(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Written {
        let py = obj.py();
        let failed = |e: PyErr| py_failure(&e, py);
        match crate::objects::kind(obj).map_err(failed)? {
            Some(Kind::Temporal) => {
                let text = obj.call_method0("isoformat").map_err(failed)?;
                let text = text.cast::<PyString>().map_err(|e| failed(e.into()))?;
                write_str(&mut self.out, crate::pystr::utf8(text).map_err(failed)?);
                Ok(())
            }
            Some(Kind::Dataclass) => {
                nesting(depth)?;
                let fields = crate::objects::dataclass_fields(obj).map_err(failed)?;
                self.out.push(b'{');
                for (i, (name, value)) in fields.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    self.key(&name)?;
                    self.value(&value, depth + 1)
                        .map_err(|e| e.at(segment(&name)))?;
                }
                self.out.push(b'}');
                Ok(())
            }
            Some(Kind::Model) => {
                let dumped = crate::objects::model_dump(obj).map_err(failed)?;
                self.value(&dumped, depth)
            }
            None => Err(ConvertError::new(format!(
                "{} is not JSON-serializable",
                type_name(obj)
            ))),
        }
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

impl Sink for Writer {
    type Error = ConvertError;

    fn separator(&mut self) {
        self.out.push(b',');
    }

    /// Writes a member's key and its colon (`"key":`). Runs no Python code for an exact `str`
    /// key (crate::plain relies on it).
    fn key(&mut self, key: &Bound<'_, PyAny>) -> Written {
        let py = key.py();
        if let Ok(s) = key.cast_exact::<PyString>() {
            let address = s.as_ptr() as usize;
            if let Some(text) = self.keys.get(address) {
                self.out.extend_from_slice(text);
                return Ok(());
            }
            let start = self.out.len();
            write_str(
                &mut self.out,
                crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?,
            );
            self.out.push(b':');
            let (out, keys) = (&self.out, &mut self.keys);
            keys.put(key, &out[start..]);
            return Ok(());
        }
        let name = if let Ok(s) = key.cast::<PyString>() {
            Cow::Borrowed(crate::pystr::utf8(s).map_err(|e| py_failure(&e, py))?)
        } else {
            self.non_str_keys = true;
            Cow::Owned(key_of(key)?)
        };
        write_str(&mut self.out, &name);
        self.out.push(b':');
        Ok(())
    }

    /// [`Writer::write_plain`] for the value of member `key`.
    fn plain(&mut self, value: Plain<'_, '_>, key: &Bound<'_, PyAny>) -> Written {
        self.write_plain(value).map_err(|e| e.at(segment(key)))
    }

    /// [`Writer::write_plain`] for the array element at `index`.
    fn plain_item(&mut self, value: Plain<'_, '_>, index: usize) -> Written {
        self.write_plain(value)
            .map_err(|e| e.at(format!("[{index}]")))
    }

    fn dict_changed(&self) -> ConvertError {
        ConvertError::new("dictionary changed size during iteration".to_owned())
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

/// Records written before the body's size is guessed from them.
const RESERVE_AFTER: usize = 32;

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
    let count = items.size_hint().0;
    let mut line_ends = Vec::with_capacity(count);
    let mut collided = false;
    let lines = items.enumerate().try_for_each(|(i, item)| {
        if i == RESERVE_AFTER && count > 2 * RESERVE_AFTER {
            // Room for the rest at the first records' mean size and a tenth more: the text
            // is then copied once or not at all instead of at every doubling.
            let mean = writer.out.len() / RESERVE_AFTER;
            writer.out.reserve(mean * (count - i) * 11 / 10);
        }
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
