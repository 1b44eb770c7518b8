//! Hostile files: what another process can put in or next to the output directory
//! never makes `lro extract`, `lro cleanup` or `lro proxy` (resources/list, resources/read,
//! lro_extract) serve bytes from outside it, wait on a FIFO, serve a hard link or another
//! user's file, keep a planted far-future name, or use a directory others can write. Each
//! attack goes through the binary and checks the answer, the exit code, and that the proxy
//! still answers afterwards.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::files::{mkfifo, now_millis, set_mtime, ulid_at};
use crate::support::proxy::{Proxy, text};
use crate::support::run::{lro, stderr};

/// Exit code of `lro` for `path_denied` (EX_NOPERM).
const EXIT_DENIED: i32 = 77;
/// Exit code of `lro` for `not_found` (EX_NOINPUT).
const EXIT_NOT_FOUND: i32 = 66;
/// Exit code of `lro` for `invalid_config` (EX_CONFIG).
const EXIT_CONFIG: i32 = 78;
/// Far longer than the proxy takes to exit; past it, it hangs (a FIFO waited on).
const PROMPT: Duration = Duration::from_secs(30);

fn memories(n: usize) -> String {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("m{i}"), "memory_type": "semantic", "namespace": "_semantic/a",
                        "title": format!("Memory {i} about caching layers and retry budgets")})
        })
        .collect();
    serde_json::to_string(&items).unwrap()
}

