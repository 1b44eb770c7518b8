//! Strings across N-API in one pass each, with N-API's own calls.
//!
//! napi-rs's `JsString::into_utf8` measures the UTF-8 length (a pass over the string),
//! fills a zeroed buffer (a second) and `into_owned` copies it (a third): for the megabytes
//! of a serialized result set, milliseconds. Here the buffer is sized from the UTF-16
//! length, which N-API gives without a pass (a UTF-16 unit is at most 3 UTF-8 bytes), left
//! uninitialized, and written once. Untouched capacity costs address space, not memory.
//!
//! Like `into_utf8` (the same N-API call), lone surrogates come out as U+FFFD.
#![allow(
    unsafe_code,
    reason = "N-API calls writing into our buffers, documented below"
)]

use std::ptr;

use napi::{Env, JsValue, Status, sys};

fn check(status: sys::napi_status, what: &str) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::new(
            Status::from(status),
            format!("could not read {what}"),
        ))
    }
}

/// The length of `string` in UTF-16 code units, without a pass over it.
fn utf16_len(env: sys::napi_env, value: sys::napi_value) -> napi::Result<usize> {
    let mut units = 0usize;
    // SAFETY: `env` and `value` are live handles of the calling N-API callback; with a null
    // buffer, N-API only writes the string's length in UTF-16 units to `units`.
    check(
        unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut units) },
        "the string's length",
    )?;
    Ok(units)
}

/// The UTF-16 units of `string`, which must be a JS string (the caller checked its type):
/// for text the worker thread converts itself, the cheapest copy out of V8 (no encoding).
pub fn utf16_units<'env>(env: &Env, string: &impl JsValue<'env>) -> napi::Result<Vec<u16>> {
    let (env, value) = (env.raw(), string.raw());
    let units = utf16_len(env, value)?;
    let capacity = units
        .checked_add(1)
        .ok_or_else(|| napi::Error::new(Status::InvalidArg, "the string is too long"))?;
    let mut text: Vec<u16> = Vec::with_capacity(capacity);
    let mut written = 0usize;
    // SAFETY: `text` owns `capacity` writable units; N-API writes at most `capacity - 1`
    // units and a NUL, and reports in `written` how many it wrote before the NUL.
    check(
        unsafe {
            sys::napi_get_value_string_utf16(env, value, text.as_mut_ptr(), capacity, &mut written)
        },
        "the string",
    )?;
    // SAFETY: the call above initialized the first `written` units, and `written < capacity`.
    unsafe { text.set_len(written.min(capacity - 1)) };
    Ok(text)
}

/// The UTF-8 bytes of `string`, which must be a JS string (the caller checked its type).
pub fn utf8_bytes<'env>(env: &Env, string: &impl JsValue<'env>) -> napi::Result<Vec<u8>> {
    let (env, value) = (env.raw(), string.raw());
    let units = utf16_len(env, value)?;
    let capacity = units
        .checked_mul(3)
        .and_then(|bytes| bytes.checked_add(1))
        .ok_or_else(|| napi::Error::new(Status::InvalidArg, "the string is too long"))?;
    let mut bytes: Vec<u8> = Vec::with_capacity(capacity);
    let mut written = 0usize;
    // SAFETY: `bytes` owns `capacity` writable bytes; N-API writes at most `capacity - 1`
    // bytes of UTF-8 and a NUL, whole characters only, and reports in `written` how many
    // bytes it wrote before the NUL. `capacity` holds every character, so nothing is cut.
    check(
        unsafe {
            sys::napi_get_value_string_utf8(
                env,
                value,
                bytes.as_mut_ptr().cast(),
                capacity,
                &mut written,
            )
        },
        "the string",
    )?;
    // SAFETY: the call above initialized the first `written` bytes, and `written < capacity`.
    unsafe { bytes.set_len(written.min(capacity - 1)) };
    Ok(bytes)
}
