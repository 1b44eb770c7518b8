//! The `lro` binary as a user runs it: stdin in, JSON out, clear errors and exit codes.

use serde_json::{Value, json};

use crate::support::run::{command, finish, lro, output, stderr, stdout_json};

fn memories(n: usize) -> String {
    let items: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": if i % 2 == 0 { "_semantic/a" } else { "proj/b" },
                        "title": format!("Memory {i} about caching layers and retry budgets"), "tags": ["t"]}))
        .collect();
    serde_json::to_string(&items).unwrap()
}

#[test]
fn offload_prints_descriptor_and_extract_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = lro(
        &[
            "offload",
            "--operation",
            "recall",
            "--output-dir",
            d,
            "--query",
            "cache",
        ],
        memories(200),
        &[],
    );
    let descriptor = stdout_json(&out);
    assert_eq!(descriptor["offloaded"], true);
    assert_eq!(descriptor["summary"]["count"], 200);
    assert_eq!(descriptor["jq_recipes"].as_array().unwrap().len(), 10);
    let file = descriptor["file_path"].as_str().unwrap();
    assert!(file.starts_with(&*std::fs::canonicalize(d).unwrap().to_string_lossy()));

    let counts = lro(
        &["extract", file, "--recipe", "6", "--output-dir", d],
        "",
        &[],
    );
    assert!(
        counts.status.success(),
        "{}",
        String::from_utf8_lossy(&counts.stderr)
    );
    let groups: Value = serde_json::from_slice(&counts.stdout).unwrap();
    assert_eq!(
        groups,
        json!([{"namespace": "_semantic/a", "count": 100}, {"namespace": "proj/b", "count": 100}])
    );

    let hits = lro(
        &[
            "extract",
            file,
            "--recipe",
            "3",
            "--param",
            "keyword=memory 1[0-9]\\b",
            "--output-dir",
            d,
        ],
        "",
        &[],
    );
    assert_eq!(String::from_utf8_lossy(&hits.stdout).lines().count(), 10);

    let titles = lro(
        &["extract", file, "--recipe", "1", "--output-dir", d],
        "",
        &[],
    );
    let first = String::from_utf8_lossy(&titles.stdout)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        first,
        "Memory 0 about caching layers and retry budgets\t_semantic/a"
    );

    let denied = lro(
        &["extract", "/etc/passwd", "--recipe", "1", "--output-dir", d],
        "",
        &[],
    );
    assert!(!denied.status.success());
    assert!(String::from_utf8_lossy(&denied.stderr).contains("path_denied"));
}

#[test]
fn small_results_stay_inline_and_text_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let inline = stdout_json(&lro(&["offload", "--output-dir", d], memories(2), &[]));
    assert_eq!(inline["offloaded"], false);
    assert_eq!(inline["count"], 2);
    let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    let offloaded = stdout_json(&lro(
        &["offload", "--operation", "logs", "--output-dir", d],
        &text,
        &[],
    ));
    assert_eq!(offloaded["summary"]["count"], 2000);
    assert_eq!(offloaded["summary"]["detail"], "raw");
}

#[test]
fn bad_input_and_config_give_codes_and_exit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let bad_json = lro(
        &["offload", "--input", "json", "--output-dir", d],
        "[{\"id\": 1,",
        &[],
    );
    assert_eq!(bad_json.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&bad_json.stderr).contains("error[invalid_input]"));
    // A tool's text that is not valid JSON is text, never an error (nor a wrong record).
    let as_text = lro(&["offload", "--output-dir", d], "[{\"id\": 1,", &[]);
    assert_eq!(stdout_json(&as_text)["results"], json!("[{\"id\": 1,"));
    let bad_detail = lro(
        &["offload", "--detail", "huge", "--output-dir", d],
        "[]",
        &[],
    );
    assert_eq!(bad_detail.status.code(), Some(65));
    assert!(String::from_utf8_lossy(&bad_detail.stderr).contains("invalid_detail"));
    let bad_env = lro(
        &["offload", "--output-dir", d],
        "[]",
        &[("ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", "lots")],
    );
    assert_eq!(bad_env.status.code(), Some(78));
    assert!(
        String::from_utf8_lossy(&bad_env.stderr)
            .contains("THRESHOLD_TOKENS".to_lowercase().as_str())
    );
    let cfg = dir.path().join("lro.toml");
    std::fs::write(&cfg, "[prompt.offload]\nenabled = \"yes please\"\n").unwrap();
    let bad_toml = lro(
        &[
            "offload",
            "--config",
            cfg.to_str().unwrap(),
            "--output-dir",
            d,
        ],
        "[]",
        &[],
    );
    assert_eq!(bad_toml.status.code(), Some(78));
    assert!(String::from_utf8_lossy(&bad_toml.stderr).contains("prompt.offload.enabled"));
}

