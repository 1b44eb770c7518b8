//! Hostile configuration files through the `lro` binary: `--config` on a device, a FIFO, a
//! huge file, a directory, a link to a device; and sections that look like
//! `[prompt.offload]` but are not it. Every run is bounded (a FIFO used to hang `lro` for
//! good, `/dev/zero` grew it past 2 GB): a refusal is `invalid_config`, exit 78, at once.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::proxy_support::{Proxy, text};
use serde_json::json;

/// Far above what a refusal takes (milliseconds), short enough that a hang fails the test.
const LIMIT: Duration = Duration::from_secs(60);

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Waits for `child` (an `lro` run) to exit and collects its output; fails the test if it
/// has not exited within [`LIMIT`], and kills it, so a hang cannot outlive the test.
fn bounded(mut child: Child, what: &str) -> Run {
    let deadline = Instant::now() + LIMIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not exit within {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Exited: the pipes hold the little it wrote.
    let output = child.wait_with_output().unwrap();
    Run {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `lro ARGS` with stdin empty, bounded.
fn lro(args: &[&str]) -> Run {
    let child = Command::new(env!("CARGO_BIN_EXE_lro"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    bounded(child, &format!("lro {args:?}"))
}

/// `lro cleanup --config FILE` over an empty directory: the cheapest command that loads
/// the configuration.
fn cleanup_with(config: &Path) -> Run {
    let out = tempfile::tempdir().unwrap();
    lro(&[
        "cleanup",
        "--config",
        config.to_str().unwrap(),
        "--output-dir",
        out.path().to_str().unwrap(),
    ])
}

fn assert_refused(run: &Run, says: &str) {
    assert_eq!(run.status.code(), Some(78), "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("lro: error[invalid_config]: configuration file ")
            && run.stderr.contains(says)
            && run.stderr.lines().count() == 1,
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
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
    let run = lro(&[
        "proxy",
        "--config",
        fifo.to_str().unwrap(),
        "--",
        "python3",
        crate::proxy_support::mock_server().to_str().unwrap(),
    ]);
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
    assert_eq!(read.status.code(), Some(0), "{}", read.stderr);

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
/// in the file took effect (the default threshold keeps them inline).
fn offloaded_with(config: &Path) -> (bool, Run) {
    let out = tempfile::tempdir().unwrap();
    let records: Vec<_> = (0..40).map(|i| json!({"id": i})).collect();
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(input.path(), serde_json::to_string(&records).unwrap()).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_lro"))
        .args([
            "offload",
            "--config",
            config.to_str().unwrap(),
            "--output-dir",
        ])
        .arg(out.path())
        .stdin(std::fs::File::open(input.path()).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = bounded(child, "lro offload");
    let offloaded = std::fs::read_dir(out.path()).unwrap().count() > 0;
    (offloaded, run)
}

#[test]
fn sections_that_look_like_prompt_offload_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let exact = dir.path().join("exact.toml");
    std::fs::write(&exact, "[prompt.offload]\nthreshold_tokens = 1\n").unwrap();
    let (offloaded, run) = offloaded_with(&exact);
    assert!(offloaded && run.status.success(), "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);

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
        // Ignored, as TOML names are case-sensitive, but not silently.
        assert!(
            !offloaded && run.status.success(),
            "{section}: {}",
            run.stderr
        );
        assert!(
            run.stderr.starts_with("lro: warning: configuration: [")
                && run
                    .stderr
                    .contains("looks like [prompt.offload] but is not it"),
            "{section}: {}",
            run.stderr
        );
        let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
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
        assert_eq!(run.status.code(), Some(78), "{text}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("error[invalid_config]: unknown configuration key")
                && run.stderr.contains(suggestion),
            "{text}: {}",
            run.stderr
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
