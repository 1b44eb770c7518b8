//! Hostile configuration files through the `lro` binary: `--config` on a device, a FIFO, a
//! huge file, a directory, a link to a device; and sections that look like
//! `[prompt.offload]` but are not it. Every run is bounded (a FIFO used to hang `lro` for
//! good, `/dev/zero` grew it past 2 GB): a refusal is `invalid_config`, exit 78, at once.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::files::mkfifo;
use crate::support::proxy::{Proxy, mock_server, text};
use crate::support::run::{lro, stderr};

/// Far above what a refusal takes (milliseconds), short enough that a hang fails the test.
const LIMIT: Duration = Duration::from_secs(60);

/// `lro cleanup --config FILE` over an empty directory: the cheapest command that loads
/// the configuration.
fn cleanup_with(config: &Path) -> Output {
    let out = tempfile::tempdir().unwrap();
    lro(
        &[
            "cleanup",
            "--config",
            config.to_str().unwrap(),
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
        "",
        &[],
    )
}

fn assert_refused(run: &Output, says: &str) {
    let said = stderr(run);
    assert_eq!(run.status.code(), Some(78), "{said}");
    assert!(
        said.starts_with("lro: error[invalid_config]: configuration file ")
            && said.contains(says)
            && said.lines().count() == 1,
        "{said}"
    );
    assert!(
        run.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
}

#[test]
fn a_device_is_refused_at_once_not_read_until_memory_runs_out() {
    let started = Instant::now();
    assert_refused(&cleanup_with(Path::new("/dev/zero")), "not a regular file");
    assert_refused(&cleanup_with(Path::new("/dev/null")), "not a regular file");
    // Through a symbolic link too: what is checked is the file opened.
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("lro.toml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    assert_refused(&cleanup_with(&link), "not a regular file");
    assert!(started.elapsed() < LIMIT, "{:?}", started.elapsed());
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("lro.toml");
    mkfifo(&fifo);
    assert_refused(&cleanup_with(&fifo), "not a regular file");
    // The proxy refuses it the same way, before starting its server.
    let run = lro(
        &[
            "proxy",
            "--config",
            fifo.to_str().unwrap(),
            "--",
            "python3",
            mock_server().to_str().unwrap(),
        ],
        "",
        &[],
    );
    assert_refused(&run, "not a regular file");
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert_refused(&cleanup_with(dir.path()), "is a directory");
}

#[test]
fn a_file_over_one_mib_is_refused_and_one_of_one_mib_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let at_limit = dir.path().join("at-limit.toml");
    // A comment line filling the file to exactly 1 MiB, after a real setting.
    let setting = "[prompt.offload]\nttl_seconds = 77\n#";
    let mut text = setting.to_owned();
    text.push_str(&"x".repeat(1024 * 1024 - setting.len() - 1));
    text.push('\n');
    assert_eq!(text.len(), 1024 * 1024);
    std::fs::write(&at_limit, &text).unwrap();
    let read = cleanup_with(&at_limit);
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));

    let over = dir.path().join("over.toml");
    text.push('\n');
    std::fs::write(&over, &text).unwrap();
    assert_refused(&cleanup_with(&over), "larger than 1048576 bytes");
    // Much larger: refused from its size, not read.
    let huge = dir.path().join("huge.toml");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(4 << 30).unwrap(); // sparse: no disk used
    assert_refused(&cleanup_with(&huge), "larger than 1048576 bytes");
}

#[test]
fn a_file_that_is_not_utf8_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("lro.toml");
    std::fs::write(&binary, b"[prompt.offload]\nttl_seconds = 5\n\xff\xfe").unwrap();
    assert_refused(&cleanup_with(&binary), "not UTF-8");
}

/// The offload of 40 records over a config file: offloaded only if `threshold_tokens = 1`
/// in the file took effect (the default threshold keeps them inline); and the run.
fn offloaded_with(config: &Path) -> (bool, Output) {
    let out = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..40).map(|i| json!({"id": i})).collect();
    let run = lro(
        &[
            "offload",
            "--config",
            config.to_str().unwrap(),
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
        serde_json::to_string(&records).unwrap(),
        &[],
    );
    let offloaded = std::fs::read_dir(out.path()).unwrap().count() > 0;
    (offloaded, run)
}

#[test]
fn sections_that_look_like_prompt_offload_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let exact = dir.path().join("exact.toml");
    std::fs::write(&exact, "[prompt.offload]\nthreshold_tokens = 1\n").unwrap();
    let (offloaded, run) = offloaded_with(&exact);
    assert!(offloaded && run.status.success(), "{}", stderr(&run));
    assert!(run.stderr.is_empty(), "{}", stderr(&run));

    for section in [
        "Prompt.Offload",
        "prompt.ofload",
        "PROMPT.offload",
        "promt.offload",
        "\"prompt.offload\"",
    ] {
        let file = dir.path().join("typo.toml");
        std::fs::write(&file, format!("[{section}]\nthreshold_tokens = 1\n")).unwrap();
        let (offloaded, run) = offloaded_with(&file);
        let said = stderr(&run);
        // Ignored, as TOML names are case-sensitive, but not silently.
        assert!(!offloaded && run.status.success(), "{section}: {said}");
        assert!(
            said.starts_with("lro: warning: configuration: [")
                && said.contains("looks like [prompt.offload] but is not it"),
            "{section}: {said}"
        );
        let answer: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(answer["offloaded"], false, "{answer}");
    }
}

#[test]
fn misspelled_keys_inside_the_section_are_errors_that_suggest_the_key() {
    let dir = tempfile::tempdir().unwrap();
    for (text, suggestion) in [
        (
            "[prompt.offload.extrct]\ntimeout_ms = 5\n",
            "did you mean prompt.offload.extract?",
        ),
        (
            "[prompt.offload]\nthreshold_token = 5\n",
            "did you mean prompt.offload.threshold_tokens?",
        ),
        (
            "[prompt.offload.extract]\ntimeot_ms = 5\n",
            "did you mean prompt.offload.extract.timeout_ms?",
        ),
    ] {
        let file = dir.path().join("lro.toml");
        std::fs::write(&file, text).unwrap();
        let run = cleanup_with(&file);
        let said = stderr(&run);
        assert_eq!(run.status.code(), Some(78), "{text}: {said}");
        assert!(
            said.contains("error[invalid_config]: unknown configuration key")
                && said.contains(suggestion),
            "{text}: {said}"
        );
    }
}

#[test]
fn the_proxy_warns_about_a_misspelled_section_and_serves() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lro.toml");
    std::fs::write(&file, "[Prompt.Offload]\nthreshold_tokens = 1\n").unwrap();
    let mut proxy = Proxy::start(&["--config", file.to_str().unwrap()], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.stderr_containing(&["lro: warning: configuration: [Prompt.Offload] looks like"]);
    // The section was ignored: a small result stays inline (no file), and the proxy answers.
    let small = proxy.tool(1, "records", json!({"count": 3}));
    assert_eq!(small["isError"], false, "{small}");
    assert_eq!(std::fs::read_dir(proxy.dir.path()).unwrap().count(), 0);
    assert_eq!(
        text(&proxy.tool(2, "echo", json!({"text": "alive"}))),
        "alive"
    );
}