#[test]
fn config_file_env_and_flags_layer_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let cfg = dir.path().join("lro.toml");
    std::fs::write(
        &cfg,
        "[prompt.offload]\nthreshold_tokens = 1\nfile_prefix = \"fromfile\"\n",
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let out = stdout_json(&lro(
        &["offload", "--config", c, "--output-dir", d],
        memories(2),
        &[],
    ));
    assert!(
        out["file_path"]
            .as_str()
            .unwrap()
            .contains("/fromfile-recall-")
    );
    let out = stdout_json(&lro(
        &["offload", "--config", c, "--output-dir", d],
        memories(2),
        &[("ATLATL_PROMPT__OFFLOAD__FILE_PREFIX", "fromenv")],
    ));
    assert!(
        out["file_path"]
            .as_str()
            .unwrap()
            .contains("/fromenv-recall-")
    );
    let out = stdout_json(&lro(
        &[
            "offload",
            "--config",
            c,
            "--output-dir",
            d,
            "--prefix",
            "fromflag",
        ],
        memories(2),
        &[("ATLATL_PROMPT__OFFLOAD__FILE_PREFIX", "fromenv")],
    ));
    assert!(
        out["file_path"]
            .as_str()
            .unwrap()
            .contains("/fromflag-recall-")
    );
    let out = stdout_json(&lro(
        &[
            "offload",
            "--config",
            c,
            "--output-dir",
            d,
            "--threshold",
            "100000",
        ],
        memories(2),
        &[],
    ));
    assert_eq!(out["offloaded"], false);
}

/// The environment as the OS gives it: another variable holding bytes that are not UTF-8
/// does not stop `lro` (`std::env::vars()` would panic on it); such a value under the
/// prefix is a configuration error naming the variable, exit 78.
#[cfg(unix)]
#[test]
fn environment_bytes_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, value: &[u8]| {
        let mut command = command(&["offload", "--output-dir", dir.path().to_str().unwrap()]);
        command.env(name, std::ffi::OsStr::from_bytes(value));
        output(&mut command, b"[]")
    };
    let unrelated = run("LRO_TEST_UNRELATED", b"caf\xe9");
    assert_eq!(unrelated.status.code(), Some(0), "{unrelated:?}");
    let ours = run("ATLATL_PROMPT__OFFLOAD__FILE_PREFIX", b"caf\xe9");
    assert_eq!(ours.status.code(), Some(78), "{ours:?}");
    let stderr = String::from_utf8_lossy(&ours.stderr);
    assert!(
        stderr.contains("invalid_config")
            && stderr
                .contains("ATLATL_PROMPT__OFFLOAD__FILE_PREFIX: the variable's value is not UTF-8"),
        "{stderr}"
    );
}

#[test]
fn cleanup_removes_only_expired_files_and_events_go_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    std::fs::write(
        dir.path()
            .join("atlatl-recall-00000000000000000000000000.jsonl"),
        "{}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("keep.txt"), "x").unwrap();
    let fresh = stdout_json(&lro(&["offload", "--output-dir", d], memories(200), &[]));
    let out = lro(&["cleanup", "--output-dir", d, "--events"], "", &[]);
    let report = stdout_json(&out);
    assert_eq!(report["removed"].as_array().unwrap().len(), 1);
    assert_eq!(report["kept"], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"event\":\"OffloadFileExpired\""));
    assert!(std::path::Path::new(fresh["file_path"].as_str().unwrap()).exists());
    assert!(dir.path().join("keep.txt").exists());
}

#[test]
fn demo_runs_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = lro(
        &["demo", "--output-dir", dir.path().to_str().unwrap()],
        "",
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("500 memories"));
    assert!(text.contains("Recipe 6"));
    assert!(text.contains("saved (full):"));
    for profile in ["full", "compact", "pointer"] {
        assert!(text.contains(&format!("descriptor ({profile}):")), "{text}");
    }
}

