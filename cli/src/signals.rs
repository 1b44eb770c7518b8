//! The one signal `lro` does not leave at its default: `SIGXFSZ`.
//!
//! A write past the file size limit (`RLIMIT_FSIZE`, set by `ulimit -f`, `prlimit` or a
//! service manager) raises `SIGXFSZ`, whose default action kills the process: the proxy and
//! every call in flight would be lost. With a handler the write fails with `EFBIG` instead,
//! and the offload falls back to the inline result, as for any failed write. A handler that
//! does nothing, rather than ignoring the signal, because exec resets handlers: the MCP
//! server the proxy starts keeps the default. (CPython and Node ignore the signal too.)
#![allow(unsafe_code)]

#[cfg(unix)]
extern "C" fn ignore(_signal: libc::c_int) {}

/// Makes a write past the file size limit fail rather than kill the process.
pub fn survive_file_size_limit() {
    #[cfg(unix)]
    // SAFETY: `ignore` is async-signal-safe (it does nothing), and replacing the disposition
    // of SIGXFSZ touches no other state; this runs once at start, before any thread.
    unsafe {
        libc::signal(
            libc::SIGXFSZ,
            ignore as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}
