//! The Python types users pass as records beside JSON's own, and how each becomes JSON:
//! `datetime`, `date` and `time` as their `isoformat()` (what orjson writes, and what
//! `fromisoformat` reads back), a dataclass instance as an object of its fields in their
//! order (as `dataclasses.asdict`, without copying), a pydantic model as its
//! `model_dump(mode="json")` (its own aliases, serializers and field types decide). Only
//! reached for objects that are not JSON's types, so records of dicts pay nothing for it.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyTuple, PyType};

/// Which of the types this module converts an object is.
pub enum Kind {
    /// `datetime.datetime`, `datetime.date`, `datetime.time` or a subclass.
    Temporal,
    /// An instance of a dataclass.
    Dataclass,
    /// A pydantic (v2) model instance.
    Model,
}

/// `(datetime.date, datetime.time)`, imported once (`datetime` is a subclass of `date`).
static TEMPORAL: PyOnceLock<Py<PyTuple>> = PyOnceLock::new();

fn temporal_types(py: Python<'_>) -> PyResult<&Bound<'_, PyTuple>> {
    TEMPORAL
        .get_or_try_init(py, || {
            let module = py.import("datetime")?;
            let types = (module.getattr("date")?, module.getattr("time")?);
            Ok(PyTuple::new(py, [types.0, types.1])?.unbind())
        })
        .map(|types| types.bind(py))
}

/// The kind of `obj`, or `None` when it is none of these (then it is not JSON).
pub fn kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<Kind>> {
    let py = obj.py();
    if obj.is_instance(temporal_types(py)?.as_any())? {
        return Ok(Some(Kind::Temporal));
    }
    // A class itself has these attributes too: only instances are records.
    if obj.is_instance_of::<PyType>() {
        return Ok(None);
    }
    let class = obj.get_type();
    if class.hasattr(intern!(py, "__dataclass_fields__"))? {
        return Ok(Some(Kind::Dataclass));
    }
    if class.hasattr(intern!(py, "__pydantic_serializer__"))?
        && obj.hasattr(intern!(py, "model_dump"))?
    {
        return Ok(Some(Kind::Model));
    }
    Ok(None)
}

/// The fields of a dataclass instance, name and value, in their declared order
/// (`dataclasses.fields`: class variables and init-only variables are not fields).
pub fn dataclass_fields<'py>(
    obj: &Bound<'py, PyAny>,
) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
    let py = obj.py();
    let fields = py
        .import(intern!(py, "dataclasses"))?
        .call_method1(intern!(py, "fields"), (obj,))?;
    fields
        .try_iter()?
        .map(|field| {
            let name = field?.getattr(intern!(py, "name"))?;
            let value = obj.getattr(name.cast::<pyo3::types::PyString>()?)?;
            Ok((name, value))
        })
        .collect()
}

/// A pydantic model as JSON-ready Python values: `model_dump(mode="json")`.
pub fn model_dump<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item(intern!(py, "mode"), intern!(py, "json"))?;
    obj.call_method(intern!(py, "model_dump"), (), Some(&kwargs))
}
