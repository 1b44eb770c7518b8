//! Hostile directories and paths (a red team's second round): an output directory
//! whose parent others can write (they could rename it away and put theirs in its place), a
//! directory swapped under a running proxy, a relative path on the command line, the exit
//! codes of `lro extract`. Each goes through the binary.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::TIMEOUT;
use crate::support::proxy::{Proxy, descriptor};
use crate::support::run::{command, lro, output, stderr};

/// `lro ARGS` run in `cwd`, stdin empty.
fn lro_in(cwd: &Path, args: &[&str]) -> Output {
    output(command(args).current_dir(cwd), b"")
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The offload files (whole, canonical names) in `dir`.
fn offload_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

fn proxy_in(dir: &Path) -> Proxy {
    let mut proxy = Proxy::start_with(&[], Some(dir), &["--events"], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    proxy
}

/// Waits (up to the proxy's timeout) until the proxy's stderr holds an `OffloadWriteFailed`
/// event whose error contains `why`: the reason the inline fallback gives (the MCP answer
/// itself only says the file could not be written).
fn write_failed_because(proxy: &Proxy, why: &str) {
    let deadline = std::time::Instant::now() + TIMEOUT;
    loop {
        let said = proxy.stderr();
        let found = said
            .lines()
            .filter(|l| l.contains("OffloadWriteFailed"))
            .any(|l| l.contains(why));
        if found {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no write failure for {why:?}: {said}"
        );
        std::thread::park_timeout(std::time::Duration::from_millis(20));
    }
}

/// A large tool result through `proxy`: the descriptor's file path, or `None` with the
/// result when it came back inline.
fn big_call(proxy: &mut Proxy, id: i64) -> Result<PathBuf, Value> {
    let result = proxy.tool(id, "records", json!({"count": 2000}));
    match descriptor(&result)["file_path"].as_str() {
        Some(path) if descriptor(&result)["offloaded"] == true => Ok(PathBuf::from(path)),
        _ => Err(result),
    }
}

#[test]
fn a_parent_others_can_write_is_refused_unless_sticky_or_asked_for() {
    let root = tempfile::tempdir().unwrap();
    let parent = root.path().join("shared");
    std::fs::create_dir(&parent).unwrap();
    chmod(&parent, 0o777);
    let dir = parent.join("sub");
    std::fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o700);

    // The offload falls back inline (what fits), saying why; nothing is written there.
    let mut proxy = proxy_in(&dir);
    let inline = big_call(&mut proxy, 1).expect_err("offloaded into a swappable directory");
    assert!(inline.to_string().contains("could not write"), "{inline}");
    write_failed_because(&proxy, "parent directory");
    write_failed_because(&proxy, "allow_shared_dir");
    assert!(offload_files(&dir).is_empty());
    let ping = proxy.call(2, "ping", json!({}));
    assert_eq!(ping["result"], json!({}), "{ping}");
    drop(proxy);
    let out = lro_in(
        root.path(),
        &["cleanup", "--output-dir", dir.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(78), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("parent directory"),
        "{}",
        stderr(&out)
    );

    // Sticky (as /tmp is): others cannot rename what is not theirs.
    chmod(&parent, 0o1777);
    let mut proxy = proxy_in(&dir);
    let file = big_call(&mut proxy, 1).expect("offloaded under a sticky parent");
    assert_eq!(file.parent().unwrap(), std::fs::canonicalize(&dir).unwrap());

    // Asked for: the opt-out covers the ancestors too.
    chmod(&parent, 0o777);
    let mut proxy = Proxy::start_with(&[], Some(&dir), &["--allow-shared-dir", "--events"], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    big_call(&mut proxy, 1).expect("allow_shared_dir");
}

#[test]
fn a_directory_swapped_under_a_running_proxy_never_receives_an_offload() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    std::fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o700);
    let mut proxy = proxy_in(&dir);
    let first = big_call(&mut proxy, 1).expect("offloaded");

    // The directory renamed away and a 0777 one put in its place (as another user could,
    // had they write access to the parent): the next offload is refused, not written there.
    let moved = root.path().join("out.old");
    std::fs::rename(&dir, &moved).unwrap();
    std::fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o777);
    let inline = big_call(&mut proxy, 2).expect_err("written into the swapped-in directory");
    assert!(inline.to_string().contains("could not write"), "{inline}");
    write_failed_because(&proxy, "other users can write it");
    assert!(offload_files(&dir).is_empty());
    assert_eq!(
        offload_files(&moved),
        vec![moved.join(first.file_name().unwrap())]
    );

    // Another user's directory (chown needs root): refused the same way.
    if std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).is_ok() {
        chmod(&dir, 0o700);
        let inline = big_call(&mut proxy, 3).expect_err("written into another user's directory");
        assert!(inline.to_string().contains("could not write"), "{inline}");
        write_failed_because(&proxy, "owned by another user");
    }

    // Made private again: offloads resume, no restart needed.
    std::fs::remove_dir(&dir).unwrap();
    std::fs::create_dir(&dir).unwrap();
    chmod(&dir, 0o700);
    let again = big_call(&mut proxy, 4).expect("offloaded again");
    assert_eq!(
        again.parent().unwrap(),
        std::fs::canonicalize(&dir).unwrap()
    );
}

