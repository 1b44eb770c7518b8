//! The signals `lro` does not leave at their default: `SIGXFSZ`, and for the gateway
//! (`lro proxy --listen`) `SIGTERM` and `SIGINT`, received by one thread that stops it in order.
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

/// `SIGTERM` and `SIGINT` held back from every thread started after this call (the signal
/// mask is inherited), so that only [`wait_for_termination`] receives them: the gateway then
/// stops in order (answers what is in flight, ends its servers) instead of dying mid-call.
/// Call it before starting any thread. A child process starts with an empty mask (Rust's
/// `Command` resets it), so the MCP servers the gateway starts keep the default.
pub fn hold_termination() {
    #[cfg(unix)]
    // SAFETY: `set` is a local `sigset_t` initialised by `sigemptyset` before use; the calls
    // change this thread's signal mask only.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}

/// Blocks until `SIGTERM` or `SIGINT` arrives (held back by [`hold_termination`]); returns
/// the signal's name.
pub fn wait_for_termination() -> &'static str {
    #[cfg(unix)]
    loop {
        let mut received: libc::c_int = 0;
        // SAFETY: `set` is initialised by `sigemptyset` before use and `received` is a live
        // local; `sigwait` only reads the one and writes the other.
        let status = unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGTERM);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigwait(&set, &mut received)
        };
        if status == 0 {
            return if received == libc::SIGINT {
                "SIGINT"
            } else {
                "SIGTERM"
            };
        }
    }
    #[cfg(not(unix))]
    loop {
        std::thread::park();
    }
}
