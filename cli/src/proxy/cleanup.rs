//! Custodial cleanup while the proxy runs (spec 000, "cleanup and lifecycle"): once at start,
//! then every interval (an hour by default).

use std::sync::Arc;
use std::time::Duration;

use lro_core::Offloader;
use lro_host_s3::NativeHost;

/// Starts the cleanup thread; it lives as long as the process.
pub fn spawn(lro: Arc<Offloader<NativeHost>>, interval: Duration) {
    std::thread::spawn(move || {
        loop {
            match lro.cleanup() {
                Ok(report) => {
                    for error in report.errors {
                        eprintln!("lro proxy: cleanup: {error}");
                    }
                }
                Err(err) => eprintln!(
                    "lro proxy: cleanup failed: error[{}]: {}",
                    err.code(),
                    err.message()
                ),
            }
            std::thread::sleep(interval);
        }
    });
}
