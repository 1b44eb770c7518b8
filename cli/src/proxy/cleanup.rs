//! Custodial cleanup while the proxy runs (spec 000, "cleanup and lifecycle"): once at start,
//! then every interval (an hour by default). `removed` is told when a pass removed files (the
//! router then tells the client its resource list changed).

use std::sync::Arc;
use std::time::Duration;

use lro_core::Offloader;
use lro_host_s3::NativeHost;

/// Starts the cleanup thread; it lives as long as the process.
pub fn spawn(
    lro: Arc<Offloader<NativeHost>>,
    interval: Duration,
    removed: impl Fn() + Send + 'static,
) {
    std::thread::spawn(move || {
        loop {
            match lro.cleanup() {
                Ok(report) => {
                    if !report.removed.is_empty() {
                        removed();
                    }
                    for error in report.errors {
                        note!("lro proxy: cleanup: {error}");
                    }
                }
                Err(err) => note!(
                    "lro proxy: cleanup failed: error[{}]: {}",
                    err.code(),
                    err.message()
                ),
            }
            std::thread::sleep(interval);
        }
    });
}
