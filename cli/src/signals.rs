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

/// Asks process `pid` to stop (`SIGTERM`), as MCP's stdio transport says a client does when
/// its server does not exit once its stdin is closed. The caller holds the `Child` of an
/// unreaped process, so `pid` is that process and no other.
pub fn terminate(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: `kill` takes no pointers; it sends a signal to the process `pid` and
        // changes no state of this one.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
}