#[test]
fn descriptor_profiles_from_the_flag_and_the_environment_and_describe_gives_the_full_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let pointer = stdout_json(&lro(
        &["offload", "--output-dir", d, "--descriptor", "pointer"],
        memories(200),
        &[],
    ));
    let keys: Vec<&String> = pointer.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "offloaded",
            "file_path",
            "resource_uri",
            "count",
            "guidance"
        ]
    );
    assert_eq!(pointer["count"], 200);

    let compact = stdout_json(&lro(
        &["offload", "--output-dir", d],
        memories(200),
        &[("ATLATL_PROMPT__OFFLOAD__DESCRIPTOR", "compact")],
    ));
    assert_eq!(compact["recipes"].as_array().unwrap().len(), 10);
    assert!(compact.get("jq_recipes").is_none());

    // The file a pointer described still has its whole descriptor.
    let file = pointer["file_path"].as_str().unwrap();
    let out = lro(&["extract", file, "--describe", "--output-dir", d], "", &[]);
    let full = stdout_json(&out);
    assert_eq!(full["file_path"], pointer["file_path"]);
    assert_eq!(full["jq_recipes"].as_array().unwrap().len(), 10);
    assert_eq!(full["summary"]["count"], 200);

    let bad = lro(
        &["offload", "--output-dir", d, "--descriptor", "tiny"],
        memories(200),
        &[],
    );
    assert_eq!(bad.status.code(), Some(78), "invalid_config");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("descriptor"));
}

#[test]
fn context_remaining_tokens_lowers_the_threshold_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // About 500 tokens: inline under the default threshold of 1600...
    let inline = stdout_json(&lro(&["offload", "--output-dir", d], memories(20), &[]));
    assert_eq!(inline["offloaded"], false);
    assert!(inline.get("threshold_tokens").is_none());
    // ...offloaded when a tenth of the context left (3,000 tokens) is 300.
    let offloaded = stdout_json(&lro(
        &[
            "offload",
            "--output-dir",
            d,
            "--context-remaining-tokens",
            "3000",
        ],
        memories(20),
        &[],
    ));
    assert_eq!(offloaded["offloaded"], true);
    assert_eq!(offloaded["threshold_tokens"], 300);
    // The ratio from the environment.
    let halved = stdout_json(&lro(
        &[
            "offload",
            "--output-dir",
            d,
            "--context-remaining-tokens",
            "3000",
        ],
        memories(20),
        &[("ATLATL_PROMPT__OFFLOAD__ADAPTIVE_RATIO", "0.5")],
    ));
    assert_eq!(halved["offloaded"], false);
    assert_eq!(halved["threshold_tokens"], 1500);
}

/// A reader that stops early (`lro extract F | head -1`, `lro demo | head`) has what it
/// wanted: the command ends as a success and says nothing, instead of `io_error: Broken
/// pipe` (exit 74) or a panic.
#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::io::Read;
    use std::process::{ChildStdout, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let numbers: Vec<u32> = (0..60_000).collect();
    let descriptor = stdout_json(&lro(
        &["offload", "--output-dir", d, "--operation", "numbers"],
        serde_json::to_string(&numbers).unwrap(),
        &[],
    ));
    let file = descriptor["file_path"].as_str().unwrap();
    // More than a pipe holds (about 400 KB): the command is still writing, blocked, when the
    // reader closes its end after the first bytes.
    let everything = [
        "extract",
        "--output-dir",
        d,
        file,
        "--lines",
        "0:60000",
        "--max-output-records",
        "100000",
        "--max-output-bytes",
        "100000000",
    ];
    // The demo writes a few KB between offloads: its reader is gone before it starts.
    let demo = ["demo", "--output-dir", d];
    for (args, read_first) in [(&everything[..], 16), (&demo[..], 0)] {
        let mut child = command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let reader = child.stdout.take().unwrap();
        // The reader takes its first bytes, then closes its end, as `head` does.
        let out = finish(
            child,
            &format!("{args:?}"),
            |mut reader: ChildStdout| {
                reader.read_exact(&mut vec![0u8; read_first]).unwrap();
            },
            reader,
        );
        assert!(
            out.status.success(),
            "{args:?}: {:?} {}",
            out.status,
            stderr(&out)
        );
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}