#[test]
fn a_relative_path_is_relative_to_the_current_directory_and_exit_codes_tell_errors_apart() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let records: Vec<Value> = (0..3000).map(|i| json!({"id": i, "n": i})).collect();
    let out = lro(
        &[
            "offload",
            "--operation",
            "tool",
            "--output-dir",
            dir.to_str().unwrap(),
        ],
        serde_json::to_string(&records).unwrap(),
        &[],
    );
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = PathBuf::from(descriptor["file_path"].as_str().expect("offloaded"));
    let name = file.file_name().unwrap().to_str().unwrap();
    let d = dir.to_str().unwrap();

    // From the output directory's parent, out/NAME; from inside it, NAME or ./NAME.
    let relative = format!("out/{name}");
    let out = lro_in(
        root.path(),
        &["extract", "--output-dir", d, &relative, "--lines", "0:1"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"id":0,"n":0}"#
    );
    for path in [name.to_owned(), format!("./{name}")] {
        let out = lro_in(&dir, &["extract", "--output-dir", d, &path, "--count"]);
        assert!(out.status.success(), "{path}: {}", stderr(&out));
    }
    // A bare NAME is a name in the output directory, wherever the command runs (the way to
    // name an object of an s3:// output directory); out/../x is outside it.
    let out = lro_in(
        root.path(),
        &["extract", "--output-dir", d, name, "--count"],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let missing = format!("out/{}", name.replace("tool", "gone"));
    let codes: [(&[&str], i32, &str); 5] = [
        (&[&missing, "--count"], 66, "not_found"),
        (&["out/../secret.jsonl", "--count"], 77, "path_denied"),
        (
            &[&relative, "--query", ".id | error(\"x\")"],
            5,
            "query_failed",
        ),
        (&[&relative, "--query", ".["], 65, "invalid_query"),
        (
            &[&relative, "--lines", "0:2", "--max-output-records", "1"],
            3,
            "",
        ),
    ];
    std::fs::write(root.path().join("secret.jsonl"), "{}\n").unwrap();
    for (args, code, error) in codes {
        let mut all = vec!["extract", "--output-dir", d];
        all.extend_from_slice(args);
        let out = lro_in(root.path(), &all);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(error), "{args:?}: {}", stderr(&out));
    }
    let help = lro_in(root.path(), &["extract", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    for line in [
        "66  no such offload file",
        "77  the path is refused",
        "78  bad configuration",
    ] {
        assert!(help.contains(line), "{help}");
    }
}
