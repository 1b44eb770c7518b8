//! Borrowing a Python `str` as UTF-8 without a copy: one `unsafe` block (the crate's other
//! `unsafe` module is `plain`, items borrowed from their containers).
//!
//! pyo3 built for the stable ABI of CPython 3.9 (`abi3-py39`) reads a `str` through
//! `PyUnicode_AsUTF8String`, which allocates a new `bytes` object for every string; for
//! records that is most of the conversion time. `PyUnicode_AsUTF8AndSize` returns the
//! string's own UTF-8 buffer (cached in the object, the data itself for ASCII strings). It
//! is exported by every CPython 3 (public API since 3.3) and part of the stable ABI since
//! 3.10, which is why pyo3 only declares it there; its signature has never changed.
#![allow(unsafe_code, reason = "one FFI call, documented below")]

use std::os::raw::c_char;

use pyo3::exceptions::PyValueError;
use pyo3::ffi::{Py_ssize_t, PyObject};
use pyo3::prelude::*;
use pyo3::types::PyString;

unsafe extern "C" {
    fn PyUnicode_AsUTF8AndSize(unicode: *mut PyObject, size: *mut Py_ssize_t) -> *const c_char;
}

/// The UTF-8 text of `s`, borrowed from the object; strings that are not valid Unicode
/// (lone surrogates) raise, as `str.encode()` does.
pub fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    let mut size: Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (the `Bound` holds a reference and the GIL is held), and
    // `size` is a valid out-pointer. On success CPython returns a buffer of `size` bytes
    // owned by the object, valid until the object is freed, which `'a` (a borrow of the
    // `Bound`) outlives. On failure it returns NULL with an exception set.
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(
            PyErr::take(s.py()).unwrap_or_else(|| PyValueError::new_err("str is not valid UTF-8"))
        );
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: non-null `data` points at `len` initialized bytes that live as long as `s`,
    // and they are valid UTF-8: CPython's strict UTF-8 encoder produced them (it refuses
    // lone surrogates, the only `str` content that has no UTF-8 form, with the error above).
    Ok(
        unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast::<u8>(), len))
        },
    )
}
