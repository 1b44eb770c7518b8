//! The items of a `dict` or `list` without a reference count per item: the walker's hot loop.
//!
//! Built for the stable ABI, pyo3 cannot inline CPython's reference counting: every item it
//! hands out is one `Py_IncRef` call and one `Py_DecRef` call, and a dict iterator asks for the
//! dict's size at every step. For records (a dozen keys, nearly all of them strings and
//! numbers) that was a fifth of an offload's time. Here an item is borrowed from its container
//! (`PyDict_Next`, `PyList_GetItem`: the container holds it) and written at once when it is a
//! plain value of an exact builtin type (`str`, `int`, `float`, `bool`, `None`), whose writing
//! runs no Python code. Anything else (a nested container, a subclass, an object to convert)
//! is taken as an owned reference first, then handed to the walker, which may run Python code
//! (`__index__`, `isoformat`, a getter) that could change the container or free what it held.
//!
//! The invariant that makes the borrow sound: between taking a borrowed item and writing it,
//! only the writer's plain methods run (`Writer::key`, `Writer::plain`), and they call no Python
//! code, only C functions of the exact builtin types that neither run Python code nor create
//! objects that could start the garbage collector (an ASCII or cached `str`'s UTF-8, an exact
//! `int`'s value checked for overflow, a `float`'s value). A `str` that has no UTF-8 (lone
//! surrogates) raises; the item is not touched again after that.
#![allow(
    unsafe_code,
    reason = "borrowed items of a container held by the caller, documented below"
)]

use std::os::raw::c_int;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

/// What the items are written to (the walker's `Writer`). For the module's invariant, `key`
/// on an exact `str` and the `plain` methods must run no Python code.
pub trait Sink {
    /// Why an item could not be written.
    type Error;
    /// Between two items: `,`.
    fn separator(&mut self);
    /// A member's key and its colon.
    fn key(&mut self, key: &Bound<'_, PyAny>) -> Result<(), Self::Error>;
    /// The plain value of member `key`.
    fn plain(&mut self, value: Plain<'_, '_>, key: &Bound<'_, PyAny>) -> Result<(), Self::Error>;
    /// The plain array element at `index`.
    fn plain_item(&mut self, value: Plain<'_, '_>, index: usize) -> Result<(), Self::Error>;
    /// The error for a dict whose size changed while it was written.
    fn dict_changed(&self) -> Self::Error;
}

/// A value the writer writes with no Python code running.
pub enum Plain<'a, 'py> {
    /// An exact `str`.
    Str(&'a Bound<'py, PyAny>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
}

/// `obj` as a plain value, when it is one (exact builtin type, an `int` within 64 bits).
pub fn plain<'a, 'py>(obj: &'a Bound<'py, PyAny>) -> Option<Plain<'a, 'py>> {
    let ptr = obj.as_ptr();
    // SAFETY: `ptr` is a live object (the `Bound` refers to it); reading its type and
    // comparing addresses with the builtin type objects and singletons runs no code.
    unsafe {
        let ty = ffi::Py_TYPE(ptr);
        if ty == &raw mut ffi::PyUnicode_Type {
            return Some(Plain::Str(obj));
        }
        if ty == &raw mut ffi::PyFloat_Type {
            // An exact float cannot fail to give its value.
            return Some(Plain::Float(ffi::PyFloat_AsDouble(ptr)));
        }
        if ty == &raw mut ffi::PyLong_Type {
            let mut overflow: c_int = 0;
            // With an overflow flag an exact int raises nothing: beyond 64 bits it is not
            // plain (its digits are written by the walker, through Python).
            let value = ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow);
            return (overflow == 0).then_some(Plain::Int(value));
        }
        if ptr == ffi::Py_None() {
            return Some(Plain::Null);
        }
        if ptr == ffi::Py_True() {
            return Some(Plain::Bool(true));
        }
        if ptr == ffi::Py_False() {
            return Some(Plain::Bool(false));
        }
    }
    None
}

/// Writes the items of `dict` as an object's members (`"key":value,...`, without braces):
/// string keys and plain values by the writer itself, every other pair owned and given to
/// `other` (which writes key and value). Fails when `other` changed the dict's size.
pub fn dict_members<'py, W: Sink>(
    dict: &Bound<'py, PyDict>,
    writer: &mut W,
    mut other: impl FnMut(&mut W, Bound<'py, PyAny>, Bound<'py, PyAny>) -> Result<(), W::Error>,
) -> Result<(), W::Error> {
    let py = dict.py();
    // SAFETY: `dict` is a live dict (the caller holds a reference) and the GIL is held.
    let size = unsafe { ffi::PyDict_Size(dict.as_ptr()) };
    let mut pos: ffi::Py_ssize_t = 0;
    let mut first = true;
    loop {
        let mut key: *mut ffi::PyObject = std::ptr::null_mut();
        let mut value: *mut ffi::PyObject = std::ptr::null_mut();
        // SAFETY: as above; `PyDict_Next` returns borrowed references, valid while the dict
        // holds them, and reads its position against the dict as it now is (safe even if
        // Python code changed the dict since the last step).
        if unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut key, &mut value) } == 0 {
            return Ok(());
        }
        // SAFETY: non-null borrowed references from the dict (above). The key is owned at
        // once; the value is borrowed only until it is written by the writer's plain methods
        // (see the module's invariant) or owned.
        let key = unsafe { Bound::from_borrowed_ptr(py, key) };
        let value = unsafe { pyo3::Borrowed::from_ptr(py, value) };
        if !first {
            writer.separator();
        }
        first = false;
        let str_key = key.cast_exact::<PyString>().is_ok();
        match plain(&value) {
            Some(plain) if str_key => {
                writer.key(&key)?;
                writer.plain(plain, &key)?;
            }
            _ => {
                other(writer, key, value.to_owned())?;
                // SAFETY: as above.
                if unsafe { ffi::PyDict_Size(dict.as_ptr()) } != size {
                    return Err(writer.dict_changed());
                }
            }
        }
    }
}

/// Writes the items of `list` as an array's elements (without brackets): plain values by the
/// writer, others owned and given to `other` with their index.
pub fn list_items<'py, W: Sink>(
    list: &Bound<'py, PyList>,
    writer: &mut W,
    mut other: impl FnMut(&mut W, usize, Bound<'py, PyAny>) -> Result<(), W::Error>,
) -> Result<(), W::Error> {
    let py = list.py();
    let mut i = 0;
    // The length is read at every step: `other` may run Python code that changes the list,
    // and a `for` loop over a list sees such a change too.
    while i < list.len() {
        let index = ffi::Py_ssize_t::try_from(i).unwrap_or(ffi::Py_ssize_t::MAX);
        // SAFETY: `list` is a live list (the caller holds a reference), the GIL is held and
        // `index` is within its length: `PyList_GetItem` returns a non-null borrowed reference,
        // valid while the list holds it, used as the module's invariant says.
        let item =
            unsafe { pyo3::Borrowed::from_ptr(py, ffi::PyList_GetItem(list.as_ptr(), index)) };
        if i > 0 {
            writer.separator();
        }
        match plain(&item) {
            Some(plain) => writer.plain_item(plain, i)?,
            None => other(writer, i, item.to_owned())?,
        }
        i += 1;
    }
    Ok(())
}