/// Offloads 200 memories into `dir`; the file's path.
fn offload(dir: &Path) -> PathBuf {
    let out = lro(
        &[
            "offload",
            "--operation",
            "recall",
            "--output-dir",
            dir.to_str().unwrap(),
        ],
        memories(200),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(descriptor["file_path"].as_str().expect("offloaded"))
}

fn extract(dir: &Path, file: &str, extra: &[&str]) -> Output {
    let mut args = vec!["extract", "--output-dir", dir.to_str().unwrap(), file];
    args.extend_from_slice(extra);
    lro(&args, "", &[])
}

/// A whole offload file outside the output directory whose one record says OUTSIDE.
fn outside_file(root: &Path) -> PathBuf {
    let secret = root.join("secret.jsonl");
    std::fs::write(
        &secret,
        "{\"type\":\"lro_header\",\"operation\":\"recall\",\"count\":1}\n{\"id\":\"OUTSIDE\"}\n",
    )
    .unwrap();
    secret
}

/// A process that keeps exchanging the names `a` and `b` atomically (`renameat2` with
/// `RENAME_EXCHANGE`, through Python's ctypes) until it is killed: each name always exists,
/// and is the real file one moment and what was swapped in the next. Killed on drop.
struct Swapper(std::process::Child);

const EXCHANGE: &str = r#"
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = (p.encode() for p in sys.argv[1:3])
print("swapping", flush=True)
while True:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.exit("renameat2: errno %d" % ctypes.get_errno())
"#;

impl Swapper {
    fn start(a: &Path, b: &Path) -> Self {
        let mut child = Command::new("python3")
            .args(["-c", EXCHANGE])
            .arg(a)
            .arg(b)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait for the loop to run before the reads start.
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert_eq!(line.trim(), "swapping");
        Self(child)
    }

    /// Stops the exchanges; panics if the loop died of an error meanwhile.
    fn stop(mut self) {
        assert!(
            self.0.try_wait().unwrap().is_none(),
            "the swapper stopped early"
        );
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn proxy_in(dir: &Path) -> Proxy {
    let mut proxy = Proxy::start_with(&[], Some(dir), &[], &[]);
    proxy.initialize(json!({"name": "hostile", "version": "1"}));
    proxy
}

fn ping(proxy: &mut Proxy, id: i64) {
    let pong = proxy.call(id, "ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[test]
fn a_symlink_swapped_in_never_serves_a_file_from_outside() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let file = offload(&dir);
    let name = file.file_name().unwrap().to_str().unwrap().to_owned();
    let uri = format!("lro://offloads/{name}");
    let secret = outside_file(root.path());
    let mut proxy = proxy_in(&dir);
    let link = dir.join("link");
    std::os::unix::fs::symlink(&secret, &link).unwrap();
    let swapper = Swapper::start(&file, &link);

    let (mut served, mut refused) = (0, 0);
    for i in 0..400 {
        let read = proxy.call(100 + i, "resources/read", json!({"uri": uri}));
        let answer = read.to_string();
        assert!(!answer.contains("OUTSIDE"), "escaped: {answer}");
        if read.get("result").is_some() {
            served += 1;
        } else {
            refused += 1;
        }
        let extracted = proxy.extract(
            1000 + i,
            json!({"file_path": file.to_str().unwrap(), "query": ".id"}),
        );
        assert!(!extracted.to_string().contains("OUTSIDE"), "{extracted}");
    }
    for _ in 0..40 {
        let out = extract(&dir, file.to_str().unwrap(), &["--query", ".id"]);
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(!said.contains("OUTSIDE"), "escaped: {said}");
        if !out.status.success() {
            let code = if said.contains("not_found") {
                EXIT_NOT_FOUND
            } else {
                EXIT_DENIED
            };
            assert_eq!(out.status.code(), Some(code), "{said}");
            assert!(
                said.contains("path_denied") || said.contains("not_found"),
                "{said}"
            );
        }
    }
    swapper.stop();
    assert!(served + refused == 400 && served > 0, "{served} served");
    // The exchanges may have ended with the link at the file's name: put the file back.
    if std::fs::symlink_metadata(&file)
        .unwrap()
        .file_type()
        .is_symlink()
    {
        std::fs::rename(&link, root.path().join("file")).unwrap();
        std::fs::rename(&file, &link).unwrap();
        std::fs::rename(root.path().join("file"), &file).unwrap();
    }
    ping(&mut proxy, 9999);
    // The file itself is served once the swapping stops.
    let out = extract(&dir, file.to_str().unwrap(), &["--count"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_fifo_swapped_in_is_refused_at_once_and_the_proxy_keeps_answering() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let file = offload(&dir);
    let name = file.file_name().unwrap().to_str().unwrap().to_owned();
    let mut proxy = proxy_in(&dir);
    let fifo_side = dir.join("fifo");
    mkfifo(&fifo_side);
    let swapper = Swapper::start(&file, &fifo_side);

    for i in 0..150 {
        // Each call answers (Proxy::call fails the test after its timeout otherwise).
        let listed = proxy.call(100 + i, "resources/list", json!({}));
        let ours = listed["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["name"].as_str().unwrap().starts_with("atlatl-"))
            .count();
        assert!(ours <= 1, "{listed}");
        let read = proxy.call(
            1000 + i,
            "resources/read",
            json!({"uri": format!("lro://offloads/{name}")}),
        );
        if let Some(error) = read.get("error") {
            assert!(error["code"].is_i64(), "{read}");
        }
    }
    for _ in 0..20 {
        let out = extract(&dir, file.to_str().unwrap(), &["--describe"]);
        if !out.status.success() {
            let code = if stderr(&out).contains("not_found") {
                EXIT_NOT_FOUND
            } else {
                EXIT_DENIED
            };
            assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        }
    }
    swapper.stop();
    ping(&mut proxy, 9999);

    // A FIFO that stays: extract and lro_extract refuse it at once, the list leaves it out.
    let fifo = dir.join(name.replace("recall", "piped"));
    mkfifo(&fifo);
    let out = extract(&dir, fifo.to_str().unwrap(), &["--query", "."]);
    assert_eq!(out.status.code(), Some(EXIT_DENIED));
    assert!(stderr(&out).contains("path_denied"), "{}", stderr(&out));
    let result = proxy.extract(
        2,
        json!({"file_path": fifo.to_str().unwrap(), "query": "."}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert!(text(&result).contains("path_denied"), "{result}");
    let listed = proxy.call(3, "resources/list", json!({}));
    assert!(!listed.to_string().contains("piped"), "{listed}");
    ping(&mut proxy, 4);
    // The client's EOF ends the proxy.
    proxy.close_stdin();
    assert!(proxy.wait(PROMPT).success());
}

#[test]
fn hard_links_and_other_users_files_are_never_served() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let file = offload(&dir);
    let name = file.file_name().unwrap().to_str().unwrap().to_owned();
    // A second name for the file (the attack: a link to a file the attacker cannot read by
    // the other name); a file with two names is refused under both.
    let linked = dir.join(name.replace("recall", "linked"));
    std::fs::hard_link(&file, &linked).unwrap();
    let mut proxy = proxy_in(&dir);
    for path in [&linked, &file] {
        let out = extract(&dir, path.to_str().unwrap(), &["--count"]);
        assert_eq!(out.status.code(), Some(EXIT_DENIED), "{}", stderr(&out));
        assert!(stderr(&out).contains("hard links"), "{}", stderr(&out));
    }
    let read = proxy.call(
        1,
        "resources/read",
        json!({"uri": format!("lro://offloads/{}", linked.file_name().unwrap().to_str().unwrap())}),
    );
    assert_eq!(read["error"]["code"], -32602, "{read}");
    let listed = proxy.call(2, "resources/list", json!({}));
    assert!(!listed.to_string().contains("atlatl-"), "{listed}");
    std::fs::remove_file(&linked).unwrap();
    assert!(
        extract(&dir, file.to_str().unwrap(), &["--count"])
            .status
            .success()
    );

    // Another user's file named like an offload file (chown needs root).
    let foreign = dir.join(name.replace("recall", "planted"));
    std::fs::copy(&file, &foreign).unwrap();
    if std::os::unix::fs::chown(&foreign, Some(4242), Some(4242)).is_ok() {
        let out = extract(&dir, foreign.to_str().unwrap(), &["--count"]);
        assert_eq!(out.status.code(), Some(EXIT_DENIED));
        assert!(
            stderr(&out).contains("owned by uid 4242"),
            "{}",
            stderr(&out)
        );
        let listed = proxy.call(3, "resources/list", json!({}));
        assert!(!listed.to_string().contains("planted"), "{listed}");
        let result = proxy.extract(
            4,
            json!({"file_path": foreign.to_str().unwrap(), "count": true}),
        );
        assert_eq!(result["isError"], true, "{result}");
    }
    ping(&mut proxy, 5);
}

#[test]
fn a_far_future_name_is_neither_listed_first_nor_kept() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let file = offload(&dir);
    let planted = dir.join("atlatl-x-7ZZZZZZZZZZZZZZZZZZZZZZZZZ.jsonl");
    // A minute ahead is clock skew between replicas: still a resource, by its name's time.
    let skewed = dir.join(format!(
        "atlatl-skew-{}.jsonl",
        ulid_at(now_millis() + 30_000, 0)
    ));
    std::fs::copy(&file, &skewed).unwrap();
    // Further ahead the name is not trusted: the file goes by its modification time, now
    // (as a replica whose clock runs ahead writes it): listed, but after the newer files.
    let ahead = dir.join(format!(
        "atlatl-ahead-{}.jsonl",
        ulid_at(now_millis() + 3_600_000, 0)
    ));
    std::fs::copy(&file, &ahead).unwrap();
    set_mtime(&ahead, now_millis() - 600_000);
    // Planted once the proxy runs, its modification time far ahead too (touch -d): no time
    // to trust, so expired (its first cleanup may remove it: expired either way).
    let mut proxy = proxy_in(&dir);
    let plant = || {
        std::fs::copy(&file, &planted).unwrap();
        set_mtime(&planted, now_millis() + 10 * 365 * 86_400_000);
    };
    plant();
    let listed = proxy.call(1, "resources/list", json!({}));
    let names: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .filter(|name| name.starts_with("atlatl-"))
        .collect();
    assert_eq!(names.len(), 3, "{listed}");
    assert!(names[0].starts_with("atlatl-skew-"), "{names:?}");
    assert!(names[1].starts_with("atlatl-recall-"), "{names:?}");
    assert!(names[2].starts_with("atlatl-ahead-"), "{names:?}");
    let read = proxy.call(
        2,
        "resources/read",
        json!({"uri": "lro://offloads/atlatl-x-7ZZZZZZZZZZZZZZZZZZZZZZZZZ.jsonl"}),
    );
    assert_eq!(read["error"]["code"], -32002, "not_found: {read}");
    ping(&mut proxy, 3);

    if !planted.exists() {
        plant();
    }
    let cleanup = || {
        let out = lro(
            &[
                "cleanup",
                "--output-dir",
                dir.to_str().unwrap(),
                "--ttl-seconds",
                "3600",
            ],
            "",
            &[],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    };
    cleanup();
    assert!(!planted.exists(), "the far-future file outlived cleanup");
    assert!(skewed.exists() && file.exists() && ahead.exists());
    // Its time to live runs from its modification time.
    set_mtime(&ahead, now_millis() - 3_601_000);
    cleanup();
    assert!(!ahead.exists(), "kept past its modification time's TTL");
    assert!(skewed.exists() && file.exists());
}

#[test]
fn cleanup_removes_stale_temps_of_killed_writes_and_only_names_lro_writes() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    let file = offload(&dir);
    let two_hours_ago = ulid_at(now_millis() - 2 * 3_600_000, 0);
    let old = format!("atlatl-recall-{two_hours_ago}.jsonl");
    let write = |name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, "partial").unwrap();
        path
    };
    // What `kill -9` during an offload leaves: the temp name of an unfinished write.
    let stale = write(&format!("{old}.tmp-1234567890"));
    let fresh = write(&format!(
        "atlatl-recall-{}.jsonl.tmp-42",
        ulid_at(now_millis(), 0)
    ));
    let leading_zero = write(&format!("{old}.tmp-0123"));
    let not_a_number = write(&format!("{old}.tmp-x"));
    // An expired name LRO never writes (lower-case ULID): left alone.
    let lower_old = write("atlatl-recall-01arz3ndektsv4rrffq69g5fav.jsonl");
    let out = lro(
        &[
            "cleanup",
            "--output-dir",
            dir.to_str().unwrap(),
            "--ttl-seconds",
            "3600",
        ],
        "",
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stale.exists(), "the stale temp was left");
    for kept in [&fresh, &leading_zero, &not_a_number, &lower_old, &file] {
        assert!(kept.exists(), "{} was removed", kept.display());
    }
}

#[test]
fn a_shared_output_directory_is_refused_unless_asked_for() {
    let root = tempfile::tempdir().unwrap();
    let shared = root.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let d = shared.to_str().unwrap();
    // Offloading falls back inline, saying why; the call still answers (exit 0).
    let out = lro(
        &["offload", "--operation", "recall", "--output-dir", d],
        memories(200),
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let inline: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(inline["offloaded"], false);
    let warning = inline["warning"].as_str().unwrap();
    assert!(
        warning.contains("not private") && warning.contains("allow_shared_dir"),
        "{warning}"
    );
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0);
    // Reading there is a configuration error.
    let name = format!("atlatl-recall-{}.jsonl", ulid_at(now_millis(), 0));
    let out = extract(&shared, &name, &["--count"]);
    assert_eq!(out.status.code(), Some(EXIT_CONFIG), "{}", stderr(&out));
    assert!(stderr(&out).contains("invalid_config"), "{}", stderr(&out));
    let out = lro(&["cleanup", "--output-dir", d], "", &[]);
    assert_eq!(out.status.code(), Some(EXIT_CONFIG), "{}", stderr(&out));

    // Asked for: the flag, or the environment.
    let out = lro(
        &[
            "offload",
            "--operation",
            "recall",
            "--output-dir",
            d,
            "--allow-shared-dir",
        ],
        memories(200),
        &[],
    );
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = descriptor["file_path"]
        .as_str()
        .expect("offloaded")
        .to_owned();
    let out = lro(
        &["extract", "--output-dir", d, &file, "--count"],
        "",
        &[("ATLATL_PROMPT__OFFLOAD__ALLOW_SHARED_DIR", "true")],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // Owned by another user, even 0700 (chown needs root).
    let theirs = root.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    if std::os::unix::fs::chown(&theirs, Some(4242), Some(4242)).is_ok() {
        let out = lro(
            &["cleanup", "--output-dir", theirs.to_str().unwrap()],
            "",
            &[],
        );
        assert_eq!(out.status.code(), Some(EXIT_CONFIG));
        assert!(
            stderr(&out).contains("owned by another user"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn the_default_directory_is_private_and_a_planted_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let env = [("TMPDIR", tmp.path().to_str().unwrap())];
    let out = lro(&["offload", "--operation", "recall"], memories(200), &env);
    assert!(out.status.success(), "{}", stderr(&out));
    let descriptor: Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = PathBuf::from(descriptor["file_path"].as_str().expect("offloaded"));
    let default = file.parent().unwrap();
    let uid = std::fs::metadata(tmp.path())
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap();
    assert_eq!(
        default,
        std::fs::canonicalize(tmp.path())
            .unwrap()
            .join(format!("lro-{uid}"))
    );
    let mode = std::fs::metadata(default).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);

    // Someone made lro-<uid> a link to a directory of theirs before this user's first run.
    let planted = tempfile::tempdir().unwrap();
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    let env = [("TMPDIR", planted.path().to_str().unwrap())];
    std::os::unix::fs::symlink(&theirs, planted.path().join(format!("lro-{uid}"))).unwrap();
    let out = lro(&["offload", "--operation", "recall"], memories(200), &env);
    assert!(out.status.success(), "{}", stderr(&out));
    let inline: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(inline["offloaded"], false);
    assert!(
        inline["warning"]
            .as_str()
            .unwrap()
            .contains("is a symbolic link"),
        "{inline}"
    );
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0);
}
